"""Shared fixtures: every test that takes `kernel` runs once per kernel this machine can run.

Inputs come from tests/arrays.py, shared assertions from tests/agree.py.
"""

import os
import sys
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import simdfilter

# A loaded machine slows data generation: that is not a failure of the code
# under test. Tests set their own example counts; none has a deadline.
settings.register_profile("simdfilter", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("simdfilter")

KERNELS = simdfilter.available_kernels()
SIMD_KERNELS = tuple(k for k in KERNELS if k != "scalar")


def pytest_report_header(config):
    missing = [k for k in simdfilter.compiled_kernels() if k not in KERNELS]
    lines = [
        f"simdfilter kernels available here: {', '.join(KERNELS)}",
        f"CPU features: {' '.join(simdfilter.cpu_features())}",
    ]
    if missing:
        lines.append(f"compiled but not runnable on this CPU (not tested here): {', '.join(missing)}")
    return lines


@pytest.fixture(params=KERNELS)
def kernel(request):
    """Pin each available kernel in turn for the duration of a test."""
    with simdfilter.use_kernel(request.param):
        yield request.param


@pytest.fixture
def fresh_python():
    """The command that starts a fresh Python with this one's simdfilter and NumPy.

    sys.executable, except where this Python runs under an emulator that the
    system cannot start by itself (qemu-user without binfmt_misc, as in
    tests/aarch64/run.sh): there SIMDFILTER_TEST_PYTHON names a launcher that
    starts the same interpreter through the same emulator.
    """
    return os.environ.get("SIMDFILTER_TEST_PYTHON") or sys.executable


@pytest.fixture
def rng(request):
    # A seed per test id, stable across runs and across pytest-xdist workers
    # (never the collection order), so a failure reproduces.
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
