"""Online correction and live error statistics.

* :class:`ResidualCorrector` keeps a running median (or mean) of the residual
  ``actual - model`` per (model, task type) key and applies it at once on the next predict,
  while it is beating the uncorrected model on that key (the guard).
* :class:`LiveStats` keeps MAE and bias of the estimates that were actually served (over a
  bounded window and since start), so a bad estimator is visible in ``stats()``.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field


@dataclass
class OnlineConfig:
    """How fast corrections react and how often trees are refit."""

    correct: bool = True  # apply the per-(model, task type) residual correction
    alpha: float = 0.05  # weight of one new residual (EWMA weight / median step scale)
    kind: str = "median"  # "median" tracks the median residual (MAE-optimal), "mean" the mean
    warmup: int = 20  # first residuals of a key: exact median/mean of those seen so far
    buffer_size: int = 4096  # bounded buffer of recent (features, actuals) for refits
    recent_weight: float = 1.0  # weight of a buffered recent row vs a kept training row
    key_prompt_bucket: bool = False  # also key corrections by log2(prompt tokens)
    guard: bool = True  # apply a key's correction only while it beats no correction
    keep_training: int = 20000  # training rows kept for refits (bounded sample)
    refit_every: int = 2000  # observations between refits (0 = never)
    refit_trees: int | None = 100  # trees of a refit model (None = as trained)
    background: bool = True  # refit on a background thread (False: inline, deterministic)
    stats_window: int = 1000  # window of the live MAE/bias


@dataclass
class _Track:
    value: float = 0.0
    scale: float = 0.0  # EWMA of |residual|: the median tracker's step size
    n: int = 0
    first: list = field(default_factory=list)
    err_raw: float = 0.0  # running mean |actual - model|
    err_corr: float = 0.0  # running mean |actual - (model + correction in force)|


class ResidualCorrector:
    """Per-key running median (or mean) of residuals ``actual - model``.

    ``median``: after ``warmup`` residuals (exact median of those), each new residual moves the
    value by ``alpha * scale`` towards it (``scale`` = running mean absolute residual), a
    stochastic-approximation median that tracks drift. ``mean``: exponentially weighted mean.

    ``guard``: a key's correction is applied only while it has been helping — its running mean
    absolute error with the correction in force is below the error without it (both are known
    at every update). A correction that does not pay for itself switches itself off.
    """

    def __init__(
        self, alpha: float = 0.05, warmup: int = 20, kind: str = "median", guard: bool = True
    ) -> None:
        if not 0.0 < alpha <= 1.0:
            raise ValueError("alpha must be in (0, 1]")
        if kind not in ("median", "mean"):
            raise ValueError("kind must be 'median' or 'mean'")
        self.alpha = alpha
        self.warmup = max(1, warmup)
        self.kind = kind
        self.guard = guard
        self._state: dict[Hashable, _Track] = {}

    def correction(self, key: Hashable) -> float:
        """Additive correction for ``key`` (0 until a residual has been seen, or while the
        guard finds it not helping)."""
        s = self._state.get(key)
        if s is None or (self.guard and s.err_corr >= s.err_raw):
            return 0.0
        return s.value

    def update(self, key: Hashable, residual: float) -> None:
        """Fold one residual (actual - uncorrected model prediction) into ``key``."""
        residual = float(residual)
        if not math.isfinite(residual):
            return
        s = self._state.get(key)
        if s is None:
            s = self._state[key] = _Track()
        s.n += 1
        a = self.alpha
        w = max(a, 1.0 / s.n)
        # Score the candidate correction (the value before this update) against no correction.
        s.err_corr += w * (abs(residual - s.value) - s.err_corr)
        s.err_raw += w * (abs(residual) - s.err_raw)
        s.scale += w * (abs(residual) - s.scale)
        if s.n <= self.warmup:
            s.first.append(residual)
            xs = sorted(s.first)
            m = len(xs) // 2
            s.value = (
                (xs[m] if len(xs) % 2 else 0.5 * (xs[m - 1] + xs[m]))
                if self.kind == "median"
                else sum(xs) / len(xs)
            )
            if s.n == self.warmup:
                s.first = []
        elif self.kind == "median":
            s.value += a * s.scale * ((residual > s.value) - (residual < s.value))
        else:
            s.value += a * (residual - s.value)

    def summary(self) -> dict[str, dict[str, float]]:
        """Per key (as text): the tracked value, residuals seen, whether it is applied, and the
        running MAE without / with it."""
        return {
            str(k): {
                "value": round(s.value, 3),
                "n": s.n,
                "applied": self.correction(k) != 0.0,
                "mae_without": round(s.err_raw, 3),
                "mae_with": round(s.err_corr, 3),
            }
            for k, s in list(self._state.items())
        }

    def reset(self) -> None:
        """Forget every key (after a refit absorbed the drift)."""
        self._state = {}

    def to_json(self) -> list[list]:
        return [
            [list(k) if isinstance(k, tuple) else k, s.value, s.n, s.scale, s.err_raw, s.err_corr]
            for k, s in self._state.items()
        ]

    @classmethod
    def from_json(
        cls, data: list[list], alpha: float, warmup: int, kind: str = "median", guard: bool = True
    ) -> ResidualCorrector:
        c = cls(alpha, warmup, kind, guard)
        for k, value, n, *rest in data:
            key = tuple(k) if isinstance(k, list) else k
            scale, err_raw, err_corr = [*map(float, rest), 0.0, 0.0, 0.0][:3]
            # Restored keys are past warm-up: their value is kept, not recomputed.
            c._state[key] = _Track(float(value), scale, max(int(n), c.warmup + 1), [], err_raw, err_corr)
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
