"""The public API around the kernels: argument errors, kernel choice, environment."""

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import simdfilter

from conftest import KERNELS


# ---- arguments ------------------------------------------------------------------


def test_bad_arguments():
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(ValueError, match="inclusive must be one of"):
        simdfilter.filter_indexes(a, 0, 1, inclusive="all")
    with pytest.raises(TypeError, match="str bound does not apply to numeric data"):
        simdfilter.filter_indexes(a, "3", 5)
    with pytest.raises(TypeError, match="bounds must be real numbers or None, not object"):
        simdfilter.filter_indexes(a, 0, object())
    with pytest.raises(TypeError, match="index_dtype must be one of"):
        simdfilter.filter_indexes(a, 0, 1, index_dtype=np.int16)
    with pytest.raises(TypeError):
        simdfilter.filter_indexes(a, 0, 1, index_dtype="not a dtype")
    with pytest.raises(TypeError, match="missing required argument 'hi'"):
        simdfilter.filter_indexes(a, 0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        simdfilter.filter_indexes(a, 0, 1, inclusiv="both")
    with pytest.raises(TypeError, match="positional"):
        simdfilter.filter_indexes(a, 0, 1, "both")
    with pytest.raises(TypeError, match="unexpected keyword"):
        simdfilter.count_in_range(a, 0, 1, out=np.empty(10, np.uint32))
    with pytest.raises(ValueError, match="threads"):
        simdfilter.filter_indexes(a, 0, 1, threads=0)


# ---- kernels ----------------------------------------------------------------------


def test_kernel_introspection():
    avail = simdfilter.available_kernels()
    assert avail[0] == "scalar"
    assert set(avail) <= set(simdfilter.compiled_kernels())
    assert simdfilter.active_kernel() in avail
    if platform.machine() in ("x86_64", "AMD64"):
        feats = simdfilter.cpu_features()
        expect = [
            k
            for k, f in [
                ("sse41", "sse4.1"),
                ("avx2", "avx2"),
                ("avx512_zen4", "avx512bw"),
                ("avx512", "avx512bw"),
            ]
            if f in feats and k in simdfilter.compiled_kernels()
        ]
        assert [k for k in avail if k != "scalar"] == expect
        # The default store form of AVX-512 follows the CPU (kernels/avx512.c).
        if "avx512" in avail:
            want = "avx512_zen4" if "slow-compress-store" in feats else "avx512"
            env = {k: v for k, v in os.environ.items() if k != "SIMDFILTER_KERNEL"}
            got = subprocess.run(
                [sys.executable, "-c", "import simdfilter; print(simdfilter.active_kernel())"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            assert got.strip() == want


def test_use_kernel_switches_and_restores():
    before = simdfilter.active_kernel()
    for name in KERNELS:
        with simdfilter.use_kernel(name) as ctx:
            assert simdfilter.active_kernel() == name
            assert ctx.name == name
        assert simdfilter.active_kernel() == before
    simdfilter.use_kernel("scalar")
    try:
        assert simdfilter.active_kernel() == "scalar"
    finally:
        simdfilter.use_kernel(before)


def test_use_kernel_rejects_unknown_and_unsupported():
    with pytest.raises(
        ValueError, match=r"unknown kernel 'avx1024'.*available kernels: \('scalar'"
    ):
        simdfilter.use_kernel("avx1024")
    unsupported = [k for k in ("sse41", "avx2", "avx512", "neon", "sve") if k not in KERNELS]
    for name in unsupported:
        with pytest.raises(ValueError, match="available kernels"):
            simdfilter.use_kernel(name)
    with pytest.raises(TypeError):
        simdfilter.use_kernel(3)
    # The name is not cut at an embedded NUL.
    with pytest.raises(ValueError, match="unknown kernel"):
        simdfilter.use_kernel("scalar\0garbage")


@pytest.mark.parametrize("name", KERNELS)
def test_environment_variable(name, fresh_python):
    code = "import simdfilter; print(simdfilter.active_kernel())"
    env = dict(os.environ, SIMDFILTER_KERNEL=name)
    out = subprocess.run([fresh_python, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == name


def test_environment_variable_rejects_bad_names(fresh_python):
    env = dict(os.environ, SIMDFILTER_KERNEL="bogus")
    out = subprocess.run(
        [fresh_python, "-c", "import simdfilter"], env=env, capture_output=True, text=True
    )
    assert out.returncode != 0
    assert "SIMDFILTER_KERNEL='bogus'" in out.stderr and "available kernels" in out.stderr
