"""Online correction and live error statistics.

* :class:`ResidualCorrector` keeps one exponentially weighted mean of the residual
  ``actual - model`` per (model, task type) key and applies it at once on the next predict.
* :class:`LiveStats` keeps MAE and bias of the estimates that were actually served (over a
  bounded window and since start), so a bad estimator is visible in ``stats()``.
"""
from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Hashable


@dataclass
class OnlineConfig:
    """How fast corrections react and how often trees are refit."""

    alpha: float = 0.05  # EWMA weight of one new residual
    warmup: int = 5  # residuals seen for a key before its correction is applied in full
    buffer_size: int = 4096  # bounded buffer of recent (features, actuals) for refits
    refit_every: int = 1000  # observations between background refits (0 = never)
    refit_trees: int = 100  # trees of a refit model
    stats_window: int = 1000  # window of the live MAE/bias


@dataclass
class _Ewma:
    mean: float = 0.0
    n: int = 0


class ResidualCorrector:
    """Per-key exponentially weighted residual; thread-safe for one writer, many readers."""

    def __init__(self, alpha: float = 0.05, warmup: int = 5) -> None:
        if not 0.0 < alpha <= 1.0:
            raise ValueError("alpha must be in (0, 1]")
        self.alpha = alpha
        self.warmup = max(1, warmup)
        self._state: dict[Hashable, _Ewma] = {}

    def correction(self, key: Hashable) -> float:
        """Additive correction for ``key`` (0 until a residual has been seen)."""
        s = self._state.get(key)
        if s is None:
            return 0.0
        return s.mean * min(1.0, s.n / self.warmup)

    def update(self, key: Hashable, residual: float) -> None:
        """Fold one residual (actual - uncorrected model prediction) into ``key``."""
        if not math.isfinite(residual):
            return
        s = self._state.setdefault(key, _Ewma())
        s.n += 1
        # Running mean for the first 1/alpha residuals, then an exponential window.
        a = max(self.alpha, 1.0 / s.n)
        s.mean += a * (residual - s.mean)

    def reset(self, means: dict[Hashable, float] | None = None) -> None:
        """Forget every key (after a refit), optionally seeding new means."""
        self._state = {k: _Ewma(v, self.warmup) for k, v in (means or {}).items()}

    def to_json(self) -> list[list]:
        return [[list(k) if isinstance(k, tuple) else k, s.mean, s.n] for k, s in self._state.items()]

    @classmethod
    def from_json(cls, data: list[list], alpha: float, warmup: int) -> "ResidualCorrector":
        c = cls(alpha, warmup)
        for k, mean, n in data:
            c._state[tuple(k) if isinstance(k, list) else k] = _Ewma(float(mean), int(n))
        return c


@dataclass
class LiveStats:
    """MAE and bias (mean of estimate - actual) of served estimates."""

    window: int = 1000
    _errs: deque = field(default_factory=deque, repr=False)
    _sum_abs: float = 0.0
    _sum: float = 0.0
    _n: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, estimate: float, actual: float) -> None:
        e = estimate - actual
        with self._lock:
            self._errs.append(e)
            if len(self._errs) > self.window:
                self._errs.popleft()
            self._sum_abs += abs(e)
            self._sum += e
            self._n += 1

    def summary(self) -> dict[str, float]:
        with self._lock:
            errs = list(self._errs)
            n = self._n
            sa, s = self._sum_abs, self._sum
        w = len(errs)
        return {
            "n": n,
            "mae": sa / n if n else math.nan,
            "bias": s / n if n else math.nan,
            "window_n": w,
            "window_mae": sum(abs(e) for e in errs) / w if w else math.nan,
            "window_bias": sum(errs) / w if w else math.nan,
        }
