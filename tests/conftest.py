"""Shared fixtures: every test that takes `kernel` runs once per kernel this machine can run.

Inputs come from tests/arrays.py, shared assertions from tests/agree.py.
"""

import os
import re
import sys
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import simdfilter

# A loaded machine slows data generation: that is not a failure of the code
# under test. None has a deadline. Example counts: "simdfilter" runs
# Hypothesis's default (100) per test, and a test's own count where it sets one
# (through examples() below); the quarter profiles a quarter of each (25 by
# default):
# - "simdfilter-quick" for the quick loop (`-m "not slow"`), which a contributor
#   runs after every change: the full suite (`pytest` with no -m, CI's x86
#   stage) runs the full counts;
# - "simdfilter-emulated" for the suite under qemu-aarch64, where an example
#   costs ten to thirty times more: tests/aarch64/run.sh selects it.
# SIMDFILTER_HYPOTHESIS_PROFILE names one and wins over the rule
# (pytest_configure). Every test runs under each.
settings.register_profile("simdfilter", deadline=None, suppress_health_check=[HealthCheck.too_slow])
for _quarter in ("simdfilter-quick", "simdfilter-emulated"):
    settings.register_profile(
        _quarter,
        parent=settings.get_profile("simdfilter"),
        max_examples=settings.get_profile("default").max_examples // 4,
    )
QUICK_LOOP = "not slow"  # the -m expression of the README's quick loop
HYPOTHESIS_PROFILE = "simdfilter"  # the one loaded, set by pytest_configure


def hypothesis_profile(markexpr):
    """The profile a run loads: SIMDFILTER_HYPOTHESIS_PROFILE's, else the quick
    loop's for ``-m "not slow"``, else the full one."""
    named = os.environ.get("SIMDFILTER_HYPOTHESIS_PROFILE")
    if named:
        return named
    return "simdfilter-quick" if (markexpr or "").strip() == QUICK_LOOP else "simdfilter"


