"""pytest plugin for the suite under qemu-aarch64 (loaded by tests/aarch64/run.sh with -p).

It names the emulated CPU in pytest's report header. The Hypothesis settings
under emulation are tests/conftest.py's "simdfilter-emulated" profile (a quarter
of the examples; no deadline, no too_slow health check, as everywhere), which
run.sh selects through SIMDFILTER_HYPOTHESIS_PROFILE: a profile loaded here
would be replaced by conftest's, which pytest loads after -p plugins.
"""

import os


def pytest_report_header(config):
    return ["emulated: qemu-aarch64 -cpu %s" % os.environ.get("SIMDFILTER_AARCH64_CPU", "?")]
