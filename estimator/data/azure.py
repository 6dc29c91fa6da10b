"""The Azure LLM inference trace (``TIMESTAMP, ContextTokens, GeneratedTokens``) and its
causal features.

Only what is known when a request arrives is used. Arrivals (time, context tokens) are known at
once; an earlier request's *output* is known only once it has completed, which the trace does
not record, so it becomes usable ``lag_s`` seconds after that request arrived (default 60 s,
longer than such requests take to finish). Features per request:

=================  ===================================================================
prompt_tokens      context tokens of the request
same_ctx_n         completed earlier requests with exactly the same context length
same_ctx_median    median output of the last ``history`` of those (NaN when none)
same_ctx_last      output of the most recent of those (NaN when none)
near_ctx_median    median output of the last ``history`` completed requests whose context
                   length falls in the same ``bucket_tokens``-wide bucket (NaN when none)
recent_out_mean    mean output of requests that completed in the last ``window_s`` (known)
rate_60s           arrivals in the 60 s before this request
ctx_mean_60s       mean context tokens of those arrivals (NaN when none)
=================  ===================================================================

Many conversation requests repeat a context length (the same prompt template), which is why
the per-length history carries most of the signal; the time of day does not (the trace spans
one hour), so it is left out.
"""

from __future__ import annotations

import csv
import math
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
TRACE_FEATURES: tuple[str, ...] = (
    "prompt_tokens",
    "same_ctx_n",
    "same_ctx_median",
    "same_ctx_last",
    "near_ctx_median",
    "recent_out_mean",
    "rate_60s",
    "ctx_mean_60s",
)


class TraceError(ValueError):
    """A trace file that cannot be read (missing columns, bad values)."""


@dataclass(frozen=True)
class Trace:
    """Requests sorted by arrival: seconds since the first, context and generated tokens."""

    t: np.ndarray
    context: np.ndarray
    generated: np.ndarray

    def __len__(self) -> int:
        return len(self.t)


@dataclass(frozen=True)
class TraceFeatureConfig:
    """How far back the causal features look."""

    lag_s: float = 60.0
    history: int = 16
    bucket_tokens: int = 32
    window_s: float = 300.0


def _parse_time(text: str, line: int) -> float:
    s = text.strip()
    try:
        return float(s)  # epoch seconds are accepted too
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(s).timestamp()
    except ValueError:
        raise TraceError(f"line {line}: TIMESTAMP {text!r} is neither ISO 8601 nor a number") from None


def load_trace(path: str | Path) -> Trace:
    """Read a CSV with the Azure columns (others are ignored) and sort it by time."""
    p = Path(path)
    try:
        f = p.open(newline="", encoding="utf-8-sig")
    except OSError as e:
        raise TraceError(f"cannot open trace {p}: {e.strerror}") from None
    ts, ctx, gen = [], [], []
    with f:
        reader = csv.DictReader(f)
        header = {(h or "").strip(): h for h in reader.fieldnames or ()}
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise TraceError(f"{p}: missing column(s) {missing}; need {list(COLUMNS)}")
        kt, kc, kg = (header[c] for c in COLUMNS)
        for line, row in enumerate(reader, start=2):
            try:
                c, g = int(float(row[kc])), int(float(row[kg]))
            except (TypeError, ValueError):
                raise TraceError(f"line {line}: token counts must be integers") from None
            if c < 0 or g < 0:
                raise TraceError(f"line {line}: negative token count")
            ts.append(_parse_time(row[kt] or "", line))
            ctx.append(c)
            gen.append(g)
    if not ts:
        raise TraceError(f"{p}: no rows")
    t = np.asarray(ts)
    order = np.argsort(t, kind="stable")
    t = t[order]
    return Trace(t - t[0], np.asarray(ctx, np.int64)[order], np.asarray(gen, np.int64)[order])


def _median(d: deque) -> float:
    return float(np.median(d)) if d else math.nan


def trace_features(trace: Trace, cfg: TraceFeatureConfig | None = None) -> np.ndarray:
    """Causal feature matrix (rows = requests, columns = :data:`TRACE_FEATURES`)."""
    cfg = cfg or TraceFeatureConfig()
    n = len(trace)
    X = np.full((n, len(TRACE_FEATURES)), np.nan)
    by_ctx: dict[int, deque] = {}
    counts: dict[int, int] = {}
    by_bucket: dict[int, deque] = {}
    done: deque = deque()  # (completion-known time, output) in the recent window
    done_sum = 0.0
    arrivals: deque = deque()  # (time, context) of the last 60 s
    arr_sum = 0.0
    t, ctx, gen = trace.t, trace.context, trace.generated
    k = 0  # next request whose output is not yet known
    for i in range(n):
        now = t[i]
        while k < i and t[k] + cfg.lag_s <= now:
            c, g = int(ctx[k]), float(gen[k])
            by_ctx.setdefault(c, deque(maxlen=cfg.history)).append(g)
            counts[c] = counts.get(c, 0) + 1
            by_bucket.setdefault(c // cfg.bucket_tokens, deque(maxlen=cfg.history)).append(g)
            done.append((t[k] + cfg.lag_s, g))
            done_sum += g
            k += 1
        while done and done[0][0] < now - cfg.window_s:
            done_sum -= done.popleft()[1]
        while arrivals and arrivals[0][0] < now - 60.0:
            arr_sum -= arrivals.popleft()[1]
        c = int(ctx[i])
        same = by_ctx.get(c)
        X[i] = (
            c,
            counts.get(c, 0),
            _median(same) if same else math.nan,
            same[-1] if same else math.nan,
            _median(by_bucket.get(c // cfg.bucket_tokens, deque())),
            done_sum / len(done) if done else math.nan,
            len(arrivals),
            arr_sum / len(arrivals) if arrivals else math.nan,
        )
        arrivals.append((now, c))
        arr_sum += c
    return X


def split_index(n: int, split: str) -> int:
    """Index of the first test row for ``time:FRACTION`` (rows are sorted by time)."""
    kind, _, frac = split.partition(":")
    try:
        f = float(frac)
    except ValueError:
        f = math.nan
    if kind != "time" or not 0.0 < f < 1.0:
        raise TraceError(f"split must look like time:0.7 (a fraction in (0, 1)), got {split!r}")
    k = round(n * f)
    if k < 1 or k >= n:
        raise TraceError(f"split {split} leaves an empty train or test part of {n} rows")
    return k


__all__ = [
    "COLUMNS",
    "TRACE_FEATURES",
    "Trace",
    "TraceError",
    "TraceFeatureConfig",
    "load_trace",
    "split_index",
    "trace_features",
]
