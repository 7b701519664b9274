"""Threads: threads=None against threads=1, the best kernel, random uint32.

At each size of `threads_sizes` (1, 2, 4, 16 and 64 Mi, best of 7 batches; --quick: 4 Mi, best
of 2) and 1, 10, 50 and 90 % in range: filter_indexes with a fresh result and with out=, and
count_in_range, each timed with threads=1 and threads=None, interleaved. Twice: with the machine
as it is ("quiet"), and with a busy loop in another process pinned to one of our CPUs ("busy
core": a browser next to a notebook, or a second notebook), where a static split of the input
would leave the part on the shared core finishing last. The ratio printed is one-thread time /
automatic time: above 1, automatic threads win. Where threads=None gives the call one thread
(any call below 16 MiB of input, a fresh result below 32 MiB; any call while the other CPU is
busy), the two calls run the same code and the ratio, marked "=", shows only the noise of the
measurement. On a machine loaded by anything else the ratios are not measurements.
"""

import multiprocessing
import os

import numpy as np
import simdfilter as sf

from ..data import bounds, in_range, make_data
from ..methods import Method, best_kernel
from ..report import fmt_n, fmt_sel, print_table
from ..timing import checker, measure

SELS = (0.01, 0.1, 0.5, 0.9)
KINDS = ("fresh", "out=", "count")


def _spin(cpu):
    """A busy loop, pinned to one CPU, until killed."""
    os.sched_setaffinity(0, {cpu})
    while True:
        pass


class busy_core:
    """With: a separate process spins on the last CPU this process may run on."""

    def __enter__(self):
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.proc = None
        if len(cpus) >= 2:
            self.proc = multiprocessing.get_context("spawn").Process(
                target=_spin, args=(cpus[-1],), daemon=True
            )
            self.proc.start()
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.join()


def _methods(a, out, lo, hi, k):
    ms = []
    for t in (1, None):
        tag = f"{k}, threads={t or 'auto'}"
        ms += [
            Method(
                f"filter_indexes [{tag}]",
                "simdfilter",
                "indexes",
                lambda t=t: sf.filter_indexes(a, lo, hi, threads=t),
                k,
                t,
            ),
            Method(
                f"filter_indexes(out=) [{tag}]",
                "simdfilter",
                "indexes",
                lambda t=t: sf.filter_indexes(a, lo, hi, out=out, threads=t),
                k,
                t,
            ),
            Method(
                f"count_in_range [{tag}]",
                "simdfilter",
                "count",
                lambda t=t: sf.count_in_range(a, lo, hi, threads=t),
                k,
                t,
            ),
        ]
    return ms


def run(ctx):
    k = best_kernel()
    rows = []
    for n in ctx.cfg["threads_sizes"]:
        a = make_data("random", n, ctx.rng)
        out = np.empty(n, dtype=np.uint32)
        out.fill(0)  # touched once: out= is the reuse case
        for condition in ("quiet", "busy core"):
            with busy_core() if condition == "busy core" else _nothing():
                for sel in SELS:
                    lo, hi = bounds(sel)
                    methods = _methods(a, out, lo, hi, k)
                    before = {kind: sf_auto_threads(a, kind) for kind in KINDS}
                    res = measure(
                        methods,
                        ctx.cfg["target"],
                        ctx.cfg["threads_repeats"],
                        checker(a, in_range(a, lo, hi)),
                    )
                    for i, kind in enumerate(KINDS):
                        one, auto = res[methods[i]][0], res[methods[3 + i]][0]
                        rows.append(
                            dict(
                                n=n,
                                sel=sel,
                                condition=condition,
                                kind=kind,
                                one_s=one,
                                auto_s=auto,
                                auto_vs_one=one / auto,
                                auto_threads=max(before[kind], sf_auto_threads(a, kind)),
                            )
                        )
            ctx.log(f"  threads: n = {fmt_n(n)}, {condition} done")
    return rows


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def sf_auto_threads(a, kind="out="):
    """The threads threads=None gives `a` here and now, as the library decides it
    (csrc/lib/threads.c; under the busy-core spinner, its CPU is not idle). A cell takes the
    larger of the answers before and after its timing: '=' only where both said one."""
    return sf._core._auto_threads(a.nbytes, kind == "fresh")


def report(rows, result):
    cells = {(r["n"], r["sel"], r["condition"], r["kind"]): r for r in rows}
    sizes = sorted({r["n"] for r in rows})
    conds = [c for c in ("quiet", "busy core") if any(r["condition"] == c for r in rows)]
    header = ["n", "sel", "auto threads (fresh, out=)"] + [
        f"{kind}, {c}" for c in conds for kind in KINDS
    ]
    table = []

    def cell(r):
        return f"{r['auto_vs_one']:.2f}" + (" =" if r["auto_threads"] == 1 else "")

    for n in sizes:
        for sel in SELS:
            if (n, sel, conds[0], KINDS[0]) not in cells:
                continue
            quiet = [cells[(n, sel, conds[0], kind)]["auto_threads"] for kind in KINDS[:2]]
            table.append(
                [fmt_n(n), fmt_sel(sel), ", ".join(map(str, quiet))]
                + [cell(cells[(n, sel, c, kind)]) for c in conds for kind in KINDS]
            )
    load = result.get("load_before")
    print_table(
        "THREADS - threads=None vs threads=1 (one-thread time / automatic time), random uint32, "
        "best kernel",
        header,
        table,
        note="fresh: filter_indexes returning a new array; out=: into a preallocated array; "
        "busy core: another process spins on one of our CPUs. '=': threads=None runs this call on "
        "one thread, the same code as threads=1, so the ratio is the measurement's noise. "
        "Load average before the run: "
        f"{load}; a loaded machine gives no measurements.",
    )
