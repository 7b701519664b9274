"""`python -m simdfilter`: it runs, checks its results, and says which kernel is the
default and why each other one is not (the library's own reasons)."""

import subprocess

import simdfilter
from simdfilter import _core


def test_the_demo_marks_the_default_and_gives_reasons(fresh_python):
    out = subprocess.run([fresh_python, "-m", "simdfilter"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "results equal to NumPy's: yes" in out.stdout
    lines = [line for line in out.stdout.splitlines() if "kernel " in line and "G/s" in line]
    assert len(lines) == len(simdfilter.available_kernels())
    default = simdfilter.default_kernel()
    for line in lines:
        name = line.split("kernel ", 1)[1].split()[0]
        if name == default:
            assert line.endswith("(the default)"), line
        else:
            assert f"(not the default: {_core._not_default_reason(name)})" in line, line
