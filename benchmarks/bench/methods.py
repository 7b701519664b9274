"""The things timed: simdfilter's calls, what users would write instead, and the machine's limits.

A `Method` is one call to time (`fn()`), named as it appears in the tables and the JSON;
`group` is "simdfilter", "numpy", "alternative" or "limit"; `func` says what the result is
("indexes", "values", "count"; anything else is not checked).
"""

from contextlib import nullcontext

import numpy as np
import simdfilter as sf

BASELINE = "numpy flatnonzero((a>=lo)&(a<=hi))"  # every `vs_numpy` ratio is against this


class Method:
    """One thing to time: `fn()` does one call; `kernel` is pinned while it runs."""

    def __init__(self, name, group, func, fn, kernel=None, threads=1):
        self.name, self.group, self.func, self.fn = name, group, func, fn
        self.kernel, self.threads = kernel, threads

    def pinned(self):
        return sf.use_kernel(self.kernel) if self.kernel else nullcontext()


def best_kernel():
    """The kernel a user's call runs here: dispatch's pick for this CPU (default_kernel).

    Not the last available one: on AMD Zen 4 that is `avx512`, whose compress-store to
    memory is microcoded there (0.75 G elements/s at 64 Ki 50 %, against 10.1 for the
    default `avx512_zen4`, AMD EPYC family 25 model 17), and the targets, threads,
    overhead, dtypes, columns and memory sections measured it, not what users get."""
    return sf.default_kernel()


def simdfilter_methods(a, lo, hi, kernels, threads, funcs=("indexes", "count", "values")):
    """Every (threads, func, kernel) combination, in that nesting order."""
    calls = {"indexes": sf.filter_indexes, "count": sf.count_in_range, "values": sf.filter_values}
    names = {"indexes": "filter_indexes", "count": "count_in_range", "values": "filter_values"}
    out = []
    for t in threads:
        for func in funcs:
            for k in kernels:
                tag = k if t == 1 else f"{k}, threads={t or 'auto'}"
                call = calls[func]
                out.append(
                    Method(
                        f"{names[func]} [{tag}]",
                        "simdfilter",
                        func,
                        lambda call=call, t=t: call(a, lo, hi, threads=t),
                        k,
                        t,
                    )
                )
    return out


def baseline(a, lo, hi):
    """The NumPy baseline; `lo` and `hi` as the caller passes them (scalars of a's dtype)."""
    return Method(BASELINE, "numpy", "indexes", lambda: np.flatnonzero((a >= lo) & (a <= hi)))


def numpy_methods(a, lo, hi):
    """NumPy's ways to do what simdfilter does, on uint32 data: the baseline first."""
    lo32, hi32, w32 = np.uint32(lo), np.uint32(hi), np.uint32(hi - lo)
    return [
        baseline(a, lo32, hi32),
        Method(
            "numpy nonzero((a-lo)<=(hi-lo))",
            "numpy",
            "indexes",
            lambda: np.nonzero((a - lo32) <= w32)[0],
        ),
        Method("numpy a[(a>=lo)&(a<=hi)]", "numpy", "values", lambda: a[(a >= lo32) & (a <= hi32)]),
        Method(
            "numpy count_nonzero((a>=lo)&(a<=hi))",
            "numpy",
            "count",
            lambda: np.count_nonzero((a >= lo32) & (a <= hi32)),
        ),
    ]


def limit_methods(a, dst):
    """What no filter can beat: one read pass, and copies (into `dst`, and into a new array)."""
    return [
        Method("limit: read pass (a.max())", "limit", "read", lambda: a.max()),
        Method("limit: copy (np.copyto)", "limit", "copy", lambda: np.copyto(dst, a)),
        Method("limit: copy to a new array (a.copy())", "limit", "newcopy", lambda: a.copy()),
    ]


