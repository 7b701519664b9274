"""The ``sf`` verbs of one column, written once for every host.

A host's face (:mod:`simdfilter.pandas`, :mod:`simdfilter.polars`; the Dask
face runs the pandas one on each partition) declares its public methods (their
names, parameters and docstrings are the host's own words) and passes each call
here with its :class:`Host`, the adapter that says how that host

- names the closed ends (``names``), and takes any other value (``probe``, the
  host's own error for it),
- keeps bounds for itself where it compares them otherwise than the kernels
  would (``bounds`` raises :class:`AskHost` for those),
- builds its result from the kernels' (``kernel_between``, ``kernel_isin``,
  ``positions``, ``take``),
- answers itself (``mask``, ``isin``) and builds its result from that answer
  (``mask_positions``, ``take_mask``, ``count_mask``).

The rule each verb follows is the drop-ins' one, the same on every host: the
kernels answer where they read the column and the bounds as the host compares
them; anywhere else (TypeError or ValueError from the kernels, AskHost from the
adapter) the host answers, or raises its own exception. So a verb's answer is
the host's, whichever path gave it. A new host is one adapter file: a Host
subclass and the public classes whose methods call these verbs.
"""

from __future__ import annotations

import types
from typing import Any, Iterable, Mapping, Tuple

import numpy as np

from simdfilter import _core, _face

__all__ = ["AskHost", "Host", "between", "count", "filter", "indexes", "isin", "own_verbs"]


class AskHost(TypeError):
    """The kernels could read these bounds (or items), but the host compares
    them its own way, or refuses them: the host answers."""


class Host:
    """How one host's column verbs read, compare and build (the adapter).

    Subclasses set `names` (the host's closed-ends names, onto the kernels'),
    `wide` (the positions' dtype from 2**32 rows on) and implement the methods
    that raise NotImplementedError here.
    """

    names: Mapping[str, str] = _face.PANDAS_NAMES
    wide: Any = np.int64

    def probe(self, closed: Any) -> Any:
        """The host's comparison of ``[0, 1, 2]`` with ``(0, 2)``, `closed` ends
        (see ``_face.checked_inclusive``)."""
        raise NotImplementedError

    def bounds(self, s: Any, lo: Any, hi: Any) -> Tuple[Any, Any]:
        """The bounds as the kernels are to read them for the host's answer;
        AskHost where the host compares them its own way."""
        return lo, hi

    def is_sorted(self, s: Any) -> bool:
        """Whether the host knows `s` sorted ascending (the kernels then
        binary-search it)."""
        return False

    def mask(self, s: Any, lo: Any, hi: Any, inclusive: str) -> Any:
        """The host's own boolean answer (its dtype, its nulls, its errors)."""
        raise NotImplementedError

    def kernel_between(self, s: Any, lo: Any, hi: Any, inclusive: str, invert: bool) -> Any:
        """``between``'s result as the host gives it, from the kernels."""
        raise NotImplementedError

    def positions(self, s: Any, idx: np.ndarray) -> Any:
        """``indexes``' result of the kernels' positions."""
        return idx

    def mask_positions(self, s: Any, m: Any) -> Any:
        """``indexes``' result of the host's mask (nulls not kept)."""
        raise NotImplementedError

    def take(self, s: Any, idx: np.ndarray) -> Any:
        """The elements of `s` at ascending positions, as the host keeps them."""
        raise NotImplementedError

    def take_mask(self, s: Any, m: Any) -> Any:
        """The elements of `s` where the host's mask is True."""
        raise NotImplementedError

    def count_mask(self, m: Any) -> int:
        """How many of the host's mask are True."""
        raise NotImplementedError

    def kernel_isin(self, s: Any, values: Any, invert: bool, **options: Any) -> Any:
        """``isin``'s result from the kernels; AskHost where the host compares
        these items its own way."""
        raise NotImplementedError

    def isin(self, s: Any, values: Any, **options: Any) -> Any:
        """The host's own ``isin`` (its answer, or its error)."""
        raise NotImplementedError


