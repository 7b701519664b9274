"""The C binding calls the package's Python helpers only as the package
registered them at import (_core._register); it never imports the package."""

import subprocess
from pathlib import Path

import pytest

from simdfilter import _core

SRC = Path(__file__).resolve().parents[1] / "csrc" / "cpython"


def test_binding_imports_no_simdfilter_module():
    for path in sorted(SRC.glob("*.c")):
        text = path.read_text()
        assert 'PyImport_ImportModule("simdfilter' not in text, path.name


def test_register_refuses_what_cannot_be_called():
    with pytest.raises(TypeError, match="resolve must be callable"):
        _core._register(resolve=1)
    with pytest.raises(TypeError):
        _core._register(len)  # by keyword only


def test_unregistered_helper_is_a_clear_error(fresh_python):
    # The extension loaded on its own, without the package that registers its helpers.
    code = (
        "import importlib.machinery, importlib.util, sys\n"
        "from fractions import Fraction\n"
        "import numpy as np\n"
        "loader = importlib.machinery.ExtensionFileLoader('simdfilter._core', sys.argv[1])\n"
        "spec = importlib.util.spec_from_loader('simdfilter._core', loader)\n"
        "core = importlib.util.module_from_spec(spec)\n"
        "loader.exec_module(core)\n"
        "print(core.filter_indexes(np.arange(4), 1, 2).tolist())\n"
        "try:\n"
        "    core.filter_indexes(np.arange(4), Fraction(1, 2), 2)\n"
        "except RuntimeError as e:\n"
        "    print('RuntimeError:', e)\n"
    )
    r = subprocess.run(
        [fresh_python, "-c", code, _core.__file__], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[1, 2]"
    assert lines[1].startswith("RuntimeError: simdfilter._core needs the Python helper resolve")
    assert "import simdfilter" in lines[1]


def test_each_module_object_has_its_own_state():
    # Multi-phase init (PEP 489): a second module object made from the same
    # extension, in this process, starts with no helpers registered and its own
    # kernel context, and leaves the package's module as it was.
    import importlib.machinery
    import importlib.util
    from fractions import Fraction

    import numpy as np

    import simdfilter

    loader = importlib.machinery.ExtensionFileLoader("simdfilter._core", _core.__file__)
    spec = importlib.util.spec_from_loader("simdfilter._core", loader)
    other = importlib.util.module_from_spec(spec)
    loader.exec_module(other)
    assert other is not _core and other.kernel_context is not _core.kernel_context
    assert other.filter_indexes(np.arange(4), 1, 2).tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="needs the Python helper resolve"):
        other.filter_indexes(np.arange(4), Fraction(1, 2), 2)
    assert simdfilter.filter_indexes(np.arange(4), Fraction(1, 2), 2).tolist() == [1, 2]
    before = simdfilter.active_kernel()
    with simdfilter.use_kernel("scalar"):  # this module's context variable only
        assert simdfilter.active_kernel() == "scalar"
        assert other.active_kernel() == before
