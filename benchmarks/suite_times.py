#!/usr/bin/env python3
"""The test loops' times, as CONTRIBUTING.md states them: run, measured, printed with the CPU.

    PYTHONPATH=python python3 benchmarks/suite_times.py                # the quick loop
    PYTHONPATH=python python3 benchmarks/suite_times.py --full         # and the full suite
    PYTHONPATH=python python3 benchmarks/suite_times.py -n 2 -- -p no:benchmark

Runs `pytest -m "not slow" -n auto` (the quick loop) and, with --full, `pytest -n auto`
(everything: CI's x86 stage) from the repository's root, each once, and prints a Markdown
table to paste into CONTRIBUTING.md: wall time, CPU time (user + sys of pytest and every
process it waited for: its pytest-xdist workers, compilers, the C harness's programs, fresh
interpreters, Dask's workers) and the test counts pytest reports. Above the table: the CPU
(model name, family, model, logical CPUs this process may use), the kernels simdfilter runs
there (a machine that shows more kernels runs more kernel-pinned tests), the versions and
whether Python writes bytecode caches (PYTHONDONTWRITEBYTECODE: without them every run
compiles the test files again). Beside each run: how much of the CPUs other processes took in
the 3 s before it and during it (all CPUs' busy time from /proc/stat less the run's own; a
wall time taken with a quarter or more taken is marked "loaded"). On a shared machine CPU time
says more than wall time about what a run costs; a wall time is comparable only between quiet
runs.

Arguments after `--` go to pytest (the same for each run). Exits with pytest's status when a
run fails, after printing what it measured.
"""

import argparse
import datetime
import os
import platform
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOOPS = {
    "quick": ["-m", "not slow"],
    "full": [],
}
# A run is "quiet" when other processes kept the CPUs busy less than this share
# of their time in the BUSY_SAMPLE seconds before it and during it (/proc/stat;
# elsewhere, the 1-minute load average against the CPU count). The load average
# alone lags: a run started right after another looks loaded by it for minutes.
QUIET_SHARE = 0.25
BUSY_SAMPLE = 3.0


