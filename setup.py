"""Build simdfilter: plain setuptools, one compile per kernel file with its own ISA flags.

csrc/kernels/isa.def is the single source of truth for which kernel files exist
on which architecture and with which flags they are compiled; this file reads it
as text, and the C test helpers (tests/cbuild.py) import the functions below
from here. No -march=native anywhere: a wheel built on one machine must run on
every CPU of its architecture and pick its best kernel at run time
(csrc/lib/dispatch.c).
"""

import glob
import os
import platform
import re
import shlex
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))

ISA_TABLE = "csrc/kernels/isa.def"
# The line format isa.def's header comment fixes.
ISA_LINE = re.compile(r'^SF_ISA\((\w+),\s*(\w+),\s*(\w+),\s*([\w|]+),\s*"([^"]*)"\)$', re.M)
INCLUDE_DIRS = ["csrc/include", "csrc"]
C_STD = ["-std=c11"]


VERSION_HEADER = "csrc/include/simdfilter.h"
VERSION_LINE = re.compile(r'^#define SIMDFILTER_VERSION "([^"]+)"$', re.M)


def read_version(root=HERE):
    """The project's version: SIMDFILTER_VERSION in the public C header, the one
    place it is written. The wheel's metadata takes it from here, the module's
    __version__ from the header at compile time; the Rust crate's Cargo.toml
    repeats it, and tests/test_version.py checks that the three agree."""
    with open(os.path.join(root, VERSION_HEADER)) as f:
        found = VERSION_LINE.findall(f.read())
    if len(found) != 1:
        raise RuntimeError(
            '%s: expected one #define SIMDFILTER_VERSION "x.y.z" line, found %d'
            % (VERSION_HEADER, len(found))
        )
    return found[0]


def isa_table(root=HERE):
    """[(name, source, arch, [features], [flags])] for every line of isa.def, in
    its order: kernel `name` is csrc/kernels/<source>.c built with `flags`."""
    with open(os.path.join(root, ISA_TABLE)) as f:
        text = f.read()
    rows = [
        (name, source, arch, features.split("|"), shlex.split(flags))
        for name, source, arch, features, flags in ISA_LINE.findall(text)
    ]
    if not rows:
        raise RuntimeError("%s holds no SF_ISA(...) line" % ISA_TABLE)
    return rows


def target_machine():
    """The machine the extension is built FOR, which need not be the one building it.

    sysconfig.get_platform() is the host's 'linux-x86_64' in a native build and
    follows _PYTHON_HOST_PLATFORM (say 'linux-aarch64') in a cross build; it is
    also what names the wheel, so the kernel files and the wheel tag agree.
    """
    machine = sysconfig.get_platform().rsplit("-", 1)[-1]
    # 'win32', or macOS's 'universal2': no single target to read off.
    return machine if normalize_arch(machine) in ("x86_64", "aarch64") else platform.machine()


