#!/usr/bin/env bash
# The Python suite on an aarch64 build of simdfilter, under qemu-user, from
# an x86-64 Debian machine (README: "aarch64 under qemu").
#
#   tests/aarch64/run.sh [-n WORKERS] [--prepare] [--all] [CONFIG...] [-- PYTEST_ARGS...]
#
# --prepare: make the cached steps below for the CONFIGs and stop (no build, no
# test): mostly downloads, which CI runs while the x86 suite runs.
# --all: every test on every configuration (see "Not every test file").
#
# CONFIG is CPU-NUMPY with CPU one of
#   neon     -cpu max,sve=off                       (neon is the best kernel)
#   sve128   -cpu max,sve-default-vector-length=16  (SVE at 128 bits)
#   sve512   -cpu max,sve-default-vector-length=64  (SVE at 512 bits)
# and NUMPY one of numpy2 (the newest NumPy 2 with its pandas) or numpy1.23
# (1.23.5, the oldest pyproject claims, with pandas<2.3: the same pair as the
# x86 CI job). Default: all six. Every test that takes the `kernel` fixture runs
# once per kernel available_kernels() lists, as on x86.
#
# Steps, each cached under $SIMDFILTER_AARCH64_CACHE (default
# ~/.cache/simdfilter-aarch64) in a folder named by a hash of its inputs:
#   1. an arm64 Debian bookworm root, unpacked without running an arm64 binary
#      (debootstrap --foreign, then dpkg-deb -x of every package it fetched);
#   2. per NumPy, a site folder of aarch64 wheels (NumPy, pandas, pytest,
#      hypothesis, pytest-xdist; with NumPy 2 also pyarrow and Polars) installed
#      by the host's pip for the target (Dask and Jupyter stay out: their tests
#      skip, saying so);
#   3. a host venv with the build requirements.
# Then (never cached): the wheel cross-built by setup.py from a copy of this
# tree (or the one SIMDFILTER_AARCH64_WHEEL names: CI gives .ci/wheels'
# manylinux2014 wheel), installed into its own site folder, and pytest under
# qemu-aarch64.
#
# The emulated Python cannot start another aarch64 program by itself (no
# binfmt_misc here), so SIMDFILTER_TEST_PYTHON names a launcher that runs the
# same interpreter through the same emulator (tests/conftest.py: fresh_python),
# and pytest-xdist's workers are started through it too.
#
# Hypothesis runs a quarter of its examples here (the "simdfilter-emulated"
# profile of tests/conftest.py: 25 where a test sets no count, a quarter of a
# test's own count): every test runs, each example costing ten to thirty times
# what it does on x86, where the full counts run. SIMDFILTER_HYPOTHESIS_PROFILE=
# simdfilter runs the full counts here too.
#
# Not every test file runs under qemu (the lists in "what runs under qemu"
# below, each with its reason, printed before a configuration runs): files that
# run no kernel on data (text, version strings, the docs' build) are left out
# everywhere, and the pure-Python faces and a few checks whose code is the same
# on every kernel and NumPy run on the NumPy 2 configurations only (pandas 2,
# pyarrow and Polars there), not on numpy1.23; so do the tests pinning the
# scalar kernel (qemu_plugin.py deselects them on numpy1.23, where NEON is
# still checked against the reference everywhere and against scalar, run in
# the same process, by test_kernels). Every test that runs a kernel on data
# still runs under qemu on at least one configuration; every SIMD kernel
# pinned against scalar runs on every configuration. --all runs every test on
# every configuration.
#
# Anything that keeps the aarch64 Python from coming up is an error (exit 1),
# never a skip.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${SIMDFILTER_AARCH64_CACHE:-$HOME/.cache/simdfilter-aarch64}
suite=bookworm
# bookworm's Python: the host builds with the same X.Y, which names the wheel.
pyver=3.11
workers=1
prepare=0
all_tests=0

