"""Token-second bucket, in-process backend.

Capacity is in token·seconds per window and refills continuously at ``capacity / window_s``
per second. A request costs ``predicted tokens × predicted seconds``. ``try_acquire`` either
takes the cost (``ok=True``) or says how long to wait until it would fit (``wait_s``);
``settle`` refunds or charges the difference once the actual cost is known, so the level may
go below zero (debt) after an under-estimate and later admissions wait for it to be repaid.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class Admission:
    """Outcome of one ``try_acquire``. ``wait_s`` is ``math.inf`` when the cost exceeds capacity."""

    ok: bool
    wait_s: float
    cost: float
    backend: str = "local"  # local | redis | degraded
    tenant: str = "default"

    @property
    def too_large(self) -> bool:
        return not self.ok and math.isinf(self.wait_s)


@dataclass(frozen=True)
class BucketConfig:
    """Shape of one bucket: ``capacity`` token·seconds per ``window_s`` seconds."""

    capacity: float
    window_s: float = 60.0

    def __post_init__(self) -> None:
        if not (self.capacity > 0 and math.isfinite(self.capacity)):
            raise ValueError("bucket capacity must be a positive finite number")
        if not (self.window_s > 0 and math.isfinite(self.window_s)):
            raise ValueError("bucket window_s must be a positive finite number")

    @property
    def rate(self) -> float:
        return self.capacity / self.window_s


@runtime_checkable
class Bucket(Protocol):
    """What the router needs from a bucket backend (sync and async forms)."""

    config: BucketConfig

    def try_acquire(self, cost: float) -> Admission: ...

    def settle(self, admission: Admission, actual_cost: float) -> None: ...

    async def atry_acquire(self, cost: float) -> Admission: ...

    async def asettle(self, admission: Admission, actual_cost: float) -> None: ...


def _check_cost(cost: float) -> float:
    cost = float(cost)
    if not (cost >= 0 and math.isfinite(cost)):
        raise ValueError(f"cost must be a finite number >= 0, got {cost!r}")
    return cost


class LocalBucket:
    """In-process bucket; thread-safe (one lock) and asyncio-safe (never awaits under the lock)."""

    def __init__(
        self,
        config: BucketConfig,
        *,
        tenant: str = "default",
        backend: str = "local",
        clock: Callable[[], float] = time.monotonic,
        initial: float | None = None,
    ) -> None:
        """``initial``: the starting level in token*s (default: full). The degraded fallback of a
        Redis bucket starts empty (0), so an outage never hands out a full bucket per replica."""
        self.config = config
        self.tenant = tenant
        self._backend = backend
        self._cap = config.capacity
        self._rate = config.rate
        self._clock = clock
        self._lock = threading.Lock()
        self._level = config.capacity if initial is None else min(config.capacity, float(initial))
        self._ts = clock()

    def _refill(self, now: float) -> None:
        if now > self._ts:
            self._level = min(self._cap, self._level + (now - self._ts) * self._rate)
            self._ts = now

    def try_acquire(self, cost: float) -> Admission:
        cost = _check_cost(cost)
        with self._lock:
            self._refill(self._clock())
            if cost > self._cap:
                return Admission(False, math.inf, cost, self._backend, self.tenant)
            if self._level >= cost:
                self._level -= cost
                return Admission(True, 0.0, cost, self._backend, self.tenant)
            wait = (cost - self._level) / self._rate
        return Admission(False, wait, cost, self._backend, self.tenant)

    def settle(self, admission: Admission, actual_cost: float) -> None:
        """Refund (actual < admitted) or charge (actual > admitted) the difference."""
        if not admission.ok:
            return
        actual_cost = _check_cost(actual_cost)
        with self._lock:
            self._refill(self._clock())
            self._level = min(self._cap, self._level + admission.cost - actual_cost)

    def available(self) -> float:
        """Current level in token·seconds (may be negative while repaying an under-estimate)."""
        with self._lock:
            self._refill(self._clock())
            return self._level

    async def atry_acquire(self, cost: float) -> Admission:
        return self.try_acquire(cost)

    async def asettle(self, admission: Admission, actual_cost: float) -> None:
        self.settle(admission, actual_cost)
