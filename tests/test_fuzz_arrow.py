"""The Arrow import under libFuzzer with ASan and UBSan (tests/c/fuzz_arrow.c):
schemas and arrays built from the fuzz bytes, with random formats, lengths,
offsets, buffer counts, NULL pointers and release states. What a consumer can
check never crashes; what it cannot (buffers as long as offset + length) the
harness keeps as the producer's promise.

Environment: SIMDFILTER_FUZZ_SECONDS (default 30 here), SIMDFILTER_SEED
(libFuzzer's seed, default random, printed on failure)."""

import os
import random

import pytest

import cbuild
from cbuild import TESTS_C

FUZZ_SECONDS = int(os.environ.get("SIMDFILTER_FUZZ_SECONDS") or 30)
SEED = int(os.environ.get("SIMDFILTER_SEED") or random.randrange(1, 2**31))


@pytest.mark.slow
def test_fuzz_arrow(tmp_path_factory):
    work = tmp_path_factory.mktemp("fuzz_arrow")
    binary, _ = cbuild.build_fuzzer(work, "fuzz_arrow.c", cbuild.shared_cache_dir(tmp_path_factory))
    _, done = cbuild.fuzz(
        binary,
        TESTS_C / "corpus_arrow",
        work,
        FUZZ_SECONDS,
        SEED,
        max_len=512,
        rss_limit_mb=2048,
        what="the Arrow import",
    )
    print("fuzzing the Arrow import: %d runs in %ss" % (done, FUZZ_SECONDS))
