"""Building the C test programs (tests/c/) and the extension, for tests/test_c_harness.py.

Everything a C build needs comes from setup.py (imported, never copied): the
ISA table (csrc/kernels/isa.def), each kernel file's flags, the library's
sources (every C file under csrc/lib, and the scalar kernel) and the include
directories. A test program is linked against that one library:

    binary, compiled = build(cc, arch, out_dir, [TESTS_C / "test_kernels.c"], cflags=...)

Compiles run in parallel, and the library's objects are cached per (compiler and
its version, architecture, flags, content of the sources) in
~/.cache/simdfilter-cbuild, across pytest-xdist workers and sessions, so the
kernel test and the driver test of one configuration (say gcc with ASan+UBSan)
share a single build of the library, and a later run reuses it while no source
changed (SIMDFILTER_CBUILD_CACHE="" keeps it to the session). The linked test
programs are kept there too, named by the same and by tests/c's content.

Environment:
  SIMDFILTER_CBUILD_CACHE  where library builds are kept (default
                           ~/.cache/simdfilter-cbuild; empty: the session's tmp)
  SIMDFILTER_SOURCE_ROOT   tree holding setup.py and csrc/ (default: this repo)
  SIMDFILTER_REQUIRE_ALL=1 a missing cross compiler, qemu or libFuzzer fails
                           instead of skipping (CI sets it: CI must never skip)
"""

import concurrent.futures
import contextlib
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

TESTS_C = Path(__file__).resolve().parent / "c"
ROOT = Path(os.environ.get("SIMDFILTER_SOURCE_ROOT") or Path(__file__).resolve().parent.parent)
REQUIRE_ALL = os.environ.get("SIMDFILTER_REQUIRE_ALL") == "1"

