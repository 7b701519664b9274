"""The README's Python examples run, and print what the README says they print."""

import doctest
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def blocks():
    text = README.read_text()
    return [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if ">>>" in b]


def test_the_readme_has_examples():
    assert len(blocks()) >= 2


def test_the_readme_is_short_and_starts_with_the_two_commands():
    # Issue 43: at most 150 lines, the detail in docs/; near the top, one line that
    # installs and runs the package, one that installs and runs the tests.
    lines = README.read_text().splitlines()
    assert len(lines) <= 150
    top = "\n".join(lines[:20])
    assert "pip install . && python -m simdfilter" in top
    assert """pip install -e '.[test]' && pytest -m "not slow" -n auto""" in top


def test_the_readme_and_the_docs_agree_the_wheels_are_not_on_pypi():
    start = (README.parent / "docs" / "getting-started.rst").read_text()
    for text in (README.read_text(), start):
        assert "not on PyPI" in text
        assert not re.search(r"^\s*pip install simdfilter\s*$", text, re.M)


@pytest.mark.parametrize("index", range(len(blocks())))
def test_readme_example(index):
    block = blocks()[index]
    for module in re.findall(r"import (?:\w+ as \w+, )?(pandas|polars)\b", block):
        pytest.importorskip(module, reason=f"the README example needs {module}")
    test = doctest.DocTestParser().get_doctest(block, {}, f"README block {index}", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: pytest.fail(s, pytrace=False))
    assert runner.failures == 0 and runner.tries > 0


def _extras():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml needs tomli")
    with open(README.with_name("pyproject.toml"), "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    return {
        name: {re.match(r"[\w-]+", req).group(0).lower() for req in reqs}
        for name, reqs in extras.items()
    }


def test_the_readme_install_line_brings_what_its_examples_import():
    # The README's pip line with extras, e.g. 'simdfilter[pandas,polars]'.
    text = README.read_text()
    named = re.search(r"'simdfilter\[([\w,]+)\]'", text).group(1).split(",")
    extras = _extras()
    brought = {"numpy"}.union(*(extras[n] for n in named))
    imported = set()
    for block in blocks():
        for names in re.findall(r"^>>> import (.*)$", block, re.M):
            imported |= {n.split()[0].split(".")[0] for n in names.split(",")}
        imported |= {m.split(".")[0] for m in re.findall(r"^>>> from (\S+) import", block, re.M)}
    imported.discard("simdfilter")
    if "pl.from_pandas" in text:  # Polars converts nullable pandas columns through pyarrow
        imported.add("pyarrow")
    assert imported <= brought, (named, imported - brought)


def test_the_all_extra_holds_every_integration():
    extras = _extras()
    assert extras["pandas"] | extras["polars"] | extras["dask"] <= extras["all"]
    assert "pyarrow" in extras["polars"]
