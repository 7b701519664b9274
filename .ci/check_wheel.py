"""Checks a Linux wheel of simdfilter is what a user without a compiler may install.

    python .ci/check_wheel.py [--auditwheel PATH] [--isa-def csrc/kernels/isa.def]
                              [--max-glibc 2.17] [--max-bytes 2000000] WHEEL...

For each wheel, from its file alone (no import: an aarch64 wheel is checked on
x86-64 the same way):
  - the tag is manylinux2014_<arch> (manylinux_2_17), and `auditwheel show`
    says the wheel is consistent with manylinux_2_17 or an older policy;
  - the highest GLIBC_ symbol version the extension needs (its .gnu.version_r)
    is at most --max-glibc: the symbol versions, not only the tag;
  - the extension is built for the tag's architecture (ELF e_machine);
  - every kernel isa.def lists for the architecture (and scalar) is in it: its
    table sf_kernel_<name> (isa.def: "the source file defines the table
    sf_kernel_<name>") in the symbol table, and its SF_HAVE_ counterpart: no
    kernel table of another architecture;
  - no DWARF (.debug_* sections) left, and the wheel is under --max-bytes.
Prints one line per wheel: size, auditwheel's verdict, highest GLIBC, kernels.
Needs pyelftools (an auditwheel dependency). Exit status 1 if any check fails.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile

from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection

ISA_LINE = re.compile(r'^SF_ISA\((\w+),\s*(\w+),\s*(\w+),\s*([\w|]+),\s*"([^"]*)"\)$', re.M)
MACHINES = {"EM_X86_64": "x86_64", "EM_AARCH64": "aarch64"}
TAG = re.compile(r"-(cp\d+)-(cp\d+)-([\w.]+)\.whl$")


def version_key(v):
    return tuple(int(p) for p in v.split("."))


def kernels_for(isa_def, arch):
    with open(isa_def) as f:
        rows = ISA_LINE.findall(f.read())
    return [name for name, _, a, _, _ in rows if a in ("any", arch)], [
        name for name, _, a, _, _ in rows if a not in ("any", arch)
    ]


def check(wheel, args):
    problems = []
    name = os.path.basename(wheel)
    size = os.path.getsize(wheel)
    m = TAG.search(name)
    platforms = m.group(3).split(".") if m else []
    arch = next(
        (a for a in ("x86_64", "aarch64") if any(p.endswith("_" + a) for p in platforms)), None
    )
    if arch is None:
        return ["%s: no x86_64 or aarch64 platform tag" % name], None
    if "manylinux2014_%s" % arch not in platforms:
        problems.append("tag %s is not manylinux2014_%s" % (".".join(platforms), arch))
    if size >= args.max_bytes:
        problems.append("%d bytes, not under %d" % (size, args.max_bytes))

    show = subprocess.run([args.auditwheel, "show", wheel], capture_output=True, text=True)
    text = " ".join((show.stdout + show.stderr).split())
    verdict = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
    verdict = verdict.group(1) if verdict else None
    # The oldest policy the wheel meets: manylinux_2_17 or older is what we want.
    policy = re.fullmatch(r"manylinux_2_(\d+)_%s" % arch, verdict or "")
    if show.returncode != 0 or not policy or int(policy.group(1)) > 17:
        problems.append("auditwheel show: %s" % (text or "exit %d" % show.returncode))

    with zipfile.ZipFile(wheel) as z, tempfile.TemporaryDirectory() as tmp:
        sos = [n for n in z.namelist() if n.endswith(".so")]
        if len(sos) != 1 or not re.search(r"/_core\.cpython-\d+-%s-linux-gnu\.so$" % arch, sos[0]):
            problems.append(
                "expected one simdfilter/_core.cpython-*-%s-linux-gnu.so, found %s" % (arch, sos)
            )
        if not sos:
            return problems, None
        path = z.extract(sos[0], tmp)
        so_size = os.path.getsize(path)
        with open(path, "rb") as f:
            elf = ELFFile(f)
            machine = MACHINES.get(elf["e_machine"], elf["e_machine"])
            if machine != arch:
                problems.append("the extension is built for %s, the tag says %s" % (machine, arch))
            glibc = []
            for sec in elf.iter_sections():
                if isinstance(sec, GNUVerNeedSection):
                    for verneed, auxes in sec.iter_versions():
                        for aux in auxes:
                            if aux.name.startswith("GLIBC_") and re.fullmatch(
                                r"[\d.]+", aux.name[6:]
                            ):
                                glibc.append(aux.name[6:])
            top = max(glibc, key=version_key) if glibc else "none"
            if glibc and version_key(top) > version_key(args.max_glibc):
                newer = sorted(
                    {v for v in glibc if version_key(v) > version_key(args.max_glibc)},
                    key=version_key,
                )
                problems.append(
                    "needs GLIBC_%s (> %s: %s)" % (top, args.max_glibc, ", ".join(newer))
                )
            debug = [
                s.name for s in elf.iter_sections() if s.name.startswith((".debug", ".zdebug"))
            ]
            if debug:
                problems.append("DWARF left in the extension: %s" % ", ".join(debug))
            symtab = elf.get_section_by_name(".symtab")
            symbols = {s.name for s in symtab.iter_symbols()} if symtab else set()
    want, other = kernels_for(args.isa_def, arch)
    if not symbols:
        problems.append("no symbol table: the kernels cannot be checked")
    missing = [k for k in want if "sf_kernel_" + k not in symbols]
    if missing:
        problems.append("kernels of isa.def missing: %s" % ", ".join(missing))
    foreign = [k for k in other if "sf_kernel_" + k in symbols]
    if foreign:
        problems.append("kernels of another architecture: %s" % ", ".join(foreign))
    line = "%s: %d bytes (extension %d), auditwheel: %s, highest GLIBC_%s, kernels: %s" % (
        name,
        size,
        so_size,
        verdict,
        top,
        " ".join(k for k in want if k not in missing),
    )
    return problems, line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wheels", nargs="+")
    ap.add_argument("--auditwheel", default="auditwheel")
    ap.add_argument(
        "--isa-def", default=os.path.join(os.path.dirname(__file__), "..", "csrc/kernels/isa.def")
    )
    ap.add_argument("--max-glibc", default="2.17")
    ap.add_argument("--max-bytes", type=int, default=2_000_000)
    args = ap.parse_args()
    failed = False
    for wheel in args.wheels:
        problems, line = check(wheel, args)
        if line:
            print("   " + line)
        for p in problems:
            print("   FAIL %s: %s" % (os.path.basename(wheel), p))
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
