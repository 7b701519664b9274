"""Store form: the two AVX-512 kernels, one file built with two ways of writing what a
vector keeps (kernels/avx512.c), side by side with avx2, uint32, one thread, into a
reused `out=`, uniform random data; plus count_in_range (the read-only limit).

- avx512: the memory form, `vpcompressd m512{k}` (the default on Intel), which also
  prefetches 2 KiB ahead for 32- and 64-bit elements (measured on Intel only);
- avx512_zen4: compress into a register and store all 64 bytes (the default on AMD Zen 4/5,
  where the memory form is microcoded), without the prefetch.

So the memory/register column compares the two kernels as dispatch builds them; from DRAM
(16 Mi) the prefetch, not the store form, is most of the difference.

Dispatch's choice between them is printed with the table (`cpu_features()` shows
`slow-compress-store` on a CPU where it picks avx512_zen4).
"""

import numpy as np
import simdfilter as sf

from ..data import bounds, in_range, make_data
from ..methods import Method
from ..report import fmt_n, fmt_sel, print_table
from ..timing import checker, measure

FORMS = ("avx512", "avx512_zen4")


def run(ctx):
    avail = sf.available_kernels()
    forms = [k for k in FORMS if k in avail]
    if not forms:
        ctx.log("  store_form: no AVX-512 kernel runs here; skipped")
        return []
    others = [k for k in ("avx2",) if k in avail]
    rows = []
    for n in ctx.cfg["store_form_sizes"]:
        a = make_data("random", n, ctx.rng)
        out = np.empty(n, np.uint32)
        for sel in ctx.cfg["store_form_sels"]:
            lo, hi = bounds(sel)
            ms = [
                Method(
                    f"count_in_range [{forms[0]}]",
                    "simdfilter",
                    "count",
                    lambda: sf.count_in_range(a, lo, hi, threads=1),
                    forms[0],
                )
            ]
            ms[0].role = "count"
            for k in forms + others:
                ms.append(
                    Method(
                        f"filter_indexes(out=) [{k}]",
                        "simdfilter",
                        "indexes",
                        lambda: sf.filter_indexes(a, lo, hi, out=out, threads=1),
                        k,
                    )
                )
                ms[-1].role = k
            res = measure(
                ms, ctx.cfg["target"], ctx.cfg["repeats"], checker(a, in_range(a, lo, hi))
            )
            for m, (best, med) in res.items():
                rows.append(
                    dict(
                        n=n,
                        sel=sel,
                        method=m.name,
                        role=m.role,
                        best_s=best,
                        median_s=med,
                        eps=n / best,
                    )
                )
        ctx.log(f"  store_form n={n:>11,}: done")
    return rows


def report(rows, result):
    index = {(r["n"], r["sel"], r["role"]): r for r in rows}
    roles = [x for x in list(FORMS) + ["avx2"] if any(r["role"] == x for r in rows)]
    body = []
    for n in sorted({r["n"] for r in rows}):
        for sel in sorted({r["sel"] for r in rows}):
            c = index.get((n, sel, "count"))
            cells = [fmt_n(n), fmt_sel(sel), f"{c['eps'] / 1e9:.2f}" if c else ""]
            for k in roles:
                r = index.get((n, sel, k))
                cells.append(f"{r['eps'] / 1e9:.2f}" if r else "")
            mem, reg = index.get((n, sel, "avx512")), index.get((n, sel, "avx512_zen4"))
            cells.append(f"{reg['best_s'] / mem['best_s']:.2f}x" if mem and reg else "")
            avx2 = index.get((n, sel, "avx2"))
            best = index.get((n, sel, sf.active_kernel())) if sf.active_kernel() in FORMS else None
            cells.append(f"{avx2['best_s'] / best['best_s']:.2f}x" if avx2 and best else "")
            body.append(cells)
    header = (
        ["n", "sel", "count G/s"]
        + [f"{k} G/s" for k in roles]
        + ["memory/register", f"{sf.active_kernel()}/avx2"]
    )
    feats = " ".join(sf.cpu_features())
    print_table(
        "STORE FORM - uint32 filter_indexes(out=), random data, one thread: G elements/s",
        header,
        body,
        note=f"(avx512: vpcompressd to memory, and a prefetch 2 KiB ahead; avx512_zen4: compress in a "
        f"register, full store, no prefetch; "
        f"memory/register: the avx512_zen4 time / the avx512 time, same run, interleaved; "
        f"the default here is {sf.active_kernel()}; cpu_features: {feats})",
    )
