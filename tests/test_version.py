"""One version: SIMDFILTER_VERSION in csrc/include/simdfilter.h is the source;
setup.py gives it to the wheel's metadata, the extension compiles it into
simdfilter.__version__, and the Rust crate's Cargo.toml must repeat it (TOML
cannot read a header)."""

import os
import re
import sys

import pytest

import simdfilter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
try:
    import setup as setup_py  # the repository's setup.py: read_version
finally:
    sys.path.remove(ROOT)

needs_tree = pytest.mark.skipif(
    not os.path.exists(os.path.join(ROOT, "csrc/rust/Cargo.toml")),
    reason="outside the repository (an unpacked sdist has no Rust crate)",
)


def header_version():
    return setup_py.read_version(ROOT)


def test_version_is_a_release_number():
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]|rc)?\d*", header_version()), header_version()


def test_module_version_is_the_headers():
    assert simdfilter.__version__ == header_version()


@needs_tree
def test_cargo_version_is_the_headers():
    with open(os.path.join(ROOT, "csrc/rust/Cargo.toml")) as f:
        text = f.read()
    package = text.split("[package]", 1)[1].split("\n[", 1)[0]
    versions = re.findall(r'^version\s*=\s*"([^"]+)"', package, re.M)
    assert versions == [header_version()], "csrc/rust/Cargo.toml: %s" % versions


def test_pyproject_does_not_write_a_version():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        text = f.read()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    assert not re.search(r"^version\s*=", project, re.M)
    assert re.search(r'^dynamic\s*=\s*\[[^\]]*"version"', project, re.M)


def test_installed_metadata_is_the_headers():
    from importlib import metadata

    try:
        installed = metadata.version("simdfilter")
    except metadata.PackageNotFoundError:
        pytest.skip("simdfilter is not installed (run from the tree)")
    assert installed == header_version()
