"""Table printing, number formatting and the JSON file."""

import json

from .config import Ki, Mi


def fmt_n(n):
    for unit, size in (("Mi", Mi), ("Ki", Ki)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,}" if n < 10**6 or n % 10**6 else f"1e{len(str(n)) - 1}"


def fmt_sel(s):
    return f"{s:.1%}".replace(".0%", "%") if s else "0%"


def print_table(title, header, rows, note=None):
    """Left-aligned first column, right-aligned others, each as wide as its widest cell."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "  ".join("-" * w for w in widths)
    print(f"\n{title}")
    if note:
        print(note)

    def row(cells):
        return "  ".join(
            f"{x:<{w}}" if i == 0 else f"{x:>{w}}" for i, (x, w) in enumerate(zip(cells, widths))
        )

    print(row(header))
    print(line)
    for r in rows:
        print(row(r))


def _round(obj):
    if isinstance(obj, float):
        return float(f"{obj:.4g}")
    if isinstance(obj, dict):
        return {k: _round(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_round(v) for v in obj]
    return obj


def to_json(result):
    """Readable and diff-friendly: one record per line."""
    parts = []
    for key, value in _round(result).items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            body = (
                "[\n"
                + ",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in value)
                + "\n ]"
            )
        else:
            body = json.dumps(value)
        parts.append(f" {json.dumps(key)}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
