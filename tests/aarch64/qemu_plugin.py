"""pytest plugin for the suite under qemu-aarch64 (loaded by tests/aarch64/run.sh with -p).

Emulation runs everything ten to thirty times slower, and the machine may be
shared: Hypothesis's too_slow health check, a timing check on input generation,
then fails tests whose inputs are fine. It is switched off here, and only here;
every other health check, and every example count, stays as on x86.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("qemu", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("qemu")


def pytest_report_header(config):
    return ["emulated: qemu-aarch64 -cpu %s" % os.environ.get("SIMDFILTER_AARCH64_CPU", "?")]
