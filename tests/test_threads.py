"""Concurrency: threads= gives one thread's results, the GIL is released, Ctrl-C stops a call."""

import _thread
import signal
import sys
import threading
import time

import numpy as np
import pytest

import simdfilter

from arrays import zero_stride


@pytest.mark.parametrize("threads", [None, 1, 2, 3, 7])
@pytest.mark.parametrize("op", ["indexes", "values", "count"])
def test_threads_match_one_thread(kernel, threads, op, rng):
    # Big enough that the driver really splits (>= 2**18 elements per thread).
    a = rng.integers(0, 1000, size=3 * 2**20 + 77, dtype=np.uint32)
    fn = {
        "indexes": simdfilter.filter_indexes,
        "values": simdfilter.filter_values,
        "count": simdfilter.count_in_range,
    }[op]
    one = fn(a, 100, 349, threads=1)
    many = fn(a, 100, 349, threads=threads)
    if op == "count":
        assert many == one == np.count_nonzero((a >= 100) & (a <= 349))
    else:
        np.testing.assert_array_equal(many, one)
        assert many.dtype == one.dtype


# Lengths that cut the thread team's blocks (lib/team.c: 32 Ki elements, claimed by the threads
# in turn) unevenly: tiny, just past a block, no multiple of 64, and across a
# cancel block (2**24 elements, uint8 to keep it small).
# The last is slow on a loaded 2-core machine; tests/c/test_driver.c covers the
# cancel block in the quick loop.
ODD_LENGTHS = [
    0,
    1,
    100,
    2**15 + 1,
    2**19 + 2**15 + 63,
    3 * 2**18 + 4097,
    pytest.param(2**24 + 2**15 + 5, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("n", ODD_LENGTHS)
def test_every_thread_count_matches_one_thread(n, rng):
    """Threads 2-4 and automatic give exactly one thread's results at lengths that
    split the blocks unevenly, with nulls (numpy.ma), with out= and with within=."""
    dtype = np.uint8 if n > 2**22 else np.uint32
    a = rng.integers(0, 200, size=n, dtype=dtype)
    mask = rng.random(n) < 0.1
    masked = np.ma.MaskedArray(a, mask)
    within = np.flatnonzero(rng.random(n) < 0.3).astype(np.uint32)
    lo, hi = 20, 120
    expected = np.flatnonzero((a >= lo) & (a <= hi))
    expected_nulls = np.flatnonzero((a >= lo) & (a <= hi) & ~mask)
    calls = {
        "indexes": (simdfilter.filter_indexes, a, {}),
        "values": (simdfilter.filter_values, a, {}),
        "count": (simdfilter.count_in_range, a, {}),
        "indexes nulls": (simdfilter.filter_indexes, masked, {}),
        "values nulls": (simdfilter.filter_values, masked, {}),
        "count nulls": (simdfilter.count_in_range, masked, {}),
        "indexes within": (simdfilter.filter_indexes, a, {"within": within}),
        "count within": (simdfilter.count_in_range, a, {"within": within}),
    }
    # One thread's answers, once: they do not depend on the thread count being
    # compared with (at 2**24 elements under qemu, recomputing them for each
    # count took half of this test's 200 s).
    one = {name: fn(values, lo, hi, threads=1, **kw) for name, (fn, values, kw) in calls.items()}
    np.testing.assert_array_equal(one["indexes"], expected)
    assert one["count"] == expected.size
    np.testing.assert_array_equal(one["indexes nulls"], expected_nulls)
    for threads in (2, 3, 4, None):
        for name, (fn, values, kw) in calls.items():
            many = fn(values, lo, hi, threads=threads, **kw)
            if isinstance(one[name], np.ndarray):
                np.testing.assert_array_equal(many, one[name], err_msg=f"{name}, threads={threads}")
                assert many.dtype == one[name].dtype, (name, threads)
            else:
                assert many == one[name], (name, threads)
        out = np.full(n, 7, dtype=np.int64)
        into = simdfilter.filter_indexes(a, lo, hi, out=out, threads=threads)
        np.testing.assert_array_equal(into, expected)


def test_threads_with_out_and_strided(rng):
    a = rng.integers(0, 1000, size=4 * 2**20, dtype=np.uint32)
    out = np.empty(a.size, dtype=np.int64)
    got = simdfilter.filter_indexes(a, 0, 499, out=out, threads=2)
    np.testing.assert_array_equal(got, np.flatnonzero(a <= 499))
    s = a[::-2]
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(s, 0, 499, threads=2), np.flatnonzero(s <= 499)
    )


def test_threads_into_a_large_out(rng):
    """Into an out= of 64 MiB or more, threads place their blocks with streaming
    stores (lib/team.c): the same positions, at any alignment of out."""
    n = 2**23 + 77
    a = rng.integers(0, 1000, size=n, dtype=np.uint16)
    want = np.flatnonzero((a >= 100) & (a <= 699))
    base = np.full(n + 2, 7, dtype=np.int64)
    for out in (base[:n], base[1 : n + 1]):  # 16-byte aligned or not
        for threads in (2, 3):
            got = simdfilter.filter_indexes(a, 100, 699, out=out, threads=threads)
            np.testing.assert_array_equal(got, want, err_msg=f"threads={threads}")
            assert np.shares_memory(got, out)


def test_bad_threads():
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(TypeError, match="threads"):
        simdfilter.filter_indexes(a, 0, 1, threads=1.5)
    with pytest.raises(TypeError, match="threads"):
        simdfilter.filter_indexes(a, 0, 1, threads=True)
    with pytest.raises(ValueError, match="threads"):
        simdfilter.count_in_range(a, 0, 1, threads=-2)


def test_auto_threads_reports_the_rule():
    """_core._auto_threads (what the benchmark labels its cells with) is the rule the
    docstring states: one thread below 16 MiB of input, below 32 MiB into a fresh result,
    never more than the CPUs this process may use."""
    auto = simdfilter._core._auto_threads
    mib = 1 << 20
    assert auto(0) == auto(16 * mib - 1) == auto(32 * mib - 1, True) == 1
    cpus = simdfilter._core.cpu_count
    for nbytes in (16 * mib, 64 * mib, 1 << 40):
        assert 1 <= auto(nbytes) <= min(cpus, nbytes // (8 * mib))
        assert 1 <= auto(nbytes=nbytes, fresh=True) <= min(cpus, max(1, nbytes // (16 * mib)))
    with pytest.raises(ValueError, match="nbytes"):
        auto(-1)


def test_threads_takes_any_integer():
    a = np.arange(20, dtype=np.int64)
    assert simdfilter.filter_indexes(a, 3, 5, threads=np.int64(2)).tolist() == [3, 4, 5]
    # More threads than anyone has: capped, not refused.
    assert simdfilter.filter_indexes(a, 3, 5, threads=10**30).tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match="threads"):
        simdfilter.filter_indexes(a, 3, 5, threads=-(10**30))


def _ticks_inside_a_call(n):
    """Run a one-thread call on n elements while another thread records ticks;
    return (call seconds, ticks recorded well inside the call)."""
    # Byte-swapped and at stride 0: the gather path, about 1 ns an element; no memory.
    a = zero_stride(5, n, ">u2")
    ticks = []
    done = threading.Event()

    def spin():
        while not done.is_set():
            ticks.append(time.perf_counter())

    t = threading.Thread(target=spin)
    with simdfilter.use_kernel("scalar"):
        t.start()
        time.sleep(0.01)
        start = time.perf_counter()
        simdfilter.count_in_range(a, 10, 20, threads=1)
        end = time.perf_counter()
        done.set()
        t.join()
    # The spinner may hold the GIL for one switch interval after `start` and take
    # it back before `end` even if the call held the GIL throughout: count only
    # the ticks away from both ends.
    margin = 2 * sys.getswitchinterval()
    return end - start, [x for x in ticks if start + margin < x < end - margin]


def test_gil_is_released():
    """Another Python thread makes progress while a long call runs."""
    n = 2**27
    # A loaded machine may give the spinner no CPU during a call: try a few
    # times, doubling the call when it was too short to have an inside.
    for _ in range(5):
        elapsed, during = _ticks_inside_a_call(n)
        if elapsed < 10 * sys.getswitchinterval():
            n *= 2
        elif len(during) > 100:
            break
    assert elapsed >= 10 * sys.getswitchinterval(), (
        f"the call took {elapsed:.3f} s: too short to tell"
    )
    # With the GIL held the whole time, the spinner could not record a single tick.
    assert len(during) > 100, f"{len(during)} ticks in {elapsed:.3f} s"


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt during the test, whatever the process inherited.

    A shell that starts pytest in the background (`pytest &`, a CI step run that
    way) leaves SIGINT ignored; Python then installs no handler, and
    _thread.interrupt_main() does nothing: the call below would run to its end.
    """
    if threading.current_thread() is not threading.main_thread():
        pytest.skip(
            "signal handlers can only be set from the main thread; this test runs in another"
        )
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def test_ctrl_c_interrupts_a_long_call(sigint_raises):
    """A KeyboardInterrupt raised during a call that would run for minutes stops it
    long before its end."""
    # 2**38 byte-swapped elements of stride 0 (a broadcast: no memory) take the
    # gather path, about 1 ns each here: minutes on any machine, so the call cannot
    # end before the interrupt arrives at 0.2 s (nothing is sized from a timing).
    # The C side checks for signals every 2**24 elements: milliseconds.
    a = zero_stride(5, 2**38, ">u2")
    for threads in (1, 2, 4):
        timer = threading.Timer(0.2, _thread.interrupt_main)
        timer.start()
        t0 = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            simdfilter.count_in_range(a, 1, 1, threads=threads)
        elapsed = time.perf_counter() - t0
        timer.join()
        # Generous for a loaded machine; a call that ignored Ctrl-C would run for minutes.
        assert elapsed < 10, f"threads={threads}: interrupted only after {elapsed:.2f} s"
