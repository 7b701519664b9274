"""The C-level tests (tests/c/), built and run from pytest.

    pytest tests/test_c_harness.py -v                 # everything (minutes)
    pytest tests/test_c_harness.py -m "not slow" -v   # the native harness and driver (seconds)

Each program is linked against the one library setup.py builds (every C file
under csrc/lib and the scalar kernel, each kernel file with exactly the flags
isa.def gives it); tests/cbuild.py does the building.

  test_native             tests/c/test_kernels.c: every kernel of this machine
                          against scalar (and scalar against the header's
                          specification), cc -O2 -Werror
  test_native_sanitized   the same under -fsanitize=address,undefined, gcc and clang  [slow]
  test_aarch64_neon       cross-compiled, qemu-aarch64 -cpu max,sve=off
  test_aarch64_sve[...]   qemu-aarch64 with SVE at 128, 256, 512 and 2048 bits        [slow]
  test_fuzz               tests/c/fuzz_kernels.c under libFuzzer for
                          SIMDFILTER_FUZZ_SECONDS (default 60)                          [slow]
  test_driver             tests/c/test_driver.c: the driver vs a naive reference, -O2
  test_driver_sanitized   the same under ASan+UBSan (gcc, clang) and TSan               [slow]
  test_driver_256_threads the most threads a call may use, under ASan                  [slow]
  test_extension_*        the extension built warning-free by gcc and clang, and the
                          Python suite against an ASan+UBSan build of it                [slow]

Environment (and SIMDFILTER_SOURCE_ROOT, SIMDFILTER_REQUIRE_ALL: see tests/cbuild.py):
  SIMDFILTER_SEED          harness seed (default: random, printed on failure)
  SIMDFILTER_FUZZ_SECONDS  fuzzing time (default 60)
"""

import os
import random
import re
import shutil
import sys

import pytest

import cbuild
from cbuild import (ELEMS, OPS, ROOT, SANITIZE, SAN_CFLAGS, SANITIZER_ENV, SETUP, TESTS_C, TSAN,
                    run, skip_or_fail)

SEED = int(os.environ.get("SIMDFILTER_SEED") or random.randrange(1, 2**32))
FUZZ_SECONDS = int(os.environ.get("SIMDFILTER_FUZZ_SECONDS") or 60)
# qemu's -cpu max offers every SVE width up to 2048 bits; the default vector
# length is given in bytes.
SVE_BITS = [128, 256, 512, 2048]
slow = pytest.mark.slow


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    """Where the library's objects of each configuration are built, once per session."""
    return tmp_path_factory.mktemp("clib")