def load_alternatives():
    """The libraries users would reach for instead; each missing one is skipped, loudly."""
    alts = {}
    for mod in ("numexpr", "pandas", "polars", "pyarrow", "numba"):
        try:
            alts[mod] = __import__(mod)
        except Exception as exc:  # ImportError, or a broken install
            print(f"skipped {mod}: cannot import it ({type(exc).__name__}: {exc})")
    if "numexpr" in alts:
        alts["numexpr"].set_num_threads(1)  # single-thread comparison, like everything else
    if "pyarrow" in alts:
        import pyarrow.compute

        alts["pyarrow.compute"] = pyarrow.compute
    if "numba" in alts:
        alts["numba_filter"] = _numba_filter(alts["numba"])
    return alts


def _numba_filter(nb):
    @nb.njit(nogil=True)
    def numba_filter(a, lo, hi):  # the loop a Numba user writes
        out = np.empty(a.size, np.int64)
        k = 0
        for i in range(a.size):
            if a[i] >= lo and a[i] <= hi:
                out[k] = i
                k += 1
        return out[:k].copy()

    return numba_filter


class Views:
    """Per-array objects built once, outside the timing: zero-copy wrappers and a copy target."""

    def __init__(self, a, alts):
        self.a, self.dst, self.out = a, np.empty_like(a), np.empty(a.size, np.uint32)
        self.pandas = alts["pandas"].Series(a, copy=False) if "pandas" in alts else None
        self.polars = alts["polars"].Series("a", a) if "polars" in alts else None
        self.arrow = alts["pyarrow"].array(a) if "pyarrow" in alts else None
        for name, view in (("pandas", self.pandas), ("polars", self.polars)):
            if view is not None and not np.shares_memory(view.to_numpy(), a):
                print(f"note: the {name} Series is a copy, not a view")


def library_methods(v, lo, hi, alts):
    """numexpr, pandas, Polars, pyarrow and Numba, each where it imported."""
    a, lo32, hi32 = v.a, np.uint32(lo), np.uint32(hi)
    m = []
    if "numexpr" in alts:
        ne = alts["numexpr"]
        m.append(
            Method(
                "numexpr + flatnonzero",
                "alternative",
                "indexes",
                lambda: np.flatnonzero(
                    ne.evaluate(
                        "(a >= lo32) & (a <= hi32)", local_dict=dict(a=a, lo32=lo32, hi32=hi32)
                    )
                ),
            )
        )
    if v.pandas is not None:
        ps = v.pandas
        m.append(
            Method(
                "pandas between + flatnonzero",
                "alternative",
                "indexes",
                lambda: np.flatnonzero(ps.between(lo, hi).to_numpy()),
            )
        )
    if v.polars is not None:
        pl, pls = alts["polars"], v.polars
        m.append(
            Method(
                "polars arg_where(is_between)",
                "alternative",
                "indexes",
                lambda: pl.arg_where(pls.is_between(lo, hi), eager=True).to_numpy(),
            )
        )
    if v.arrow is not None:
        pa, pc, arr = alts["pyarrow"], alts["pyarrow.compute"], v.arrow
        plo, phi = pa.scalar(lo, pa.uint32()), pa.scalar(hi, pa.uint32())
        m.append(
            Method(
                "pyarrow and/ge/le + indices_nonzero",
                "alternative",
                "indexes",
                lambda: pc.indices_nonzero(
                    pc.and_(pc.greater_equal(arr, plo), pc.less_equal(arr, phi))
                ).to_numpy(),
            )
        )
    if "numba_filter" in alts:
        f = alts["numba_filter"]
        m.append(Method("numba @njit loop", "alternative", "indexes", lambda: f(a, lo32, hi32)))
    return m


def alternative_methods(v, lo, hi, alts):
    """Everything that is not simdfilter, in table order: NumPy, the libraries, the limits."""
    return numpy_methods(v.a, lo, hi) + library_methods(v, lo, hi, alts) + limit_methods(v.a, v.dst)
