"""The PNG: three panels of elements/s for random uint32, one line per method."""

from .config import Mi
from .methods import BASELINE
from .report import fmt_n, fmt_sel

KERNEL_COLORS = {
    "scalar": "#8c6d31",
    "sse41": "#e6550d",
    "avx2": "#31a354",
    "avx512": "#d62728",
    "neon": "#31a354",
    "sve": "#d62728",
}
OTHER_COLORS = [
    "#1f77b4",
    "#17becf",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
]


def _styles(names):
    """Kernels thick and solid (out= dotted, threaded purple), alternatives thin and dashed,
    the limits black."""
    others = iter(OTHER_COLORS)
    style = {}
    for m in names:
        kernel = m[m.find("[") + 1 :].split(",")[0].rstrip("]")
        if m.startswith("limit"):
            style[m] = dict(
                color="black" if "new" not in m else "#999999",
                ls=":" if "read" in m else "-.",
                lw=1.5,
            )
        elif "threads=" in m:
            style[m] = dict(color="#7b4173", ls="-", lw=2.4, marker="^")
        elif m.startswith("filter_indexes(out=)"):
            style[m] = dict(
                color=KERNEL_COLORS.get(kernel, "#d62728"),
                ls=(0, (1, 1)),
                lw=1.6,
                marker="o",
                mfc="white",
                ms=5,
            )
        elif m.startswith("filter_indexes"):
            style[m] = dict(color=KERNEL_COLORS.get(kernel, "#d62728"), ls="-", lw=2.4, marker="o")
        else:
            style[m] = dict(
                color=next(others, "#7f7f7f"),
                ls="--",
                lw=2.0 if m == BASELINE else 1.2,
                marker="s",
                ms=4,
            )
    return style


def _panels(sizes):
    """(title, x axis, the fixed n or selectivity) per panel."""
    panels = [(f"vs selectivity, n = {fmt_n(n)}", "sel", n) for n in (Mi, 16 * Mi) if n in sizes]
    return (panels or [(f"vs selectivity, n = {fmt_n(sizes[-1])}", "sel", sizes[-1])]) + [
        ("vs size, 50% in range", "n", 0.5)
    ]


def _draw(ax, panel, names, style, grid, sizes, sels):
    title, axis, fixed = panel
    index = {(r["method"], r["n"], r["sel"]): r["eps"] for r in grid}
    xs = sels if axis == "sel" else sizes
    for m in names:
        pts = [
            (
                i if axis == "sel" else x,
                index.get((m, fixed, x) if axis == "sel" else (m, x, fixed)),
            )
            for i, x in enumerate(xs)
        ]
        pts = [(x, y) for x, y in pts if y]
        if pts:
            ax.plot(*zip(*pts), label=m, **style[m])
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    if axis == "sel":
        ax.set_xticks(range(len(sels)), [fmt_sel(s) for s in sels])
        ax.set_xlabel("fraction of values in [lo, hi]")
    else:
        ax.set_xscale("log")
        ax.set_xlabel("n (uint32 elements)")


def plot(result, path):
    """Draw `result` (a run's result, or a results/*.json loaded) into `path`; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:
        print(f"skipped the plot: cannot import matplotlib ({type(exc).__name__}: {exc})")
        return None
    m = result["machine"]
    grid = [
        r
        for r in result["grid"]
        if r["kind"] == "random" and r["func"] in ("indexes", "read", "copy", "newcopy")
    ]
    names = list(dict.fromkeys(r["method"] for r in grid))
    # the threaded line of the best kernel of the machine that made the result
    names = [
        n
        for n in names
        if "threads=" not in n or n == f"filter_indexes [{m['kernels'][-1]}, threads=auto]"
    ]
    sizes = sorted({r["n"] for r in grid})
    sels = sorted({r["sel"] for r in grid})
    panels = _panels(sizes)
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 5.8), sharey=True)
    style = _styles(names)
    for ax, panel in zip(axes, panels):
        _draw(ax, panel, names, style, grid, sizes, sels)
    axes[0].set_ylabel("elements / second (one thread unless marked)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False)
    fig.suptitle(
        f"simdfilter {m['simdfilter']} on {m['cpu']} ({m['cpus']} CPUs), uint32, random data - "
        f"{result['date'][:10]}"
    )
    fig.tight_layout(rect=(0, 0.02 + 0.035 * ((len(names) + 3) // 4), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
