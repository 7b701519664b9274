"""csrc/'s includes and calls go the way csrc/README.md's layers block says
(.ci/layers.py), and the check itself catches a wrong-way include and call, and
a circle of calls in the CPython binding."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / ".ci" / "layers.py"

needs_tools = pytest.mark.skipif(
    not (shutil.which(os.environ.get("CC", "cc").split()[0]) and shutil.which("nm")),
    reason="the layer check compiles csrc/lib and reads its objects: needs a C compiler (CC, cc) and nm",
)
# Under qemu (tests/aarch64/run.sh) the emulated interpreter cannot start
# another program by path, and the check reads the sources, the same on every
# architecture: the native suite runs it.
native_only = pytest.mark.skipif(
    bool(os.environ.get("SIMDFILTER_AARCH64_CPU")),
    reason="the layer check reads the sources, not the CPU: the native suite runs it, not the emulated one",
)


# The binding builds against NumPy 2's headers (setup.py's build requirement) and
# runs on NumPy 1 too; the check reads csrc/cpython with the headers installed here.
numpy2_headers = pytest.mark.skipif(
    np.lib.NumpyVersion(np.__version__) < "2.0.0",
    reason="the layer check builds csrc/cpython with the installed NumPy's headers, and the "
    "binding needs NumPy 2's (the oldest-versions run has NumPy 1)",
)


def run_check(csrc_root):
    return subprocess.run(
        [sys.executable, str(csrc_root / ".ci" / "layers.py")], capture_output=True, text=True
    )


@needs_tools
@native_only
@numpy2_headers
def test_csrc_keeps_its_layers():
    done = run_check(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


# The check's own test, slow: it copies csrc/ and compiles it again (0.8 s of
# CPU, AMD EPYC Zen 4) to test .ci/layers.py, which changes rarely; the quick
# loop runs the check itself (above), the full suite this too.
@pytest.mark.slow
@needs_tools
@native_only
@numpy2_headers
def test_the_check_fails_on_a_wrong_way_include_and_call(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "csrc", copy / "csrc", ignore=shutil.ignore_patterns("rust"))
    (copy / ".ci").mkdir()
    shutil.copy(CHECK, copy / ".ci" / "layers.py")
    ranges = copy / "csrc" / "lib" / "ranges.c"
    ranges.write_text(ranges.read_text() + '\n#include "../kernels/kernel_common.h"\n')
    serial = copy / "csrc" / "lib" / "serial.c"
    serial.write_text(
        serial.read_text() + "\nint sf_probe(void);\n"
        "int sf_probe(void) { return sf_execute_mask(0, 0, 0, 0, 0, 0); }\n"
    )
    arrays = copy / "csrc" / "cpython" / "arrays.c"
    arrays.write_text(
        arrays.read_text() + "\nPyObject *sfpy_probe(const sf_query *q, const column *c);\n"
        "PyObject *sfpy_probe(const sf_query *q, const column *c) "
        "{ return sfpy_bits_result(q, 1, c, 1); }\n"
    )
    done = run_check(copy)
    assert done.returncode == 1
    assert 'lib/ranges.c includes "../kernels/kernel_common.h"' in done.stdout
    assert "lib/serial.c calls sf_execute_mask of lib/masks.c, a layer above it" in done.stdout
    assert (
        "cpython/ goes round a circle: arrays.c -> masks_py.c -> arrays.c "
        "(masks_py.c calls sfpy_first, sfpy_new_array)" in done.stdout
    ), done.stdout


@native_only
def test_what_import_simdfilter_loads_never_imports_the_package_back():
    """The package's own circle (issue 44): __init__ -> _zonemap -> _face ->
    _conjunction -> `import simdfilter`. A module that `import simdfilter`
    loads reaches its siblings relatively (`from . import _core`), never
    through the package it is part of, which is half-built while it loads."""
    import ast

    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, simdfilter; print(' '.join(m.__file__ for n, m in sys.modules.items()"
            " if n.split('.')[0] == 'simdfilter' and getattr(m, '__file__', '')"
            " and m.__file__.endswith('.py')))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert any(f.endswith("_zonemap.py") for f in loaded), loaded
    wrong = []
    for path in loaded:
        for node in ast.walk(ast.parse(Path(path).read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            wrong += [
                "%s:%d imports %s" % (Path(path).name, node.lineno, n)
                for n in names
                if n.split(".")[0] == "simdfilter"
            ]
    assert not wrong, wrong
