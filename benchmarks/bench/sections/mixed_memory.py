"""Mixed memory: the resident memory of a long run of fresh results of every size, and
what stays once they have died (benchmarks/mixed_rss.py, each way in a new process):
NumPy's ``np.flatnonzero((a>=lo)&(a<=hi))`` against ``filter_indexes`` and
``filter_values``, 16 Ki to 17 Mi elements, four results alive at a time, no
``malloc_trim``. Issue 42 asks for simdfilter's peak within 1.25x NumPy's and, once the
results die, RSS within 10 MB of the start plus the result pool's limit."""

from ..report import print_table


def run(ctx):
    import mixed_rss  # benchmarks/mixed_rss.py: run.py puts benchmarks/ on sys.path

    ctx.log(f"mixed_memory: {ctx.cfg['mixed_calls']} calls per way, each way in a new process")
    return mixed_rss.measure(ctx.cfg["mixed_calls"])


def report(rows, result):
    numpy_peak = next(r["peak_mb"] for r in rows if r["way"] == "numpy")
    mb = lambda v: "" if v is None else f"{v:.0f}"
    print_table(
        f"MIXED MEMORY - {rows[0]['calls']} fresh results of 16 Ki-17 Mi elements, four alive, "
        "MB of RSS above the start",
        ["way", "peak", "peak / NumPy's", "median", "after they died", "pool limit"],
        [
            [
                r["way"],
                mb(r["peak_mb"]),
                f"{r['peak_mb'] / numpy_peak:.2f}",
                mb(r["median_mb"]),
                mb(r["after_mb"]),
                mb(r["pool_limit_mb"]),
            ]
            for r in rows
        ],
        note="(after they died: every result dropped, gc run, no malloc_trim; the pool keeps up to\n"
        " its limit of their memory for the next calls)",
    )
