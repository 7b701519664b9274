"""tests/conftest.py's rules for running the suite: the rotate_kernels tests'
cases the quick loop leaves to the full suite, and the TOGETHER sets that
pytest-xdist deals to one worker."""

import itertools
from types import SimpleNamespace

import pytest

from conftest import KERNELS, rotated_out, together


def _fake_items(marked=True, **params):
    """Items of one test over the product of params (kernel among them), as
    pytest collects them: the same value objects in every case."""
    names = list(params)
    items = []
    for values in itertools.product(*params.values()):
        p = dict(zip(names, values))
        items.append(
            SimpleNamespace(
                nodeid="tests/test_x.py::test_x[%s]" % "-".join(map(str, values)),
                callspec=SimpleNamespace(params=p),
                get_closest_marker=lambda name, m=marked: (
                    object() if m and name == "rotate_kernels" else None
                ),
            )
        )
    return items


def test_the_quick_loop_runs_each_case_on_one_kernel_every_kernel_on_every_value():
    dtypes, layouts = [f"d{i}" for i in range(13)], [f"l{i}" for i in range(14)]
    items = _fake_items(kernel=KERNELS, dtype=dtypes, layout=layouts)
    kept = [i for i in items if i.nodeid not in rotated_out(items)]
    cases = {(i.callspec.params["dtype"], i.callspec.params["layout"]) for i in kept}
    assert len(kept) == len(cases) == len(dtypes) * len(layouts)  # one kernel per case
    for name, values in (("dtype", dtypes), ("layout", layouts)):
        met = {(i.callspec.params["kernel"], i.callspec.params[name]) for i in kept}
        assert met == set(itertools.product(KERNELS, values)), name


def test_unmarked_tests_keep_every_kernel():
    items = _fake_items(marked=False, kernel=KERNELS, dtype=["a", "b"])
    assert rotated_out(items) == set()


def test_the_dask_cluster_set_is_the_cluster_tests(request):
    items = [i for i in request.session.items if i.nodeid.split("::")[0].endswith("test_dask.py")]
    if not items:
        pytest.skip("tests/test_dask.py is not in this run (dask is not installed, or deselected)")
    for item in items:
        on_cluster = item.callspec.params["scheduler"] == "cluster"
        assert (together(item.nodeid) == "test_dask.py") == on_cluster, item.nodeid
    assert any(together(i.nodeid) for i in items)


def test_together_reads_the_parameter_id():
    assert together("tests/test_dask.py::test_a[cluster]") == "test_dask.py"
    assert together("tests/test_dask.py::test_a[cluster-arrow-nan]") == "test_dask.py"
    assert together("tests/test_dask.py::test_a[sync-arrow-nan]") is None
    assert together("tests/test_dask.py::test_a[clusters]") is None
    assert together("tests/test_other.py::test_a[cluster]") is None
