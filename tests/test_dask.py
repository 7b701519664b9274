"""simdfilter.dask on a real two-process distributed cluster and on the synchronous
scheduler: every result equals NumPy's / pandas' on the computed data."""

import collections
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

dask = pytest.importorskip("dask", reason="simdfilter.dask needs dask: pip install '.[dask]'")
distributed = pytest.importorskip("distributed", reason="the cluster tests need distributed")
pd = pytest.importorskip("pandas", reason="the accessor tests need pandas")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from dask.local import get_sync  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402

import simdfilter  # noqa: E402
import simdfilter.dask as sfd  # noqa: E402
from simdfilter import reference  # noqa: E402
from simdfilter._dask_arrays import _chunk_indexes  # noqa: E402  (the chunk function itself)

INCLUSIVE = ["both", "left", "right", "neither"]

# Worker processes cannot import this test module: ship its functions by value.
import cloudpickle  # noqa: E402  (a dependency of distributed)

cloudpickle.register_pickle_by_value(sys.modules[__name__])


class _TaskCounter(SchedulerPlugin):
    """Counts the tasks the scheduler saw finish, by key prefix."""

    def __init__(self):
        self.done = collections.Counter()

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory":
            name = key[0] if isinstance(key, tuple) else key
            self.done[str(name).rsplit("-", 1)[0]] += 1


def _close(cluster):
    # Give each worker process time to exit by itself (the default, 4 s, is not
    # always enough on a loaded 2-core machine, and then the nanny kills it).
    for nanny in list(cluster.workers.values()):
        cluster.sync(nanny.close, timeout=60)
    cluster.close()


def _quiet_cluster(**kwargs):
    # Any free port for the dashboard: 8787 may be taken by another cluster on the machine.
    return distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0", **kwargs
    )


@contextlib.contextmanager
def _cluster_client():
    """A real cluster: a scheduler here, two worker processes; yields its Client.

    It lives while the tests of the "cluster" parameter run on this pytest-xdist
    worker, not to the end of the session: idle, its processes' heartbeats cost
    about 5 s of CPU a minute (AMD EPYC Zen 4, loaded), 13-14 s per worker in
    the quick loop when it was session-scoped."""
    cluster = _quiet_cluster()
    with distributed.Client(cluster) as client:
        counter = _TaskCounter()
        # The scheduler of a LocalCluster runs in this process: add the plugin directly.
        cluster.scheduler.add_plugin(counter, name="sf-task-counter")
        client.sf_counter = counter
        yield client
        # The number of simdfilter tasks the workers ran, for the record (-s shows it).
        ours = {k: v for k, v in counter.done.items() if k.startswith("sf-")}
        print(f"\nsimdfilter tasks run on the cluster: {sum(ours.values())} {dict(ours)}")
    _close(cluster)


@pytest.fixture
def thorough(scheduler):
    """Every combination on the synchronous scheduler; a sample of them on the
    cluster, where each task costs a few ms (tens of ms on a loaded machine)."""
    return scheduler is None


@pytest.fixture(scope="module", params=["cluster", "sync"], autouse=True)
def scheduler(request):
    """Run every test of the module on the cluster and on the synchronous scheduler."""
    if request.param == "sync":
        with dask.config.set(scheduler="sync"):
            yield None
    else:
        # By name, not the Client object: the nanny pickles dask's config into every
        # worker process it starts (again after a kill), and a Client does not pickle.
        with _cluster_client() as client, dask.config.set(scheduler="dask.distributed"):
            yield client


# ---- data ------------------------------------------------------------------

NUMERIC = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
]
TIME = ["M8[ns]", "M8[s]", "m8[ms]"]


