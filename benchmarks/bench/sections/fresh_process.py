"""Fresh process: what a script or a notebook cell pays for its first calls.

Each cell (THP mode, op, n, selectivity) runs in a new Python process (the child of
benchmarks/fresh_process.py): its first `fresh_calls` calls with fresh results, then as
many into a reused `out=`, then NumPy's `np.flatnonzero((a>=lo)&(a<=hi))` or
`a[(a>=lo)&(a<=hi)]`; uint32 uniform data, threads=1, CPU time per call (page faults
included) and minor faults per call. `--thp never,madvise,always` (root) runs the cells
under each mode of /sys/kernel/mm/transparent_hugepage/enabled and puts the original back;
by default the machine's own mode is the THP column.
"""

import sys

from ..report import fmt_n, fmt_sel, print_table


def _child():
    import fresh_process  # benchmarks/fresh_process.py: run.py puts benchmarks/ on sys.path

    return fresh_process


def run(ctx):
    fp = _child()
    cfg = ctx.cfg
    rows = fp.fresh_process_rows(
        sys.executable,
        cfg["fresh_sizes"],
        [100 * s for s in cfg["fresh_sels"]],
        ["indexes", "values"],
        cfg["fresh_thp"],
        cfg["fresh_calls"],
        "1",
        echo=lambda line: None,
    )
    for r in rows:
        r["sel"] = r["sel"] / 100
    ctx.log(f"  fresh_process: {len(rows)} cells, each in a new process")
    return rows


def report(rows, result):
    body = []
    for r in rows:
        body.append(
            [
                r["thp"],
                r["op"],
                fmt_n(r["n"]),
                fmt_sel(r["sel"]),
                f"{r['fresh_us']:.0f}",
                f"{r['out_us']:.0f}",
                f"{r['numpy_us']:.0f}",
                f"{r['fresh_us'] / r['out_us']:.2f}",
                f"{r['numpy_us'] / r['fresh_us']:.2f}",
                f"{r['fresh_flt']:.0f} / {r['numpy_flt']:.0f}",
            ]
        )
    print_table(
        "FRESH PROCESS - the first calls of a new process, uint32, one thread: us per call",
        [
            "THP",
            "op",
            "n",
            "sel",
            "fresh",
            "out=",
            "NumPy",
            "fresh/out=",
            "NumPy/fresh",
            "faults/call",
        ],
        body,
        note="(each cell a new process; fresh: filter_indexes/filter_values returning a new array, "
        "mean of the first calls; NumPy: flatnonzero or a[mask]; faults/call: minor page faults "
        "per call, fresh / NumPy, the figure the load of the machine does not move)",
    )
