"""Per-model cooldown after upstream failures (429, 5xx, timeouts, connection errors)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

FAILURE_STATUSES = frozenset({"rate_limited", "server_error", "timeout", "connect_error"})


@dataclass(frozen=True)
class CooldownConfig:
    """First failure cools a model for ``base_s``; each consecutive one doubles it up to ``max_s``."""

    base_s: float = 5.0
    max_s: float = 60.0


class Cooldowns:
    def __init__(
        self, config: CooldownConfig | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config or CooldownConfig()
        self._clock = clock
        self._until: dict[str, float] = {}
        self._fails: dict[str, int] = {}
        self._status: dict[str, str] = {}  # the failure status behind each cooldown
        self._lock = threading.Lock()

    def fail(self, model: str, retry_after_s: float | None = None, status: str = "server_error") -> float:
        """Record a failure; returns the cooldown applied (seconds)."""
        with self._lock:
            self._status[model] = status
            n = self._fails.get(model, 0) + 1
            self._fails[model] = n
            secs = min(self.config.max_s, self.config.base_s * 2 ** (n - 1))
            if retry_after_s is not None and retry_after_s > 0:
                secs = min(self.config.max_s, max(secs, retry_after_s))
            self._until[model] = self._clock() + secs
            return secs

    def ok(self, model: str) -> None:
        if model in self._fails:
            with self._lock:
                self._fails.pop(model, None)
                self._until.pop(model, None)
                self._status.pop(model, None)

    def remaining(self, model: str) -> float:
        """Seconds left in the model's cooldown (0 when available)."""
        until = self._until.get(model)
        if until is None:
            return 0.0
        return max(0.0, until - self._clock())

    def status(self, model: str) -> str | None:
        """The failure status (``rate_limited``, ``timeout``, ...) of a model cooling down, else None."""
        return self._status.get(model) if self.remaining(model) > 0 else None

    def snapshot(self) -> dict[str, float]:
        return {m: r for m in list(self._until) if (r := self.remaining(m)) > 0}
