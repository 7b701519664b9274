"""The "dask" benchmark section: simdfilter.dask against Dask's own idioms.

On a LocalCluster of 2 worker processes (1 thread each), uint32 data uniform in
[0, 2**30), made on the workers and held in their memory before timing:

- ``simdfilter.dask.filter_indexes(x, lo, hi)`` vs ``da.flatnonzero((x >= lo) & (x <= hi))``
- ``simdfilter.dask.count_in_range(x, lo, hi)`` vs ``((x >= lo) & (x <= hi)).sum()``

at 1% and 50% of the values in range, plus plain ``simdfilter`` on the same data in
this one process for scale. A timing is one ``persist`` + ``wait`` (the results
stay on the workers, as a Dask pipeline keeps them), so every cluster row pays
the same fixed cost and no transfer to the client. "overhead/chunk" is the time of a graph of the same shape whose
tasks do nothing, per chunk: the scheduler's share of every row.

Full size: 256 Mi elements (1 GiB) in 64 MiB chunks (16 chunks); ``quick``:
8 Mi elements in 4 MiB chunks. Timings are printed, never asserted.

    python benchmarks/run.py --sections dask_cluster [--quick]
"""

from __future__ import annotations

import os
import sys
import time
from typing import Callable, Dict, List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.isdir(os.path.join(HERE, "..", "python", "simdfilter")):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))

Mi = 2**20
SELECTIVITIES = (0.01, 0.5)


def _make_block(block, block_info=None):
    """Uniform uint32 in [0, 2**30), a deterministic function of the global position."""
    start = block_info[0]["array-location"][0][0]
    rng = np.random.default_rng(start)
    return rng.integers(0, 2**30, block.shape[0], dtype=np.uint32)


def _nothing(block):
    return np.zeros(1, dtype=np.int64)


def _bounds(sel):
    width = int(sel * 2**30)
    lo = (2**30 - width) // 2
    return lo, lo + width - 1


