"""Shared fixtures: every test that takes `kernel` runs once per kernel this machine can run."""

import zlib

import numpy as np
import pytest

import simdfilter

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
def rng(request):
    # A seed per test, stable across runs, so a failure reproduces.
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
