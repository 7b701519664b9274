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

Environment:
  SIMDFILTER_SOURCE_ROOT   tree holding setup.py and csrc/ (default: this repo)
  SIMDFILTER_SEED          harness seed (default: random, printed on failure)
  SIMDFILTER_FUZZ_SECONDS  fuzzing time (default 60)
  SIMDFILTER_REQUIRE_ALL=1 a missing cross compiler, qemu or libFuzzer fails
                           instead of skipping (CI sets it: CI must never skip)
"""

import importlib.util
import os
import platform
import random
import re
import shutil
import subprocess
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
    units += [(Path(s), []) for s in main_sources]
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
