"""Dispatch's rule, fed described CPUs (tests/cpu_kinds.txt) on any machine: the
default each gets and what SIMDFILTER_KERNEL may ask of it. The rule is the
library's (sf_kernel_choice); the Rust crate reads the same table
(csrc/rust/tests/dispatch.rs), so the two faces agree by construction and by test."""

import os
import pathlib
import platform
import subprocess

import pytest

import simdfilter
from simdfilter import _core

import cbuild

TABLE = pathlib.Path(__file__).with_name("cpu_kinds.txt")
SF_ENOTBUILT, SF_EUNSUPPORTED, SF_EUNKNOWN = -3, -2, -1


def cpu_kinds():
    kinds = []
    for line in TABLE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, arch, features, default, runs = (f.strip() for f in line.split("|"))
            kinds.append((name, arch, features, default, runs.split()))
    return kinds


KINDS = cpu_kinds()
ISA = {name: arch for name, _, arch, _, _ in cbuild.SETUP.isa_table(str(cbuild.ROOT))}
# The benchmark-only variants (dispatch.c's SF_VARIANTS), each runs where its base does.
VARIANTS = {
    "sse41_dense": "sse41",
    "avx2_dense": "avx2",
    "avx512_zen4_dense": "avx512_zen4",
    "avx512_dense": "avx512",
}


def test_the_table_names_the_cpus_the_issue_asks_for():
    names = " ".join(k[0] for k in KINDS)
    for cpu in [
        "Nehalem",
        "Haswell",
        "Zen 3",
        "Zen 4",
        "Zen 5",
        "Sapphire Rapids",
        "Ice Lake",
        "NEON only",
        "SVE",
    ]:
        assert cpu in names, cpu
    assert {k[3] for k in KINDS} == set(ISA), "every kernel is some CPU's default"


@pytest.mark.parametrize("name,arch,features,default,runs", KINDS, ids=[k[0] for k in KINDS])
def test_default(name, arch, features, default, runs):
    assert _core._kernel_choice(arch, features) == (default, 0)
    assert _core._kernel_choice(arch, features, "  \t") == (default, 0)  # blank: unset


@pytest.mark.parametrize("name,arch,features,default,runs", KINDS, ids=[k[0] for k in KINDS])
def test_every_override(name, arch, features, default, runs):
    for kernel in list(ISA) + list(VARIANTS):
        base = VARIANTS.get(kernel, kernel)
        if base in runs:
            want = (kernel, 0)
        elif ISA[base] not in (arch, "any"):
            want = (None, SF_ENOTBUILT)
        else:
            want = (None, SF_EUNSUPPORTED)
        assert _core._kernel_choice(arch, features, kernel) == want, kernel
        assert _core._kernel_choice(arch, features, f" {kernel}\n") == want, "blanks around"
    for bogus in ["bogus", "AVX2", "avx2 avx512", "avx", "scalar\t_dense"]:
        assert _core._kernel_choice(arch, features, bogus) == (None, SF_EUNKNOWN), bogus


def test_bad_descriptions():
    with pytest.raises(ValueError, match="unknown architecture"):
        _core._kernel_choice("riscv64", "")
    with pytest.raises(ValueError, match="unknown architecture"):
        _core._kernel_choice("x86_64", "sse4.1 avx3")


def test_this_machine_follows_the_rule(fresh_python):
    """The default here is the rule's for this CPU's own features, whatever CPU this is."""
    arch = cbuild.SETUP.normalize_arch()
    features = " ".join(simdfilter.cpu_features())
    want, rc = _core._kernel_choice(arch, features)
    assert rc == 0
    if want in simdfilter.compiled_kernels():
        assert simdfilter.default_kernel() == want
    env = {k: v for k, v in os.environ.items() if k != "SIMDFILTER_KERNEL"}
    out = subprocess.run(
        [fresh_python, "-c", "import simdfilter; print(simdfilter.active_kernel())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == simdfilter.default_kernel()
    kinds = [k[0] for k in KINDS if k[1] == arch and set(k[2].split()) == set(features.split())]
    print(
        "this machine (%s, %s) is described by: %s; default %s"
        % (arch, platform.processor() or "?", kinds or "no kind of tests/cpu_kinds.txt", want)
    )


@pytest.mark.parametrize(
    "value", ["avx2\v", "scalar" + " " * 58 + "x", "AVX2", "avx2 avx512"], ids=repr
)
def test_the_import_fails_on_what_the_library_refused(value, fresh_python):
    """The import's verdict is the library's own: a value the library did not take
    (a vertical tab is no blank to it; it keeps 63 bytes of the value) never passes
    because Python would read it otherwise."""
    env = dict(os.environ, SIMDFILTER_KERNEL=value)
    out = subprocess.run(
        [fresh_python, "-c", "import simdfilter"], env=env, capture_output=True, text=True
    )
    assert out.returncode != 0
    assert "ImportError: SIMDFILTER_KERNEL=" in out.stderr and "unknown kernel" in out.stderr


def test_a_variant_of_another_architecture_is_not_built():
    other = "neon" if cbuild.SETUP.normalize_arch() == "x86_64" else "avx2_dense"
    assert simdfilter._core._kernel_choice("x86_64", "", "avx2_dense")[1] in (0, -2)
    with pytest.raises(ValueError, match="kernel|build"):
        simdfilter.use_kernel(other)
    if cbuild.SETUP.normalize_arch() == "aarch64":
        with pytest.raises(ValueError, match="is an x86-64 kernel, not in this aarch64 build"):
            simdfilter.use_kernel("avx2_dense")


@pytest.mark.parametrize("name,arch,features,default,runs", KINDS, ids=[k[0] for k in KINDS])
def test_why_a_kernel_is_not_the_default(name, arch, features, default, runs):
    """sf_kernel_not_default_reason: None for the default alone, a sentence for
    every other kernel the CPU runs, and the trait's own reason where a trait
    keeps the default off a kernel the CPU runs."""
    for kernel in runs:
        why = _core._not_default_reason(kernel, arch, features)
        assert (why is None) == (kernel == default), (kernel, why)
    if "slow-compress-store" in features.split() and "avx512" in runs:
        assert "compress store" in _core._not_default_reason("avx512", arch, features)
    for kernel in set(ISA) - set(runs):
        assert _core._not_default_reason(kernel, arch, features)
    for variant in VARIANTS:
        why = _core._not_default_reason(variant, arch, features)
        assert why and ("variant" in why or variant.rsplit("_", 1)[0] not in runs), why
    assert _core._not_default_reason("no-such-kernel", arch, features) == "no kernel of that name"


def test_why_not_the_default_on_this_machine():
    default = simdfilter.default_kernel()
    assert _core._not_default_reason(default) is None
    for kernel in simdfilter.available_kernels():
        assert (_core._not_default_reason(kernel) is None) == (kernel == default)
    with pytest.raises(ValueError, match="both arch and features"):
        _core._not_default_reason(default, "x86_64")
