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
    calls cpython: acyclic        no two files of csrc/cpython call each
                                  other's functions, directly or round a
                                  circle (data, such as NumPy's API table,
                                  aside)

Exit status 1, with one line per broken rule, when any is broken. Needs a C
compiler (CC, default cc) and nm; for csrc/cpython, Python's headers and
NumPy's (found from the interpreter that runs this). Each file's symbols are
kept in ~/.cache/simdfilter-layers (a layers/ folder in SIMDFILTER_CBUILD_CACHE
when set, as tests/cbuild.py's; set empty: nothing kept), named by a hash of
the compiler command (Python's and NumPy's versions in it), the file and every
header under csrc/, so a check where no C file changed compiles nothing.
"""

import hashlib
import json
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
    """({folder: [allowed prefixes]}, [[files of lib's layer], ...] top first,
    [folders whose calls go round no circle])."""
    m = re.search(r"```layers\n(.*?)```", readme.read_text(), re.S)
    if not m:
        sys.exit("%s has no ```layers block" % readme)
    includes, calls, acyclic = {}, [], []
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
        elif kind[0] == "calls" and len(kind) == 2 and rest.split() == ["acyclic"]:
            acyclic.append(kind[1])
        else:
            sys.exit("csrc/README.md's layers block: cannot read %r" % line)
    return includes, calls, acyclic


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


def _cache_dir():
    chosen = os.environ.get("SIMDFILTER_CBUILD_CACHE")
    if chosen is None:
        return Path.home() / ".cache" / "simdfilter-layers"
    return Path(chosen) / "layers" if chosen else None


def _headers_digest(csrc):
    h = hashlib.sha256()
    for p in sorted(csrc.rglob("*.h")) + sorted(csrc.rglob("*.def")):
        h.update(str(p.relative_to(csrc)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def symbols(cc, source, tmp, headers=""):
    """(defined, used, functions) of a C file's object, from the cache when kept."""
    key = hashlib.sha256(
        json.dumps([cc, headers, str(source.name)]).encode() + source.read_bytes()
    ).hexdigest()
    cache = _cache_dir()
    kept = cache / (key + ".json") if cache else None
    if kept and kept.exists():
        defined, used, functions = json.loads(kept.read_text())
        return set(defined), set(used), set(functions)
    found = _symbols(cc, source, tmp)
    if kept:
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            part = kept.with_suffix(".%d.tmp" % os.getpid())
            part.write_text(json.dumps([sorted(x) for x in found]))
            part.replace(kept)  # whole or not at all, beside other checks running
        except OSError:
            pass
    return found


def _symbols(cc, source, tmp):
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
    defined, used, functions = set(), set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDRBC":
            defined.add(parts[2])
            if parts[1] == "T":
                functions.add(parts[2])
    return defined, used, functions


def folder_symbols(csrc, folder, flags):
    """{file name: (defined, used, functions)} of every csrc/FOLDER/*.c, built with
    the C compiler (CC) and `flags`, four at a time."""
    cc = shlex.split(os.environ.get("CC", "cc")) + flags
    present = sorted((csrc / folder).glob("*.c"))
    headers = _headers_digest(csrc)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as pool:
        found = pool.map(lambda f: symbols(cc, f, tmp, headers), present)
        return dict(zip((p.name for p in present), found))


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
    found = folder_symbols(csrc, "lib", [])
    owner = {s: f for f, (defined, _, _) in found.items() for s in defined}
    for f, (_, used, _) in found.items():
        for s in sorted(used):
            g = owner.get(s)
            if g and f in rank and g in rank and rank[g] <= rank[f]:
                errors.append(
                    "lib/%s calls %s of lib/%s, a layer %s it"
                    % (f, s, g, "above" if rank[g] < rank[f] else "beside")
                )
    return errors


def binding_flags():
    """The C flags a csrc/cpython file compiles with here: Python's headers and
    NumPy's, as setup.py gives them."""
    import sysconfig

    try:
        import numpy
    except ImportError:
        sys.exit(
            "layers: csrc/cpython's calls are read from objects built with NumPy's headers: "
            "install numpy"
        )
    return [
        "-I%s" % sysconfig.get_paths()["include"],
        "-I%s" % numpy.get_include(),
        "-DNPY_NO_DEPRECATED_API=NPY_1_23_API_VERSION",
        "-DNPY_TARGET_VERSION=NPY_1_23_API_VERSION",
        # unused by the sources: names the versions in the cache's key
        "-DSF_LAYERS_VERSIONS=%s_%s" % (sys.version.split()[0], numpy.__version__),
    ]


def circle(edges):
    """A circle of the graph {file: {files it calls}} as a list of files, or None."""
    state = {}

    def visit(f, path):
        state[f] = 1
        for g in sorted(edges[f]):
            if state.get(g) == 1:
                return path[path.index(g) :] + [g]
            if g not in state:
                found = visit(g, path + [g])
                if found:
                    return found
        state[f] = 2
        return None

    for f in sorted(edges):
        if f not in state:
            found = visit(f, [f])
            if found:
                return found
    return None


def circle_errors(csrc, folder):
    found = folder_symbols(csrc, folder, binding_flags())
    owner = {s: f for f, (_, _, functions) in found.items() for s in functions}
    edges = {f: {owner[s] for s in used if s in owner} - {f} for f, (_, used, _) in found.items()}
    errors = []
    while True:
        found_circle = circle(edges)
        if not found_circle:
            return errors
        a, b = found_circle[-2], found_circle[-1]
        calls = sorted(s for s in found[a][1] if owner.get(s) == b)
        errors.append(
            "%s/ goes round a circle: %s (%s calls %s)"
            % (folder, " -> ".join(found_circle), a, ", ".join(calls))
        )
        edges[a].discard(b)  # report each circle once


def main():
    includes, layers, acyclic = rules(CSRC / "README.md")
    errors = include_errors(CSRC, includes) + call_errors(CSRC, layers)
    for folder in acyclic:
        errors += circle_errors(CSRC, folder)
    for e in errors:
        print(e)
    if not errors:
        print("layers: every include and call of csrc/ goes the way csrc/README.md says")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
