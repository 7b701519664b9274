"""The documentation builds without a warning, and its examples do what they say.

docs/build.sh builds the HTML with -W and runs every >>> example of the pages
and of the docstrings the API reference pulls in (Sphinx's doctest builder), so
a page cannot go stale. The C guide's program (docs/examples/years.c) is
compiled with the library and run. Needs the docs extra: pip install -e '.[docs]'.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _env():
    # The Sphinx process must import this simdfilter, not another one on the machine.
    env = dict(os.environ)
    package_root = str(pathlib.Path(__import__("simdfilter").__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["PYTHON"] = sys.executable
    return env


@pytest.mark.slow  # about 10-15 s: two Sphinx builds from scratch
def test_docs_build_without_warnings_and_their_examples_pass(tmp_path):
    for module, what in (
        ("sphinx", "sphinx"),
        ("numpydoc", "numpydoc"),
        ("pydata_sphinx_theme", "pydata-sphinx-theme"),
        ("myst_parser", "myst-parser"),
        ("myst_nb", "myst-nb"),
    ):
        pytest.importorskip(module, reason=f"{what} is not installed (pip install -e '.[docs]')")
    for module in ("pandas", "polars", "pyarrow", "dask.dataframe"):
        pytest.importorskip(module, reason=f"the guides' examples need {module}")
    proc = subprocess.run(
        ["sh", str(DOCS / "build.sh"), str(tmp_path)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = tmp_path / "doctest" / "output.txt"
    failures = report.read_text() if report.exists() else ""
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}\n{failures}"
    assert " 0 failures in tests" in failures
    assert (tmp_path / "html" / "performance.html").exists()
    # The worked example: the notebook with its stored outputs, the plot included.
    page = (tmp_path / "html" / "guide" / "explore.html").read_text()
    assert "CPU:" in page and "simdfilter: pandas df.sf.indexes" in page
    assert '<img alt="../_images/' in page
    # The performance page shows the committed plot of every CPU.
    for png in sorted((ROOT / "benchmarks" / "results").glob("*.png")):
        assert (tmp_path / "html" / "_images" / png.name).exists(), png.name


def test_the_c_guide_example_compiles_and_runs(tmp_path):
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    csrc = ROOT / "csrc"
    exe = tmp_path / "years"
    # The scalar kernel alone: the build the guide shows first.
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{csrc / 'include'}",
            f"-I{csrc}",
            str(DOCS / "examples" / "years.c"),
            *map(str, sorted((csrc / "lib").glob("*.c"))),
            str(csrc / "kernels" / "scalar.c"),
            "-pthread",
            "-lm",
            "-o",
            str(exe),
        ],
        check=True,
        timeout=300,
    )
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60).stdout
    # What docs/guide/c.rst says it prints.
    assert out == (
        "3 born 1982..2000: 0 5 7\n"
        "3 found by sf_execute: 0 5 7\n"
        "born 2000 or later: 3\n"
        "kernel: scalar\n"
    )
    assert out.splitlines()[:3] == [
        line.strip()
        for line in (DOCS / "guide" / "c.rst")
        .read_text()
        .split("It prints::")[1]
        .strip()
        .splitlines()[:3]
    ]


def test_the_changelog_examples_run():
    # The ```python blocks of CHANGELOG.md that hold >>> examples are doctests
    # too: an entry's example states what the release does.
    import doctest
    import re
    import textwrap

    for module in ("pandas", "polars"):
        pytest.importorskip(module, reason=f"the changelog's examples need {module}")
    text = (ROOT / "CHANGELOG.md").read_text()
    blocks = [
        textwrap.dedent(b)
        for b in re.findall(r"```python\n(.*?)^\s*```", text, re.S | re.M)
        if ">>>" in b
    ]
    assert blocks, "no example found: the pattern no longer matches the changelog"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for i, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, {}, f"CHANGELOG.md block {i}", "CHANGELOG.md", 0))
    failed, tried = runner.summarize(verbose=False)
    assert tried and failed == 0
