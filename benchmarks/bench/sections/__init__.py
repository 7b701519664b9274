"""The sections of a run, and their registry.

A section is a module in this package with

    run(ctx) -> list[dict]          measure; the records go to the JSON under the module's name
    report(rows, result) -> None    print its tables (called when `rows` is not empty)

`ctx` is a `Context`: the mode's config, the run's random generator, the optional libraries
that imported, and `log` for progress lines. Sections run in the order of `SECTIONS`, all
drawing from one generator, so a new one goes at the end to leave the others' data as it was.
"""

import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

SECTIONS = [
    "grid",
    "threads",
    "memory",
    "overhead",
    "dtypes",
    "columns",
    "dask_cluster",
    "queries",
    "bound_types",
    "selectivity",
    "store_form",
    "between",
    "skipping",
    "invert",
    "fresh_process",
    "ranges",
    "fresh_ratio",
    "dtype_bandwidth",
    "isin",
    "packed",
    "mixed_memory",
]


@dataclass
class Context:
    cfg: dict
    rng: np.random.Generator
    alts: dict
    log: Callable[[str], None]


def load(name):
    """The module of section `name`."""
    return importlib.import_module(f"{__name__}.{name}")
