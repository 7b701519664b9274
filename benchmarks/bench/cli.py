"""The command line of benchmarks/run.py: parse, run the chosen sections, print, write."""

import argparse
import datetime
import os
import time
from pathlib import Path

import numpy as np

from . import BENCHMARKS, sections, targets
from .config import MODES
from .machine import machine_info, machine_slug
from .methods import best_kernel, load_alternatives
from .plot import plot
from .report import to_json

DESCRIPTION = "The simdfilter benchmark: every kernel, what users would write instead, and the machine's limits."


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--quick",
        action="store_true",
        help="small sizes and short timings (< 1 minute): a smoke test",
    )
    g.add_argument(
        "--full", action="store_true", help="sizes up to 10^8 and the 16 Mi dtype table (long)"
    )
    p.add_argument(
        "--name", help="machine name for the result files (default: CPU model + CPU count)"
    )
    p.add_argument(
        "--out", type=Path, default=BENCHMARKS / "results", help="directory for <name>.json/.png"
    )
    p.add_argument("--no-plot", action="store_true")
    p.add_argument(
        "--sections",
        default=",".join(sections.SECTIONS),
        help=f"comma-separated subset of {','.join(sections.SECTIONS)}",
    )
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument(
        "--thp",
        default="",
        help="fresh_process section: THP modes to set in turn, e.g. never,madvise,always "
        "(root; the original is put back); default: as the machine has it",
    )
    args = p.parse_args(argv)
    args.sections = args.sections.split(",")
    unknown = [s for s in args.sections if s not in sections.SECTIONS]
    if unknown:
        p.error(
            f"unknown section(s) {','.join(unknown)}; the sections are {','.join(sections.SECTIONS)}"
        )
    return args


def log(msg):
    print(msg, flush=True)


def run_sections(result, chosen, ctx):
    """Run the chosen sections in registry order, storing each one's records and time."""
    for name in sections.SECTIONS:
        if name in chosen:
            t0 = time.perf_counter()
            log(f"{name} ...")
            result[name] = sections.load(name).run(ctx)
            result["timings"][name] = time.perf_counter() - t0
            log(f"{name}: {result['timings'][name]:.1f} s")


def print_report(result, chosen):
    for name in sections.SECTIONS:
        if name in chosen and result[name]:
            sections.load(name).report(result[name], result)
    if result["targets"]:
        targets.report(result["targets"])


def main(argv=None):
    args = parse_args(argv)
    mode = "quick" if args.quick else "full" if args.full else "default"
    cfg, chosen = MODES[mode], set(args.sections)
    for (
        name
    ) in sections.SECTIONS:  # a section that does not import fails here, not after the others ran
        sections.load(name)
    t_start = time.perf_counter()

    info = machine_info()
    name = args.name or machine_slug(info) + ("" if mode == "default" else f"-{mode}")
    log(
        f"simdfilter {info['simdfilter']} ({info['git']}), NumPy {info['numpy']}, Python {info['python']}; "
        f"{info['cpu']}, {info['cpus']} CPUs; mode {mode}"
    )
    log(
        f"kernels: {', '.join(info['kernels'])} (best: {best_kernel()}); load average {os.getloadavg()}"
    )
    cfg = dict(cfg, fresh_thp=[m for m in args.thp.split(",") if m] or [None])
    ctx = sections.Context(
        cfg=cfg, rng=np.random.default_rng(args.seed), alts=load_alternatives(), log=log
    )
    result = dict(
        date=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        mode=mode,
        machine=info,
        config=cfg,
        load_before=os.getloadavg(),
        **{s: [] for s in sections.SECTIONS},
        timings={},
    )
    run_sections(result, chosen, ctx)
    result["targets"] = (
        targets.check_targets(result["grid"], result["overhead"], result["memory"])
        if "grid" in chosen
        else []
    )
    result["load_after"] = os.getloadavg()
    result["timings"]["total"] = time.perf_counter() - t_start
    print_report(result, chosen)
    args.out.mkdir(parents=True, exist_ok=True)
    json_path = args.out / f"{name}.json"
    json_path.write_text(to_json(result))
    png = None if args.no_plot or "grid" not in chosen else plot(result, args.out / f"{name}.png")
    print(
        f"\nwrote {json_path}"
        + (f" and {png}" if png else "")
        + f"; {result['timings']['total']:.0f} s in all; load average {result['load_after']}"
    )
    return 0
