"""pytest plugin for the suite under qemu-aarch64 (loaded by tests/aarch64/run.sh with -p).

It names the emulated CPU in pytest's report header. The Hypothesis settings
under emulation are tests/conftest.py's "simdfilter-emulated" profile (a quarter
of the examples; no deadline, no too_slow health check, as everywhere), which
run.sh selects through SIMDFILTER_HYPOTHESIS_PROFILE: a profile loaded here
would be replaced by conftest's, which pytest loads after -p plugins.

SIMDFILTER_QEMU_UNPINNED=k1,k2 (run.sh sets it on the numpy1.23
configurations): the tests that pin one of those kernels (a "kernel" parameter)
are deselected here, as run.sh's --deselect would, because another
configuration pins them. Every SIMD kernel's own tests still run, against
the reference, and test_kernels' against the scalar kernel run in the same
process (test_kernels.check).
"""

import os


def _unpinned():
    return [k for k in os.environ.get("SIMDFILTER_QEMU_UNPINNED", "").split(",") if k]


def pytest_report_header(config):
    lines = ["emulated: qemu-aarch64 -cpu %s" % os.environ.get("SIMDFILTER_AARCH64_CPU", "?")]
    if _unpinned():
        lines.append(
            "deselected here: the tests pinning kernel %s (pinned on the numpy2 configurations;"
            " tests/aarch64/run.sh says why)" % ", ".join(_unpinned())
        )
    return lines


def pytest_collection_modifyitems(config, items):
    unpinned = set(_unpinned())
    if not unpinned:
        return
    kept, left = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        (left if params.get("kernel") in unpinned else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept
