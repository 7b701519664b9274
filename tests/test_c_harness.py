"""The C-level harness (tests/c/harness.c) and fuzz target, built and run from pytest.

    pytest tests/test_c_harness.py -v

Every kernel file setup.py knows for an architecture is compiled with exactly
the flags setup.py gives it (setup.py is imported, never copied), linked with
dispatch.c and the scalar kernel, and compared against the scalar kernel:

  test_native             this machine's kernels, cc -O2 -Werror
  test_native_sanitized   the same under -fsanitize=address,undefined, gcc and clang
  test_aarch64_neon       cross-compiled, qemu-aarch64 -cpu max,sve=off
  test_aarch64_sve[...]   qemu-aarch64 with SVE at 128, 256, 512 and 2048 bits
  test_fuzz               libFuzzer for SIMDFILTER_FUZZ_SECONDS (default 60)

and csrc/driver.c through tests/c/driver_test.c, plus the extension itself:

  test_driver             sf_job_run / sf_job_run_bounded vs a naive reference, -O2
  test_driver_sanitized   the same under ASan+UBSan (gcc, clang) and TSan
  test_driver_256_threads the most threads the binding allows, under ASan
  test_extension_asan     the Python suite against an ASan+UBSan build of _core

Environment:
  SIMDFILTER_SOURCE_ROOT   tree holding setup.py and csrc/ (default: this repo)
  SIMDFILTER_SEED          harness seed (default: random, printed on failure)
  SIMDFILTER_FUZZ_SECONDS  fuzzing time (default 60)
  SIMDFILTER_REQUIRE_ALL=1 a missing cross compiler, qemu or libFuzzer fails
                           instead of skipping (CI sets it: CI must never skip)
"""

import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS_C = Path(__file__).resolve().parent / "c"
ROOT = Path(os.environ.get("SIMDFILTER_SOURCE_ROOT") or Path(__file__).resolve().parent.parent)
SEED = int(os.environ.get("SIMDFILTER_SEED") or random.randrange(1, 2**32))
FUZZ_SECONDS = int(os.environ.get("SIMDFILTER_FUZZ_SECONDS") or 60)
REQUIRE_ALL = os.environ.get("SIMDFILTER_REQUIRE_ALL") == "1"