def _kernel_positions(h: Host, s: Any, lo: Any, hi: Any, inclusive: str, invert: bool) -> Any:
    lo, hi = h.bounds(s, lo, hi)
    return _face.positions(
        s, lo, hi, inclusive, wide=h.wide, invert=invert, assume_sorted=h.is_sorted(s)
    )


def _host_mask(h: Host, s: Any, lo: Any, hi: Any, inclusive: str, invert: bool) -> Any:
    m = h.mask(s, lo, hi, inclusive)
    return ~m if invert else m


def indexes(h: Host, s: Any, lo: Any, hi: Any, closed: Any, invert: Any) -> Any:
    """Positions of the elements in range (`invert`: outside it; nulls never)."""
    inclusive = _face.checked_inclusive(closed, h.names, h.probe)
    invert = _face.checked_invert(invert)
    try:
        idx = _kernel_positions(h, s, lo, hi, inclusive, invert)
    except (TypeError, ValueError):  # the host's answer (or its error), as `filter`'s
        return h.mask_positions(s, _host_mask(h, s, lo, hi, inclusive, invert))
    return h.positions(s, idx)


def between(h: Host, s: Any, lo: Any, hi: Any, closed: Any, invert: Any) -> Any:
    """The host's ``between`` (`invert`: its ``~``), a None end unbounded."""
    inclusive = _face.checked_inclusive(closed, h.names, h.probe)
    invert = _face.checked_invert(invert)
    try:
        lo_, hi_ = h.bounds(s, lo, hi)
        return h.kernel_between(s, lo_, hi_, inclusive, invert)
    except (TypeError, ValueError):
        return _host_mask(h, s, lo, hi, inclusive, invert)


def filter(h: Host, s: Any, lo: Any, hi: Any, closed: Any, invert: Any) -> Any:
    """The elements in range (`invert`: outside it; nulls dropped)."""
    inclusive = _face.checked_inclusive(closed, h.names, h.probe)
    invert = _face.checked_invert(invert)
    try:
        idx = _kernel_positions(h, s, lo, hi, inclusive, invert)
    except (TypeError, ValueError):
        return h.take_mask(s, _host_mask(h, s, lo, hi, inclusive, invert))
    return h.take(s, idx)


def count(h: Host, s: Any, lo: Any, hi: Any, closed: Any, invert: Any) -> int:
    """How many elements are in range (`invert`: outside it; nulls not counted)."""
    inclusive = _face.checked_inclusive(closed, h.names, h.probe)
    invert = _face.checked_invert(invert)
    try:
        lo_, hi_ = h.bounds(s, lo, hi)
        return _core.count_in_range(
            s, lo_, hi_, inclusive=inclusive, invert=invert, assume_sorted=h.is_sorted(s)
        )
    except (TypeError, ValueError):
        return h.count_mask(_host_mask(h, s, lo, hi, inclusive, invert))


def isin(h: Host, s: Any, values: Any, invert: Any, **options: Any) -> Any:
    """The host's ``isin(values, **options)`` (`invert`: its ``~``)."""
    invert = _face.checked_invert(invert)
    try:
        return h.kernel_isin(s, values, invert, **options)
    except (TypeError, ValueError):
        m = h.isin(s, values, **options)  # the host's answer, or its error
        return ~m if invert else m


def own_verbs(cls: type, base: type, names: Iterable[str]) -> None:
    """Give `cls` its own copy of each verb of `base` in `names`: the same code
    (the signature written once, in `base`), with the docstring and the result
    annotation of the answer `cls` gives, its method ``_<name>``, so help() and
    inspect show each class's own words. Type checkers read `base`'s verb, its
    result a type parameter that `cls` binds."""
    for name in names:
        verb, answer = base.__dict__[name], cls.__dict__.get("_" + name)
        if answer is None:  # a subclass of such a class: its parent's verb stands
            continue
        own = types.FunctionType(
            verb.__code__, verb.__globals__, name, verb.__defaults__, verb.__closure__
        )
        own.__kwdefaults__ = verb.__kwdefaults__
        own.__annotations__ = {**verb.__annotations__, "return": answer.__annotations__["return"]}
        own.__doc__ = answer.__doc__
        own.__qualname__ = f"{cls.__qualname__}.{name}"
        own.__module__ = cls.__module__
        setattr(cls, name, own)
