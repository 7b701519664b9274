"""What the result was measured on: CPU, library versions, git commit."""

import os
import platform
import re
import subprocess

import numpy as np
import simdfilter as sf

from . import BENCHMARKS


def _cpuinfo():
    """The first CPU's fields of /proc/cpuinfo ({} where there is none)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    return fields


def amd_generation(vendor, family, model):
    """'zen3', 'zen4', 'zen5' ... from CPUID's vendor, family and model; None if not AMD Zen.

    A KVM guest often sees only "AMD EPYC" as the model name, the same for a Zen 3 without
    AVX-512 and a Zen 5 with it; the family and model tell them apart (AMD's processor
    programming references: family 17h Zen 1/2, 19h Zen 3/4, 1Ah Zen 5).
    """
    if vendor != "AuthenticAMD":
        return None
    if family == 0x17:
        return "zen2" if model >= 0x30 else "zen1"
    if family == 0x19:
        return "zen4" if 0x10 <= model <= 0x1F or 0x60 <= model <= 0xAF else "zen3"
    if family == 0x1A:
        return "zen5"
    return None


def machine_info():
    fields = _cpuinfo()
    cpu = fields.get("model name") or platform.processor() or platform.machine()
    try:
        generation = amd_generation(
            fields.get("vendor_id"), int(fields["cpu family"]), int(fields["model"])
        )
    except (KeyError, ValueError):
        generation = None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = {}
    for mod in ("pandas", "polars", "pyarrow", "numexpr", "numba", "matplotlib"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:
            versions[mod] = None
    try:
        commit = (
            subprocess.run(
                ["git", "-C", str(BENCHMARKS), "describe", "--always", "--dirty"],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or None
        )
    except Exception:
        commit = None
    return dict(
        cpu=cpu,
        generation=generation,
        cpus=cpus,
        node=platform.node(),
        system=platform.platform(),
        python=platform.python_version(),
        numpy=np.__version__,
        simdfilter=sf.__version__,
        git=commit,
        kernels=list(sf.available_kernels()),
        cpu_features=list(sf.cpu_features()),
        versions=versions,
    )


def machine_slug(info):
    """A file name for the machine: the CPU model, its AMD generation if known, and the CPU
    count, e.g. amd-epyc-zen3-2c or intel-xeon-2c."""
    s = re.sub(r"\((r|tm)\)|\bcpu\b|\bprocessor\b|@.*$|\d+-core", " ", info["cpu"].lower())
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-") or platform.machine()
    generation = info.get("generation")
    if generation and generation not in s:
        s += "-" + generation
    return f"{s}-{info['cpus']}c"
