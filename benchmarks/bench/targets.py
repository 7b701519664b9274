"""The project's targets, evaluated on the records of one run."""

from .config import Ki, Mi
from .methods import best_kernel
from .report import print_table


def check_targets(grid, overhead, memory):
    k = best_kernel()
    idx1 = f"filter_indexes [{k}]"

    def rec(method, n, sel=0.5, kind="random"):
        return next(
            (
                r
                for r in grid
                if r["method"] == method and r["n"] == n and r["sel"] == sel and r["kind"] == kind
            ),
            None,
        )

    out = []

    def target(what, value, ok, unit):
        out.append(
            dict(
                target=what, value=value, met=None if value is None else bool(ok(value)), unit=unit
            )
        )

    for n, want in ((64 * Ki, 10), (Mi, 10), (16 * Mi, 8)):
        r = rec(idx1, n)
        target(
            f"filter_indexes [{k}] >= {want}x numpy at n={n:,}, 50%",
            r and r["vs_numpy"],
            lambda v, w=want: v >= w,
            "x",
        )
    for kern, want in (("avx512", 20e9), ("avx2", 10e9)):
        r = rec(f"filter_indexes [{kern}]", 64 * Ki)
        target(
            f"{kern} >= {want / 1e9:.0f} G elements/s at n=65,536, 50%",
            r and r["eps"],
            lambda v, w=want: v >= w,
            "elements/s",
        )
    large = max(r["n"] for r in grid)
    fi, cr = rec(idx1, large, 0.01), rec(f"count_in_range [{k}]", large, 0.01)
    target(
        f"filter_indexes within 10% of count_in_range (compare+count) at n={large:,}, 1%",
        fi and cr and fi["best_s"] / cr["best_s"],
        lambda v: v <= 1.10,
        "time ratio",
    )
    fo = rec(f"filter_indexes(out=) [{k}]", large, 0.01)
    target(
        "  (for information: the same with out=, no allocation)",
        fo and cr and fo["best_s"] / cr["best_s"],
        lambda v: v <= 1.10,
        "time ratio",
    )
    rd = rec("limit: read pass (a.max())", large, 0.01)
    target(
        f"  (for information: vs the a.max() read pass at n={large:,}, 1%)",
        fi and rd and fi["best_s"] / rd["best_s"],
        lambda v: v <= 1.10,
        "time ratio",
    )
    o = next((r for r in overhead if r["n"] == 16 and r["method"] == idx1), None)
    target(
        "call overhead of filter_indexes at n=16 < 0.5 us", o and o["us"], lambda v: v < 0.5, "us"
    )
    for r in memory:
        if r["method"] == idx1:
            for key, pages in (
                ("rss_extra", "NumPy's huge pages"),
                ("rss_extra_no_thp", "4 KiB pages"),
            ):
                target(
                    f"peak extra memory of filter_indexes < 1 MiB beyond the result (n={r['n']:,}, "
                    f"{r['sel']:.0%}, RSS, {pages})",
                    r[key],
                    lambda v: v < Mi,
                    "bytes",
                )
    return out


def _measured(t):
    if t["value"] is None:
        return "n/a"
    if t["unit"] == "elements/s":
        return f"{t['value'] / 1e9:.2f} G/s"
    if t["unit"] == "bytes":
        return f"{t['value'] / Mi:.3f} MiB"
    return f"{t['value']:.3f} {t['unit']}"


def report(targets):
    print_table(
        "TARGETS",
        ["target", "measured", "met"],
        [
            [t["target"], _measured(t), {True: "yes", False: "NO", None: "n/a"}[t["met"]]]
            for t in targets
        ],
    )
