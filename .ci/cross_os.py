"""Cross-compile the C library for macOS (x86-64, arm64) and Windows (x86-64)
with Zig's C compiler, -Werror, and link tests/c/cross_smoke.c against it.

    python .ci/cross_os.py ZIG OUT

ZIG is the command that runs zig: its executable, or "PYTHON -m ziglang" with a
Python that has PyPI's ziglang (the tools venv .ci/wheels makes).
What is built for a target is what setup.py builds for its architecture: every
C file under csrc/lib, the scalar kernel, and each kernel file of the
architecture with its own flags from csrc/kernels/isa.def (SVE only on Linux,
where dispatch can detect it). This machine cannot run the programs; it proves
that the sources compile warning-free and link for those systems (no Linux-only
call outside an #ifdef __linux__), and the file format of what was linked.
"""

import concurrent.futures
import importlib.util
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    # zig target: (isa.def architecture, what the linked file starts with)
    "x86_64-macos": ("x86_64", b"\xcf\xfa\xed\xfe"),  # Mach-O, 64-bit, little-endian
    "aarch64-macos": ("aarch64", b"\xcf\xfa\xed\xfe"),
    "x86_64-windows-gnu": ("x86_64", b"MZ"),  # PE
}


def load_setup():
    spec = importlib.util.spec_from_file_location("simdfilter_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def units(setup, arch, linux):
    """[(source, extra flags)] and the -D flags of one target."""
    kernels = [
        (isa, ROOT / "csrc/kernels" / (source + ".c"), flags)
        for isa, source, isa_arch, _, flags in setup.isa_table(str(ROOT))
        if isa_arch == arch and (linux or isa != "sve")
    ]
    kernels = [(isa, path, flags) for isa, path, flags in kernels if path.exists()]
    out = [(ROOT / s, []) for s in setup.library_sources(str(ROOT))]
    out += [(path, flags) for _, path, flags in kernels]
    return out, ["-DSF_HAVE_%s=1" % isa for isa, _, _ in kernels], [isa for isa, _, _ in kernels]


def main(zig, out_dir):
    setup = load_setup()
    common = (
        list(setup.C_STD)
        + ["-Wall", "-Wextra", "-Werror", "-O1"]
        + ["-I%s" % (ROOT / d) for d in setup.INCLUDE_DIRS]
    )
    failed = 0
    for target, (arch, magic) in TARGETS.items():
        t0 = time.time()
        work = Path(out_dir) / target
        work.mkdir(parents=True, exist_ok=True)
        sources, defines, kernels = units(setup, arch, linux=False)
        sources.append((ROOT / "tests/c/cross_smoke.c", []))

        def compile_one(i_src):
            i, (src, flags) = i_src
            obj = work / ("%02d_%s.o" % (i, src.stem))
            cmd = (
                shlex.split(zig)
                + ["cc", "-target", target]
                + common
                + defines
                + list(flags)
                + ["-c", str(src), "-o", str(obj)]
            )
            r = subprocess.run(cmd, capture_output=True, text=True)
            return obj, cmd, r

        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            results = list(pool.map(compile_one, enumerate(sources)))
        errors = [(cmd, r) for _, cmd, r in results if r.returncode or r.stderr.strip()]
        for cmd, r in errors:
            print(
                "== %s: %s\n$ %s\n%s"
                % (target, "FAILED" if r.returncode else "warning", " ".join(cmd), r.stderr),
                file=sys.stderr,
            )
        if errors:
            failed += 1
            continue
        program = work / ("smoke.exe" if "windows" in target else "smoke")
        link = (
            shlex.split(zig)
            + ["cc", "-target", target]
            + [str(o) for o, _, _ in results]
            + ["-o", str(program)]
        )
        r = subprocess.run(link, capture_output=True, text=True)
        if r.returncode or not program.exists() or not program.read_bytes().startswith(magic):
            print(
                "== %s: link FAILED\n$ %s\n%s" % (target, " ".join(link), r.stderr), file=sys.stderr
            )
            failed += 1
            continue
        print(
            "== %s: lib + kernels %s compiled -Werror and linked: %s, %d bytes, %.0f s"
            % (
                target,
                ",".join(["scalar"] + kernels),
                program.name,
                program.stat().st_size,
                time.time() - t0,
            )
        )
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
