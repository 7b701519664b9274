"""Concurrency: threads= gives one thread's results, the GIL is released, Ctrl-C stops a call."""

import _thread
import threading
import time

import numpy as np
import pytest

import simdfilter


@pytest.mark.parametrize("threads", [None, 1, 2, 3, 7])
@pytest.mark.parametrize("op", ["indexes", "values", "count"])
def test_threads_match_one_thread(kernel, threads, op, rng):
    # Big enough that the driver really splits (>= 2**18 elements per thread).
    a = rng.integers(0, 1000, size=3 * 2**20 + 77, dtype=np.uint32)
    fn = {"indexes": simdfilter.filter_indexes, "values": simdfilter.filter_values,
          "count": simdfilter.count_in_range}[op]
    one = fn(a, 100, 349, threads=1)
    many = fn(a, 100, 349, threads=threads)
    if op == "count":
        assert many == one == np.count_nonzero((a >= 100) & (a <= 349))
    else:
        np.testing.assert_array_equal(many, one)
        assert many.dtype == one.dtype


def test_threads_with_out_and_strided(rng):
    a = rng.integers(0, 1000, size=4 * 2**20, dtype=np.uint32)
    out = np.empty(a.size, dtype=np.int64)
    got = simdfilter.filter_indexes(a, 0, 499, out=out, threads=2)
    np.testing.assert_array_equal(got, np.flatnonzero(a <= 499))
    s = a[::-2]
    np.testing.assert_array_equal(simdfilter.filter_indexes(s, 0, 499, threads=2),
                                  np.flatnonzero(s <= 499))


def test_bad_threads():
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(TypeError, match="threads"):
        simdfilter.filter_indexes(a, 0, 1, threads=1.5)
    with pytest.raises(TypeError, match="threads"):
        simdfilter.filter_indexes(a, 0, 1, threads=True)
    with pytest.raises(ValueError, match="threads"):
        simdfilter.count_in_range(a, 0, 1, threads=-2)


def test_threads_takes_any_integer():
    a = np.arange(20, dtype=np.int64)
    assert simdfilter.filter_indexes(a, 3, 5, threads=np.int64(2)).tolist() == [3, 4, 5]
    # More threads than anyone has: capped, not refused.
    assert simdfilter.filter_indexes(a, 3, 5, threads=10**30).tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match="threads"):
        simdfilter.filter_indexes(a, 3, 5, threads=-(10**30))


def test_gil_is_released():
    """Another Python thread makes progress while a long call runs."""
    a = np.random.default_rng(1).integers(0, 100, size=2**26, dtype=np.uint32)[::2]  # strided: slower
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
    during = [x for x in ticks if start < x < end]
    assert end - start > 0.005, "the call was too short to tell"
    # With the GIL held the whole time, the spinner could not record a single tick.
    assert len(during) > 100, f"{len(during)} ticks in {end - start:.3f} s"


def test_ctrl_c_interrupts_a_long_call():
    """A KeyboardInterrupt raised during a multi-second call stops it promptly."""
    # 2**34 byte-swapped elements of stride 0 (a broadcast: no memory) take the
    # gather path, tens of seconds in all; the interrupt arrives after 0.2 s.
    a = np.broadcast_to(np.array(5, dtype=">u2"), (2**34,))
    t0 = time.perf_counter()
    simdfilter.count_in_range(a[: 2**24], 1, 1, threads=1)
    full = (time.perf_counter() - t0) / 2**24 * a.size
    assert full > 2, f"the whole call would take only {full:.2f} s: too fast to tell"
    for threads in (1, 2):
        timer = threading.Timer(0.2, _thread.interrupt_main)
        timer.start()
        t0 = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            simdfilter.count_in_range(a, 1, 1, threads=threads)
        elapsed = time.perf_counter() - t0
        timer.join()
        assert elapsed < 1.5, f"threads={threads}: interrupted after {elapsed:.2f} s of a ~{full:.0f} s call"