def cpu_description():
    """'model name (family F, model M), N logical CPUs' from /proc/cpuinfo where it exists."""
    fields = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model", "CPU implementer", "CPU part"):
                fields.setdefault(key, value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine()
    if "cpu family" in fields:
        name += " (family %s, model %s)" % (fields["cpu family"], fields.get("model", "?"))
    elif "CPU part" in fields:
        name += " (implementer %s, part %s)" % (fields["CPU implementer"], fields["CPU part"])
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return "%s, %d logical CPUs" % (name, usable), usable


def versions():
    out = ["Python %s" % platform.python_version()]
    for name in ("numpy", "pytest", "xdist", "hypothesis"):
        try:
            module = __import__(name)
            out.append("%s %s" % ("pytest-xdist" if name == "xdist" else name, module.__version__))
        except ImportError:
            pass
    return ", ".join(out)


def kernels():
    try:
        import simdfilter
    except ImportError as exc:
        return "simdfilter does not import here (%s)" % exc
    where = Path(simdfilter.__file__).resolve().parent
    if where.is_relative_to(ROOT):
        where = where.relative_to(ROOT)  # this tree's build (python/simdfilter)
    return "kernels %s, default %s (simdfilter %s from %s)" % (
        ", ".join(simdfilter.available_kernels()),
        simdfilter.default_kernel(),
        simdfilter.__version__,
        where,
    )


def _cpu_ticks():
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    ticks = [int(f) for f in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    return sum(ticks), idle


def busy_ticks():
    """(all ticks, busy ticks) of every CPU so far, or None without /proc/stat."""
    try:
        total, idle = _cpu_ticks()
    except (OSError, ValueError, IndexError):
        return None
    return total, total - idle


def busy_share(seconds=BUSY_SAMPLE):
    """The share of all CPUs' time spent busy over the next `seconds`, or None."""
    first = busy_ticks()
    time.sleep(seconds)
    last = busy_ticks()
    if first is None or last is None:
        return None
    return (last[1] - first[1]) / max(1, last[0] - first[0])


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def counts(output):
    """pytest's last summary line's counts, e.g. '3,859 passed, 1 skipped'."""
    lines = [
        line for line in output.splitlines() if re.search(r"\b\d+ (passed|failed|error)", line)
    ]
    if not lines:
        return "no summary line"
    found = re.findall(
        r"(\d+) (passed|failed|skipped|deselected|xfailed|xpassed|errors?)", lines[-1]
    )
    return ", ".join("{:,} {}".format(int(n), what) for n, what in found)


def run(loop, workers, extra):
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", workers] + LOOPS[loop] + extra
    busy = busy_share()
    before = os.getloadavg()
    ticks0 = busy_ticks()
    cpu0, wall0 = children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall0, children_cpu() - cpu0
    ticks1 = busy_ticks()
    after = os.getloadavg()
    # Other processes' share of the CPUs during the run: every CPU's busy time
    # less this run's own CPU time.
    others = None
    if ticks0 and ticks1:
        all_cpus = (ticks1[0] - ticks0[0]) / os.sysconf("SC_CLK_TCK")
        busy_cpus = (ticks1[1] - ticks0[1]) / os.sysconf("SC_CLK_TCK")
        others = max(0.0, busy_cpus - cpu) / max(1e-9, all_cpus)
    shown = ["pytest"] + [shlex.quote(a) for a in cmd[3:]]
    return {
        "command": " ".join(shown),
        "status": done.returncode,
        "wall": wall,
        "cpu": cpu,
        "counts": counts(done.stdout),
        "busy": busy,
        "others": others,
        "before": before,
        "after": after,
        "tail": (done.stdout + done.stderr)[-3000:],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", action="store_true", help="the full suite too")
    parser.add_argument("--only-full", action="store_true", help="the full suite only")
    parser.add_argument("-n", default="auto", help="pytest-xdist workers (default auto)")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = parser.parse_args()
    loops = ["full"] if args.only_full else ["quick"] + (["full"] if args.full else [])

    cpu, usable = cpu_description()
    bytecode = "off (PYTHONDONTWRITEBYTECODE)" if sys.dont_write_bytecode else "on"
    print(
        "simdfilter's test loops, measured by benchmarks/suite_times.py on %s"
        % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    )
    print("CPU: %s; %s" % (cpu, kernels()))
    print("%s; bytecode caches %s" % (versions(), bytecode))
    results = [run(loop, args.n, args.pytest_args) for loop in loops]

    print()
    print("| command | wall | CPU (user+sys) | tests | other processes: before, during |")
    print("|---|---|---|---|---|")
    for r in results:
        if r["busy"] is not None and r["others"] is not None:
            quiet = r["busy"] < QUIET_SHARE and r["others"] < QUIET_SHARE
            others = "%d %%, %d %% of the CPUs" % (
                round(100 * r["busy"]),
                round(100 * r["others"]),
            )
        else:
            quiet = r["before"][0] < QUIET_SHARE * usable
            others = "load average %.2f -> %.2f" % (r["before"][0], r["after"][0])
        print(
            "| `%s` | %.1f s%s | %.1f s | %s | %s |"
            % (r["command"], r["wall"], "" if quiet else " (loaded)", r["cpu"], r["counts"], others)
        )
    print()
    print(
        "A wall time is marked (loaded) where other processes kept the CPUs %d %% busy or more "
        "in the %g s before the run or during it: a wall time is comparable only between quiet "
        "runs." % (round(100 * QUIET_SHARE), BUSY_SAMPLE)
    )
    failed = [r for r in results if r["status"] != 0]
    for r in failed:
        print("\n%s exited with status %d:\n%s" % (r["command"], r["status"], r["tail"]))
    return failed[0]["status"] if failed else 0


if __name__ == "__main__":
    sys.exit(main())
