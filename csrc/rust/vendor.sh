#!/bin/sh
# Copies the C library the crate compiles into the crate, for `cargo package`
# and `cargo publish`:
#
#   csrc/rust/vendor.sh            copy ../include, ../lib, ../kernels and the
#                                  licence into csrc/rust/c/ (git ignores it)
#   csrc/rust/vendor.sh --clean    remove csrc/rust/c/ again
#
# In the repository build.rs compiles ../ (csrc/) directly, so the copy is only
# read where there is no ../: the packaged crate, whose build.rs looks in c/.
# So: csrc/rust/vendor.sh && cargo package --offline --manifest-path csrc/rust/Cargo.toml
set -eu
here=$(cd "$(dirname "$0")" && pwd)
csrc=$(dirname "$here")
rm -rf "$here/c"
[ "${1:-}" = "--clean" ] && exit 0
mkdir -p "$here/c"
for dir in include lib kernels; do
    mkdir -p "$here/c/$dir"
    # Sources only: no objects or editor files.
    for f in "$csrc/$dir"/*; do
        case $f in *.c|*.h|*.def) cp "$f" "$here/c/$dir/" ;; esac
    done
done
cp "$csrc/../LICENSE" "$here/c/LICENSE"
echo "copied $(find "$here/c" -type f | wc -l) files of $csrc into $here/c"
