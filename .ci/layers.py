#!/usr/bin/env python3
"""Check csrc/'s layers: that includes and calls go the way csrc/README.md says.

The rules are the ``layers`` block of csrc/README.md (its "Layers, checked"
section), one per line:

    includes FOLDER: PREFIX ...   what files of csrc/FOLDER may #include "..."
                                  (paths under csrc/; a prefix ending in / is a
                                  folder); <...> headers are the system's, but
                                  Python.h and numpy/ only in bindings
    calls lib: A.c > B.c C.c > D.c ...
                                  csrc/lib's files, top layer first: a file
                                  calls only functions of files in layers
                                  below its own (nm on each file's object)

Exit status 1, with one line per broken rule, when any is broken. Needs only a
C compiler (CC, default cc) and nm; no Python package.
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
BINDING_ONLY = ("Python.h", "numpy/")


def rules(readme):
    """({folder: [allowed prefixes]}, [[files of a layer], ...] top first)."""
    m = re.search(r"```layers\n(.*?)```", readme.read_text(), re.S)
    if not m:
        sys.exit("%s has no ```layers block" % readme)
    includes, calls = {}, []
    for line in m.group(1).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        kind, _, rest = line.partition(":")
        kind = kind.split()
        if kind[0] == "includes":
            includes[kind[1]] = rest.split()
        elif kind == ["calls", "lib"]:
            calls = [layer.split() for layer in rest.split(">")]
        else:
            sys.exit("csrc/README.md's layers block: cannot read %r" % line)
    return includes, calls


def include_errors(csrc, includes):
    errors = []
    for folder, allowed in includes.items():
        for f in sorted((csrc / folder).glob("*.[ch]")) + sorted((csrc / folder).glob("*.def")):
            for kind, name in INCLUDE_RE.findall(f.read_text()):
                rel = "%s/%s" % (folder, f.name)
                if kind == "<":
                    if folder != "cpython" and name.startswith(BINDING_ONLY):
                        errors.append("%s includes <%s>: only the bindings may" % (rel, name))
                    continue
                # as the compiler finds it: beside the file, then -Icsrc/include, -Icsrc
                for base in (f.parent, csrc / "include", csrc):
                    if (base / name).exists():
                        target = os.path.relpath((base / name).resolve(), csrc.resolve())
                        break
                else:
                    errors.append('%s includes "%s", which is not in csrc/' % (rel, name))
                    continue
                target = target.replace(os.sep, "/")
                if not any(
                    target == a or (a.endswith("/") and target.startswith(a)) for a in allowed
                ):
                    errors.append(
                        '%s includes "%s" (%s): %s/ may include only %s'
                        % (rel, name, target, folder, " ".join(allowed))
                    )
    return errors


def symbols(cc, source, tmp):
    obj = Path(tmp) / (source.stem + ".o")
    subprocess.run(
        cc
        + [
            "-std=c11",
            "-O0",
            "-I%s" % (CSRC / "include"),
            "-I%s" % CSRC,
            "-c",
            str(source),
            "-o",
            str(obj),
        ],
        check=True,
    )
    out = subprocess.run(["nm", str(obj)], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDRBC":
            defined.add(parts[2])
    return defined, used


def call_errors(csrc, layers):
    files = [f for layer in layers for f in layer]
    present = sorted(p.name for p in (csrc / "lib").glob("*.c"))
    errors = [
        "lib/%s is in no layer of csrc/README.md's layers block" % f
        for f in present
        if f not in files
    ]
    errors += [
        "the layers block names lib/%s, which does not exist" % f for f in files if f not in present
    ]
    rank = {f: i for i, layer in enumerate(layers) for f in layer}
    cc = shlex.split(os.environ.get("CC", "cc"))
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as pool:
        found = dict(zip(present, pool.map(lambda f: symbols(cc, csrc / "lib" / f, tmp), present)))
    owner = {s: f for f, (defined, _) in found.items() for s in defined}
    for f, (_, used) in found.items():
        for s in sorted(used):
            g = owner.get(s)
            if g and f in rank and g in rank and rank[g] <= rank[f]:
                errors.append(
                    "lib/%s calls %s of lib/%s, a layer %s it"
                    % (f, s, g, "above" if rank[g] < rank[f] else "beside")
                )
    return errors


def main():
    includes, layers = rules(CSRC / "README.md")
    errors = include_errors(CSRC, includes) + call_errors(CSRC, layers)
    for e in errors:
        print(e)
    if not errors:
        print("layers: every include and call of csrc/ goes the way csrc/README.md says")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