def _data(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if dtype.kind == "f":
        a = (rng.standard_normal(n) * 100).astype(dtype)
        a[rng.integers(0, n, max(1, n // 50))] = np.nan
        return a
    a = rng.integers(-(10**6), 10**6, n).astype("i8").view(dtype)
    a[rng.integers(0, n, max(1, n // 50))] = np.array("NaT", dtype=dtype)
    return a


def _bounds(a, rng):
    a = a.reshape(-1)
    finite = a[~np.isnan(a)] if a.dtype.kind in "fmM" else a
    lo, hi = np.sort(rng.choice(finite, 2))
    return lo, hi


def _expect(a, lo, hi, inclusive):
    want = reference.filter_indexes(a, lo, hi, inclusive=inclusive).astype(np.int64)
    return want, a.reshape(-1)[want]


def _check_arrays(cases):
    """cases: (dask array, its NumPy twin, lo, hi, inclusive). Everything is
    computed in one go: on a loaded 2-core machine a distributed compute costs
    ~0.5 s of fixed overhead, a task a few ms."""
    lazy = []
    for x, a, lo, hi, inclusive in cases:
        idx = sfd.filter_indexes(x, lo, hi, inclusive=inclusive)
        assert idx.dtype == np.int64 and idx.ndim == 1
        lazy += [
            idx,
            sfd.filter_values(x, lo, hi, inclusive=inclusive),
            sfd.count_in_range(x, lo, hi, inclusive=inclusive),
        ]
    results = dask.compute(*lazy)
    for i, (x, a, lo, hi, inclusive) in enumerate(cases):
        idx, values, count = results[3 * i : 3 * i + 3]
        want, want_values = _expect(a, lo, hi, inclusive)
        assert idx.dtype == np.int64
        np.testing.assert_array_equal(idx, want)
        assert values.dtype == want_values.dtype.newbyteorder("=")
        assert values.tobytes() == want_values.astype(values.dtype).tobytes()
        assert count == want.size and np.asarray(count).dtype == np.int64


# ---- arrays ----------------------------------------------------------------


def test_every_dtype_uneven_chunks(rng, thorough):
    cases = []
    for i, dtype in enumerate(NUMERIC + TIME):
        a = _data(rng, dtype, 10_007)
        chunks = ((1, 1000, 0, 4006, 5000),) if thorough else ((3000, 0, 7007),)
        x = da.from_array(a, chunks=chunks)
        lo, hi = _bounds(a, rng)
        if thorough:
            cases += [(x, a, lo, hi, inclusive) for inclusive in INCLUSIVE]
            cases += [(x, a, None, hi, INCLUSIVE[i % 4]), (x, a, lo, None, INCLUSIVE[-1 - i % 4])]
        else:
            # A sample on the cluster: every dtype, the modes and open ends in turn.
            bounds = [(lo, hi), (None, hi), (lo, None)][i % 3]
            cases.append((x, a, *bounds, INCLUSIVE[i % 4]))
    _check_arrays(cases)


def _fortran(b):
    return np.asfortranarray(b)


def _strided(b):
    return np.repeat(b, 2, axis=-1)[..., ::2]


def _byteswapped(b):
    return b.astype(b.dtype.newbyteorder())


def _reversed(b):
    return b[::-1, ::-1].copy()[::-1, ::-1]


LAYOUTS = {
    "fortran": _fortran,
    "strided": _strided,
    "byteswapped": _byteswapped,
    "reversed": _reversed,
}


def _layout_flags(b):
    return np.array(
        [
            [
                (
                    b.flags.f_contiguous and not b.flags.c_contiguous,
                    not b.flags.contiguous,
                    not b.dtype.isnative,
                    b.strides[0] < 0,
                )
            ]
        ]
    )


def test_chunk_layouts(rng, thorough):
    # The layouts are made by a task, so the chunks reach simdfilter as they are
    # (da.from_array would copy a strided NumPy array into contiguous chunks).
    cases = []
    dtypes = ["uint32", "float64", "int16", "M8[s]"]
    for i, (layout, make) in enumerate(LAYOUTS.items()):
        for dtype in dtypes if thorough else [dtypes[i]]:
            a = _data(rng, dtype, 60 * 70).reshape(60, 70)
            lo, hi = _bounds(a, rng)
            # Chunked along both axes (blocks of one band interleave in C order), or not.
            for chunks in [(20, 30), (25, 70)] + (
                [(7, 9)] if thorough and dtype == dtypes[i] else []
            ):
                base = da.from_array(a, chunks=chunks)
                dtype_out = a.dtype.newbyteorder() if layout == "byteswapped" else a.dtype
                x = base.map_blocks(make, dtype=dtype_out)
                cases.append((x, a, lo, hi, "both"))
    flags = da.from_array(np.zeros((4, 4), "u2"), chunks=2)
    for k, make in enumerate(LAYOUTS.values()):
        got = flags.map_blocks(make).map_blocks(_layout_flags, chunks=(1, 1, 4), new_axis=2)
        # In this process, beside the cluster's client: the synchronous scheduler's
        # function itself, not its name, which Dask 2024.8 (CPython 3.9's newest)
        # answers with a UserWarning wherever a client is ("Running on a
        # single-machine scheduler when a distributed client is active"; 2026.8
        # no longer warns).
        assert got.compute(scheduler=get_sync)[..., k].all()
    _check_arrays(cases)


def test_three_dims_and_edge_shapes(rng, thorough):
    a = rng.integers(0, 100, (9, 10, 11)).astype(np.uint8)
    x = da.from_array(a, chunks=(4, 3, 5) if thorough else (5, 4, 6))
    cases = [(x, a, 20, 60, inclusive) for inclusive in (INCLUSIVE if thorough else ["left"])]
    cases.append((x.transpose(2, 0, 1), a.transpose(2, 0, 1), 20, 60, "both"))
    zero_d = np.array(5.0)
    cases += [
        (da.from_array(zero_d), zero_d.reshape(1), 0, 10, "both"),
        (da.from_array(zero_d), zero_d.reshape(1), 6, 10, "both"),
    ]
    e = np.empty((0, 3), dtype=np.int32)
    cases.append((da.from_array(e), e, 0, 10, "both"))
    b = np.arange(10, dtype=np.int64)
    cases.append((da.from_array(b, chunks=-1), b, 3, 7, "both"))
    _check_arrays(cases)


def test_bound_semantics_match_core(rng):
    a = _data(rng, "uint32", 5000)
    x = da.from_array(a, chunks=999)
    cases = [
        (x, a, lo, hi, "both")
        for lo, hi in [(-1, 2**70), (1.5, 3e9), (2**32, None), (7, 3), (float("nan"), 5)]
    ]
    t = np.arange("2020-01-01", "2020-03-01", dtype="M8[D]").astype("M8[s]")
    cases.append(
        (
            da.from_array(t, chunks=17),
            t,
            "2020-01-10T00:00:00.5",
            pd.Timestamp("2020-02-03"),
            "both",
        )
    )
    _check_arrays(cases)


def test_lazy_and_one_task_per_chunk():
    x = da.arange(1000, chunks=100, dtype=np.uint32)
    base = len(dict(x.__dask_graph__()))
    r = sfd.filter_indexes(x, 10, 500)
    assert np.isnan(r.chunks[0]).all() and len(r.chunks[0]) == 10
    assert len(dict(r.__dask_graph__())) == base + 10  # one simdfilter task per chunk
    v = sfd.filter_values(x, 10, 500)
    assert len(dict(v.__dask_graph__())) == base + 10
    # 2-d chunked along both axes: one task per chunk plus one merge per band.
    y = da.ones((40, 40), chunks=(10, 20), dtype=np.float32)
    base = len(dict(y.__dask_graph__()))
    assert len(dict(sfd.filter_indexes(y, 0, 2).__dask_graph__())) == base + 8 + 4


def test_count_is_a_tree_reduction():
    a = np.arange(4096, dtype=np.int32)
    x = da.from_array(a, chunks=64)
    c = sfd.count_in_range(x, 100, 2999, split_every=4)
    assert c.shape == () and c.dtype == np.int64
    layers = [k for k in c.__dask_graph__().layers if k.startswith("sf-count-in-range")]
    assert len(layers) >= 3  # chunk counts, at least one combine level, the aggregate
    assert int(c.compute()) == 2900


def test_unknown_chunk_sizes():
    a = np.arange(1000, dtype=np.int64)
    x = da.from_array(a, chunks=100)
    y = x[x % 3 == 0]  # chunks of unknown size
    assert np.isnan(y.chunks[0]).all()
    values, count = dask.compute(sfd.filter_values(y, 100, 200), sfd.count_in_range(y, 100, 200))
    np.testing.assert_array_equal(values, a[(a % 3 == 0) & (a >= 100) & (a <= 200)])
    assert int(count) == 33
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        sfd.filter_indexes(y, 100, 200)
    np.testing.assert_array_equal(
        sfd.filter_indexes(y.compute_chunk_sizes(), 100, 200).compute(), np.arange(33) + 34
    )


def test_index_dtypes_and_errors():
    a = np.arange(100, dtype=np.uint16)
    x = da.from_array(a, chunks=30)
    dtypes = [np.uint32, np.uint64, np.int64]
    lazy = [sfd.filter_indexes(x, 10, 20, index_dtype=dt) for dt in dtypes]
    assert [r.dtype for r in lazy] == dtypes
    for dt, got in zip(dtypes, dask.compute(*lazy)):
        assert got.dtype == dt
        np.testing.assert_array_equal(got, np.arange(10, 21))
    with pytest.raises(ValueError, match="index_dtype"):
        sfd.filter_indexes(x, 1, 2, index_dtype=np.int32)
    # Lazy: nothing of the 2**32 + 1 elements is ever made.
    with pytest.raises(ValueError, match="uint32"):
        sfd.filter_indexes(
            da.zeros(2**32 + 1, dtype=np.uint8, chunks=2**30), 0, 0, index_dtype=np.uint32
        )
    # Raised when the graph is built, not at compute time.
    with pytest.raises(ValueError, match="inclusive"):
        sfd.count_in_range(x, 1, 2, inclusive="all")
    with pytest.raises(TypeError):
        sfd.filter_values(da.from_array(np.ones(4, dtype=complex)), 0, 1)
    with pytest.raises(TypeError):
        sfd.filter_indexes(x, "2020-01-01", None)


def test_positions_past_2_32_through_the_chunk_function():
    # A chunk that starts beyond 2**32 in the whole array, without making that array.
    block = np.array([[1, 5], [5, 1]], dtype=np.uint32)
    got = _chunk_indexes(block, 5, 5, "both", (2**31, 4), (2**31 + 2, 8), np.dtype(np.int64))
    np.testing.assert_array_equal(got, [2**31 * 8 + 5, (2**31 + 1) * 8 + 4])
    got = _chunk_indexes(block.ravel(), 5, 5, "both", (2**33,), (2**34,), np.dtype(np.int64))
    np.testing.assert_array_equal(got, [2**33 + 1, 2**33 + 2])


def test_ran_on_the_cluster(scheduler):
    if scheduler is None:
        pytest.skip("the synchronous scheduler runs tasks in this process (checked on the cluster)")
    before = sum(
        v for k, v in scheduler.sf_counter.done.items() if k.startswith("sf-chunk-indexes")
    )
    x = da.ones((30, 30), chunks=(10, 10), dtype=np.int32)
    assert sfd.filter_indexes(x, 1, 1).compute().size == 900
    after = sum(v for k, v in scheduler.sf_counter.done.items() if k.startswith("sf-chunk-indexes"))
    assert after - before == 9
    pids = set(scheduler.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids


# ---- DataFrames ------------------------------------------------------------


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(13)
    n = 2000
    pdf = pd.DataFrame({name: _data(rng, name, n) for name in NUMERIC + TIME})
    pdf["Int64"] = pd.array(rng.integers(-50, 50, n), dtype="Int64")
    pdf.loc[::7, "Int64"] = pd.NA
    pdf["Float64"] = pd.array(rng.standard_normal(n), dtype="Float64")
    pdf.loc[::5, "Float64"] = pd.NA
    pdf["tz"] = pd.date_range("2020-01-01", periods=n, freq="h", tz="Europe/Paris")
    pdf["str"] = [f"k{i % 97:03d}" for i in range(n)]
    pdf.index = pd.RangeIndex(100, 100 + n, name="row")
    ddf = dd.from_pandas(pdf, npartitions=3)
    # Compare with pandas on the computed data (dask may convert string columns).
    return ddf, ddf.compute()


def _column_bounds(s):
    if isinstance(s.dtype, pd.DatetimeTZDtype):
        return pd.Timestamp("2020-01-10", tz="Europe/Paris"), pd.Timestamp("2020-02-01", tz="UTC")
    if s.dtype == object or str(s.dtype).startswith(("str", "string")):
        return "k010", "k050"
    lo, hi = s.dropna().quantile([0.2, 0.7], interpolation="nearest")
    if s.dtype.kind in "biuf":
        return s.dtype.type(lo).item(), s.dtype.type(hi).item()
    return lo, hi


COLUMNS = NUMERIC + TIME + ["Int64", "Float64", "tz", "str"]


def test_series_verbs_equal_pandas(frame, thorough):
    ddf, pdf = frame
    lazy, expected = [], []
    for i, column in enumerate(COLUMNS):
        s, ps = ddf[column], pdf[column]
        lo, hi = _column_bounds(ps)
        for k, inclusive in enumerate(INCLUSIVE if thorough else [INCLUSIVE[i % 4]]):
            got = s.sf.between(lo, hi, inclusive)
            want = ps.between(lo, hi, inclusive)
            assert got._meta.dtype == want.dtype and got._meta.name == want.name, column
            lazy.append(got)
            expected.append(want)
            if k == 0:  # filter and count share between's code path: one mode each
                mask = want.fillna(False).astype(bool)
                lazy += [s.sf.filter(lo, hi, inclusive), s.sf.count(lo, hi, inclusive)]
                expected += [ps[mask], int(mask.sum())]
    results = dask.compute(*lazy)
    for got, want in zip(results, expected):
        if isinstance(want, int):
            assert got == want
        else:
            pd.testing.assert_series_equal(got, want, check_exact=True)


ODD_BOUNDS = [
    ("float32", 0.1, 50.3),  # NumPy casts a Python float to float32 first
    ("float32", np.float64(0.1), 50),  # ... but not a float64 scalar
    ("int64", -(2.0**62), 2.0**62),  # int64 compared as float64 by NumPy
    ("uint8", -1, 300),
    ("uint64", -1, 2**64),
    ("bool", 0.5, 1),
    ("M8[s]", "1970-01-01T00:00:00.5", "1970-01-05"),
    ("M8[ns]", np.datetime64("1969-12-31T23:59:59"), pd.Timestamp("1970-01-01T00:00:00.0001")),
    ("m8[ms]", pd.Timedelta("-3s"), "10 minutes"),
    ("float64", None, 10.0),  # unbounded below, as on every face
    ("float64", float("nan"), 10.0),
    ("int32", 10, -10),
]


def test_between_odd_bounds_equal_pandas(frame, thorough):
    ddf, pdf = frame
    lazy, expected = [], []
    for i, (column, lo, hi) in enumerate(ODD_BOUNDS):
        for inclusive in INCLUSIVE if thorough else [INCLUSIVE[i % 4]]:
            lazy.append(ddf[column].sf.between(lo, hi, inclusive))
            expected.append(pdf[column].sf.between(lo, hi, inclusive))  # the pandas face's
            if lo is not None:
                pd.testing.assert_series_equal(
                    expected[-1], pdf[column].between(lo, hi, inclusive), check_exact=True
                )
    for got, want in zip(dask.compute(*lazy), expected):
        pd.testing.assert_series_equal(got, want, check_exact=True)


def test_between_float32_near_bound():
    # The case a naive exact comparison gets wrong: float32(0.1) > 0.1, yet NumPy
    # (hence pandas) casts the bound 0.1 to float32 first and calls it equal.
    ps = pd.Series(np.array([0.1, 0.2, 0.05], dtype=np.float32), name="f")
    s = dd.from_pandas(ps, npartitions=2)
    pd.testing.assert_series_equal(
        s.sf.between(0.0, 0.1).compute(), ps.between(0.0, 0.1), check_exact=True
    )
    assert ps.between(0.0, 0.1).tolist() == [True, False, True]


def test_between_raises_what_pandas_raises(frame):
    import datetime

    ddf, pdf = frame
    with pytest.raises(ValueError) as ours:
        ddf["int32"].sf.between(1, 2, inclusive="all")
    with pytest.raises(ValueError) as theirs:
        pdf["int32"].between(1, 2, inclusive="all")
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError):
        pdf["M8[s]"].between(datetime.date(1970, 1, 1), datetime.date(1970, 1, 3))
    with pytest.raises(TypeError):
        ddf["M8[s]"].sf.between(datetime.date(1970, 1, 1), datetime.date(1970, 1, 3))


def test_frame_filter_is_a_conjunction(frame):
    ddf, pdf = frame
    ranges = dict(
        int32=(pdf["int32"].quantile(0.1), None),
        float64=(-50.0, 80.0),
        Int64=(None, 20),
        tz=(pd.Timestamp("2020-01-05", tz="UTC"), None),
    )
    ranges["int32"] = (int(ranges["int32"][0]), None)
    got = ddf.sf.filter(**ranges)
    assert list(got._meta.columns) == list(pdf.columns)
    assert (got._meta.dtypes == pdf.dtypes).all()
    want = pdf[
        (pdf["int32"] >= ranges["int32"][0])
        & pdf["float64"].between(-50.0, 80.0)
        & (pdf["Int64"] <= 20).fillna(False)
        & (pdf["tz"] >= ranges["tz"][0])
    ]
    got2 = ddf.sf.filter(
        inclusive="neither", uint16=(1000, 40000), **{"M8[ns]": ("1970-01-01", None)}
    )
    want2 = pdf[pdf["uint16"].between(1000, 40000, "neither") & (pdf["M8[ns]"] > "1970-01-01")]
    got3 = ddf.sf.filter({"str": ("k010", "k050"), "float64": (-50.0, None)}, inclusive="left")
    want3 = pdf[pdf["str"].between("k010", "k050", inclusive="left") & (pdf["float64"] >= -50.0)]
    r1, count, r2, r3 = dask.compute(got, ddf.sf.count(ranges), got2, got3)
    pd.testing.assert_frame_equal(r1, want, check_exact=True)
    assert count == len(want) and 0 < len(want) < len(pdf)
    pd.testing.assert_frame_equal(r2, want2, check_exact=True)
    pd.testing.assert_frame_equal(r3, want3, check_exact=True)
    with pytest.raises(KeyError):
        ddf.sf.filter(nope=(1, 2))
    with pytest.raises(TypeError):
        ddf.sf.filter(int32=5)
    with pytest.raises(TypeError):  # no range at all, as on the pandas and Polars faces
        ddf.sf.filter()


# ---- without dask ----------------------------------------------------------


def test_import_error_without_dask(fresh_python):
    code = textwrap.dedent("""
        import sys
        class NoDask:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("dask", "distributed"):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, NoDask())
        import simdfilter
        assert simdfilter.count_in_range([1, 2, 3], 2, 3) == 2
        try:
            import simdfilter.dask
        except ImportError as exc:
            print("ImportError:", exc)
        else:
            print("imported")
    """)
    out = subprocess.run([fresh_python, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert (
        "ImportError:" in out.stdout and "'dask'" in out.stdout and "simdfilter[dask]" in out.stdout
    )


# ---- a worker dies mid-computation -------------------------------------------


def _slow_scrambled(block, block_info=None):
    # Deterministic data made on the worker (nothing big in the graph), a little
    # slow so that the computation is surely still running when a worker dies.
    time.sleep(0.05)
    start = block_info[0]["array-location"][0][0]
    return (np.arange(start, start + block.shape[0], dtype=np.uint64) * 2654435761 % 2**32).astype(
        np.uint32
    )


@pytest.mark.slow
def test_worker_killed_mid_computation(scheduler):
    if scheduler is None:
        pytest.skip(
            "fault tolerance is a property of the distributed scheduler (run on the cluster)"
        )
    client = scheduler
    n, nchunks = 100 * 4096, 100
    x = da.zeros(n, chunks=n // nchunks, dtype=np.uint32).map_blocks(
        _slow_scrambled, dtype=np.uint32
    )
    lo, hi = 2**31, 2**31 + 2**28
    want_data = (np.arange(n, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    want = np.flatnonzero((want_data >= lo) & (want_data <= hi))
    pids = client.run(os.getpid)
    victim_addr, victim = sorted(pids.items())[0]
    idx_future = client.compute(sfd.filter_indexes(x, lo, hi))
    cnt_future = client.compute(sfd.count_in_range(x, lo, hi))
    counter = client.sf_counter
    start = sum(counter.done.values())
    deadline = time.monotonic() + 30
    while sum(counter.done.values()) - start < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(victim, signal.SIGKILL)
    assert idx_future.status == "pending", "the computation ended before the worker died"
    got = idx_future.result(timeout=120)
    np.testing.assert_array_equal(got, want)
    assert int(cnt_future.result(timeout=120)) == want.size
    # The nanny starts a new worker process; the cluster is whole again for the next tests.
    client.wait_for_workers(2, timeout=60)
    assert victim not in set(client.run(os.getpid).values())


# ---- data bigger than a worker's memory --------------------------------------


class _MemmapFile:
    """Array-like over a file: pickles as its path (a np.memmap would pickle its data),
    each chunk a memmap view opened on the worker."""

    def __init__(self, path, dtype, shape):
        self.path, self.dtype, self.shape = path, np.dtype(dtype), tuple(shape)
        self.ndim = len(self.shape)

    def __getitem__(self, key):
        return np.memmap(self.path, dtype=self.dtype, mode="r", shape=self.shape)[key]


@pytest.mark.slow
def test_memmap_bigger_than_worker_memory(scheduler, tmp_path_factory):
    if scheduler is None:
        pytest.skip("worker memory limits exist on the cluster only (run there)")
    n = 2**30  # 4 GiB of uint32
    chunk = 16 * 2**20  # 64 MiB
    folder = tmp_path_factory.mktemp("memmap")
    path = str(folder / "big.u32")
    try:
        # A sparse file: 4 GiB long, 4 MiB of scrambled data at the start of every
        # 64 MiB chunk, holes (zeros) elsewhere. Reading a hole still fills the page
        # cache and the reader's mapping like real data; writing it costs no disk.
        with open(path, "wb") as f:
            f.truncate(n * 4)
        m = np.memmap(path, dtype=np.uint32, mode="r+", shape=(n,))
        written = 2**20  # elements: 4 MiB
        for s in range(0, n, chunk):
            part = np.arange(s, s + written, dtype=np.uint32)
            part *= np.uint32(2654435761)
            m[s : s + written] = part
        m.flush()
        del m
        lo, hi = 10**9, 2 * 10**9
        local = np.memmap(path, dtype=np.uint32, mode="r", shape=(n,))
        want = sum(
            simdfilter.count_in_range(local[s : s + chunk], lo, hi) for s in range(0, n, chunk)
        )
        del local
        assert want > 10**7
        limit = 768 * 2**20  # each worker: under a fifth of the file
        cluster = _quiet_cluster(memory_limit=limit)
        with distributed.Client(cluster, set_as_default=False) as client:
            pids = client.run(os.getpid)
            x = da.from_array(_MemmapFile(path, np.uint32, (n,)), chunks=chunk, asarray=False)
            assert x.nbytes > 5 * limit and x.numblocks == (64,)
            got = client.compute(sfd.count_in_range(x, lo, hi)).result(timeout=300)
            assert int(got) == want
            # No worker was killed or restarted for memory (or anything else).
            assert client.run(os.getpid) == pids
            assert all(
                w["memory_limit"] == limit for w in client.scheduler_info()["workers"].values()
            )
        _close(cluster)
    finally:
        if os.path.exists(path):
            os.remove(path)


def test_between_takes_pandas_keyword_names():
    ps = pd.Series([1, 2, 3, 4], name="x")
    s = dd.from_pandas(ps, npartitions=2)
    want = s.between(left=1, right=3, inclusive="right").compute()
    got = s.sf.between(left=1, right=3, inclusive="right").compute()
    pd.testing.assert_series_equal(got, want, check_exact=True)


@pytest.mark.parametrize(
    "make, lo, hi",
    [
        (lambda: pd.Series([1, 2, None, 4], dtype="int64[pyarrow]"), 0, np.nan),
        (lambda: pd.Series(pd.to_timedelta([0, 1, 2, 3])), 0, 5),
        (lambda: pd.Series([True, False, True, False]), 0, 2**63),
    ],
    ids=["arrow-nan", "timedelta-int", "bool-2**63"],
)
def test_between_where_pandas_compares_its_own_way(make, lo, hi, request):
    if "arrow" in request.node.callspec.id:
        pytest.importorskip("pyarrow")
    s = dd.from_pandas(make(), npartitions=2)
    try:
        want = s.between(lo, hi).compute()
    except Exception as exc:  # pandas raises: so does the drop-in, the same type
        with pytest.raises(type(exc)):
            s.sf.between(lo, hi).compute()
        return
    pd.testing.assert_series_equal(s.sf.between(lo, hi).compute(), want, check_exact=True)
    assert s.sf.count(lo, hi).compute() == int(want.sum())