die() { echo "aarch64: FAILED: $*" >&2; exit 1; }
log() { echo "== aarch64: $*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        -n) workers=$2; shift 2 ;;
        --prepare) prepare=1; shift ;;
        --all) all_tests=1; shift ;;
        -h|--help) sed -n '2,59p' "$0"; exit 0 ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
configs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do configs+=("$1"); shift; done
[ $# -gt 0 ] && shift
pytest_args=("$@")  # after --: given to pytest as they are, e.g. -k kernel
[ ${#configs[@]} -gt 0 ] || configs=(neon-numpy2 sve128-numpy2 sve512-numpy2
                                     neon-numpy1.23 sve128-numpy1.23 sve512-numpy1.23)

# --- the configurations --------------------------------------------------------
cpu_flags() {
    case "$1" in
        neon) echo "max,sve=off" ;;
        sve128) echo "max,sve-default-vector-length=16" ;;
        sve512) echo "max,sve-default-vector-length=64" ;;
        *) die "unknown CPU '$1' (neon, sve128, sve512)" ;;
    esac
}
# Requirements per NumPy; "numpy2" takes the newest releases, as `pip install
# '.[test]'` does on x86.
numpy_reqs() {
    case "$1" in
        numpy2) echo "numpy>=2 pandas>=1.5 pyarrow>=16 polars>=1.33.1" ;;
        numpy1.23) echo "numpy==1.23.5 pandas>=1.5,<2.3" ;;
        *) die "unknown NumPy '$1' (numpy2, numpy1.23)" ;;
    esac
}
for c in "${configs[@]}"; do
    [[ $c == *-* ]] || die "config '$c' is not CPU-NUMPY"
    cpu_flags "${c%%-*}" >/dev/null
    numpy_reqs "${c#*-}" >/dev/null
done
test_reqs="pytest>=7 hypothesis>=6.80 pytest-xdist>=3"

# --- what runs under qemu ------------------------------------------------------
# Under qemu a test costs ten to thirty times its x86 time, and the stage is
# CI's longest: what runs here is what the emulated CPU or the aarch64 build of
# NumPy and its neighbours can change. Each left-out file or test says why.
# Everywhere (they run no kernel on data; the x86 suite runs them):
qemu_never=(
    # the C harness and the Arrow fuzzer build with the host's compilers (the
    # harness runs every kernel at C level under qemu-aarch64 in the x86 suite)
    tests/test_c_harness.py tests/test_fuzz_arrow.py
    # Sphinx is not installed here (its tests would skip), and the C guide's
    # program is built by the host's cc and runs on x86: nothing of aarch64's
    tests/test_docs.py
    # the .pyi read with ast against inspect's signatures: text, the same here
    tests/test_stubs.py
    # the version in the header, setup.py, Cargo.toml and __version__: text
    tests/test_version.py
    # mypy and pyright read a script as text (neither is installed here); the
    # script's run is the faces' calls, which the numpy2 configurations test
    tests/test_typing.py
)
# On the numpy1.23 configurations only (they run under qemu on the numpy2 ones,
# which have pandas 2, pyarrow and Polars, and natively at the oldest versions
# with NumPy 1.23.5 and pandas 1.5.3); the kernel on data under them is the
# one every test of test_kernels, test_dtypes, test_invert, ... pins here:
qemu_numpy2_only=(
    # the pandas, Polars and Dask faces: Python over the same C entry points
    tests/test_faces.py tests/test_pandas_accessor.py tests/test_polars_namespace.py
    tests/test_polars_expressions.py tests/test_invert_faces.py tests/test_readme.py
    # bounds on tz-aware data against pandas' rules: the binding's zone rules
    # (zoneinfo), the same code on every kernel
    tests/test_bounds_tz.py
    # result.c's size edges and the result pool: the same C code on every
    # kernel (the default one here), 24 runs of 2**27 elements
    tests/test_fresh_results.py
    # the extension loaded alone: one code path, no kernel
    tests/test_extension_alone.py
)
# Single tests, as pytest --deselect takes them (a node id, or its prefix):
qemu_numpy2_only_tests=(
    # 2**32 + 3 elements at stride 0 for the int64 positions: the length rule,
    # the same for every kernel (a minute under qemu)
    tests/test_zonemap.py::test_index_dtype_from_2_to_the_32_elements
    # SIMDFILTER_KERNEL's refusals, a fresh emulated Python each: parsing, the
    # same for every CPU (this machine's default against the rule still runs)
    tests/test_dispatch_rule.py::test_the_import_fails_on_what_the_library_refused
)
# Kernels whose pinned tests (a "kernel" parameter) are deselected by
# qemu_plugin.py through SIMDFILTER_QEMU_UNPINNED: scalar, the C reference every
# SIMD kernel is checked against, built with no ISA flags, so the same code on
# every aarch64 CPU. The numpy2 configurations pin it (against
# simdfilter.reference); here NEON's tests still check it against the
# reference, and test_kernels' against scalar run in the same process
# (test_kernels.check).
qemu_numpy2_only_kernels=scalar
selection_for() {  # selection_for NUMPY -> pytest's --ignore/--deselect arguments
    local f
    for f in "${qemu_never[@]}"; do echo "--ignore=$f"; done
    [ "$all_tests" = 1 ] && return
    [ "$1" = numpy2 ] && return
    for f in "${qemu_numpy2_only[@]}"; do echo "--ignore=$f"; done
    for f in "${qemu_numpy2_only_tests[@]}"; do echo "--deselect=$f"; done
}