# The harness links the library without the Python binding or driver.c: the
# kernels, their table and dispatch are all it calls.
HARNESS_CORE = ["csrc/dispatch.c", "csrc/kernels/scalar.c"]
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
SANITIZER_ENV = {
    "ASAN_OPTIONS": "abort_on_error=0:detect_leaks=1:halt_on_error=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}

CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"
CROSS_INSTALL = "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
# qemu's -cpu max offers every SVE width up to 2048 bits; the default vector
# length is given in bytes.
SVE_BITS = [128, 256, 512, 2048]

# What each x86 kernel needs, as /proc/cpuinfo spells it (mirrors dispatch.c's
# required_features, so the test notices a dispatcher that detects too little).
X86_NEEDS = {
    "sse41": {"sse4_1"},
    "avx2": {"avx", "avx2", "bmi1", "bmi2", "popcnt"},
    "avx512": {"avx", "avx2", "bmi1", "bmi2", "popcnt",
               "avx512f", "avx512vl", "avx512bw", "avx512dq"},
}
KINDS = ["u8", "u16", "u32", "u64", "f32", "f64"]
OPS = ["index32", "index64", "values", "count"]


def _load_setup():
    spec = importlib.util.spec_from_file_location("simdfilter_setup_for_tests", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() runs only under __main__
    return module


SETUP = _load_setup()


def skip_or_fail(message):
    if REQUIRE_ALL:
        pytest.fail(message + " (SIMDFILTER_REQUIRE_ALL=1 forbids skipping)")
    pytest.skip(message)


def run(cmd, timeout, env=None, cwd=None):
    full_env = dict(os.environ, **(env or {}))
    try:
        return subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace", timeout=timeout, env=full_env, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode(errors="replace")
        pytest.fail("timed out after %ss: %s\n%s" % (timeout, " ".join(map(str, cmd)), out[-20000:]))


def kernel_sources(arch):
    """[(isa, absolute path, flags)] from setup.py for the kernel files present."""
    return [(isa, ROOT / path, flags) for isa, path, flags in SETUP.kernel_sources(arch, str(ROOT))]


def build(cc, arch, out_dir, main_sources, cflags=(), ldflags=()):
    """Compile each file on its own (kernel files with their ISA flags), then link.

    Returns (binary, [isa names compiled in]). A file that does not compile fails
    the test naming that file, with the compiler's message.
    """
    assert all(s in SETUP.CORE_SOURCES for s in HARNESS_CORE), \
        "setup.py's CORE_SOURCES no longer lists %s" % HARNESS_CORE
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    kernels = kernel_sources(arch)
    common = (list(SETUP.C_STD) + WARNINGS + list(cflags)
              + ["-I%s" % (ROOT / d) for d in SETUP.INCLUDE_DIRS]
              + ["-D%s=%s" % (name, value) for name, value in SETUP.kernel_macros(arch, str(ROOT))])
    units = [(ROOT / s, []) for s in HARNESS_CORE]
    units += [(path, list(flags)) for _, path, flags in kernels]
    # The test programs share tests/c/test_common.h (header-only).
    units += [(Path(s), ["-I%s" % TESTS_C] if Path(s).parent == TESTS_C else [])
              for s in main_sources]
    objects = []
    for i, (src, extra) in enumerate(units):
        obj = out_dir / ("%02d_%s.o" % (i, src.stem))
        cmd = [cc] + common + extra + ["-c", src, "-o", obj]
        r = run(cmd, timeout=300)
        if r.returncode:
            pytest.fail("%s does not compile for %s:\n$ %s\n%s"
                        % (src, arch, " ".join(map(str, cmd)), r.stdout))
        objects.append(obj)
    binary = out_dir / "prog"
    cmd = [cc] + list(cflags) + objects + list(ldflags) + ["-o", binary]
    r = run(cmd, timeout=300)
    if r.returncode:
        pytest.fail("link failed for %s:\n$ %s\n%s" % (arch, " ".join(map(str, cmd)), r.stdout))
    return binary, [isa for isa, _, _ in kernels]


def parse(output):
    status = dict(re.findall(r"^kernel (\w+): (.+)$", output, re.M))
    compared = {}
    for name, kind, counts in re.findall(r"^compared (\w+) (\w+): (.*)$", output, re.M):
        compared[(name, kind)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", counts)}
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


def assert_ran(output, must_compare, must_be_unsupported=(), compiled=None):
    """The run passed, compared every kind and operation of the kernels named,
    and dispatch picked the best of them (they are listed slowest first)."""
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
    for name in must_compare:
        assert status.get(name) == "supported", \
            "kernel %s: expected supported, harness says %r\n%s" % (name, status.get(name), output)
        for kind in KINDS:
            counts = compared.get((name, kind), {})
            for op in OPS:
                assert counts.get(op, 0) > 0, \
                    "kernel %s was never compared for %s %s\n%s" % (name, kind, op, output)
    for name in must_be_unsupported:
        assert status.get(name) == "unsupported", \
            "kernel %s: expected unsupported, harness says %r" % (name, status.get(name))


# ---- native -------------------------------------------------------------------

def native_cpu_flags():
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    m = re.search(r"^(?:flags|Features)\s*:(.*)$", text, re.M)
    return set(m.group(1).split()) if m else None


def native_expectations():
    """(kernels compiled, kernels this CPU must run, kernels it must refuse)."""
    arch = SETUP.normalize_arch()
    compiled = [isa for isa, _, _ in kernel_sources(arch)]
    if not compiled:
        pytest.fail("setup.py finds no kernel file for %s under %s/csrc/kernels: "
                    "nothing SIMD to test" % (arch, ROOT))
    flags = native_cpu_flags()
    if flags is None:  # no /proc/cpuinfo: trust dispatch, but something SIMD must run
        return compiled, None, []
    if arch == "x86_64":
        runs = [isa for isa in compiled if X86_NEEDS.get(isa, {"?"}) <= flags]
    elif arch == "aarch64":
        runs = [isa for isa in compiled if isa == "neon" or (isa == "sve" and "sve" in flags)]
    else:
        runs = []
    return compiled, runs, [isa for isa in compiled if isa not in runs]


def c_compiler():
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    pytest.fail("no C compiler (cc, gcc or clang) on PATH")


@pytest.fixture(scope="module")
def native_harness(tmp_path_factory):
    return build(c_compiler(), SETUP.normalize_arch(), tmp_path_factory.mktemp("native"),
                 [TESTS_C / "harness.c"], cflags=["-O2"])


def supported_in(output, runs):
    if runs is None:
        runs = [k for k, v in parse(output)[0].items() if v == "supported" and k != "scalar"]
    assert runs, "this CPU runs none of the compiled SIMD kernels:\n" + output
    return runs


def test_native(native_harness):
    binary, compiled = native_harness
    _, runs, refused = native_expectations()
    out = run_harness([binary], "native")
    assert_ran(out, supported_in(out, runs), refused, compiled=compiled)


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_native_sanitized(cc, tmp_path_factory):
    if not shutil.which(cc):
        skip_or_fail("%s not found: apt-get install %s" % (cc, cc))
    binary, compiled = build(cc, SETUP.normalize_arch(), tmp_path_factory.mktemp("asan-" + cc),
                             [TESTS_C / "harness.c"],
                             cflags=["-O1", "-g", "-fno-omit-frame-pointer"] + SANITIZE,
                             ldflags=SANITIZE)
    _, runs, refused = native_expectations()
    out = run_harness([binary], "native, %s, sanitized" % cc, env=SANITIZER_ENV)
    assert "runtime error" not in out and "Sanitizer" not in out, out
    assert_ran(out, supported_in(out, runs), refused, compiled=compiled)


# ---- aarch64 under qemu -----------------------------------------------------------

@pytest.fixture(scope="module")
def aarch64_harness(tmp_path_factory):
    missing = [t for t in (CROSS_CC, QEMU) if not shutil.which(t)]
    if missing:
        skip_or_fail("%s not found: %s" % (" and ".join(missing), CROSS_INSTALL))
    probe_dir = tmp_path_factory.mktemp("aarch64-probe")
    (probe_dir / "p.c").write_text("#include <stdio.h>\nint main(void) { return puts(\"ok\") < 0; }\n")
    r = run([CROSS_CC, "-static", probe_dir / "p.c", "-o", probe_dir / "p"], timeout=120)
    if r.returncode:
        skip_or_fail("%s cannot link a static program (no aarch64 libc?): %s\n%s"
                     % (CROSS_CC, CROSS_INSTALL, r.stdout))
    kernels = [isa for isa, _, _ in kernel_sources("aarch64")]
    if not kernels:
        pytest.fail("no aarch64 kernel file (csrc/kernels/neon.c, sve.c) under %s" % ROOT)
    # Static: qemu-user then needs no aarch64 sysroot at run time.
    return build(CROSS_CC, "aarch64", tmp_path_factory.mktemp("aarch64"),
                 [TESTS_C / "harness.c"], cflags=["-O2"], ldflags=["-static"])


def run_qemu(binary, cpu, what):
    # --quick: emulation is slow; it still covers every length 0..300 for every
    # kind and operation. More mid-size lengths than its default: a 2048-bit
    # vector holds 256 bytes, so multi-vector loops of u8 start only there.
    return run_harness([QEMU, "-cpu", cpu, binary, "--quick", "--mid", "24", "--large", "2"],
                       what, timeout=600)


def test_aarch64_neon(aarch64_harness):
    binary, compiled = aarch64_harness
    assert "neon" in compiled, "csrc/kernels/neon.c is missing: the NEON path cannot be tested"
    out = run_qemu(binary, "max,sve=off", "aarch64, qemu sve=off")
    status, _, _, vl = parse(out)
    assert_ran(out, ["neon"], ["sve"] if "sve" in compiled else [], compiled=compiled)
    assert vl == 0, "qemu -cpu max,sve=off still reports an SVE vector length of %s bits" % vl


@pytest.mark.parametrize("bits", SVE_BITS, ids=[str(b) for b in SVE_BITS])
def test_aarch64_sve(aarch64_harness, bits):
    binary, compiled = aarch64_harness
    assert "sve" in compiled, "csrc/kernels/sve.c is missing: the SVE path cannot be tested"
    cpu = "max,sve-default-vector-length=%d" % (bits // 8)
    out = run_qemu(binary, cpu, "aarch64, qemu %s" % cpu)
    status, _, _, vl = parse(out)
    assert vl == bits, "asked qemu for %d-bit SVE vectors, the process runs with %s bits" % (bits, vl)
    assert_ran(out, (["neon"] if "neon" in compiled else []) + ["sve"], compiled=compiled)


# ---- libFuzzer ------------------------------------------------------------------

def clang_rt_hint():
    r = run(["clang", "--version"], timeout=60)
    m = re.search(r"clang version (\d+)", r.stdout)
    return "apt-get install clang libclang-rt-%s-dev" % (m.group(1) if m else "<version>")


def test_fuzz(tmp_path_factory):
    if not shutil.which("clang"):
        skip_or_fail("clang not found: apt-get install clang libclang-rt-dev (libFuzzer)")
    work = tmp_path_factory.mktemp("fuzz")
    (work / "probe.c").write_text(
        "#include <stddef.h>\n#include <stdint.h>\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
    r = run(["clang", "-fsanitize=fuzzer,address,undefined", work / "probe.c", "-o", work / "probe"],
            timeout=120)
    if r.returncode:
        skip_or_fail("clang cannot link a libFuzzer target: %s\n%s" % (clang_rt_hint(), r.stdout))

    fuzz_san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    binary, compiled = build(
        "clang", SETUP.normalize_arch(), work / "build", [TESTS_C / "fuzz_kernels.c"],
        cflags=["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=fuzzer-no-link"] + fuzz_san,
        ldflags=["-fsanitize=fuzzer"] + fuzz_san)
    _, runs, _ = native_expectations()
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


# ---- the driver (csrc/driver.c) ---------------------------------------------------
#
# tests/c/driver_test.c checks sf_job_run and sf_job_run_bounded (strides, byte
# swapping, gather chunks, thread split, bounded output) against a naive
# reference, for every kernel this CPU runs. It wraps pthread_create at link
# time to see (and sometimes refuse) the threads the driver starts.

DRIVER_MAIN = [ROOT / "csrc/driver.c", TESTS_C / "driver_test.c"]
DRIVER_LDFLAGS = ["-pthread", "-Wl,--wrap=pthread_create", "-lm"]
TSAN = ["-fsanitize=thread"]
TSAN_ENV = {"TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1"}


def build_driver(cc, out_dir, cflags, ldflags=()):
    assert "csrc/driver.c" in SETUP.CORE_SOURCES, "setup.py no longer builds csrc/driver.c"
    return build(cc, SETUP.normalize_arch(), out_dir, DRIVER_MAIN, cflags=list(cflags),
                 ldflags=list(ldflags) + DRIVER_LDFLAGS)


@pytest.fixture(scope="module")
def driver_build(tmp_path_factory):
    """build(config) -> (binary, compiled): each configuration is built once per module."""
    cache = {}

    def get(config):
        if config not in cache:
            cc, flags, ldflags = DRIVER_CONFIGS[config]
            if not shutil.which(cc):
                skip_or_fail("%s not found: apt-get install %s" % (cc, cc))
            cache[config] = build_driver(cc, tmp_path_factory.mktemp("driver-" + config),
                                         flags, ldflags)
        return cache[config]
    return get


SAN_CFLAGS = ["-O1", "-g", "-fno-omit-frame-pointer"]
DRIVER_CONFIGS = {
    "native": ("cc" if shutil.which("cc") else "gcc", ["-O2"], []),
    "gcc-asan-ubsan": ("gcc", SAN_CFLAGS + SANITIZE, SANITIZE),
    "clang-asan-ubsan": ("clang", SAN_CFLAGS + SANITIZE, SANITIZE),
    # clang's TSan runs this test about 3x faster than gcc 12's.
    "tsan": ("clang" if shutil.which("clang") else "gcc", ["-O1", "-g"] + TSAN, TSAN),
}


def run_driver(binary, what, args=(), env=None, timeout=300):
    cmd = [str(binary), "--seed", str(SEED)] + list(args)
    r = run(cmd, timeout=timeout, env=env)
    print(r.stdout)
    return r, cmd


def assert_driver_ok(r, cmd, what):
    if r.returncode != 0:
        pytest.fail("%s: driver_test exited with status %d (seed %d)\n$ %s\n%s"
                    % (what, r.returncode, SEED, " ".join(cmd), r.stdout[-30000:]), pytrace=False)
    out = r.stdout
    assert "runtime error" not in out and "Sanitizer" not in out, out[-30000:]
    total = re.search(r"^TOTAL runs=(\d+) kernels=(\S+) time=\S+ status=OK$", out, re.M)
    assert total and int(total.group(1)) > 0, "no TOTAL ... status=OK line:\n" + out[-5000:]
    tested = set(total.group(2).split(","))
    status = dict(re.findall(r"^kernel (\w+): (\w+)$", out, re.M))
    assert tested == {k for k, v in status.items() if v == "supported"}, (tested, status)
    _, runs, _ = native_expectations()
    if runs is not None:
        assert set(runs) <= tested, "the CPU runs %s, driver_test tested %s" % (runs, sorted(tested))
    checked = {(kind, op): int(n) for kind, op, n in
               re.findall(r"^checked (\w+) (\w+): runs=(\d+)$", out, re.M)}
    for kind in KINDS:
        for op in OPS:
            assert checked.get((kind, op), 0) > 0, "%s %s never checked\n%s" % (kind, op, out[-5000:])
    assert re.search(r"^split threads=\d+ n=\d+ created=[1-9]", out, re.M), \
        "no call was split across threads:\n" + out[-5000:]


def test_driver(driver_build):
    binary, _ = driver_build("native")
    r, cmd = run_driver(binary, "native", ["--strict-threads"])
    assert_driver_ok(r, cmd, "native")


def test_driver_256_threads(driver_build):
    """threads = 256 on 2^26 + 1 elements: the split once made 257 parts and wrote
    past the part table on the stack; ASan sees any such overflow."""
    if not shutil.which(DRIVER_CONFIGS["gcc-asan-ubsan"][0]):
        skip_or_fail("gcc not found")
    binary, _ = driver_build("gcc-asan-ubsan")
    r, cmd = run_driver(binary, "max-threads", ["--max-threads-case", "--strict-threads"],
                        env=SANITIZER_ENV)
    assert r.returncode == 0, "$ %s\n%s" % (" ".join(map(str, cmd)), r.stdout[-30000:])


def tsan_works(cc, work):
    """None if a threaded TSan program builds and runs here, else why not."""
    src = work / "tsan_probe.c"
    src.write_text("#include <pthread.h>\n"
                   "static void *f(void *a) { return a; }\n"
                   "int main(void) { pthread_t t; void *r;\n"
                   "  if (pthread_create(&t, 0, f, 0)) return 1;\n"
                   "  return pthread_join(t, &r); }\n")
    r = run([cc] + TSAN + ["-pthread", src, "-o", work / "tsan_probe"], timeout=120)
    if r.returncode:
        return "%s -fsanitize=thread cannot build a program here:\n%s" % (cc, r.stdout)
    r = run([work / "tsan_probe"], timeout=60)
    if r.returncode:
        # Typically "FATAL: ThreadSanitizer: unexpected memory mapping" on kernels
        # with vm.mmap_rnd_bits > 28 (TSan's fixed shadow layout), or no ptrace/personality.
        return "a ThreadSanitizer program built by %s does not run here (status %d):\n%s" % (
            cc, r.returncode, r.stdout[-3000:])
    return None


@pytest.mark.parametrize("config", ["gcc-asan-ubsan", "clang-asan-ubsan", "tsan"])
def test_driver_sanitized(config, driver_build, tmp_path):
    cc = DRIVER_CONFIGS[config][0]
    if not shutil.which(cc):
        skip_or_fail("%s not found: apt-get install %s" % (cc, cc))
    args, env = [], SANITIZER_ENV
    if config == "tsan":
        why = tsan_works(cc, tmp_path)
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
# The extension (module.c + driver + kernels) built with ASan+UBSan into a temp
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


def build_extension(tmp_path, cc, cflags=(), ldflags=(), werror=False):
    """Build the extension with `cc` from a copy of the sources into a run tree
    (package + tests + pyproject.toml) under tmp_path; returns (run_dir, .so)."""
    # The build tree holds no pyproject.toml: setuptools < 77 rejects its
    # `license = "MIT"`, and build_ext needs nothing from it.
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ROOT / "setup.py", src)
    shutil.copytree(ROOT / "csrc", src / "csrc")
    # The run tree: the package (python files + the built .so), the tests, and
    # pyproject.toml for the pytest configuration (filterwarnings=error...).
    run_dir = tmp_path / "run"
    ignore = shutil.ignore_patterns("*.so", "__pycache__")
    shutil.copytree(ROOT / "python" / "simdfilter", run_dir / "python" / "simdfilter", ignore=ignore)
    (run_dir / "tests").mkdir()
    for f in (ROOT / "tests").glob("*.py"):
        shutil.copy(f, run_dir / "tests")
    shutil.copy(ROOT / "pyproject.toml", run_dir)

    env = {"CC": cc, "CFLAGS": " ".join(cflags), "LDFLAGS": " ".join(ldflags),
           "PYTHONDONTWRITEBYTECODE": "1", "SIMDFILTER_WERROR": "1" if werror else "0"}
    cmd = [sys.executable, "setup.py", "build_ext", "--build-lib", run_dir / "python",
           "--build-temp", tmp_path / "obj"]
    r = run(cmd, timeout=300, env=env, cwd=src)
    if r.returncode:
        pytest.fail("extension build with %s failed:\n$ %s\n%s"
                    % (cc, " ".join(map(str, cmd)), r.stdout[-20000:]), pytrace=False)
    built = list((run_dir / "python" / "simdfilter").glob("_core*.so"))
    assert len(built) == 1, built
    return run_dir, built[0]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_extension_builds_warning_free(cc, tmp_path):
    """The whole extension compiles with -Wall -Wextra -Werror under gcc and clang,
    and that build works (every kernel agrees with NumPy on every dtype)."""
    if not shutil.which(cc):
        skip_or_fail("%s not found: apt-get install %s" % (cc, cc))
    run_dir, so = build_extension(tmp_path, cc, werror=True)
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


def test_extension_asan(tmp_path):
    if not shutil.which("gcc"):
        skip_or_fail("gcc not found: apt-get install gcc")
    libasan = run(["gcc", "-print-file-name=libasan.so"], timeout=60).stdout.strip()
    if not os.path.isabs(libasan) or not os.path.exists(libasan):
        skip_or_fail("gcc has no shared ASan runtime (gcc -print-file-name=libasan.so: %r)" % libasan)
    run_dir, built = build_extension(tmp_path, "gcc", EXT_CFLAGS, EXT_SAN)
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