def _best(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        cleanup = getattr(fn, "cleanup", None)
        if cleanup is not None:
            cleanup()  # untimed
    return min(times)


def dask_section(quick: bool) -> List[Dict]:
    """Run the benchmark, print its table, and return one dict per measurement.

    Parameters
    ----------
    quick : bool
        A much smaller size (8 Mi elements in 4 MiB chunks) for a smoke test.

    Returns
    -------
    list of dict
        Keys: method, func ('indexes' or 'count'), where ('cluster' or 'one process'),
        n, chunks, chunk_mib, sel, hits, seconds (best of the repeats), eps
        (elements per second), overhead_ms_per_chunk (cluster rows).
    """
    import dask
    import dask.array as da
    import distributed

    import simdfilter
    import simdfilter.dask as sfd

    n = 8 * Mi if quick else 256 * Mi
    chunk = Mi if quick else 16 * Mi  # elements: 4 MiB or 64 MiB of uint32
    repeats = 1 if quick else 3
    rows: List[Dict] = []
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
    )
    try:
        with distributed.Client(cluster) as client:
            x = da.zeros(n, chunks=chunk, dtype=np.uint32).map_blocks(_make_block, dtype=np.uint32)
            x = client.persist(x)
            distributed.wait(x)
            nchunks = x.numblocks[0]

            def persisted(lazy):
                keys = list(dask.core.flatten(lazy.__dask_keys__()))

                def run():
                    r = client.persist(lazy)
                    distributed.wait(r)

                def forget():
                    # The next run must compute again, not find these results still
                    # held: wait until the (in-process) scheduler has forgotten them.
                    while any(k in cluster.scheduler.tasks for k in keys):
                        time.sleep(0.001)

                run.cleanup = forget
                return run

            empty = x.map_blocks(_nothing, chunks=(1,), dtype=np.int64)
            overhead = _best(persisted(empty), repeats) / nchunks
            local = np.concatenate(
                [
                    _make_block(np.empty(chunk, np.uint32), [{"array-location": [(s, s + chunk)]}])
                    for s in range(0, n, chunk)
                ]
            )
            for sel in SELECTIVITIES:
                lo, hi = _bounds(sel)
                hits = simdfilter.count_in_range(local, lo, hi)
                mask = (x >= lo) & (x <= hi)
                methods = [
                    (
                        "simdfilter.dask.filter_indexes",
                        "indexes",
                        "cluster",
                        persisted(sfd.filter_indexes(x, lo, hi)),
                    ),
                    (
                        "da.flatnonzero((x >= lo) & (x <= hi))",
                        "indexes",
                        "cluster",
                        persisted(da.flatnonzero(mask)),
                    ),
                    (
                        "simdfilter.dask.count_in_range",
                        "count",
                        "cluster",
                        persisted(sfd.count_in_range(x, lo, hi)),
                    ),
                    ("((x >= lo) & (x <= hi)).sum()", "count", "cluster", persisted(mask.sum())),
                    (
                        "simdfilter.filter_indexes (one process)",
                        "indexes",
                        "one process",
                        lambda: simdfilter.filter_indexes(local, lo, hi),  # noqa: F821 (timed before the del below)
                    ),
                    (
                        "simdfilter.count_in_range (one process)",
                        "count",
                        "one process",
                        lambda: simdfilter.count_in_range(local, lo, hi),  # noqa: F821 (timed before the del below)
                    ),
                ]
                # The results agree before anything is timed.
                assert int(sfd.count_in_range(x, lo, hi).compute()) == hits
                assert int(mask.sum().compute()) == hits
                assert sfd.filter_indexes(x, lo, hi).compute().size == hits
                for name, func, where, fn in methods:
                    if not quick:
                        _best(fn, 1)  # warm up (page faults here, caches there)
                    best = _best(fn, repeats)
                    rows.append(
                        dict(
                            method=name,
                            func=func,
                            where=where,
                            n=n,
                            chunks=nchunks if where == "cluster" else 1,
                            chunk_mib=chunk * 4 / Mi,
                            sel=sel,
                            hits=hits,
                            seconds=best,
                            eps=n / best,
                            overhead_ms_per_chunk=overhead * 1e3 if where == "cluster" else None,
                        )
                    )
            del local
    finally:
        cluster.close()
    _print_table(rows, overhead, quick)
    return rows


def _print_table(rows: List[Dict], overhead: float, quick: bool) -> None:
    if not rows:
        return
    n, nchunks, mib = rows[0]["n"], rows[0]["chunks"], rows[0]["chunk_mib"]
    print(
        f"\n== dask: {n // Mi} Mi uint32 in {nchunks} chunks of {mib:g} MiB, 2 worker processes"
        f"{' (quick)' if quick else ''}"
    )
    print(f"   scheduler overhead: {overhead * 1e3:.2f} ms per chunk (a graph of empty tasks)")
    head = f"{'method':44} {'sel':>5} {'time':>10} {'elements/s':>11} {'vs Dask':>8}"
    print(head)
    print("-" * len(head))
    for sel in SELECTIVITIES:
        base = {
            r["func"]: r["seconds"]
            for r in rows
            if r["sel"] == sel
            and r["where"] == "cluster"
            and not r["method"].startswith("simdfilter")
        }
        for r in (r for r in rows if r["sel"] == sel):
            ratio = base[r["func"]] / r["seconds"]
            print(
                f"{r['method']:44} {sel:>5.0%} {r['seconds'] * 1e3:>8.1f}ms "
                f"{r['eps'] / 1e9:>9.2f} G {ratio:>7.1f}x"
            )


def run(ctx) -> List[Dict]:
    """The section's entry point for benchmarks/run.py (quick mode: 8 Mi elements)."""
    try:
        import dask.array  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        ctx.log(f"dask_cluster: skipped, {exc.name} is not installed (pip install '.[dask]')")
        return []
    return dask_section(ctx.cfg["dask_quick"])


def report(rows, result) -> None:
    """dask_section printed its table as it measured."""