def compiler_target_arch(compiler_cmd):
    """The architecture `compiler_cmd` (argv list) generates code for, or None if it cannot say."""
    try:
        out = subprocess.run(
            list(compiler_cmd) + ["-dumpmachine"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return None
    triple = out.stdout.strip()
    return normalize_arch(triple.split("-", 1)[0]) if out.returncode == 0 and triple else None


def normalize_arch(machine=None):
    """'x86_64', 'aarch64' or the raw machine name for anything else (default: the target's)."""
    m = (machine or target_machine()).lower()
    if m in ("x86_64", "amd64", "x64"):
        return "x86_64"
    if m in ("aarch64", "arm64"):
        return "aarch64"
    return m


def kernel_sources(arch=None, root=HERE):
    """[(isa, path relative to root, flags)] for the kernels of `arch` whose source
    file exists (not the kernels of every architecture, such as scalar: see
    library_sources). A file built as two kernels is listed twice."""
    arch = normalize_arch(arch)
    # SIMDFILTER_DISABLE_KERNELS=avx512,sse41 builds without those (say, for an
    # assembler too old for AVX-512); the scalar kernel is always there.
    disabled = {s.strip() for s in os.environ.get("SIMDFILTER_DISABLE_KERNELS", "").split(",")}
    if not sys.platform.startswith("linux"):
        # dispatch detects SVE through Linux's HWCAP only: elsewhere it could
        # never be chosen, so it is not built.
        disabled.add("sve")
    out = []
    for isa, source, isa_arch, _, flags in isa_table(root):
        if isa_arch != arch or isa in disabled:
            continue
        path = "csrc/kernels/%s.c" % source
        if os.path.exists(os.path.join(root, path)):
            out.append((isa, path, flags))
    return out


def kernel_macros(arch=None, root=HERE):
    """-D flags telling dispatch which kernels are compiled in (SF_HAVE_<name>, the
    name as isa.def spells it: the C preprocessor cannot change its case)."""
    return [("SF_HAVE_%s" % isa, "1") for isa, _, _ in kernel_sources(arch, root)]


def _sources(pattern, root):
    return sorted(
        os.path.relpath(p, root).replace(os.sep, "/")
        for p in glob.glob(os.path.join(root, pattern), recursive=True)
    )


def library_sources(root=HERE):
    """The Python-free library, compiled for the architecture's baseline: every C file
    under csrc/lib and the kernels of every architecture (scalar)."""
    universal = []
    for isa, source, arch, _, flags in isa_table(root):
        if arch == "any":
            if flags:
                raise RuntimeError(
                    "%s: kernel %s is built everywhere, so it takes no flags" % (ISA_TABLE, isa)
                )
            universal.append("csrc/kernels/%s.c" % source)
    return _sources("csrc/lib/**/*.c", root) + universal


def binding_sources(root=HERE):
    """The CPython binding: every C file in csrc/cpython."""
    return _sources("csrc/cpython/*.c", root)


def header_files(root=HERE):
    """The headers (and isa.def): a change to any of them rebuilds everything."""
    return _sources("csrc/**/*.h", root) + [ISA_TABLE]


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
        """Compile every kernel of isa.def from its source file with its own flags,
        then link them in."""

        def build_extension(self, ext):
            if self.compiler.compiler_type == "msvc":
                raise RuntimeError("simdfilter builds with GCC or Clang; MSVC is not supported yet")
            # A cross build needs both CC and the target's sysconfig (README,
            # "aarch64 under qemu"); one without the other would compile one
            # architecture's kernel files with the other's compiler.
            cc = self.compiler.compiler_so
            # The command before its first flag: "ccache aarch64-linux-gnu-gcc" too.
            cc = cc[: next((i for i, a in enumerate(cc) if a.startswith("-")), len(cc))]
            cc_arch = compiler_target_arch(cc)
            if cc_arch is not None and cc_arch != normalize_arch():
                raise RuntimeError(
                    "the compiler %r builds for %s, but the target platform is %s (%s): set CC "
                    "and _PYTHON_HOST_PLATFORM for the same architecture"
                    % (" ".join(cc), cc_arch, normalize_arch(), sysconfig.get_platform())
                )
            objects = []
            for isa, path, flags in kernel_sources():
                # One folder per kernel: a file built as two kernels (avx512.c)
                # makes two objects of the same name.
                objects += self.compiler.compile(
                    [path],
                    output_dir=os.path.join(self.build_temp, "kernel_" + isa),
                    macros=ext.define_macros,
                    include_dirs=ext.include_dirs,
                    extra_postargs=ext.extra_compile_args + flags,
                    depends=ext.depends,
                )
            ext.extra_objects = list(ext.extra_objects or []) + objects
            super().build_extension(ext)

    ext = Extension(
        "simdfilter._core",
        sources=library_sources() + binding_sources(),
        include_dirs=INCLUDE_DIRS + [np.get_include()],
        define_macros=kernel_macros()
        + [
            # Build against NumPy 2 headers, run on NumPy >= 1.23 as well.
            ("NPY_TARGET_VERSION", "NPY_1_23_API_VERSION"),
            ("NPY_NO_DEPRECATED_API", "NPY_1_23_API_VERSION"),
        ],
        # Only PyInit__core is the module's interface: hidden symbols make the
        # calls between its files direct (no PLT) and let the compiler inline
        # within a file, which a small array's per-call cost is made of.
        extra_compile_args=C_STD + warning_flags() + ["-fvisibility=hidden"],
        extra_link_args=["-pthread"],
        # The kernel files are linked in as extra objects, which build_ext does not
        # check for changes: listed here, an edit to one rebuilds the module.
        depends=header_files() + sorted({path for _, path, _ in kernel_sources()}),
    )
    setup(version=read_version(), ext_modules=[ext], cmdclass={"build_ext": BuildExtWithIsaFlags})


if __name__ == "__main__":
    main()
