"""Per-tool circuit breaker: closed → open after N consecutive failures → half-open probe → closed.

While open, calls are refused at once (the executor then uses the fallback tool). After
``reset_timeout_s`` one probe call is let through (half-open); its success closes the breaker,
its failure opens it again for another ``reset_timeout_s``. The clock is injectable for tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum


class BreakerState(str, Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass
class BreakerConfig:
    failure_threshold: int = 5
    reset_timeout_s: float = 30.0


@dataclass
class CircuitBreaker:
    """One breaker (one tool). Not thread-safe; used from one event loop."""

    config: BreakerConfig = field(default_factory=BreakerConfig)
    clock: Callable[[], float] = time.monotonic
    failures: int = 0
    opened_at: float | None = None
    probing: bool = False
    transitions: list[str] = field(default_factory=list)

    @property
    def state(self) -> BreakerState:
        if self.opened_at is None:
            return BreakerState.CLOSED
        if self.clock() - self.opened_at >= self.config.reset_timeout_s:
            return BreakerState.HALF_OPEN
        return BreakerState.OPEN

    def allow(self) -> bool:
        """May a call go through now? In half-open state only one probe at a time."""
        st = self.state
        if st is BreakerState.CLOSED:
            return True
        if st is BreakerState.HALF_OPEN and not self.probing:
            self.probing = True
            self.transitions.append("half_open")
            return True
        return False

    def record_success(self) -> None:
        if self.opened_at is not None:
            self.transitions.append("closed")
        self.failures, self.opened_at, self.probing = 0, None, False

    def record_failure(self) -> None:
        self.failures += 1
        if self.probing or (self.opened_at is None and self.failures >= self.config.failure_threshold):
            self.opened_at = self.clock()
            self.transitions.append("open")
        self.probing = False

    def release(self) -> None:
        """A call that was allowed but never made (e.g. no time left): free the half-open probe
        slot without judging the tool."""
        self.probing = False

    def retry_after_s(self) -> float:
        if self.opened_at is None:
            return 0.0
        return max(0.0, self.config.reset_timeout_s - (self.clock() - self.opened_at))


@dataclass
class BreakerBoard:
    """The breakers of a registry, created on first use with one shared config and clock."""

    config: BreakerConfig = field(default_factory=BreakerConfig)
    clock: Callable[[], float] = time.monotonic
    breakers: dict[str, CircuitBreaker] = field(default_factory=dict)

    def get(self, tool: str) -> CircuitBreaker:
        b = self.breakers.get(tool)
        if b is None:
            b = self.breakers[tool] = CircuitBreaker(self.config, self.clock)
        return b
