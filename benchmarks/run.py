#!/usr/bin/env python3
"""The simdfilter benchmark: every kernel, what users would write instead, and the machine's limits.

    PYTHONPATH=python python3 benchmarks/run.py --quick     # < 1 minute, the CI smoke test
    PYTHONPATH=python python3 benchmarks/run.py             # a few minutes, the committed result
    PYTHONPATH=python python3 benchmarks/run.py --full      # adds 10^5..10^8 elements; long

Everything is measured in one run, on the same arrays, with the methods of one
(data, size, selectivity) cell interleaved so that the noise of a shared machine hits
them all alike. Each number is the best of `repeats` batches of >= `target` seconds.
Every method's result is checked against np.flatnonzero before it is timed.

Writes results/<machine>.json (and .png) - see README.md for how to read them. The code is
in the package benchmarks/bench/ (one module per section in bench/sections/).
"""

import sys
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parent)
)  # benchmarks/, for `bench`, however run.py is run

from bench.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
