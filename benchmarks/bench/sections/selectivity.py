"""Selectivity: the filter against count_in_range on the same array, the x86 loop with its
sparse windows (the kernel as users get it) against the loop before them (its `_dense`
variant, a benchmark-only kernel name), uint32, one thread, into a reused `out=`.

Sizes stand for the cache levels (L2, L3, DRAM on the machine kinds this project runs on:
64 Ki, 1 Mi and 16 Mi uint32 are 256 KiB, 4 MiB and 64 MiB). The data is uniformly random,
and sorted (clustered: the in-range values form one run, every other block keeps nothing).
"""

import numpy as np
import simdfilter as sf

from ..data import bounds, in_range, make_data
from ..methods import Method
from ..report import fmt_n, fmt_sel, print_table
from ..timing import checker, measure


def variant_kernels():
    """[(kernel, its dense variant)] for the kernels this CPU runs that have one."""
    out = []
    for k in sf.available_kernels():
        try:
            with sf.use_kernel(k + "_dense"):
                pass
        except ValueError:
            continue
        out.append((k, k + "_dense"))
    return out


def cell_methods(a, lo, hi, out, pairs):
    ms = []
    for k, dense in pairs:
        ms.append(
            Method(
                f"count_in_range [{k}]",
                "simdfilter",
                "count",
                lambda: sf.count_in_range(a, lo, hi, threads=1),
                k,
            )
        )
        for name, loop in ((k, "new"), (dense, "old")):
            ms.append(
                Method(
                    f"filter_indexes(out=) [{name}]",
                    "simdfilter",
                    "indexes",
                    lambda: sf.filter_indexes(a, lo, hi, out=out, threads=1),
                    name,
                )
            )
            ms[-1].loop, ms[-1].base = loop, k
        ms[-3].loop, ms[-3].base = "count", k
    return ms


def run(ctx):
    pairs = variant_kernels()
    if not pairs:
        ctx.log(
            "  selectivity: no kernel with a dense variant runs here (x86 sse41/avx2 only); skipped"
        )
        return []
    rows = []
    for n in ctx.cfg["selectivity_sizes"]:
        for kind in ("random", "sorted"):
            a = make_data(kind, n, ctx.rng)
            out = np.empty(n, np.uint32)
            for sel in ctx.cfg["selectivity_sels"]:
                lo, hi = bounds(sel)
                methods = cell_methods(a, lo, hi, out, pairs)
                res = measure(
                    methods, ctx.cfg["target"], ctx.cfg["repeats"], checker(a, in_range(a, lo, hi))
                )
                for m, (best, med) in res.items():
                    rows.append(
                        dict(
                            kind=kind,
                            n=n,
                            sel=sel,
                            method=m.name,
                            kernel=m.base,
                            loop=m.loop,
                            best_s=best,
                            median_s=med,
                            eps=n / best,
                        )
                    )
            ctx.log(f"  selectivity {kind:6s} n={n:>11,}: done")
    return rows


def report(rows, result):
    index = {(r["kind"], r["n"], r["sel"], r["kernel"], r["loop"]): r for r in rows}
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    for kind in ("random", "sorted"):
        body = []
        for n in sorted({r["n"] for r in rows}):
            for sel in sorted({r["sel"] for r in rows}):
                cells = [f"{fmt_n(n)}", fmt_sel(sel)]
                for k in kernels:
                    c, new, old = (
                        index.get((kind, n, sel, k, loop)) for loop in ("count", "new", "old")
                    )
                    if not (c and new and old):
                        cells += ["", "", "", ""]
                        continue
                    cells += [
                        f"{c['eps'] / 1e9:.2f}",
                        f"{new['eps'] / 1e9:.2f} {new['eps'] / c['eps']:4.0%}",
                        f"{old['eps'] / 1e9:.2f} {old['eps'] / c['eps']:4.0%}",
                        f"{old['best_s'] / new['best_s']:.2f}x",
                    ]
                body.append(cells)
        header = ["n", "sel"] + [
            h
            for k in kernels
            for h in (f"{k} count", f"{k} filter", f"{k}_dense filter", "new/old")
        ]
        print_table(
            f"SELECTIVITY - uint32, {kind} data, one thread, out=: G elements/s and fraction of count",
            header,
            body,
            note="(filter: the kernel's loop with its sparse windows; _dense: the loop without them; "
            "new/old: the _dense time / the filter time, same run, interleaved)",
        )
