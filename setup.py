"""Build simdfilter: plain setuptools, one compile per kernel file with its own ISA flags.

The table below is the single source of truth for which kernel files exist on
which architecture and with which flags they are compiled; the C test harness
(tests/test_c_harness.py) imports it from here. No -march=native anywhere: a
wheel built on one machine must run on every CPU of its architecture and pick
its best kernel at run time (csrc/dispatch.c).
"""

import glob
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# kernels/<isa>.c -> the flags it, and only it, is compiled with (GCC and Clang).
KERNEL_FLAGS = {
    "x86_64": {
        "sse41": ["-msse4.1"],
        "avx2": ["-mavx2", "-mbmi", "-mbmi2", "-mpopcnt"],
        "avx512": ["-mavx512f", "-mavx512vl", "-mavx512bw", "-mavx512dq",
                   "-mavx2", "-mbmi", "-mbmi2", "-mpopcnt"],
    },
    "aarch64": {
        "neon": [],  # NEON is the aarch64 baseline
        "sve": ["-march=armv8-a+sve"],
    },
}

def source_glob(pattern):
    """Paths relative to the source root, sorted (setuptools wants relative ones)."""
    return sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, pattern)))


# Compiled for the baseline of the architecture, with no ISA flag: the
# Python-free library (csrc/lib) with the scalar kernel, and the CPython binding.
CORE_SOURCES = source_glob("csrc/lib/*.c") + ["csrc/kernels/scalar.c"]
BINDING_SOURCES = source_glob("csrc/cpython/*.c")
INCLUDE_DIRS = ["csrc/include", "csrc/lib"]
C_STD = ["-std=c11"]


def normalize_arch(machine=None):
    """'x86_64', 'aarch64' or the raw machine name for anything else."""
    m = (machine or platform.machine()).lower()
    if m in ("x86_64", "amd64", "x64"):
        return "x86_64"
    if m in ("aarch64", "arm64"):
        return "aarch64"
    return m


def kernel_sources(arch=None, root=HERE):
    """[(isa, path relative to root, flags)] for the kernel files of `arch` that exist."""
    table = KERNEL_FLAGS.get(normalize_arch(arch), {})
    # SIMDFILTER_DISABLE_KERNELS=avx512,sse41 builds without those (say, for an
    # assembler too old for AVX-512); the scalar kernel is always there.
    disabled = {s.strip() for s in os.environ.get("SIMDFILTER_DISABLE_KERNELS", "").split(",")}
    if not sys.platform.startswith("linux"):
        # dispatch.c detects SVE through Linux's HWCAP only: elsewhere it could
        # never be chosen, so it is not built.
        disabled.add("sve")
    out = []
    for isa, flags in table.items():
        if isa in disabled:
            continue
        path = "csrc/kernels/%s.c" % isa
        if os.path.exists(os.path.join(root, path)):
            out.append((isa, path, list(flags)))
    return out


def kernel_macros(arch=None, root=HERE):
    """-D flags telling dispatch.c which kernels are compiled in."""
    return [("SF_HAVE_%s" % isa.upper(), "1") for isa, _, _ in kernel_sources(arch, root)]


def warning_flags():
    # -Werror only where we control the compiler (CI, tests): a newer compiler's
    # new warning must not break a user's `pip install`.
    flags = ["-Wall", "-Wextra"]
    if os.environ.get("SIMDFILTER_WERROR") == "1":
        flags.append("-Werror")
    return flags


def main():
    import numpy as np
    from setuptools import Extension, setup
    from setuptools.command.build_ext import build_ext

    class BuildExtWithIsaFlags(build_ext):
        """Compile every kernels/<isa>.c with its own flags, then link them in."""

        def build_extension(self, ext):
            if self.compiler.compiler_type == "msvc":
                raise RuntimeError("simdfilter builds with GCC or Clang; MSVC is not supported yet")
            objects = []
            for isa, path, flags in kernel_sources():
                objects += self.compiler.compile(
                    [path],
                    output_dir=self.build_temp,
                    macros=ext.define_macros,
                    include_dirs=ext.include_dirs,
                    extra_postargs=ext.extra_compile_args + flags,
                    depends=ext.depends,
                )
            ext.extra_objects = list(ext.extra_objects or []) + objects
            super().build_extension(ext)

    ext = Extension(
        "simdfilter._core",
        sources=CORE_SOURCES + BINDING_SOURCES,
        include_dirs=INCLUDE_DIRS + [np.get_include()],
        define_macros=kernel_macros() + [
            # Build against NumPy 2 headers, run on NumPy >= 1.23 as well.
            ("NPY_TARGET_VERSION", "NPY_1_23_API_VERSION"),
            ("NPY_NO_DEPRECATED_API", "NPY_1_23_API_VERSION"),
        ],
        extra_compile_args=C_STD + warning_flags(),
        extra_link_args=["-pthread"],
        depends=["csrc/include/simdfilter.h", "csrc/lib/library.h", "csrc/cpython/binding.h",
                 "csrc/cpython/docstrings.h"]
        + source_glob("csrc/kernels/*.h") + ["csrc/kernels/isa.def"],
    )
    setup(ext_modules=[ext], cmdclass={"build_ext": BuildExtWithIsaFlags})


if __name__ == "__main__":
    main()