def parse(output):
    status = dict(re.findall(r"^kernel (\w+): (.+)$", output, re.M))
    compared = {}
    for name, elem, counts in re.findall(r"^compared (\w+) (\w+): (.*)$", output, re.M):
        compared[(name, elem)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", counts)}
    total = re.search(r"^TOTAL comparisons=(\d+) .*status=OK$", output, re.M)
    vl = re.search(r"sve_vl_bits=(\d+)", output)
    return status, compared, int(total.group(1)) if total else None, int(vl.group(1)) if vl else None


def run_harness(cmd, what, timeout=600, env=None):
    cmd = [str(c) for c in cmd] + ["--seed", str(SEED)]
    r = run(cmd, timeout=timeout, env=env)
    print(r.stdout)  # shown by pytest -s / -rA, and with any failure
    if r.returncode != 0:
        pytest.fail("%s: harness exited with status %d (seed %d)\n$ %s\n%s"
                    % (what, r.returncode, SEED, " ".join(cmd), r.stdout[-30000:]), pytrace=False)
    return r.stdout


def assert_dispatch_table(output, arch, compiled):
    """What dispatch says of every kernel of isa.def, and of the slots it filled."""
    table = SETUP.isa_table(str(ROOT))
    known = {name: (a, built) for name, a, built in
             re.findall(r"^known (\w+) arch=(\w+): (built|not built)$", output, re.M)}
    assert set(known) == {row[0] for row in table}, \
        "the harness lists kernels %s, isa.def has %s" % (sorted(known), [r[0] for r in table])
    for name, isa_arch, _, _ in table:
        want_built = isa_arch == "any" or name in compiled
        assert known[name] == (isa_arch, "built" if want_built else "not built"), \
            "kernel %s: dispatch says %s, isa.def and setup.py say %s" % (
                name, known[name], (isa_arch, want_built))
    needs = cbuild.isa_features()
    slots = re.findall(r"^slot (\w+) (\w+) (\w+): from (\w+)$", output, re.M)
    for name, op, elem, lower in slots:
        assert needs[lower] <= needs[name], \
            "%s's %s %s slot came from %s, which needs %s beyond it" % (
                name, op, elem, lower, sorted(needs[lower] - needs[name]))
    if arch == "x86_64" and "sse41" in compiled:
        # kernels/sse41.c leaves u64 to the scalar kernel (measured: see the file).
        for op in OPS:
            assert ("sse41", op, "u64", "scalar") in slots, \
                "sse41's %s u64 slot was not filled from scalar:\n%s" % (op, output)


def assert_ran(output, must_compare, must_be_unsupported=(), compiled=None, arch=None):
    """The run passed, compared every element kind and operation of the kernels
    named, and dispatch picked the best of them (they are listed slowest first)."""
    status, compared, total, _ = parse(output)
    assert total is not None and total > 0, "no TOTAL ... status=OK line:\n" + output
    if must_compare:
        active = re.search(r"^active kernel by default: (\w+)$", output, re.M)
        assert active and active.group(1) == must_compare[-1], \
            "dispatch chose %s, the best kernel this CPU runs is %s" % (
                active and active.group(1), must_compare[-1])
    if compiled is not None:
        assert set(status) == {"scalar"} | set(compiled), \
            "the harness lists kernels %s, setup.py compiled %s" % (sorted(status), sorted(compiled))
        assert_dispatch_table(output, arch or SETUP.normalize_arch(), compiled)
    for name in must_compare:
        assert status.get(name) == "supported", \
            "kernel %s: expected supported, harness says %r\n%s" % (name, status.get(name), output)
        for elem in ELEMS:
            counts = compared.get((name, elem), {})
            for op in OPS:
                assert counts.get(op, 0) > 0, \
                    "kernel %s was never compared for %s %s\n%s" % (name, elem, op, output)
    for name in must_be_unsupported:
        assert status.get(name) == "unsupported", \
            "kernel %s: expected unsupported, harness says %r" % (name, status.get(name))


def supported_in(output, runs):
    if runs is None:
        runs = [k for k, v in parse(output)[0].items() if v == "supported" and k != "scalar"]
    assert runs, "this CPU runs none of the compiled SIMD kernels:\n" + output
    return runs


# ---- native -------------------------------------------------------------------

def test_native(tmp_path, cache_dir):
    binary, compiled = cbuild.build(cbuild.c_compiler(), SETUP.normalize_arch(), tmp_path,
                                    [TESTS_C / "test_kernels.c"], cflags=["-O2"],
                                    cache_dir=cache_dir)
    _, runs, refused = cbuild.native_expectations()
    out = run_harness([binary], "native")
    assert_ran(out, supported_in(out, runs), refused, compiled=compiled)


@slow
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_native_sanitized(cc, tmp_path, cache_dir):
    cbuild.require(cc)
    binary, compiled = cbuild.build(cc, SETUP.normalize_arch(), tmp_path, [TESTS_C / "test_kernels.c"],
                                    cflags=SAN_CFLAGS + SANITIZE, ldflags=SANITIZE,
                                    cache_dir=cache_dir)
    _, runs, refused = cbuild.native_expectations()
    out = run_harness([binary], "native, %s, sanitized" % cc, env=SANITIZER_ENV)
    assert "runtime error" not in out and "Sanitizer" not in out, out
    assert_ran(out, supported_in(out, runs), refused, compiled=compiled)


# ---- aarch64 under qemu -----------------------------------------------------------

@pytest.fixture(scope="module")
def aarch64_harness(tmp_path_factory):
    cbuild.probe_cross(tmp_path_factory.mktemp("aarch64-probe"))
    if not cbuild.kernel_sources("aarch64"):
        pytest.fail("no aarch64 kernel file (csrc/kernels/neon.c, sve.c) under %s" % ROOT)
    # Static: qemu-user then needs no aarch64 sysroot at run time.
    work = tmp_path_factory.mktemp("aarch64")
    return cbuild.build(cbuild.CROSS_CC, "aarch64", work, [TESTS_C / "test_kernels.c"],
                        cflags=["-O2"], ldflags=["-static"])


def run_qemu(binary, cpu, what):
    # --quick: emulation is slow; it still covers every length 0..300 for every
    # element kind and operation. More mid-size lengths than its default: a
    # 2048-bit vector holds 256 bytes, so multi-vector loops of u8 start only there.
    return run_harness([cbuild.QEMU, "-cpu", cpu, binary, "--quick", "--mid", "24", "--large", "2"],
                       what, timeout=600)


def test_aarch64_neon(aarch64_harness):
    binary, compiled = aarch64_harness
    assert "neon" in compiled, "csrc/kernels/neon.c is missing: the NEON path cannot be tested"
    out = run_qemu(binary, "max,sve=off", "aarch64, qemu sve=off")
    _, _, _, vl = parse(out)
    assert_ran(out, ["neon"], ["sve"] if "sve" in compiled else [], compiled=compiled, arch="aarch64")
    assert vl == 0, "qemu -cpu max,sve=off still reports an SVE vector length of %s bits" % vl


@slow
@pytest.mark.parametrize("bits", SVE_BITS, ids=[str(b) for b in SVE_BITS])
def test_aarch64_sve(aarch64_harness, bits):
    binary, compiled = aarch64_harness
    assert "sve" in compiled, "csrc/kernels/sve.c is missing: the SVE path cannot be tested"
    cpu = "max,sve-default-vector-length=%d" % (bits // 8)
    out = run_qemu(binary, cpu, "aarch64, qemu %s" % cpu)
    _, _, _, vl = parse(out)
    assert vl == bits, "asked qemu for %d-bit SVE vectors, the process runs with %s bits" % (bits, vl)
    assert_ran(out, (["neon"] if "neon" in compiled else []) + ["sve"], compiled=compiled,
               arch="aarch64")


# ---- libFuzzer ------------------------------------------------------------------

@slow
def test_fuzz(tmp_path_factory):
    work = tmp_path_factory.mktemp("fuzz")
    cbuild.probe_libfuzzer(work)
    fuzz_san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    binary, compiled = cbuild.build(
        "clang", SETUP.normalize_arch(), work / "build", [TESTS_C / "fuzz_kernels.c"],
        cflags=["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=fuzzer-no-link"] + fuzz_san,
        ldflags=["-fsanitize=fuzzer"] + fuzz_san)
    _, runs, _ = cbuild.native_expectations()
    corpus = work / "corpus"
    shutil.copytree(TESTS_C / "corpus", corpus)
    artifacts = work / "artifacts"
    artifacts.mkdir()
    cmd = [binary, "-max_total_time=%d" % FUZZ_SECONDS, "-timeout=20", "-rss_limit_mb=4096",
           "-max_len=4096", "-print_final_stats=1", "-seed=%d" % SEED,
           "-artifact_prefix=%s/" % artifacts, corpus]
    r = run(cmd, timeout=FUZZ_SECONDS + 300, env=SANITIZER_ENV)
    crashes = sorted(artifacts.iterdir())
    if r.returncode or crashes:
        pytest.fail("fuzzing found a problem (exit %d); inputs saved: %s\n$ %s\n%s"
                    % (r.returncode, [str(c) for c in crashes], " ".join(map(str, cmd)),
                       r.stdout[-30000:]), pytrace=False)
    m = re.search(r"^fuzz_kernels: kernels under test: (.*)$", r.stdout, re.M)
    assert m, r.stdout[-5000:]
    tested = set(m.group(1).split(",")) - {"(none)"}
    assert tested, "no SIMD kernel to fuzz on this CPU (compiled: %s)" % compiled
    assert runs is None or set(runs) <= tested, \
        "fuzzed %s, this CPU supports %s" % (sorted(tested), runs)
    done = re.search(r"Done (\d+) runs", r.stdout)
    assert done and int(done.group(1)) > 0, r.stdout[-5000:]
    print("fuzzing: %s runs in %ss over kernels %s" % (done.group(1), FUZZ_SECONDS, sorted(tested)))


# ---- the driver -------------------------------------------------------------------
#
# tests/c/test_driver.c checks the driver (strides, byte swapping, gather
# chunks, thread split, bounded output) against a naive reference, for every
# kernel this CPU runs. It wraps pthread_create at link time to see (and
# sometimes refuse) the threads the driver starts.

DRIVER_MAIN = [TESTS_C / "test_driver.c"]
DRIVER_LDFLAGS = ["-Wl,--wrap=pthread_create"]
TSAN_ENV = {"TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1"}
DRIVER_CONFIGS = {
    "native": ("cc" if shutil.which("cc") else "gcc", ["-O2"], []),
    # The same flags as test_native_sanitized: one library build serves both.
    "gcc-asan-ubsan": ("gcc", SAN_CFLAGS + SANITIZE, SANITIZE),
    "clang-asan-ubsan": ("clang", SAN_CFLAGS + SANITIZE, SANITIZE),
    # clang's TSan runs this test about 3x faster than gcc 12's.
    "tsan": ("clang" if shutil.which("clang") else "gcc", ["-O1", "-g"] + TSAN, TSAN),
}


@pytest.fixture(scope="module")
def driver_build(tmp_path_factory, cache_dir):
    """build(config) -> (binary, compiled): each configuration is built once per module."""
    built = {}

    def get(config):
        if config not in built:
            cc, flags, ldflags = DRIVER_CONFIGS[config]
            cbuild.require(cc)
            built[config] = cbuild.build(cc, SETUP.normalize_arch(),
                                         tmp_path_factory.mktemp("driver-" + config), DRIVER_MAIN,
                                         cflags=flags, ldflags=ldflags + DRIVER_LDFLAGS,
                                         cache_dir=cache_dir)
        return built[config]
    return get


def run_driver(binary, what, args=(), env=None, timeout=300):
    cmd = [str(binary), "--seed", str(SEED)] + list(args)
    r = run(cmd, timeout=timeout, env=env)
    print(r.stdout)
    return r, cmd


def assert_driver_ok(r, cmd, what):
    if r.returncode != 0:
        pytest.fail("%s: test_driver exited with status %d (seed %d)\n$ %s\n%s"
                    % (what, r.returncode, SEED, " ".join(cmd), r.stdout[-30000:]), pytrace=False)
    out = r.stdout
    assert "runtime error" not in out and "Sanitizer" not in out, out[-30000:]
    total = re.search(r"^TOTAL runs=(\d+) kernels=(\S+) time=\S+ status=OK$", out, re.M)
    assert total and int(total.group(1)) > 0, "no TOTAL ... status=OK line:\n" + out[-5000:]
    tested = set(total.group(2).split(","))
    status = dict(re.findall(r"^kernel (\w+): (\w+)$", out, re.M))
    assert tested == {k for k, v in status.items() if v == "supported"}, (tested, status)
    _, runs, _ = cbuild.native_expectations()
    if runs is not None:
        assert set(runs) <= tested, "the CPU runs %s, test_driver tested %s" % (runs, sorted(tested))
    checked = {(elem, op): int(n) for elem, op, n in
               re.findall(r"^checked (\w+) (\w+): runs=(\d+)$", out, re.M)}
    for elem in ELEMS:
        for op in OPS:
            assert checked.get((elem, op), 0) > 0, "%s %s never checked\n%s" % (elem, op, out[-5000:])
    assert re.search(r"^split threads=\d+ n=\d+ created=[1-9]", out, re.M), \
        "no call was split across threads:\n" + out[-5000:]


def test_driver(driver_build):
    binary, _ = driver_build("native")
    r, cmd = run_driver(binary, "native", ["--strict-threads"])
    assert_driver_ok(r, cmd, "native")


@slow
def test_driver_256_threads(driver_build):
    """threads = 256 on 2^26 + 1 elements: the split once made 257 parts and wrote
    past the part table on the stack; ASan sees any such overflow."""
    binary, _ = driver_build("gcc-asan-ubsan")
    r, cmd = run_driver(binary, "max-threads", ["--max-threads-case", "--strict-threads"],
                        env=SANITIZER_ENV)
    assert r.returncode == 0, "$ %s\n%s" % (" ".join(map(str, cmd)), r.stdout[-30000:])


@slow
@pytest.mark.parametrize("config", ["gcc-asan-ubsan", "clang-asan-ubsan", "tsan"])
def test_driver_sanitized(config, driver_build, tmp_path):
    cc = DRIVER_CONFIGS[config][0]
    cbuild.require(cc)
    args, env = [], SANITIZER_ENV
    if config == "tsan":
        why = cbuild.tsan_works(cc, tmp_path)
        if why:
            skip_or_fail(why)
        # TSan slows the threaded cases ~8x: --quick keeps 4 of the 7 lengths.
        args, env = ["--quick"], TSAN_ENV
    if config != "tsan":
        # --strict-threads: a call never runs on more threads than it was given
        # (it once split n = 2^19 + 1 into three parts for threads=2). Count gets
        # out=NULL as module.c passes it: clang's UBSan once caught NULL + 0 there.
        args = ["--strict-threads"]
    binary, _ = driver_build(config)
    r, cmd = run_driver(binary, config, args, env=env)
    assert_driver_ok(r, cmd, config)


# ---- the Python extension under AddressSanitizer --------------------------------
#
# The extension (the binding, the library and the kernels) built with ASan+UBSan into a temp
# dir from a copy of the sources, then a subset of the Python suite run against
# it with the ASan runtime preloaded into the (uninstrumented) interpreter.
# Nothing is written under ROOT: the build, the package and the tests run from
# copies.

EXT_SAN = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"]
# -O2, not -O1: gcc 12 at -O1 -fsanitize=address reports a 64-byte store in
# avx512_index32_u32 (n=32, every element kept) one lane past a 128-byte output
# that the same code does not overrun: clean under clang -O1 ASan, gcc -O0/-O2
# ASan, and with canaries at -O1 without the redzone. An instrumentation false
# positive, not a kernel bug.
EXT_CFLAGS = EXT_SAN + ["-O2", "-fno-sanitize-recover=undefined"]
EXT_TESTS = ["tests/test_uint32.py", "tests/test_dtypes.py", "tests/test_api.py",
             "tests/test_threads.py"]
EXT_DESELECT = [
    # Measures peak RSS: ASan's shadow memory and quarantine change RSS, so the
    # bound it asserts means nothing here.
    "tests/test_api.py::test_peak_memory_is_about_the_result",
    # Sets RLIMIT_AS to 1 GB in a child process: ASan has already reserved
    # terabytes of address space for its shadow, so every allocation fails.
    "tests/test_api.py::test_falls_back_to_count_then_fill_when_memory_is_short",
]


@slow
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_extension_builds_warning_free(cc, tmp_path):
    """The whole extension compiles with -Wall -Wextra -Werror under gcc and clang,
    and that build works (every kernel agrees with NumPy on every dtype)."""
    cbuild.require(cc)
    run_dir, so = cbuild.build_extension(tmp_path, cc, werror=True)
    check = (
        "import numpy as np, simdfilter\n"
        "rng = np.random.default_rng(0)\n"
        "for dt in ['u1','i1','u2','i2','u4','i4','u8','i8','f4','f8','?']:\n"
        "    a = (rng.standard_normal(5000) * 100).astype(dt)\n"
        "    lo, hi = (a.min(), a.max()) if dt == '?' else (np.sort(a)[1000], np.sort(a)[3000])\n"
        "    want = np.flatnonzero((a >= lo) & (a <= hi))\n"
        "    for k in simdfilter.available_kernels():\n"
        "        with simdfilter.use_kernel(k):\n"
        "            assert (simdfilter.filter_indexes(a[3:], lo, hi) == np.flatnonzero((a[3:] >= lo) & (a[3:] <= hi))).all(), (dt, k)\n"
        "            assert (simdfilter.filter_indexes(a, lo, hi) == want).all(), (dt, k)\n"
        "print(simdfilter._core.__file__, simdfilter.available_kernels())\n"
    )
    r = run([sys.executable, "-c", check], timeout=120,
            env={"PYTHONPATH": str(run_dir / "python"), "PYTHONDONTWRITEBYTECODE": "1"}, cwd=run_dir)
    assert r.returncode == 0, r.stdout[-5000:]
    assert r.stdout.split()[0] == str(so), "not the %s build that was imported:\n%s" % (cc, r.stdout)


@slow
def test_extension_asan(tmp_path):
    cbuild.require("gcc")
    libasan = run(["gcc", "-print-file-name=libasan.so"], timeout=60).stdout.strip()
    if not os.path.isabs(libasan) or not os.path.exists(libasan):
        skip_or_fail("gcc has no shared ASan runtime (gcc -print-file-name=libasan.so: %r)" % libasan)
    run_dir, built = cbuild.build_extension(tmp_path, "gcc", EXT_CFLAGS, EXT_SAN)
    assert b"__asan_init" in built.read_bytes(), "%s is not ASan-instrumented" % built

    env = {
        "PYTHONPATH": str(run_dir / "python"),
        "LD_PRELOAD": libasan,
        # CPython's own allocations are not leaks we can fix.
        "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    r = run([sys.executable, "-c", "import simdfilter._core as c; print(c.__file__)"],
            timeout=120, env=env, cwd=run_dir)
    assert r.returncode == 0 and r.stdout.strip() == str(built), \
        "the sanitized build is not what gets imported:\n" + r.stdout
    cmd = ([sys.executable, "-m", "pytest"] + EXT_TESTS
           + ["-x", "-q", "-p", "no:cacheprovider"]
           + [a for d in EXT_DESELECT for a in ("--deselect", d)])
    r = run(cmd, timeout=600, env=env, cwd=run_dir)
    print(r.stdout[-5000:])
    reports = [m for m in ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")
               if m in r.stdout]
    if r.returncode != 0 or reports:
        pytest.fail("the Python suite against the ASan+UBSan extension failed (status %d%s)\n"
                    "$ %s\n%s" % (r.returncode, ", reports: %s" % reports if reports else "",
                                  " ".join(map(str, cmd)), r.stdout[-30000:]), pytrace=False)
    assert re.search(r"\b\d+ passed", r.stdout), r.stdout[-3000:]
