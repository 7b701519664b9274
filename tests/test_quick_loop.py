"""tests/conftest.py's rules for running the suite: the TOGETHER sets that
pytest-xdist deals to one worker."""

import pytest

from conftest import together


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