WARNINGS = ["-Wall", "-Wextra", "-Werror"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
# -g1: line tables, which is all a sanitizer's report reads (file:line in each
# frame); full -g made the sanitized AVX-512 kernel file take 6.0 s with gcc
# against 4.3 s (7.4 against 6.2 with clang), on the Zen 4 KVM, quiet.
DEBUG_LINES = "-g1"
SAN_CFLAGS = ["-O1", DEBUG_LINES, "-fno-omit-frame-pointer"]
SANITIZER_ENV = {
    "ASAN_OPTIONS": "abort_on_error=0:detect_leaks=1:halt_on_error=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
# libFuzzer targets (tests/c/fuzz_*.c): one set of flags, so that every target
# links the same cached build of the library.
FUZZ_SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
FUZZ_CFLAGS = [
    "-O1",
    DEBUG_LINES,
    "-fno-omit-frame-pointer",
    "-fsanitize=fuzzer-no-link",
] + FUZZ_SANITIZE
FUZZ_LDFLAGS = ["-fsanitize=fuzzer"] + FUZZ_SANITIZE
# The library starts threads (the driver) and may call libm (bounds).
LIBRARY_LDFLAGS = ["-pthread", "-lm"]

CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"
CROSS_INSTALL = "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"

# How /proc/cpuinfo spells the features isa.def names (its "flags" line on x86,
# "Features" on aarch64): so that a test notices a dispatcher that detects too
# little, independently of dispatch's own CPUID and HWCAP code.
CPUINFO_FLAG = {
    "SSE41": "sse4_1",
    "POPCNT": "popcnt",
    "AVX": "avx",
    "AVX2": "avx2",
    "BMI1": "bmi1",
    "BMI2": "bmi2",
    "AVX512F": "avx512f",
    "AVX512VL": "avx512vl",
    "AVX512BW": "avx512bw",
    "AVX512DQ": "avx512dq",
    "SVE": "sve",
}
ELEMS = ["u8", "u16", "u32", "u64", "f32", "f64"]
OPS = ["index32", "index64", "values", "count", "mask8", "bits"]
# The slots with nulls and with given positions (tests/c/test_nulls_within.h).
NULLS_WITHIN_OPS = [
    "index32_valid",
    "index64_valid",
    "values_valid",
    "count_valid",
    "within32",
    "within64",
    "mask8_valid",
    "bits_valid",
]


def _load_setup():
    spec = importlib.util.spec_from_file_location("simdfilter_setup_for_tests", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() runs only under __main__
    return module


SETUP = _load_setup()


def shared_cache_dir(tmp_path_factory):
    """Where the library's objects of each configuration are built and kept.

    By default a folder that outlives the session, ~/.cache/simdfilter-cbuild
    (SIMDFILTER_CBUILD_CACHE names another; an empty value means the session's
    temporary folder): a configuration is named by a hash of its compiler's
    version, its flags and the content of every library source and header, so a
    build is reused exactly while nothing it depends on changed, across
    sessions and pytest-xdist workers alike; the linked test programs too (a
    quick loop that changed no C file compiles nothing). Entries unused for a
    week are removed."""
    chosen = os.environ.get("SIMDFILTER_CBUILD_CACHE")
    if chosen is None:
        chosen = str(Path.home() / ".cache" / "simdfilter-cbuild")
    if chosen:
        shared = Path(chosen)
        shared.mkdir(parents=True, exist_ok=True)
        _prune(shared, max_age_days=7)
        return shared
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "clib-shared"
    shared.mkdir(exist_ok=True)
    return shared


def _prune(folder, max_age_days):
    """Remove the configurations of folder not used (their .objects file read) for
    max_age_days. Another worker may prune at the same time: missing files are fine."""
    limit = time.time() - max_age_days * 86400
    for done in folder.glob("lib-*.objects"):
        try:
            if done.stat().st_atime < limit and done.stat().st_mtime < limit:
                shutil.rmtree(done.with_suffix(""), ignore_errors=True)
                done.unlink()
        except OSError:
            pass
    for prog in folder.glob("prog-*"):
        try:
            if prog.suffix == "" and prog.stat().st_mtime < limit:
                prog.unlink()
                prog.with_suffix(".lock").unlink(missing_ok=True)
        except OSError:
            pass


_source_hash = None


def _sources_digest():
    """A hash of every file a library build reads (csrc/lib, csrc/kernels,
    csrc/include and the build description), computed once per process."""
    global _source_hash
    if _source_hash is None:
        h = hashlib.sha256()
        for sub in ("csrc/lib", "csrc/kernels", "csrc/include"):
            for path in sorted((ROOT / sub).rglob("*")):
                if path.is_file() and path.suffix in (".c", ".h", ".def"):
                    h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
        h.update((ROOT / "setup.py").read_bytes())
        _source_hash = h.hexdigest()
    return _source_hash


_programs_hash = None


def _programs_digest():
    """A hash of what a test program reads beyond the library: tests/c's C files
    and headers, and csrc/cpython's (test_arena.c includes arena.c)."""
    global _programs_hash
    if _programs_hash is None:
        h = hashlib.sha256()
        for folder in (TESTS_C, ROOT / "csrc" / "cpython"):
            for path in sorted(folder.glob("*")):
                if path.is_file() and path.suffix in (".c", ".h"):
                    h.update(str(path).encode() + b"\0" + path.read_bytes())
        _programs_hash = h.hexdigest()
    return _programs_hash


_compiler_versions = {}


def _compiler_version(cc):
    if cc not in _compiler_versions:
        r = subprocess.run([cc, "--version"], capture_output=True, text=True)
        _compiler_versions[cc] = (r.stdout or r.stderr).split("\n")[0]
    return _compiler_versions[cc]


def skip_or_fail(message):
    if REQUIRE_ALL:
        pytest.fail(message + " (SIMDFILTER_REQUIRE_ALL=1 forbids skipping)")
    pytest.skip(message)


def run(cmd, timeout, env=None, cwd=None):
    full_env = dict(os.environ, **(env or {}))
    try:
        return subprocess.run(
            [str(c) for c in cmd],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=timeout,
            env=full_env,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode(errors="replace")
        pytest.fail(
            "timed out after %ss: %s\n%s" % (timeout, " ".join(map(str, cmd)), out[-20000:])
        )


def have(tool):
    return shutil.which(tool) is not None


def require(tool, install=None):
    if not have(tool):
        skip_or_fail("%s not found: %s" % (tool, install or "apt-get install %s" % tool))


def c_compiler():
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and have(cc):
            return cc
    pytest.fail("no C compiler (cc, gcc or clang) on PATH")


# ---- the ISA table ----------------------------------------------------------------


def isa_features():
    """{isa: set of isa.def feature names} (NONE: the empty set)."""
    return {
        name: set(f for f in feats if f != "NONE")
        for name, _, _, feats, _ in SETUP.isa_table(str(ROOT))
    }


def kernel_sources(arch):
    """[(isa, absolute path, flags)] from setup.py for the kernel files present."""
    return [(isa, ROOT / path, flags) for isa, path, flags in SETUP.kernel_sources(arch, str(ROOT))]


# ---- compiling and linking --------------------------------------------------------

_JOBS = max(1, os.cpu_count() or 1)
_library_cache = {}
_library_lock = threading.Lock()


def _compile_all(cc, arch, units, common, out_dir):
    """Compile [(source, extra flags)] in parallel into out_dir; a file that does not
    compile fails the test naming that file, with the compiler's message."""
    out_dir.mkdir(parents=True, exist_ok=True)

    def one(i, src, extra):
        obj = out_dir / ("%02d_%s.o" % (i, src.stem))
        cmd = [cc] + common + list(extra) + ["-c", src, "-o", obj]
        return obj, cmd, run(cmd, timeout=300)

    with concurrent.futures.ThreadPoolExecutor(_JOBS) as pool:
        results = list(pool.map(lambda a: one(*a), [(i, s, e) for i, (s, e) in enumerate(units)]))
    for _, cmd, r in results:
        if r.returncode:
            pytest.fail(
                "%s does not compile for %s:\n$ %s\n%s"
                % (cmd[-3], arch, " ".join(map(str, cmd)), r.stdout)
            )
    return [obj for obj, _, _ in results]


def _common_flags(arch, cflags):
    return (
        list(SETUP.C_STD)
        + WARNINGS
        + list(cflags)
        + ["-I%s" % (ROOT / d) for d in SETUP.INCLUDE_DIRS]
        + ["-D%s=%s" % (name, value) for name, value in SETUP.kernel_macros(arch, str(ROOT))]
    )


@contextlib.contextmanager
def _file_lock(path):
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def library(cc, arch, cflags, cache_dir):
    """(objects, [isa names compiled in]) of the library for this configuration,
    compiled once for its sources' content (shared_cache_dir): every csrc/lib C
    file and the scalar kernel for the baseline, each kernel file with its own flags.

    cache_dir may be shared by the pytest-xdist workers of one session
    (test_c_harness.py's cache_dir): the first worker to need a configuration
    builds it, under a lock, and the others wait for it and link the same objects
    (gcc's ASan+UBSan build serves test_native_sanitized, test_driver_sanitized
    and test_driver_256_threads, whichever workers they run on)."""
    key = (cc, arch, tuple(cflags))
    with _library_lock:
        if key not in _library_cache:
            kernels = kernel_sources(arch)
            units = [(ROOT / s, []) for s in SETUP.library_sources(str(ROOT))]
            units += [(path, flags) for _, path, flags in kernels]
            ident = (
                key,
                _compiler_version(cc),
                _sources_digest(),
                os.environ.get("SIMDFILTER_DISABLE_KERNELS", ""),
            )
            tag = hashlib.sha256(repr(ident).encode()).hexdigest()[:16]
            out = Path(cache_dir) / ("lib-%s-%s-%s" % (Path(cc).name, arch, tag))
            done = out.with_suffix(".objects")
            out.parent.mkdir(parents=True, exist_ok=True)
            with _file_lock(out.with_suffix(".lock")):
                objects = None
                if done.exists():
                    objects = [Path(line) for line in done.read_text().splitlines()]
                    if not all(o.exists() for o in objects):  # pruned or cleaned under us
                        objects = None
                if objects is not None:
                    os.utime(done)  # used: not pruned for another week
                else:
                    objects = _compile_all(cc, arch, units, _common_flags(arch, cflags), out)
                    done.write_text("".join("%s\n" % o for o in objects))
            _library_cache[key] = (objects, [isa for isa, _, _ in kernels])
        return _library_cache[key]


def build(cc, arch, out_dir, main_sources, cflags=(), ldflags=(), cache_dir=None):
    """Compile the test program(s) main_sources and link them with the library.

    Returns (binary, [isa names compiled in]): out_dir/prog. The linked program
    is kept in cache_dir too, named as the library is plus the flags, the link
    flags and the content of tests/c and csrc/cpython (test_arena.c includes
    arena.c): a run that changed none of them copies it instead of compiling
    (4.3 s of CPU for the quick loop's seven programs, AMD EPYC Zen 4).
    """
    out_dir = Path(out_dir)
    lib_objects, compiled = library(cc, arch, list(cflags), cache_dir or out_dir)
    binary = out_dir / "prog"
    ident = (
        cc,
        arch,
        tuple(cflags),
        tuple(ldflags),
        tuple(LIBRARY_LDFLAGS),
        tuple(Path(s).name for s in main_sources),
        _compiler_version(cc),
        _sources_digest(),
        _programs_digest(),
        os.environ.get("SIMDFILTER_DISABLE_KERNELS", ""),
    )
    tag = hashlib.sha256(repr(ident).encode()).hexdigest()[:16]
    kept = Path(cache_dir or out_dir) / ("prog-%s-%s" % (Path(main_sources[0]).stem, tag))
    kept.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(kept.with_suffix(".lock")):
        if kept.exists():
            out_dir.mkdir(parents=True, exist_ok=True)
            shutil.copy2(kept, binary)
            os.utime(kept)  # used: not pruned for another week
            return binary, compiled
        # The test programs share tests/c/test_common.h and test_check.h (header-only).
        mains = [(Path(s), ["-I%s" % TESTS_C]) for s in main_sources]
        objects = _compile_all(cc, arch, mains, _common_flags(arch, cflags), out_dir / "main")
        cmd = (
            [cc]
            + list(cflags)
            + objects
            + lib_objects
            + list(ldflags)
            + LIBRARY_LDFLAGS
            + ["-o", binary]
        )
        r = run(cmd, timeout=300)
        if r.returncode:
            pytest.fail("link failed for %s:\n$ %s\n%s" % (arch, " ".join(map(str, cmd)), r.stdout))
        if kept.parent != out_dir:
            partial = kept.with_suffix(".partial")
            shutil.copy2(binary, partial)
            os.replace(partial, kept)  # whole or absent, should a run be killed
    return binary, compiled


# ---- what this machine must run ----------------------------------------------------


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
        pytest.fail(
            "setup.py finds no kernel file for %s under %s/csrc/kernels: "
            "nothing SIMD to test" % (arch, ROOT)
        )
    flags = native_cpu_flags()
    if flags is None:  # no /proc/cpuinfo: trust dispatch, but something SIMD must run
        return compiled, None, []
    needs = isa_features()
    runs = [isa for isa in compiled if {CPUINFO_FLAG[f] for f in needs[isa]} <= flags]
    return compiled, runs, [isa for isa in compiled if isa not in runs]


# ---- probes for optional toolchains -------------------------------------------------


def probe_cross(work):
    """Skip (or fail) unless the aarch64 cross compiler and qemu can build and run."""
    missing = [t for t in (CROSS_CC, QEMU) if not have(t)]
    if missing:
        skip_or_fail("%s not found: %s" % (" and ".join(missing), CROSS_INSTALL))
    (work / "p.c").write_text('#include <stdio.h>\nint main(void) { return puts("ok") < 0; }\n')
    r = run([CROSS_CC, "-static", work / "p.c", "-o", work / "p"], timeout=120)
    if r.returncode:
        skip_or_fail(
            "%s cannot link a static program (no aarch64 libc?): %s\n%s"
            % (CROSS_CC, CROSS_INSTALL, r.stdout)
        )


def clang_rt_hint():
    r = run(["clang", "--version"], timeout=60)
    m = re.search(r"clang version (\d+)", r.stdout)
    return "apt-get install clang libclang-rt-%s-dev" % (m.group(1) if m else "<version>")


def probe_libfuzzer(work):
    require("clang", "apt-get install clang libclang-rt-dev (libFuzzer)")
    (work / "probe.c").write_text(
        "#include <stddef.h>\n#include <stdint.h>\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n"
    )
    r = run(
        ["clang", "-fsanitize=fuzzer,address,undefined", work / "probe.c", "-o", work / "probe"],
        timeout=120,
    )
    if r.returncode:
        skip_or_fail("clang cannot link a libFuzzer target: %s\n%s" % (clang_rt_hint(), r.stdout))


def build_fuzzer(work, main_source, cache_dir):
    """tests/c/`main_source` as a libFuzzer program under ASan and UBSan, clang's,
    in work/build (a skip, or a failure under SIMDFILTER_REQUIRE_ALL, where clang
    cannot link one). Every fuzzer links the library built with the same flags,
    so the one build in cache_dir serves them all. Returns (binary, [isa names
    compiled in])."""
    probe_libfuzzer(work)
    return build(
        "clang",
        SETUP.normalize_arch(),
        work / "build",
        [TESTS_C / main_source],
        cflags=FUZZ_CFLAGS,
        ldflags=FUZZ_LDFLAGS,
        cache_dir=cache_dir,
    )


def fuzz(binary, seed_corpus, work, seconds, seed, max_len, rss_limit_mb, what):
    """Run a libFuzzer binary for `seconds` from a copy of seed_corpus under the
    sanitizers; fail the test, with the inputs it saved, on any finding. Returns
    libFuzzer's output and the number of runs it made (> 0)."""
    corpus = Path(work) / "corpus"
    shutil.copytree(seed_corpus, corpus)
    artifacts = Path(work) / "artifacts"
    artifacts.mkdir()
    cmd = [
        binary,
        "-max_total_time=%d" % seconds,
        "-timeout=20",
        "-rss_limit_mb=%d" % rss_limit_mb,
        "-max_len=%d" % max_len,
        "-print_final_stats=1",
        "-seed=%d" % seed,
        "-artifact_prefix=%s/" % artifacts,
        corpus,
    ]
    r = run(cmd, timeout=seconds + 300, env=SANITIZER_ENV)
    crashes = sorted(artifacts.iterdir())
    if r.returncode or crashes:
        pytest.fail(
            "fuzzing %s found a problem (exit %d, seed %d); inputs saved: %s\n$ %s\n%s"
            % (
                what,
                r.returncode,
                seed,
                [str(c) for c in crashes],
                " ".join(map(str, cmd)),
                r.stdout[-30000:],
            ),
            pytrace=False,
        )
    done = re.search(r"Done (\d+) runs", r.stdout)
    assert done and int(done.group(1)) > 0, r.stdout[-5000:]
    return r.stdout, int(done.group(1))


TSAN = ["-fsanitize=thread"]


def tsan_works(cc, work):
    """None if a threaded TSan program builds and runs here, else why not."""
    src = work / "tsan_probe.c"
    src.write_text(
        "#include <pthread.h>\n"
        "static void *f(void *a) { return a; }\n"
        "int main(void) { pthread_t t; void *r;\n"
        "  if (pthread_create(&t, 0, f, 0)) return 1;\n"
        "  return pthread_join(t, &r); }\n"
    )
    r = run([cc] + TSAN + ["-pthread", src, "-o", work / "tsan_probe"], timeout=120)
    if r.returncode:
        return "%s -fsanitize=thread cannot build a program here:\n%s" % (cc, r.stdout)
    r = run([work / "tsan_probe"], timeout=60)
    if r.returncode:
        # Typically "FATAL: ThreadSanitizer: unexpected memory mapping" on kernels
        # with vm.mmap_rnd_bits > 28 (TSan's fixed shadow layout), or no ptrace/personality.
        return "a ThreadSanitizer program built by %s does not run here (status %d):\n%s" % (
            cc,
            r.returncode,
            r.stdout[-3000:],
        )
    return None


# ---- the extension, built from a copy of the sources --------------------------------


def build_extension(tmp_path, cc, cflags=(), ldflags=(), werror=False):
    """Build the extension with `cc` from a copy of the sources into a run tree
    (package + tests + pyproject.toml) under tmp_path; returns (run_dir, .so).
    Nothing is written under ROOT."""
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
    shutil.copytree(
        ROOT / "python" / "simdfilter", run_dir / "python" / "simdfilter", ignore=ignore
    )
    shutil.copytree(
        ROOT / "tests", run_dir / "tests", ignore=shutil.ignore_patterns("__pycache__", "c")
    )
    shutil.copy(ROOT / "pyproject.toml", run_dir)

    env = {
        "CC": cc,
        "CFLAGS": " ".join(cflags),
        "LDFLAGS": " ".join(ldflags),
        "PYTHONDONTWRITEBYTECODE": "1",
        "SIMDFILTER_WERROR": "1" if werror else "0",
    }
    cmd = [
        sys.executable,
        "setup.py",
        "build_ext",
        "--build-lib",
        run_dir / "python",
        "--build-temp",
        tmp_path / "obj",
    ]
    r = run(cmd, timeout=600, env=env, cwd=src)
    if r.returncode:
        pytest.fail(
            "extension build with %s failed:\n$ %s\n%s"
            % (cc, " ".join(map(str, cmd)), r.stdout[-20000:]),
            pytrace=False,
        )
    built = list((run_dir / "python" / "simdfilter").glob("_core*.so"))
    assert len(built) == 1, built
    return run_dir, built[0]
