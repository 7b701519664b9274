"""The kernel is a property of the calling context: `with use_kernel(...)` blocks
are local to their thread or asyncio task and leave the process default alone;
a bare use_kernel(name) call sets the process default."""

import asyncio
import contextvars
import threading

import numpy as np
import pytest

import simdfilter

KERNELS = simdfilter.available_kernels()
pytestmark = pytest.mark.skipif(
    len(KERNELS) < 2, reason=f"only {KERNELS} runs here: nothing to choose between"
)
SLOW, FAST = KERNELS[0], KERNELS[-1]
DATA = np.arange(100_000, dtype=np.uint32) % 1000
EXPECTED = np.flatnonzero((DATA >= 100) & (DATA <= 199))


def filter_checked():
    np.testing.assert_array_equal(simdfilter.filter_indexes(DATA, 100, 199), EXPECTED)


@pytest.fixture(autouse=True)
def default_restored():
    before = simdfilter.active_kernel()
    yield before
    simdfilter.use_kernel(before)
    assert simdfilter.active_kernel() == before


def run_threads(*targets):
    errors = []

    def guarded(fn):
        def run():
            try:
                fn()
            except BaseException as exc:  # reported by the main thread below
                errors.append(exc)

        return run

    threads = [threading.Thread(target=guarded(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def test_overlapping_blocks_in_two_threads_each_keep_their_kernel(default_restored):
    # enter A, enter B, exit A, exit B: the order that broke a process-wide switch.
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def thread_a():
        with simdfilter.use_kernel(SLOW):
            a_in.set()
            assert b_in.wait(10)
            seen["a"] = simdfilter.active_kernel()
            filter_checked()
        a_out.set()
        seen["a_after"] = simdfilter.active_kernel()

    def thread_b():
        assert a_in.wait(10)
        with simdfilter.use_kernel(FAST):
            b_in.set()
            assert a_out.wait(10)
            seen["b"] = simdfilter.active_kernel()  # A has left: B is still on its own
            filter_checked()
        seen["b_after"] = simdfilter.active_kernel()

    run_threads(thread_a, thread_b)
    assert seen == {"a": SLOW, "b": FAST, "a_after": default_restored, "b_after": default_restored}
    assert simdfilter.active_kernel() == default_restored


def test_interleaved_constructors_and_entries_leave_the_default(default_restored):
    # Each use_kernel(...) sets the default until its __enter__ takes it back;
    # construct A, construct B, enter A, enter B across two threads.
    step = [threading.Event() for _ in range(4)]

    def thread_a():
        chooser = simdfilter.use_kernel(SLOW)
        step[0].set()
        assert step[1].wait(10)
        with chooser:
            step[2].set()
            assert step[3].wait(10)
            assert simdfilter.active_kernel() == SLOW

    def thread_b():
        assert step[0].wait(10)
        chooser = simdfilter.use_kernel(FAST)
        step[1].set()
        assert step[2].wait(10)
        with chooser:
            step[3].set()
            assert simdfilter.active_kernel() == FAST

    run_threads(thread_a, thread_b)
    assert simdfilter.active_kernel() == default_restored


def test_many_threads_with_random_blocks_leave_the_default(default_restored):
    rng = np.random.default_rng(7)
    plans = [rng.choice(KERNELS, size=20) for _ in range(4)]

    def worker(plan):
        def run():
            for name in plan:
                with simdfilter.use_kernel(str(name)):
                    assert simdfilter.active_kernel() == name
                    filter_checked()

        return run

    run_threads(*(worker(p) for p in plans))
    assert simdfilter.active_kernel() == default_restored


def test_asyncio_tasks_keep_their_own_kernel(default_restored):
    async def task(name, seen):
        with simdfilter.use_kernel(name):
            for _ in range(5):
                await asyncio.sleep(0)  # the other task runs in between
                seen.append((name, simdfilter.active_kernel()))
                filter_checked()

    async def main():
        seen = []
        await asyncio.gather(task(SLOW, seen), task(FAST, seen))
        return seen

    seen = asyncio.run(main())
    assert len(seen) == 10 and all(want == got for want, got in seen)
    assert simdfilter.active_kernel() == default_restored


def test_blocks_nest_and_a_bare_call_inside_sets_the_default(default_restored):
    with simdfilter.use_kernel(SLOW):
        with simdfilter.use_kernel(FAST):
            assert simdfilter.active_kernel() == FAST
        assert simdfilter.active_kernel() == SLOW
        simdfilter.use_kernel(FAST)  # bare: the process default, not this block's
        assert simdfilter.active_kernel() == SLOW
    assert simdfilter.active_kernel() == FAST


def test_a_thread_started_in_a_block_runs_the_default_unless_given_the_context(default_restored):
    seen = {}
    with simdfilter.use_kernel(SLOW if default_restored != SLOW else FAST) as block:
        plain = threading.Thread(target=lambda: seen.update(plain=simdfilter.active_kernel()))
        ctx = contextvars.copy_context()
        given = threading.Thread(
            target=lambda: ctx.run(lambda: seen.update(given=simdfilter.active_kernel()))
        )
        for t in (plain, given):
            t.start()
            t.join()
    assert seen == {"plain": default_restored, "given": block.name}


def test_bare_call_sets_the_process_default_for_every_thread():
    simdfilter.use_kernel(SLOW)
    seen = []
    run_threads(lambda: seen.append(simdfilter.active_kernel()))
    assert seen == [SLOW]
