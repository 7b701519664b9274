#!/usr/bin/env python3
"""Run benchmarks/explore.ipynb in a Jupyter kernel and store its outputs in the file.

    PYTHONPATH=python python3 benchmarks/store_notebook.py

The documentation shows the notebook with the outputs stored in it (docs/explore.rst; the
docs build runs no notebook): run this after changing the notebook or what it shows, on a
quiet machine, since its timings are stored too, with the CPU its first cell prints. Needs
nbclient, ipykernel and matplotlib (the test extra) and the notebook's pandas, Polars and
pyarrow. The kernel imports the simdfilter this script imports. Takes about a minute.
"""

import os
import pathlib
import sys

import nbclient
import nbformat

import simdfilter

NOTEBOOK = pathlib.Path(__file__).resolve().parent / "explore.ipynb"


def main():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env = dict(os.environ)
    package_root = str(pathlib.Path(simdfilter.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # figures as outputs
    client = nbclient.NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        record_timing=False,  # no timestamps in the file: a rerun changes only what it shows
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute(env=env)
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    if errors:
        sys.exit("the notebook raised: %s: %s (not stored)" % (errors[0].ename, errors[0].evalue))
    nbformat.write(nb, NOTEBOOK)
    print(
        "stored the outputs of %d code cells in %s"
        % (sum(c.cell_type == "code" for c in nb.cells), NOTEBOOK)
    )


if __name__ == "__main__":
    main()
