#!/bin/sh
# Build the documentation into OUT (default: docs/_build): the HTML with every
# warning an error, then the doctests (every >>> example of the pages and of the
# docstrings the API reference pulls in). Fails on the first warning or failed
# example. Needs the package importable with its docs extra:
#     pip install -e '.[docs]'
# Run from anywhere; uses the python on PATH unless PYTHON is set.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/_build}
python=${PYTHON:-python}
mkdir -p "$out"
# -W: warnings are errors; --keep-going: report them all before failing;
# -n: nitpicky, so a reference to a missing object is a warning too.
"$python" -m sphinx -W --keep-going -n -q -b html -d "$out/doctrees" "$here" "$out/html"
"$python" -m sphinx -W --keep-going -n -q -b doctest -d "$out/doctrees" "$here" "$out/doctest"
echo "docs: HTML in $out/html, doctests passed ($out/doctest/output.txt)"
