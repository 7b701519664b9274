"""What the result was measured on: CPU, library versions, git commit."""

import os
import platform
import re
import subprocess

import numpy as np
import simdfilter as sf

from . import BENCHMARKS


def machine_info():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = {}
    for mod in ("pandas", "polars", "pyarrow", "numexpr", "numba", "matplotlib"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:
            versions[mod] = None
    try:
        commit = subprocess.run(["git", "-C", str(BENCHMARKS), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, timeout=10).stdout.strip() or None
    except Exception:
        commit = None
    return dict(cpu=cpu, cpus=cpus, node=platform.node(), system=platform.platform(),
                python=platform.python_version(), numpy=np.__version__, simdfilter=sf.__version__,
                git=commit, kernels=list(sf.available_kernels()), cpu_features=list(sf.cpu_features()),
                versions=versions)


def machine_slug(info):
    """A file name for the machine: the CPU model and the CPU count, e.g. amd-epyc-2c."""
    s = re.sub(r"\((r|tm)\)|\bcpu\b|\bprocessor\b|@.*$|\d+-core", " ", info["cpu"].lower())
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-") or platform.machine()
    return f"{s}-{info['cpus']}c"
