"""Per-tool circuit breaker: closed → open after N consecutive failures → half-open probe → closed.

While open, calls are refused at once (the executor then uses the fallback tool). After
``reset_timeout_s`` one probe call is let through (half-open); its success closes the breaker,
its failure opens it again for another ``reset_timeout_s``. The clock is injectable for tests.

This is the per-process breaker. With ``TAO_REDIS_URL`` every replica shares one breaker per tool
(:mod:`tao.action.breaker_redis`), which falls back to this one while Redis is unreachable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol


class BreakerState(str, Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass
class BreakerConfig:
    failure_threshold: int = 5
    reset_timeout_s: float = 30.0
    window_s: float = 60.0  # shared breaker only: failures older than this (since the first) are forgotten
    probe_ttl_s: float = 30.0  # shared breaker only: a dead prober's half-open slot frees after this


@dataclass(frozen=True, slots=True)
class Permit:
    """The answer of :meth:`CircuitBreaker.aallow` for one call; handed back with its outcome.

    ``probe``: this call is the half-open probe. ``fails``: failures counted when it was let in
    (0 lets a shared breaker skip the write on success). ``backend``: ``local`` | ``redis``."""

    ok: bool
    probe: bool = False
    retry_after_s: float = 0.0
    fails: int = 0
    backend: str = "local"
    token: str = ""


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

    # ----- the async form the executor uses (the shared breaker implements the same four) -----
    async def aallow(self) -> Permit:
        ok = self.allow()
        return Permit(ok, probe=ok and self.probing, retry_after_s=0.0 if ok else self.retry_after_s())

    async def asuccess(self, permit: Permit) -> None:
        self.record_success()

    async def afailure(self, permit: Permit) -> None:
        self.record_failure()

    async def arelease(self, permit: Permit) -> None:
        self.release()


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

    async def aclose(self) -> None:
        return None


class Breaker(Protocol):
    """What the executor needs of one tool's breaker (local or shared)."""

    async def aallow(self) -> Permit: ...
    async def asuccess(self, permit: Permit) -> None: ...
    async def afailure(self, permit: Permit) -> None: ...
    async def arelease(self, permit: Permit) -> None: ...


class Board(Protocol):
    """The breakers of a registry: :class:`BreakerBoard` (this process) or
    :class:`tao.action.breaker_redis.RedisBreakerBoard` (every replica on one Redis)."""

    def get(self, tool: str) -> Breaker: ...
    async def aclose(self) -> None: ...
