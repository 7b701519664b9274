"""The extension stands alone (issue 44): it never imports the package and keeps no
helpers of it to call back, so a module object loaded without the package answers
every kind of bound, the exact and the slow ones too."""

import subprocess
from pathlib import Path


from simdfilter import _core

SRC = Path(__file__).resolve().parents[1] / "csrc" / "cpython"


def test_binding_imports_no_simdfilter_module():
    for path in sorted(SRC.glob("*.c")):
        text = path.read_text()
        assert 'PyImport_ImportModule("simdfilter' not in text, path.name


def test_the_extension_alone_reads_every_bound(fresh_python):
    # The extension loaded on its own, the package never imported.
    code = (
        "import importlib.machinery, importlib.util, sys, datetime as dt\n"
        "from decimal import Decimal\n"
        "from fractions import Fraction\n"
        "import numpy as np\n"
        "loader = importlib.machinery.ExtensionFileLoader('simdfilter._core', sys.argv[1])\n"
        "spec = importlib.util.spec_from_loader('simdfilter._core', loader)\n"
        "core = importlib.util.module_from_spec(spec)\n"
        "loader.exec_module(core)\n"
        "print(core.filter_indexes(np.arange(4), 1, 2).tolist())\n"
        "print(core.filter_indexes(np.arange(4), Fraction(1, 2), Decimal('2.5')).tolist())\n"
        "print(core.filter_indexes(np.arange(4.0), np.longdouble(0.5), np.array(2)).tolist())\n"
        "hours = np.arange(4).view('M8[h]')\n"
        "print(core.filter_indexes(hours, '1970-01-01T01', None).tolist())\n"
        "try:\n"
        "    core.filter_indexes(np.arange(4), 'x', None)\n"
        "except TypeError as e:\n"
        "    print('TypeError:', e)\n"
        "print(sorted(m for m in sys.modules if m.startswith('simdfilter')))\n"
    )
    r = subprocess.run(
        [fresh_python, "-c", code, _core.__file__], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "[1, 2]",
        "[1, 2]",
        "[1, 2]",
        "[1, 2, 3]",
        "TypeError: a str bound does not apply to numeric data",
        "[]",
    ]


def test_each_module_object_has_its_own_state():
    # Multi-phase init (PEP 489): a second module object made from the same
    # extension, in this process, has its own state and kernel context, and
    # leaves the package's module as it was.
    import importlib.machinery
    import importlib.util
    import numpy as np

    import simdfilter

    loader = importlib.machinery.ExtensionFileLoader("simdfilter._core", _core.__file__)
    spec = importlib.util.spec_from_loader("simdfilter._core", loader)
    other = importlib.util.module_from_spec(spec)
    loader.exec_module(other)
    assert other is not _core and other.kernel_context is not _core.kernel_context
    assert other.filter_indexes(np.arange(4), 1, 2).tolist() == [1, 2]
    # An hour with no minutes: an ISO form the slow reader takes, in either module.
    hours = np.arange(4).view("M8[h]")
    assert other.filter_indexes(hours, "1970-01-01T01", "1970-01-01T02").tolist() == [1, 2]
    assert simdfilter.filter_indexes(hours, "1970-01-01T01", "1970-01-01T02").tolist() == [1, 2]
    before = simdfilter.active_kernel()
    with simdfilter.use_kernel("scalar"):  # this module's context variable only
        assert simdfilter.active_kernel() == "scalar"
        assert other.active_kernel() == before
