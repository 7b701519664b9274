"""One way across the language line (issue 44): the C binding (csrc/cpython) never
imports a simdfilter module, and calls back into the package only through the
helpers still registered (_core._register), each off the NumPy fast path. The list
below may only shrink: a new helper, or an import of the package, fails here."""

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "csrc" / "cpython"

# What is left of the calls into the package (csrc/cpython/README.md, "One way").
HELPERS_LEFT = {"SFPY_RESOLVE", "SFPY_ZONED_VALUES", "SFPY_REFUSED_COLUMN"}
# The Polars plugin's answer for a batch of a dtype its bounds literal has no
# range for (a String, a Decimal...): Polars calls the plugin, which has no
# module state to hold a registered helper, and the answer is the package's
# (simdfilter.polars._between, Polars' own is_between for most of them), so it
# reads the package's module from sys.modules. Left: see csrc/cpython/README.md.
LOOKUPS_LEFT = {
    ("polars_plugin.c", 'PyDict_GetItemString(PyImport_GetModuleDict(), "simdfilter'),
}


def violations(files):
    found = []
    for path, text in files:
        for m in re.finditer(r'PyImport_Import(?:Module(?:Level)?)?\s*\(\s*"simdfilter', text):
            found.append(f"{path}: imports {m.group(0)}")
        for m in re.finditer(r'(?:PyImport_AddModule|PyImport_GetModule|PyDict_GetItemString)'
                             r'\s*\([^;]*"simdfilter', text):
            if (path, m.group(0)) not in LOOKUPS_LEFT:
                found.append(f"{path}: looks up the package: {m.group(0)}")
        for m in re.finditer(r"\bSFPY_[A-Z_]+\b", text):
            name = m.group(0)
            enum = re.search(r"typedef enum sfpy_helper \{(.*?)\}", text, re.S)
            if enum and name in enum.group(1) and name not in HELPERS_LEFT | {"SFPY_HELPER_COUNT"}:
                found.append(f"{path}: a new helper {name}")
    return found


def sources():
    return [(p.name, p.read_text()) for p in sorted(SRC.glob("*.[ch]"))]


def test_binding_calls_nothing_new_in_the_package():
    assert violations(sources()) == []


def test_the_check_fails_on_a_violation():
    bad_import = 'PyObject *m = PyImport_ImportModule("simdfilter._bounds");'
    bad_helper = "typedef enum sfpy_helper {\n SFPY_RESOLVE,\n SFPY_UNWRAP_PANDAS,\n} sfpy_helper;"
    bad_lookup = 'm = PyDict_GetItemString(PyImport_GetModuleDict(), "simdfilter._columns");'
    assert violations([("x.c", bad_import)])
    assert violations([("x.c", bad_lookup)])
    assert violations([("column.c", bad_lookup)])
    assert violations([("binding.h", bad_helper)])