# --- tools ---------------------------------------------------------------------
for tool in qemu-aarch64 aarch64-linux-gnu-gcc debootstrap dpkg-deb "python$pyver" sha256sum; do
    command -v "$tool" >/dev/null || die "'$tool' not found (apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross debootstrap python$pyver-venv)"
done
host_python=$(command -v "python$pyver")
key() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }
mkdir -p "$cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/simdfilter-aarch64.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- 1. the arm64 root ------------------------------------------------------------
# Bump when the recipe below changes meaning without changing its inputs.
root_recipe=1
root_packages="python3,libpython$pyver-dev"
root=$cache/root-$(key "$root_recipe" "$suite" "$root_packages" "${SIMDFILTER_AARCH64_MIRROR:-}")
if [ ! -x "$root/usr/bin/python$pyver" ]; then
    log "creating the arm64 $suite root in $root"
    t0=$(date +%s)
    rm -rf "$root.tmp"
    # No mirror given: debootstrap's default Debian mirror.
    debootstrap --foreign --arch=arm64 --variant=minbase --include="$root_packages" \
        "$suite" "$root.tmp" ${SIMDFILTER_AARCH64_MIRROR:+"$SIMDFILTER_AARCH64_MIRROR"} \
        > "$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; die "debootstrap"; }
    # What the second stage would do, less the maintainer scripts (they are
    # arm64 programs): unpack every package.
    for deb in "$root.tmp"/var/cache/apt/archives/*.deb; do
        dpkg-deb -x "$deb" "$root.tmp" || die "dpkg-deb -x $deb"
    done
    rm -f "$root.tmp"/var/cache/apt/archives/*.deb
    # Bytecode for the standard library, compiled by the host's Python of the
    # same X.Y (same magic number): the debs ship none, and compiling it under
    # emulation on every run would cost more than the tests.
    "$host_python" -m compileall -q -j 0 "$root.tmp/usr/lib/python$pyver" >/dev/null \
        || die "compileall of the root's standard library"
    rm -rf "$root"
    mv "$root.tmp" "$root"
    log "root ready in $(( $(date +%s) - t0 )) s"
fi
target_python=$root/usr/bin/python$pyver
qemu_version=$(qemu-aarch64 --version | head -1)
out=$(qemu-aarch64 -L "$root" "$target_python" -c 'import platform, sys; print(platform.machine(), sys.version.split()[0])' 2>&1) \
    || die "the aarch64 Python in $root does not start under qemu-aarch64: $out"
log "$out under $qemu_version"
[[ $out == "aarch64 $pyver."* ]] || die "expected aarch64 Python $pyver, got: $out"

# The target's sysconfig, for setuptools on the host: its own file, with the
# header folders moved into the root (the compiler gets --sysroot for the rest).
sysname=_sysconfigdata__linux_aarch64-linux-gnu
[ -f "$root/usr/lib/python$pyver/$sysname.py" ] || die "no $sysname.py in the root"
mkdir -p "$work/sysconfig"
"$host_python" - "$root" "$pyver" "$sysname" "$work/sysconfig" <<'EOF' || die "writing the target's sysconfig"
import pprint, runpy, sys
root, pyver, name, out = sys.argv[1:]
conf = runpy.run_path("%s/usr/lib/python%s/%s.py" % (root, pyver, name))["build_time_vars"]
for var in ("INCLUDEPY", "CONFINCLUDEPY", "INCLUDEDIR", "CONFINCLUDEDIR"):
    if isinstance(conf.get(var), str) and conf[var].startswith("/"):
        conf[var] = root + conf[var]
with open("%s/%s.py" % (out, name), "w") as f:
    f.write("# %s's, headers moved into %s\nbuild_time_vars = %s\n" % (name, root, pprint.pformat(conf)))
EOF

# --- 2. the site folders of aarch64 wheels ---------------------------------------
# Every manylinux tag bookworm's glibc 2.36 can load (pip does not widen a
# given --platform by itself), and plain linux_aarch64 for our own wheel.
platforms=(--platform linux_aarch64 --platform manylinux2014_aarch64)
for v in $(seq 36 -1 17); do platforms+=(--platform "manylinux_2_${v}_aarch64"); done
target_pip=(--only-binary=:all: --python-version "$pyver" --implementation cp
            --abi "cp${pyver/./}" "${platforms[@]}")

# --- 3. the host build environment -------------------------------------------------
build_reqs="setuptools>=77 numpy>=2 build wheel"
hostvenv=$cache/hostvenv-$(key 1 "$("$host_python" -VV)" "$build_reqs")
if [ ! -x "$hostvenv/bin/python" ]; then
    log "host build venv in $hostvenv"
    rm -rf "$hostvenv"
    "$host_python" -m venv "$hostvenv" || die "python$pyver -m venv"
    # shellcheck disable=SC2086
    "$hostvenv/bin/pip" install -q $build_reqs || { rm -rf "$hostvenv"; die "pip install $build_reqs"; }
fi

site_for() {  # site_for NUMPY -> the cached site folder, made if missing
    local reqs site
    reqs="$(numpy_reqs "$1") $test_reqs"
    site=$cache/site-$1-$(key 1 "$pyver" "$reqs" "${platforms[*]}")
    if [ ! -f "$site/.complete" ]; then
        log "aarch64 wheels for $1 ($reqs) into $site" >&2
        rm -rf "$site" "$site.wheels"
        # shellcheck disable=SC2086
        "$hostvenv/bin/pip" download -q "${target_pip[@]}" -d "$site.wheels" $reqs >&2 \
            || die "pip download of aarch64 wheels for $1"
        "$hostvenv/bin/pip" install -q --no-deps --no-compile --target "$site" "${target_pip[@]}" \
            "$site.wheels"/*.whl >&2 || die "installing aarch64 wheels for $1"
        rm -rf "$site.wheels"
        "$host_python" -m compileall -q -j 0 "$site" >/dev/null || die "compileall of $site"
        touch "$site/.complete"
    fi
    echo "$site"
}

if [ "$prepare" = 1 ]; then
    for config in "${configs[@]}"; do site_for "${config#*-}" >/dev/null; done
    log "prepared: the root, the build venv and the wheels of ${configs[*]} are cached"
    exit 0
fi

# --- the wheel: given, or cross-built ------------------------------------------------
if [ -n "${SIMDFILTER_AARCH64_WHEEL:-}" ]; then
    # A wheel made elsewhere (CI: .ci/wheels' manylinux2014 one, built by zig cc):
    # installed as it is, so that what runs here is what users get.
    wheel=$SIMDFILTER_AARCH64_WHEEL
    [ -f "$wheel" ] || die "SIMDFILTER_AARCH64_WHEEL=$wheel: no such file"
    log "the given wheel $(basename "$wheel")"
else
    log "cross-building the aarch64 wheel"
    t0=$(date +%s)
    # A copy, so that the host's own build/ and _core*.so stay out of it.
    mkdir -p "$work/src"
    tar -C "$repo" --exclude=build --exclude=dist --exclude='*.so' --exclude='*.o' \
        --exclude=__pycache__ --exclude='*.egg-info' -cf - setup.py pyproject.toml README.md LICENSE csrc python \
        | tar -C "$work/src" -xf -
    # CC: the cross compiler, against the root's glibc and Python headers.
    # _PYTHON_SYSCONFIGDATA_NAME: the target's sysconfig (extension suffix, flags).
    # _PYTHON_HOST_PLATFORM: the platform setup.py picks the kernel files for, and
    # the one the wheel is named for. The NumPy headers are the host's NumPy 2
    # (they are the same for both architectures; the extension targets the 1.23 API).
    (cd "$work/src" &&
        env CC="aarch64-linux-gnu-gcc --sysroot=$root" \
            PYTHONPATH="$work/sysconfig" _PYTHON_SYSCONFIGDATA_NAME=$sysname \
            _PYTHON_HOST_PLATFORM=linux-aarch64 \
            "$hostvenv/bin/python" -m build --no-isolation --wheel --outdir "$work/dist" . \
            > "$work/build.log" 2>&1) || { tail -30 "$work/build.log" >&2; die "cross build of the wheel"; }
    wheels=("$work"/dist/simdfilter-*-cp${pyver/./}-cp${pyver/./}-linux_aarch64.whl)
    [ -f "${wheels[0]}" ] || die "no linux_aarch64 wheel in $work/dist: $(ls "$work/dist")"
    wheel=${wheels[0]}
    log "built $(basename "$wheel") in $(( $(date +%s) - t0 )) s"
fi
if [ -n "${SIMDFILTER_AARCH64_WHEEL_DIR:-}" ]; then
    mkdir -p "$SIMDFILTER_AARCH64_WHEEL_DIR" && cp "$wheel" "$SIMDFILTER_AARCH64_WHEEL_DIR/"
fi
"$hostvenv/bin/pip" install -q --no-deps --no-compile --target "$work/simdfilter-site" "${target_pip[@]}" \
    "$wheel" || die "installing the wheel"
"$host_python" -m compileall -q "$work/simdfilter-site" >/dev/null

# --- the runs -----------------------------------------------------------------------
status=0
summary=()
for config in "${configs[@]}"; do
    cpu=${config%%-*}
    numpy=${config#*-}
    flags=$(cpu_flags "$cpu")
    site=$(site_for "$numpy")
    launcher=$work/python-$config
    # A host shell script the emulated Python can exec: the same interpreter,
    # root and CPU.
    printf '#!/bin/sh\nexec qemu-aarch64 -L %q -cpu %q %q "$@"\n' "$root" "$flags" "$target_python" > "$launcher"
    chmod +x "$launcher"
    # tests/aarch64 for qemu_plugin (the report header's emulated CPU).
    export PYTHONPATH=$work/simdfilter-site:$site:$here
    # A quarter of the Hypothesis examples (see the header).
    export SIMDFILTER_HYPOTHESIS_PROFILE=${SIMDFILTER_HYPOTHESIS_PROFILE:-simdfilter-emulated}
    export SIMDFILTER_TEST_PYTHON=$launcher
    # NumPy's OpenBLAS would start a thread per core in every process.
    export OPENBLAS_NUM_THREADS=1
    export SIMDFILTER_AARCH64_CPU=$flags
    log "$config: qemu-aarch64 -cpu $flags"
    # The configuration is what it says before any test runs: the kernels, the
    # SVE vector length the emulated CPU gives (prctl PR_SVE_GET_VL) and NumPy.
    case $cpu in
        neon) want_kernels="('scalar', 'neon')"; want_vl=none ;;
        sve128) want_kernels="('scalar', 'neon', 'sve')"; want_vl=16 ;;
        sve512) want_kernels="('scalar', 'neon', 'sve')"; want_vl=64 ;;
    esac
    check=$("$launcher" -c '
import ctypes, numpy, simdfilter
vl = ctypes.CDLL(None).prctl(51, 0, 0, 0, 0)  # PR_SVE_GET_VL: -1 without SVE
print(simdfilter.available_kernels(), "none" if vl < 0 else vl & 0xffff, numpy.__version__,
      simdfilter.__file__)' 2>&1) || die "$config: simdfilter does not import under qemu: $check"
    echo "   kernels, SVE bytes, NumPy, module: $check"
    [[ $check == "$want_kernels $want_vl "* ]] || die "$config: expected kernels $want_kernels and SVE vector length $want_vl"
    [[ $check == *" $work/simdfilter-site/"* ]] || die "$config: simdfilter imported from the wrong place"
    if [ "$numpy" = numpy1.23 ]; then [[ $check == *" 1.23.5 "* ]] || die "$config: not NumPy 1.23.5"
    else [[ $check == *" 2."* ]] || die "$config: not NumPy 2"; fi
    mapfile -t selection < <(selection_for "$numpy")
    echo "   left out under qemu here (tests/aarch64/run.sh, \"what runs under qemu\", says why):"
    printf '     %s\n' "${selection[@]}"
    unpinned=
    [ "$all_tests" = 1 ] || [ "$numpy" = numpy2 ] || unpinned=$qemu_numpy2_only_kernels
    export SIMDFILTER_QEMU_UNPINNED=$unpinned
    [ -z "$unpinned" ] || echo "     the tests pinning kernel $unpinned (qemu_plugin.py)"
    xdist=(-p no:xdist)
    [ "$workers" -gt 1 ] && xdist=(--dist load --tx "$workers*popen//python=$launcher")
    # From the tree's root so that pyproject's pytest settings apply; the tree's
    # python/ is not on the path, the installed wheel is (checked above).
    # Wall time and the CPU time of every emulated process: on a shared
    # machine the second says more about what the run costs.
    set +e
    TIMEFORMAT="%R %U %S"
    { time (cd "$repo" && "$launcher" -m pytest -q -p no:cacheprovider -p qemu_plugin --durations=10 "${xdist[@]}" tests \
        "${selection[@]}" ${pytest_args[@]+"${pytest_args[@]}"} 2>&1 | tee "$work/pytest-$config.log"
        exit "${PIPESTATUS[0]}") ; } 2> "$work/time-$config"
    rc=$?
    set -e
    read -r wall user sys < "$work/time-$config" || true
    # No result line (a crash, errors only) must not end the script here:
    # the summary below says so, and the next configuration still runs.
    line=$({ grep -E '^=* ?[0-9]+ (passed|failed)' "$work/pytest-$config.log" || true; } | tail -1 | tr -d '=')
    summary+=("$config: ${line:-no result line} (exit $rc; ${wall:-?} s wall, $(awk "BEGIN{print ${user:-0}+${sys:-0}}" 2>/dev/null || echo '?') s CPU)")
    [ "$rc" -eq 0 ] || status=1
done
log "summary ($(nproc) cores)"
printf '   %s\n' "${summary[@]}"
[ "$status" -eq 0 ] || die "the Python suite failed under qemu-aarch64 (see above)"
