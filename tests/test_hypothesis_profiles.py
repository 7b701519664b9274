"""The Hypothesis profiles of tests/conftest.py: "simdfilter" (the full suite),
"simdfilter-quick" (a quarter of the examples, the quick loop -m "not slow")
and "simdfilter-emulated" (a quarter, tests/aarch64/run.sh); which one a run
loads; and that every test's own example count follows the profile loaded."""

import pathlib
import re

from hypothesis import HealthCheck, settings

import conftest
from conftest import examples, hypothesis_profile

TESTS = pathlib.Path(__file__).resolve().parent
DEFAULT = settings.get_profile("default").max_examples


def test_the_profiles():
    full = settings.get_profile("simdfilter")
    quarters = [settings.get_profile(p) for p in ("simdfilter-quick", "simdfilter-emulated")]
    assert full.max_examples == DEFAULT
    assert [q.max_examples for q in quarters] == [DEFAULT // 4] * 2
    for profile in [full, *quarters]:
        assert profile.deadline is None
        assert HealthCheck.too_slow in profile.suppress_health_check
    loaded = settings.get_profile(conftest.HYPOTHESIS_PROFILE)
    assert settings.default.max_examples == loaded.max_examples


def test_which_profile_a_run_loads(monkeypatch):
    monkeypatch.delenv("SIMDFILTER_HYPOTHESIS_PROFILE", raising=False)
    assert hypothesis_profile("not slow") == "simdfilter-quick"
    assert hypothesis_profile(" not slow ") == "simdfilter-quick"
    for markexpr in ("", None, "slow", "not slow and not x"):
        assert hypothesis_profile(markexpr) == "simdfilter"
    monkeypatch.setenv("SIMDFILTER_HYPOTHESIS_PROFILE", "simdfilter")
    assert hypothesis_profile("not slow") == "simdfilter"


def test_examples_scale_with_the_profile():
    share = settings.default.max_examples / DEFAULT
    for n in (1, 25, 40, 150, 300):
        assert examples(n) == max(1, int(n * share))
        # A quick-loop count is the quick loop's only.
        quick = conftest.HYPOTHESIS_PROFILE == "simdfilter-quick"
        assert examples(n, quick=7) == (7 if quick else examples(n))


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
