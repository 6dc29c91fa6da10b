"""Bounded buffer of recent observations for background refits.

The buffer keeps the last ``capacity`` observed rows (a ring) plus a bounded random sample of
the original training rows (``keep_training``), so a refit adapts to drift without forgetting the
regions of feature space that recent traffic did not visit. Recent rows weigh ``recent_weight``
times a kept training row.
"""

from __future__ import annotations

import threading

import numpy as np


class RefitBuffer:
    """Ring buffer of (row, actual tokens, actual seconds) plus a kept training sample."""

    def __init__(
        self, capacity: int, n_features: int, keep_training: int = 20000, recent_weight: float = 3.0
    ) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.capacity = capacity
        self.keep_training = keep_training
        self.recent_weight = recent_weight
        self._X = np.full((capacity, n_features), np.nan)
        self._y = np.zeros(capacity)
        self._s = np.full(capacity, np.nan)
        self._n = 0  # rows written in total
        self._lock = threading.Lock()
        self._train: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return min(self._n, self.capacity)

    def add(self, row: list[float], tokens: float, seconds: float) -> None:
        with self._lock:
            i = self._n % self.capacity
            self._X[i] = row
            self._y[i] = tokens
            self._s[i] = seconds
            self._n += 1

    def keep_training_sample(
        self, X: np.ndarray, y: np.ndarray, seconds: np.ndarray | None, seed: int = 0
    ) -> None:
        """Remember up to ``keep_training`` random training rows for later refits."""
        rng = np.random.default_rng(seed)
        idx = np.sort(rng.permutation(len(y))[: self.keep_training])
        s = np.full(len(y), np.nan) if seconds is None else np.asarray(seconds, float)
        self._train = (np.asarray(X, float)[idx], np.asarray(y, float)[idx], s[idx])

    def training_set(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(X, tokens, seconds, weights): kept training sample + recent rows (weighted)."""
        with self._lock:
            n = len(self)
            X, y, s = self._X[:n].copy(), self._y[:n].copy(), self._s[:n].copy()
        w = np.full(n, self.recent_weight)
        if self._train is not None:
            tX, ty, ts = self._train
            X, y, s = np.vstack([tX, X]), np.concatenate([ty, y]), np.concatenate([ts, s])
            w = np.concatenate([np.ones(len(ty)), w])
        return X, y, s, w
