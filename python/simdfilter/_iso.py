"""ISO date/time strings as datetime bounds, read exactly.

A string bound on datetime64 data (``'2024-03-01'``, ``'2024-03-01T12:00:00.25'``,
on tz-aware data also ``'2024-03-01 12:00+01:00'`` or ``'...Z'``) becomes a wall
time: a NumPy datetime of whole seconds or coarser, plus the fraction of a second
in attoseconds, exactly (NumPy alone would parse it in the unit its digits need,
and 2013 in picoseconds wraps around int64), and on tz-aware data the UTC offset
the string gives, if any. What the wall time means in the data's unit and zone is
:mod:`simdfilter._bounds`' business (``_time_real``, ``_aware_value``). The C
binding reads the common forms itself by the same rules (csrc/lib/times.c).
"""

from __future__ import annotations

import re
import warnings
from fractions import Fraction
from typing import Optional, Tuple, Union

import numpy as np

# Fractions of a second, read apart from the rest: NumPy parses a string in the
# unit its digits need, and 2013 in picoseconds wraps around int64.
ISO_FRACTION = re.compile(r"^(?P<head>.*\d{2}:\d{2}:\d{2})[.,](?P<frac>\d+)(?P<tail>.*)$")

# An ISO string's UTC offset: 'Z', '+HH', '+HHMM' or '+HH:MM' after a time of day.
ISO_OFFSET = re.compile(
    r"^(?P<wall>.*[T ]\d{2}(?::?\d{2}){0,2}(?:[.,]\d+)?)\s*"
    r"(?:(?P<z>[Zz])|(?P<sign>[+-])(?P<h>\d{2})(?::?(?P<m>\d{2}))?)$"
)


class Wall:
    """A datetime string read exactly: a NumPy datetime (whole seconds or coarser)
    plus `extra` attoseconds (a Fraction when finer than attoseconds)."""

    __slots__ = ("dt64", "extra")

    def __init__(self, dt64: np.datetime64, extra: Fraction) -> None:
        self.dt64, self.extra = dt64, extra


def parse_wall(text: str, original: str) -> Union[Wall, np.datetime64]:
    """`text` (`original` minus any UTC offset) as a Wall, or NaT."""
    text = text.strip()
    m = ISO_FRACTION.match(text)
    extra = Fraction(0)
    if m:
        text = m["head"] + m["tail"]
        # Attoseconds exactly; past them only whether a digit is nonzero counts
        # (any such instant lies strictly between the same attoseconds), and
        # int() of a long string is slow, or refused past 4300 digits.
        frac = m["frac"]
        extra = Fraction(int(frac[:18].ljust(18, "0")))
        if frac[18:].strip("0"):
            extra += Fraction(1, 2)
    if text.lower() in ("nat", ""):  # NumPy's NaT strings; parsed, 2.5 warns of a generic unit
        return np.datetime64("NaT", "s")
    with warnings.catch_warnings():
        # NumPy only warns when it drops a timezone ('Z', '+01:00'): refuse.
        warnings.simplefilter("error")
        try:
            v = np.datetime64(text)
        except (UserWarning, DeprecationWarning):
            raise TypeError(
                f"{original!r} has a timezone; datetime64 data are naive: "
                "give the bound in the data's own time"
            ) from None
        except ValueError as exc:
            raise ValueError(f"cannot read {original!r} as a datetime64 bound: {exc}") from None
    return v if np.isnat(v) else Wall(v, extra)


def parse_aware(text: str) -> Tuple[Union[Wall, np.datetime64], Optional[int]]:
    """A string bound on tz-aware data: its wall time (a Wall, or NaT) and the
    UTC offset it gives in attoseconds, or None when it gives none (the wall time
    is then in the data's zone). An offset the wall parser does not know is a
    ValueError."""
    m = ISO_OFFSET.match(text.strip())
    try:
        wall = parse_wall(m["wall"] if m else text, text)
    except TypeError as exc:  # an offset this parser does not know
        raise ValueError(f"cannot read {text!r} as a datetime bound: {exc}") from None
    if m is None or not isinstance(wall, Wall):
        return wall, None
    if m["z"]:
        return wall, 0
    off = (int(m["h"]) * 3600 + int(m["m"] or 0) * 60) * 10**18
    return wall, -off if m["sign"] == "-" else off
