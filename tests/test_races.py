"""Caller memory that another thread writes during a call (issue 41, item 1).

NumPy lets a thread write an array while a call with the GIL released reads
it. What the library checks (within='s positions, the bits of
_positions_of_bits) it must read once: copied, checked, and only the copy
used. A racing writer may get a wrong answer or an error, never a crash.
Before the fix, within= positions were checked and then read again from the
caller's array, and a value written in between was used unchecked: SIGSEGV
within a second, sparse and dense blocks, every kernel.

Each case runs in a fresh interpreter (a crash must not take the test run
down) for a bounded number of calls, cut short after half a second of wall
time per kernel (a second for the bits) so that a slow machine (qemu,
sanitizers) stays within a few seconds. Nothing about time is asserted: only
that the interpreter lives, and that what it got was checked (positions
inside the data, rising). Before the fix every case died within that time
(8 runs of 8 on AMD EPYC Zen 4, avx512_zen4 and scalar).
"""

import subprocess
import textwrap

import pytest

import simdfilter as sf

RACE = """
import sys, threading, time
import numpy as np
import simdfilter as sf

step, wide, kernels = {step}, {wide}, {kernels}
v = np.arange(1_000_000, dtype=np.int32)
w = np.arange(0, v.size, step, dtype=np.int64 if wide else np.uint32)
good = w.copy()
# Far past the data: read at, it faults (an int64 one, as within= takes
# 8-byte positions, well inside the positive range).
bad = (1 << 40) if wide else 0xFFFFFFF0
stop = threading.Event()

# A few positions in every block of 1,024 the library takes: whichever block
# a call is in, the writer is in it too.
spots = np.arange(500, w.size, 1024 // 4)

def writer():
    while not stop.is_set():
        w[spots] = bad
        w[spots] = good[spots]

threading.Thread(target=writer, daemon=True).start()
calls = errors = 0
for kernel in kernels:
    deadline = time.monotonic() + {seconds}
    with sf.use_kernel(kernel):
        for _ in range({calls}):
            if time.monotonic() > deadline:
                break
            calls += 1
            try:
                # count mostly (cheap, so more blocks raced), positions now and then
                if calls % 8:
                    sf.count_in_range(v, 0, 10**9, within=w, threads=1)
                    continue
                got = sf.filter_indexes(v, 0, 10**9, within=w, threads=1)
            except (IndexError, ValueError):  # what the writer left was refused
                errors += 1
                continue
            # Whatever was read, what comes out was checked: inside the data, rising.
            assert got.size <= w.size
            assert got.size == 0 or (int(got[-1]) < v.size and (np.diff(got) > 0).all())
stop.set()
print("calls", calls, "errors", errors)
"""


def kernels_to_race():
    """scalar and the default: the within kernels and the dense pass of each."""
    default = sf.default_kernel()
    return ["scalar"] if default == "scalar" else ["scalar", default]


# Each case costs about a second of CPU (two threads racing for up to half a
# second per kernel, AMD EPYC Zen 4): the quick loop races sparse uint32 and
# dense int64 positions, every block kind and position width once; the full
# suite all four.
@pytest.mark.parametrize(
    "step, wide",
    [
        (64, False),
        pytest.param(64, True, marks=pytest.mark.slow),
        pytest.param(4, False, marks=pytest.mark.slow),
        (4, True),
    ],
    ids=["sparse-uint32", "sparse-int64", "dense-uint32", "dense-int64"],
)
def test_within_written_during_the_call(fresh_python, step, wide):
    code = RACE.format(step=step, wide=wide, kernels=kernels_to_race(), calls=100_000, seconds=0.5)
    survives(fresh_python, code)


def survives(python, code):
    """Runs a race in a new interpreter: it must end by itself, having made calls."""
    r = subprocess.run(
        [python, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, "the interpreter died (status %d):\n%s%s" % (
        r.returncode,
        r.stdout[-2000:],
        r.stderr[-4000:],
    )
    assert "calls" in r.stdout, r.stdout + r.stderr


BITS_RACE = """
import threading, time
import numpy as np
import simdfilter as sf
from simdfilter import _core

n = 1 << 20
bits = np.zeros(n // 8, dtype=np.uint8)
bits[::64] = 1  # one bit in 512 set: positions written straight into the result
stop = threading.Event()

def writer():
    while not stop.is_set():
        bits[:] = 0xFF  # every bit set: far more than the first pass counted
        bits[:] = 0
        bits[::64] = 1

threading.Thread(target=writer, daemon=True).start()
calls = changed = 0
deadline = time.monotonic() + {seconds}
for _ in range({calls}):
    if time.monotonic() > deadline:
        break
    calls += 1
    for dtype in (np.uint32, np.int64):
        try:
            got = _core._positions_of_bits(bits, n, dtype)
        except RuntimeError:
            changed += 1  # the bits changed between the count and the fill
            continue
        assert got.size <= n
stop.set()
print("calls", calls, "changed", changed)
"""


def test_positions_of_bits_written_during_the_call(fresh_python):
    """sf_bits_positions counted a block's set bits, then read them again to
    write their positions straight into a result sized by the count: bits set
    in between were written past its end."""
    if not hasattr(sf._core, "_positions_of_bits"):
        pytest.skip("this build has no _core._positions_of_bits")
    survives(fresh_python, BITS_RACE.format(calls=100_000, seconds=1.0))
