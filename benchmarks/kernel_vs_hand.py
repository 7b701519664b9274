#!/usr/bin/env python3
"""The AVX-512 kernels against hand-written loops, at the kernel's entry point, in one process.

    python benchmarks/kernel_vs_hand.py                        # this tree, the default kernel
    python benchmarks/kernel_vs_hand.py --kernels avx512_zen4,avx512 --rounds 9
    python benchmarks/kernel_vs_hand.py --old /tmp/base         # before/after, one process
    python benchmarks/kernel_vs_hand.py --old /tmp/base --kinds # every kind and operation

Builds the library of a source tree (every csrc/lib file and kernel file, with
setup.py's own lists and flags, -O3 as CPython's) with benchmarks/kernel_vs_hand.c,
which times each kernel's uint32 index32 entry point (filter_indexes with out=,
one thread, no driver) and copies of the hand-written ceiling loops (ceiling.c, outside this repository)
(register, merge and memory forms, plus 256-bit compresses) in turn, best of
--rounds, and prints kernel / best hand loop per size and selectivity. With
--old TREE (a `git worktree` of the commit before, say), the named kernels of
that tree are compiled too, their symbols renamed (objcopy), and linked into
the same program as old:<name>: before and after are timed in one process,
interleaved. x86-64 with AVX-512 only; needs nm and objcopy.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_setup(root: Path):
    spec = importlib.util.spec_from_file_location("sf_setup_%d" % id(root), root / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_library(root: Path, out: Path, cc: str, cflags=()):
    """[(object, kernel name or None)] of the library of the tree at root."""
    setup = load_setup(root)
    common = (
        list(setup.C_STD)
        + ["-O3", "-fwrapv", "-DNDEBUG", "-pthread"]
        + ["-I%s" % (root / d) for d in setup.INCLUDE_DIRS]
        + ["-D%s=%s" % m for m in setup.kernel_macros("x86_64", str(root))]
        + list(cflags)
    )
    units = [(root / s, [], None) for s in setup.library_sources(str(root))]
    units += [
        (root / path, flags, isa) for isa, path, flags in setup.kernel_sources("x86_64", str(root))
    ]
    out.mkdir(parents=True, exist_ok=True)
    procs, objs = [], []
    for i, (src, flags, isa) in enumerate(units):
        obj = out / ("%02d_%s.o" % (i, src.stem))
        objs.append((obj, isa))
        procs.append(
            subprocess.Popen([cc] + common + list(flags) + ["-c", str(src), "-o", str(obj)])
        )
    if any(p.wait() for p in procs):
        sys.exit("the library of %s does not compile" % root)
    return objs


def old_kernels(old: Path, out: Path, cc: str, names, cflags=()):
    """Objects holding the named kernels of the tree `old`, every symbol they
    define renamed old_<symbol> (their tables: sf_kernel_old_<name>)."""
    objs = []
    for obj, isa in compile_library(old, out, cc, cflags):
        if isa not in names:
            continue
        defined = subprocess.run(
            ["nm", "--defined-only", "-g", str(obj)], capture_output=True, text=True, check=True
        ).stdout.split()[2::3]
        renamed = obj.with_name("old_" + obj.name)
        subprocess.run(
            ["objcopy"]
            + [
                "--redefine-sym=%s=%s"
                % (
                    sym,
                    sym.replace("sf_kernel_", "sf_kernel_old_", 1)
                    if sym.startswith("sf_kernel_")
                    else "old_" + sym,
                )
                for sym in defined
            ]
            + [str(obj), str(renamed)],
            check=True,
        )
        objs.append(renamed)
    return objs


def build(root: Path, work: Path, cc: str, cflags=(), old=None, old_names=()) -> Path:
    """The benchmark linked with the library of the tree at root (and, with
    old, the kernels old_names of that tree as old:<name>)."""
    tag = hashlib.sha256(repr((str(root), list(cflags), str(old))).encode()).hexdigest()[:8]
    out = work / tag
    objs = [o for o, _ in compile_library(root, out / "new", cc, cflags)]
    names = sorted(set(old_names)) if old else []
    if old:
        objs += old_kernels(old, out / "old", cc, names)
    tables = out / "old_tables.c"
    tables.write_text(
        '#include "simdfilter.h"\n'
        + "".join("extern const sf_kernel sf_kernel_old_%s;\n" % n for n in names)
        + "const sf_kernel *const OLD_TABLES[] = {%s};\n"
        % ", ".join(["&sf_kernel_old_%s" % n for n in names] or ["0"])
        + "const char *const OLD_NAMES[] = {%s};\n"
        % ", ".join(['"%s"' % n for n in names] or ["0"])
        + "const size_t OLD_COUNT = %d;\n" % len(names)
    )
    binary = out / "kernel_vs_hand"
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-O2",
            "-I%s" % (root / "csrc/include"),
            str(HERE / "kernel_vs_hand.c"),
            str(tables),
        ]
        + [str(o) for o in objs]
        + ["-pthread", "-lm", "-o", str(binary)],
        check=True,
    )
    return binary


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=str(HERE.parent), help="the source tree (default: this one)")
    p.add_argument(
        "--old",
        help="a second source tree: its kernels are linked in as old:<name> and timed in "
        "the same process, interleaved, as if named in --kernels before the new ones",
    )
    p.add_argument("--sizes", default="65536,262144,1048576")
    p.add_argument("--sels", default="0.01,0.1,0.5,0.9")
    p.add_argument("--kernels", default="avx512_zen4")
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--repeat", type=int, default=1, help="runs of the program")
    p.add_argument(
        "--kinds", action="store_true", help="every element kind and operation, the kernels only"
    )
    p.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    p.add_argument("--cflags", default="", help="extra flags for the library's files (both trees)")
    p.add_argument(
        "--offset",
        type=int,
        default=0,
        help="bytes past a 64-byte boundary where the input starts (NumPy's arrays: 16 or 32; "
        "down to a multiple of 4, or of 8 with --kinds); every loop reads the same input",
    )
    args = p.parse_args()
    names = args.kernels.split(",")
    kernels = (["old:" + k for k in names] if args.old else []) + names
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(
            Path(args.root).resolve(),
            Path(tmp),
            args.cc,
            args.cflags.split(),
            Path(args.old).resolve() if args.old else None,
            names,
        )
        env = dict(os.environ, KINDS="1" if args.kinds else "0", OFFSET=str(args.offset))
        for rep in range(args.repeat):
            print(
                "== %s%s, run %d"
                % (args.root, " against %s" % args.old if args.old else "", rep + 1),
                flush=True,
            )
            subprocess.run(
                [str(binary), str(args.rounds), args.sizes, args.sels, ",".join(kernels)],
                check=True,
                env=env,
            )


if __name__ == "__main__":
    main()
