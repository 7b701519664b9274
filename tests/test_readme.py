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


@pytest.mark.parametrize("index", range(len(blocks())))
def test_readme_example(index):
    block = blocks()[index]
    for module in re.findall(r"import (?:\w+ as \w+, )?(pandas|polars)\b", block):
        pytest.importorskip(module, reason=f"the README example needs {module}")
    test = doctest.DocTestParser().get_doctest(block, {}, f"README block {index}", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: pytest.fail(s, pytrace=False))
    assert runner.failures == 0 and runner.tries > 0
