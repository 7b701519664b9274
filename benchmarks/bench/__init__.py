"""The parts of `benchmarks/run.py`: one module per concern, one module per section.

config    sizes, selectivities and timing budgets per mode (quick / default / full)
data      the arrays: uint32 generators (random, sorted, runs), the range for a selectivity, dtypes
methods   the things timed: simdfilter calls, NumPy, numexpr, pandas, Polars, pyarrow, Numba, limits
timing    interleaved best-of timing, and the check of every method's first result
sections  the registry, and one module per section (grid, threads, memory, overhead, dtypes, columns)
targets   the project's targets, evaluated on a run's records
report    table printing and the JSON file
plot      the PNG
machine   CPU, library versions, git commit
cli       the command line of run.py
"""

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent  # benchmarks/

try:
    import simdfilter  # noqa: F401
except ImportError:  # run from a checkout without PYTHONPATH
    sys.path.insert(0, str(BENCHMARKS.parent / "python"))
