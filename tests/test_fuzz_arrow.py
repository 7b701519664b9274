"""The Arrow import under libFuzzer with ASan and UBSan (tests/c/fuzz_arrow.c):
schemas and arrays built from the fuzz bytes, with random formats, lengths,
offsets, buffer counts, NULL pointers and release states. What a consumer can
check never crashes; what it cannot (buffers as long as offset + length) the
harness keeps as the producer's promise.

Environment: SIMDFILTER_FUZZ_SECONDS (default 30 here), SIMDFILTER_SEED
(libFuzzer's seed, default random, printed on failure)."""

import os
import random
import re
import shutil

import pytest

import cbuild
from cbuild import SANITIZER_ENV, SETUP, TESTS_C, run

FUZZ_SECONDS = int(os.environ.get("SIMDFILTER_FUZZ_SECONDS") or 30)
SEED = int(os.environ.get("SIMDFILTER_SEED") or random.randrange(1, 2**31))


@pytest.mark.slow
def test_fuzz_arrow(tmp_path_factory):
    work = tmp_path_factory.mktemp("fuzz_arrow")
    cbuild.probe_libfuzzer(work)
    # The library build is test_c_harness.py's test_fuzz's (same flags, one cache).
    binary, _ = cbuild.build(
        "clang",
        SETUP.normalize_arch(),
        work / "build",
        [TESTS_C / "fuzz_arrow.c"],
        cflags=cbuild.FUZZ_CFLAGS,
        ldflags=cbuild.FUZZ_LDFLAGS,
        cache_dir=cbuild.shared_cache_dir(tmp_path_factory),
    )
    corpus = work / "corpus"
    shutil.copytree(TESTS_C / "corpus_arrow", corpus)
    artifacts = work / "artifacts"
    artifacts.mkdir()
    cmd = [
        binary,
        "-max_total_time=%d" % FUZZ_SECONDS,
        "-timeout=20",
        "-rss_limit_mb=2048",
        "-max_len=512",
        "-print_final_stats=1",
        "-seed=%d" % SEED,
        "-artifact_prefix=%s/" % artifacts,
        corpus,
    ]
    r = run(cmd, timeout=FUZZ_SECONDS + 300, env=SANITIZER_ENV)
    crashes = sorted(artifacts.iterdir())
    if r.returncode or crashes:
        pytest.fail(
            "fuzzing the Arrow import found a problem (exit %d, seed %d); inputs saved: "
            "%s\n$ %s\n%s"
            % (
                r.returncode,
                SEED,
                [str(c) for c in crashes],
                " ".join(map(str, cmd)),
                r.stdout[-30000:],
            ),
            pytrace=False,
        )
    done = re.search(r"Done (\d+) runs", r.stdout)
    assert done and int(done.group(1)) > 0, r.stdout[-5000:]
    print("fuzzing the Arrow import: %s runs in %ss" % (done.group(1), FUZZ_SECONDS))
