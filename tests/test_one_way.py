"""One way across the language line (issue 44): the C binding (csrc/cpython) never
imports a simdfilter module and keeps no registry of package helpers to call back
into; every bound is read in C. The one lookup left is the Polars plugin's (see
LOOKUPS_LEFT). A new helper, a registry, or an import of the package fails here."""

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "csrc" / "cpython"

# The Polars plugin's answer for a batch of a dtype its bounds literal has no
# range for (a String, a Decimal...): Polars calls the plugin, which has no
# module state, and the answer is the package's (simdfilter.polars._batch_between,
# Polars' own is_between for most of them), so it reads the package's module
# from sys.modules. Left: see csrc/cpython/README.md.
LOOKUPS_LEFT = {
    ("polars_plugin_python.c", 'PyDict_GetItemString(PyImport_GetModuleDict(), "simdfilter'),
}


def violations(files):
    found = []
    for path, text in files:
        for m in re.finditer(r'PyImport_Import(?:Module(?:Level)?)?\s*\(\s*"simdfilter', text):
            found.append(f"{path}: imports {m.group(0)}")
        for m in re.finditer(
            r"(?:PyImport_AddModule|PyImport_GetModule|PyDict_GetItemString)"
            r'\s*\([^;]*"simdfilter',
            text,
        ):
            if (path, m.group(0)) not in LOOKUPS_LEFT:
                found.append(f"{path}: looks up the package: {m.group(0)}")
        for m in re.finditer(r"\bsfpy_helper\w*|\bSFPY_HELPER\w*|\"_register\"", text):
            found.append(f"{path}: a registry of package helpers: {m.group(0)}")
    return found


def sources():
    return [(p.name, p.read_text()) for p in sorted(SRC.glob("*.[ch]"))]


def test_binding_calls_nothing_new_in_the_package():
    assert violations(sources()) == []


def test_the_check_fails_on_a_violation():
    bad_import = 'PyObject *m = PyImport_ImportModule("simdfilter._bounds");'
    bad_helper = "typedef enum sfpy_helper {\n SFPY_RESOLVE,\n SFPY_HELPER_COUNT\n} sfpy_helper;"
    bad_lookup = 'm = PyDict_GetItemString(PyImport_GetModuleDict(), "simdfilter._columns");'
    bad_register = '{"_register", (PyCFunction)(void (*)(void))py_register, METH_VARARGS},'
    assert violations([("x.c", bad_import)])
    assert violations([("x.c", bad_lookup)])
    assert violations([("column.c", bad_lookup)])
    assert violations([("binding.h", bad_helper)])
    assert violations([("module.c", bad_register)])


def test_no_helper_is_registered():
    import simdfilter
    from simdfilter import _core

    assert not hasattr(_core, "_register")
    assert not hasattr(simdfilter, "_first_call")


def _bare_core():
    """A second module object of the extension, with no helper registered."""
    import importlib.machinery
    import importlib.util

    from simdfilter import _core

    loader = importlib.machinery.ExtensionFileLoader("simdfilter._core", _core.__file__)
    spec = importlib.util.spec_from_loader("simdfilter._core", loader)
    core = importlib.util.module_from_spec(spec)
    loader.exec_module(core)
    return core


def test_refusals_are_worded_by_the_binding():
    # Before: the binding asked simdfilter._columns.refused_column for these words;
    # a module object with no helpers registered now says the same.
    import numpy as np
    import pandas as pd
    import pytest

    core = _bare_core()
    frame = pd.DataFrame({"x": [1, 2], "y": [3, 4]})
    with pytest.raises(
        TypeError,
        match=r"^count_in_range reads one column, not a pandas DataFrame"
        r".*df\.sf\.indexes\(\{'x': \(lo, hi\), 'y': \(lo, hi\)\}\)",
    ):
        core.count_in_range(frame, 1, 2)
    with pytest.raises(TypeError, match=r"the column holds strings \(NumPy <U1\)"):
        core.filter_indexes(np.array(["a"]), "a", "b")
    with pytest.raises(TypeError, match=r"^simdfilter compares numbers.*column 'who' holds"):
        core.filter_indexes(pd.Series(["a", None], name="who", dtype=object), "a", "b")
    assert core._refused_column(np.arange(3), "filter_indexes") is None
    assert core._refused_column(np.array(["a"]), "f", strings=False) is None


def test_refusal_words_never_hide_the_error():
    # A frame whose labels cannot be read still gets words (labels 'a', 'b'), and
    # a column whose host fails to say what it holds keeps the binding's error.
    import numpy as np
    import pandas as pd
    import pytest

    from simdfilter import _core

    class Frame(pd.DataFrame):
        @property
        def columns(self):
            raise RuntimeError("no labels")

    assert "{'a': (lo, hi), 'b': (lo, hi)}" in _core._refused_column(Frame(), "f")

    class Strings:  # a pandas column as the binding sees it, failing to say its dtype
        __module__ = "pandas.core.series"
        _values = np.array(["a"], dtype=object)

        @property
        def dtype(self):
            raise RuntimeError("no dtype")

    with pytest.raises(TypeError, match="^simdfilter supports") as got:
        _core.filter_indexes(Strings(), "a", "b")
    assert "holds strings" not in str(got.value)
    assert _core._refused_column(Strings(), "f") is None


def test_zoned_values_are_given_back_by_the_binding():
    # Before: simdfilter._columns.zoned_values gave tz-aware filter_values their
    # zone; a module object with no helpers registered now does, in each kind.
    import pandas as pd
    import pytest

    core = _bare_core()
    s = pd.Series(pd.date_range("2024-03-09 22:00", periods=4, freq="h", tz="Asia/Kolkata"))
    got = core.filter_values(s, s.iloc[1], s.iloc[2])
    assert got.dtype == s.dtype and list(got) == list(s.iloc[1:3])
    pa = pytest.importorskip("pyarrow", reason="the Arrow producer")

    class Producer:  # an Arrow producer that is not pyarrow's own
        def __init__(self, array):
            self.array = array

        def __arrow_c_stream__(self, requested_schema=None):
            return self.array.__arrow_c_stream__(requested_schema)

    arrow = pa.array(s)
    got = core.filter_values(Producer(pa.chunked_array([arrow])), s.iloc[1], None)
    assert got.type == arrow.type and got.type.tz == "Asia/Kolkata"
    assert got.to_pylist() == arrow.to_pylist()[1:]


def test_zoned_values_without_pyarrow_are_utc_instants(fresh_python):
    # pyarrow is an extra: an Arrow producer's zoned values are the UTC datetime64.
    import subprocess

    import pytest

    pytest.importorskip("pyarrow", reason="the Arrow producer's capsules")
    code = (
        "import sys, numpy as np, pyarrow as pa, simdfilter\n"
        "a = pa.chunked_array([np.array([0, 3600, 7200], 'M8[s]')],\n"
        "                     pa.timestamp('s', tz='Europe/Paris'))\n"
        "class P:\n"
        "    def __arrow_c_stream__(self, requested_schema=None):\n"
        "        return a.__arrow_c_stream__(requested_schema)\n"
        "sys.modules['pyarrow'] = None  # import pyarrow now raises ImportError\n"
        "got = simdfilter.filter_values(P(), '1970-01-01T01:00Z', None)\n"
        "print(type(got).__name__, got.dtype, got.astype('int64').tolist())\n"
    )
    r = subprocess.run([fresh_python, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ndarray", "datetime64[s]", "[3600,", "7200]"]
