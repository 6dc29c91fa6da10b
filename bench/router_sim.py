"""Virtual-time replay of a request trace through an admission limiter in front of a backend of
fixed token throughput (``slots`` parallel sequences, each prefilling at ``prefill_tps`` and
decoding at ``decode_tps``). Used by the router benchmark; no sleeping, no threads.

A rejected client retries after the limiter's computed wait (with a little jitter) and gives up
after ``max_wait_s``. *Queueing delay* = service start − first arrival (limiter waits plus any
backend queue).
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from router.bucket import Admission, BucketConfig, LocalBucket


@dataclass(frozen=True)
class Backend:
    slots: int
    prefill_tps: float = 4000.0
    decode_tps: float = 40.0

    def service_s(self, inp: float, out: float) -> float:
        return inp / self.prefill_tps + out / self.decode_tps


@dataclass(frozen=True)
class Trace:
    arrival_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    predicted_output: np.ndarray  # what the estimator said before the request ran


class VClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Limiter(Protocol):
    name: str

    def acquire(self, i: int) -> Admission: ...

    def complete(self, i: int, adm: Admission, service_s: float) -> None: ...


class NoLimiter:
    name = "none"

    def acquire(self, i: int) -> Admission:
        return Admission(True, 0.0, 0.0)

    def complete(self, i: int, adm: Admission, service_s: float) -> None:
        pass


class RequestLimiter:
    """Request-count limiter: ``rate`` requests/s, burst ``rate × window_s``."""

    name = "request_count"

    def __init__(self, rate: float, window_s: float, clock: VClock) -> None:
        self.bucket = LocalBucket(BucketConfig(rate * window_s, window_s), clock=clock)

    def acquire(self, i: int) -> Admission:
        return self.bucket.try_acquire(1.0)

    def complete(self, i: int, adm: Admission, service_s: float) -> None:
        pass


class TPMLimiter:
    """Tokens-per-window limiter as LiteLLM does it: admit on the input tokens, count the output
    tokens only after the response (no reservation for them)."""

    name = "tokens_per_minute"

    def __init__(self, tokens_per_s: float, window_s: float, clock: VClock, trace: Trace) -> None:
        self.bucket = LocalBucket(BucketConfig(tokens_per_s * window_s, window_s), clock=clock)
        self.trace = trace

    def acquire(self, i: int) -> Admission:
        cost = min(float(self.trace.input_tokens[i]), self.bucket.config.capacity)
        return self.bucket.try_acquire(cost)

    def complete(self, i: int, adm: Admission, service_s: float) -> None:
        self.bucket.settle(adm, adm.cost + float(self.trace.output_tokens[i]))


class TokenSecondLimiter:
    """Our bucket: cost = predicted tokens × predicted seconds, settled with the actual cost."""

    name = "token_second"

    def __init__(
        self, token_s_per_s: float, window_s: float, clock: VClock, trace: Trace, backend: Backend
    ) -> None:
        self.bucket = LocalBucket(BucketConfig(token_s_per_s * window_s, window_s), clock=clock)
        self.trace, self.backend = trace, backend

    def cost(self, inp: float, out: float) -> float:
        return (inp + out) * self.backend.service_s(inp, out)

    def acquire(self, i: int) -> Admission:
        inp, pred = float(self.trace.input_tokens[i]), float(self.trace.predicted_output[i])
        return self.bucket.try_acquire(min(self.cost(inp, pred), self.bucket.config.capacity))

    def complete(self, i: int, adm: Admission, service_s: float) -> None:
        inp, out = float(self.trace.input_tokens[i]), float(self.trace.output_tokens[i])
        self.bucket.settle(adm, (inp + out) * service_s)


@dataclass
class SimResult:
    delay_s: np.ndarray  # per request; NaN when dropped
    rejections: np.ndarray  # 429s per request
    dropped: np.ndarray  # bool
    duration_s: float


def simulate(
    trace: Trace,
    backend: Backend,
    limiter: Limiter,
    clock: VClock,
    *,
    max_wait_s: float = 300.0,
    min_retry_s: float = 0.5,
    jitter: float = 0.1,
    seed: int = 0,
) -> SimResult:
    """Clients retry after ``max(wait_s, min_retry_s)`` stretched by up to ``jitter`` (like SDKs
    that honour Retry-After with a minimum backoff) and give up after ``max_wait_s``."""
    rng = random.Random(seed)
    n = len(trace.arrival_s)
    delay = np.full(n, np.nan)
    rejections = np.zeros(n, dtype=np.int64)
    dropped = np.zeros(n, dtype=bool)
    events: list[tuple[float, int, int, int]] = []  # (time, seq, kind, i); kind 0 finish, 1 arrive
    seq = 0
    for i in range(n):
        events.append((float(trace.arrival_s[i]), seq, 1, i))
        seq += 1
    heapq.heapify(events)
    free, queue = backend.slots, deque()
    adms: dict[int, tuple[Admission, float]] = {}
    end = 0.0

    def start(now: float) -> None:
        nonlocal free, seq
        while free and queue:
            j = queue.popleft()
            free -= 1
            delay[j] = now - trace.arrival_s[j]
            svc = backend.service_s(float(trace.input_tokens[j]), float(trace.output_tokens[j]))
            adms[j] = (adms[j][0], svc)
            heapq.heappush(events, (now + svc, seq, 0, j))
            seq += 1

    while events:
        now, _, kind, i = heapq.heappop(events)
        clock.now = end = now
        if kind == 0:
            free += 1
            adm, svc = adms.pop(i)
            limiter.complete(i, adm, svc)
            start(now)
            continue
        adm = limiter.acquire(i)
        if adm.ok:
            adms[i] = (adm, 0.0)
            queue.append(i)
            start(now)
            continue
        rejections[i] += 1
        retry_at = now + max(adm.wait_s, min_retry_s) * (1.0 + jitter * rng.random())
        if retry_at - trace.arrival_s[i] > max_wait_s:
            dropped[i] = True
            continue
        heapq.heappush(events, (retry_at, seq, 1, i))
        seq += 1
    return SimResult(delay, rejections, dropped, end - float(trace.arrival_s[0]))