def examples(n, quick=None):
    """A test's own example count `n`, scaled as the loaded profile scales
    Hypothesis's default: `n` under "simdfilter", a quarter of it (at least 1)
    under the quarter profiles. `quick`, where given, is the quick loop's count
    instead of a quarter of `n`: for a test whose large `n` buys breadth that
    the full suite keeps (qemu's profile still runs a quarter of `n`)."""
    if quick is not None and HYPOTHESIS_PROFILE == "simdfilter-quick":
        return quick
    return max(1, n * settings.default.max_examples // settings.get_profile("default").max_examples)


def quick_loop():
    """True under the quarter profiles (the quick loop, qemu): the C harness then
    runs its programs' quick sizes too (tests/test_c_harness.py), every kernel and
    element kind still, as Hypothesis runs every test with fewer examples."""
    return HYPOTHESIS_PROFILE != "simdfilter"


def buffer_offsets():
    """The element offsets into a buffer that the length-and-offset tests try: 0
    (aligned) and 3 (odd) in the quick loop, which halves test_invert.py's and
    test_ranges.py's longest tests (AMD EPYC Zen 4, loaded); 1 and 8 too in the
    full suite."""
    return (0, 3) if quick_loop() else (0, 1, 3, 8)


KERNELS = simdfilter.available_kernels()
SIMD_KERNELS = tuple(k for k in KERNELS if k != "scalar")


def pytest_report_header(config):
    missing = [k for k in simdfilter.compiled_kernels() if k not in KERNELS]
    lines = [
        f"simdfilter kernels available here: {', '.join(KERNELS)}",
        f"CPU features: {' '.join(simdfilter.cpu_features())}",
        f"Hypothesis profile: {HYPOTHESIS_PROFILE} "
        f"({settings.default.max_examples} examples where a test sets no count)",
    ]
    if missing:
        lines.append(
            f"compiled but not runnable on this CPU (not tested here): {', '.join(missing)}"
        )
    return lines


@pytest.fixture(params=KERNELS)
def kernel(request):
    """Pin each available kernel in turn for the duration of a test."""
    with simdfilter.use_kernel(request.param):
        yield request.param


@pytest.fixture(scope="session")
def fresh_python():
    """The command that starts a fresh Python with this one's simdfilter and NumPy.

    sys.executable, except where this Python runs under an emulator that the
    system cannot start by itself (qemu-user without binfmt_misc, as in
    tests/aarch64/run.sh): there SIMDFILTER_TEST_PYTHON names a launcher that
    starts the same interpreter through the same emulator.
    """
    return os.environ.get("SIMDFILTER_TEST_PYTHON") or sys.executable


def _case_id(item):
    """The test id without the kernel's part: the same for every kernel of a case."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "kernel" not in params:
        return item.nodeid
    return re.sub(
        r"(?<=[\[-])%s(?=[\]-])" % re.escape(str(params["kernel"])), "*", item.nodeid, count=1
    )


@pytest.fixture
def rng(request):
    # A seed per test id, stable across runs and across pytest-xdist workers
    # (never the collection order), so a failure reproduces. The kernel is left
    # out of it: every kernel of a case sees the same data, so a kernel that
    # fails where the others pass is a bug of that kernel's, and the reference's
    # answers are computed once for all of them (tests/agree.py).
    return np.random.default_rng(zlib.crc32(_case_id(request.node).encode()))


@pytest.fixture
def whole_column_calls(monkeypatch):
    """The frame faces' whole-column steps, spied on: returns ``calls`` (the
    names of ``_core._in_range_bits`` and ``_core._filter_indexes_where`` as
    frame queries call them) and ``set_bits_from(f)``, which sets the standing
    fraction from which columns are read whole (None keeps the default)."""
    from simdfilter import _conjunction, _face

    calls = []
    for name in ("_in_range_bits", "_filter_indexes_where"):
        real = getattr(_face._core, name)
        monkeypatch.setattr(
            _face._core,
            name,
            lambda *a, _real=real, _n=name, **k: calls.append(_n) or _real(*a, **k),
        )

    def set_bits_from(fraction):
        if fraction is not None:
            monkeypatch.setattr(_conjunction, "BITS_FROM", fraction)

    return calls, set_bits_from


def pytest_configure(config):
    # Here, before the test modules are imported: their examples(n) read the
    # loaded profile. An unknown name is Hypothesis's InvalidArgument.
    global HYPOTHESIS_PROFILE
    HYPOTHESIS_PROFILE = hypothesis_profile(config.getoption("markexpr", ""))
    settings.load_profile(HYPOTHESIS_PROFILE)
    # pytest-xdist (-n): deal the tests out one at a time as workers free up (each
    # worker holds the test it runs and the next), not in chunks of a quarter of a
    # worker's share: the first chunk would hold the whole C harness (the order
    # below), minutes of work for one worker while the other runs out of tests.
    # An explicit --maxschedchunk wins.
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = 1


# Tests that share a per-process resource too costly to make twice, each set
# dealt to one pytest-xdist worker: a test module and the id of the parameter
# its resource goes with. test_dask.py's two-process cluster (a module-scoped
# parameter) costs 4.5-5 s of CPU in the quick loop, its worker processes
# importing NumPy, pandas and simdfilter (AMD EPYC Zen 4); dealt one test at a
# time, both pytest-xdist workers made one.
TOGETHER = {"test_dask.py": "cluster"}


def together(nodeid):
    """The set a test belongs to (TOGETHER), or None."""
    module = nodeid.split("::")[0].rsplit("/", 1)[-1]
    param = TOGETHER.get(module)
    if param and re.search(r"\[(.*-)?%s(-.*)?\]$" % re.escape(param), nodeid):
        return module
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's load scheduling (-n), except that a batch it deals is
    extended to the end of a TOGETHER set that it ends inside: the whole set
    goes to one worker. The set's tests are consecutive (pytest orders a
    module-scoped parameter's tests together)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScheduling

    class TogetherScheduling(LoadScheduling):
        def _send_tests(self, node, num):
            end = min(num, len(self.pending))
            if end:
                group = together(self.collection[self.pending[end - 1]])
                while (
                    group
                    and end < len(self.pending)
                    and together(self.collection[self.pending[end]]) == group
                ):
                    end += 1
            super()._send_tests(node, end)

    return TogetherScheduling(config, log)


def rotated_out(items):
    """The node ids of the cases of rotate_kernels tests that run in the full
    suite only: those whose kernel is not their case's turn. A case's turn is the
    sum of its other parameters' positions (each value's place among that
    parameter's values, in collection order), modulo the number of kernels: a
    Latin square, so that every kernel still meets every value of each other
    parameter that has at least as many values as there are kernels (every
    dtype, every layout)."""
    places = {}  # (test, parameter) -> {id(value): place}
    out = set()
    for item in items:
        callspec = getattr(item, "callspec", None)
        if item.get_closest_marker("rotate_kernels") is None or callspec is None:
            continue
        if "kernel" not in callspec.params:
            continue
        test = item.nodeid.split("[")[0]
        turn = 0
        for name, value in callspec.params.items():
            if name != "kernel":
                seen = places.setdefault((test, name), {})
                turn += seen.setdefault(id(value), len(seen))
        if KERNELS.index(callspec.params["kernel"]) != turn % len(KERNELS):
            out.add(item.nodeid)
    return out


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the marks added here
def pytest_collection_modifyitems(session, config, items):
    """A rotate_kernels test's cases off their kernel's turn (rotated_out) are
    marked slow: the quick loop runs each case on one kernel, the full suite on
    all of them. Kernel x dtype x layout products of cheap cases, whose layouts
    the C harness's driver test crosses with every kernel (test_driver.c):
    1,690 tests and 4 s of the quick loop's CPU on five kernels (AMD EPYC Zen 4).

    The order the tests run in (every pytest-xdist worker computes the same):

    - the C harness first, its slow tests first of all, then the other slow
      tests: they are the longest (builds, sanitizers, qemu, 60 s of fuzzing,
      2**24 elements under emulation), and pytest-xdist deals the
      first items to the workers in turn, so they are spread over the workers and
      the short Python tests fill in around them, instead of one long test
      starting last while the other worker has nothing left to do;
    - within a test function, the kernels of one case next to each other, so that
      one worker computes the reference's answers once for all of them (agree.py).
    """

    rotated = rotated_out(items)
    for item in items:
        if item.nodeid in rotated:
            item.add_marker(pytest.mark.slow)

    def rank(item):
        path = item.nodeid.split("::")[0]
        if path.endswith("test_c_harness.py"):
            return 0 if item.get_closest_marker("slow") else 1
        # The other slow tests next (under qemu the 2**24-element thread test is
        # the longest of all), but not Dask's: its module-scoped scheduler
        # parameter keeps the module's tests together.
        # Nor a case rotated out of the quick loop: a short test like its others.
        if (
            item.get_closest_marker("slow")
            and not path.endswith("test_dask.py")
            and item.nodeid not in rotated
        ):
            return 2
        return 3

    ordered = []
    for _, group in _runs(
        sorted(items, key=rank), lambda i: (i.nodeid.split("::")[0], i.originalname)
    ):
        if any("kernel" in getattr(getattr(i, "callspec", None), "params", {}) for i in group):
            first = {}
            for i in group:
                first.setdefault(_case_id(i), len(first))
            group = sorted(group, key=lambda i: first[_case_id(i)])
        ordered += group
    items[:] = ordered


def _runs(items, key):
    """Consecutive items with the same key, as (key, [items])."""
    out = []
    for item in items:
        k = key(item)
        if out and out[-1][0] == k:
            out[-1][1].append(item)
        else:
            out.append((k, [item]))
    return out
