"""The Hypothesis profiles of tests/conftest.py: "simdfilter" (x86) and
"simdfilter-emulated" (a quarter of the examples, tests/aarch64/run.sh), and
that every test's own example count follows the profile loaded."""

import pathlib
import re

from hypothesis import HealthCheck, settings

from conftest import HYPOTHESIS_PROFILE, examples

TESTS = pathlib.Path(__file__).resolve().parent
DEFAULT = settings.get_profile("default").max_examples


def test_the_profiles():
    full, emulated = settings.get_profile("simdfilter"), settings.get_profile("simdfilter-emulated")
    assert full.max_examples == DEFAULT
    assert emulated.max_examples == DEFAULT // 4
    for profile in (full, emulated):
        assert profile.deadline is None
        assert HealthCheck.too_slow in profile.suppress_health_check
    assert settings.default.max_examples == settings.get_profile(HYPOTHESIS_PROFILE).max_examples


def test_examples_scale_with_the_profile():
    share = settings.default.max_examples / DEFAULT
    for n in (1, 25, 40, 150, 300):
        assert examples(n) == max(1, int(n * share))


def test_own_counts_follow_the_profile():
    # An explicit max_examples overrides any profile: a bare number would run
    # its full count under qemu too. Written examples(n), it is scaled.
    bare = [
        f"{path.name}:{i}: {line.strip()}"
        for path in sorted(TESTS.glob("test_*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"max_examples\s*=\s*\d", line)
    ]
    assert not bare, "write max_examples=examples(n) (tests/conftest.py):\n" + "\n".join(bare)
