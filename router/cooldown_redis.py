"""Model cooldowns shared by every replica through Redis (same interface as :class:`Cooldowns`).

Per model two keys on one hash tag (the model name encoded as ``{byte length}.{sha256 prefix}``,
the same encoding as :func:`tao.action.idempotency.part`, so any name is safe):

* ``tao:cool:v1:{<part>}:until`` — the failure status (``rate_limited``, ``timeout`` ...) with a
  ``PX`` TTL of the cooldown: the model is cooling while the key exists;
* ``tao:cool:v1:{<part>}:fails`` — consecutive failures fleet-wide (the doubling), kept for
  ``2 * max_s`` after the last one; a success on any replica deletes both keys.

A failure is written at once (one Lua script: count, cooldown = ``base_s * 2^(n-1)`` capped at
``max_s``, never shorter than the upstream's ``Retry-After`` nor than a cooldown already running).
Reads use this replica's mirror, refreshed from Redis (one pipeline of ``PTTL`` + ``GET`` for the
models seen) at most every ``sync_interval_s``: another replica's cooldown is seen within that
interval. The router calls these from its synchronous selection step, so the refresh is one short
blocking round trip every ``sync_interval_s`` (loopback: well under a millisecond).

Redis unreachable: the mirror goes on as a per-process cooldown table (every failure this
replica sees still cools the model here), one warning log ``shared cooldown store unreachable``,
gauge ``tao_shared_state_degraded{piece="cooldown"}`` = 1; Redis is tried again every
``reconnect_interval_s``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from router.cooldown import CooldownConfig, Cooldowns
from router.metrics import SHARED_DEGRADED
from router.redis_client import sync_client
from router.redis_fleet import key_part

log = logging.getLogger("tao.router.cooldown")

PREFIX = "tao:cool:v1"

# KEYS: until, fails. ARGV: base_ms, max_ms, retry_ms, status, fails_ttl_ms -> {cooldown_ms, n}
FAIL = """
local n = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local base, cap, retry = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local ms = math.min(cap, base * 2 ^ (n - 1))
if retry > 0 then ms = math.min(cap, math.max(ms, retry)) end
ms = math.max(1, math.floor(ms))
local cur = redis.call('PTTL', KEYS[1])
if cur > ms then ms = cur end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ms)
return {ms, n}
"""

_DOWN = (redis.ConnectionError, redis.TimeoutError, OSError)


def cooldown_keys(model: str, prefix: str = PREFIX) -> tuple[str, str]:
    tag = "{" + key_part(model) + "}"
    return f"{prefix}:{tag}:until", f"{prefix}:{tag}:fails"


@dataclass(frozen=True)
class SharedCooldownConfig:
    prefix: str = PREFIX
    sync_interval_s: float = 0.5  # another replica's cooldown is seen within this
    reconnect_interval_s: float = 1.0
    socket_timeout_s: float = 0.5


class RedisCooldowns(Cooldowns):
    def __init__(
        self,
        client: redis.Redis,
        config: CooldownConfig | None = None,
        shared: SharedCooldownConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(config, clock)
        self.client = client
        self.shared = shared or SharedCooldownConfig()
        self._fail_script = client.register_script(FAIL)
        self._models: set[str] = set()
        self._next_sync = 0.0
        self.degraded = False
        self._retry_at = 0.0
        SHARED_DEGRADED.labels("cooldown").set(0)

    @classmethod
    def from_url(
        cls, url: str, config: CooldownConfig | None = None, shared: SharedCooldownConfig | None = None
    ) -> RedisCooldowns:
        sc = shared or SharedCooldownConfig()
        client = sync_client(
            url,
            socket_timeout=sc.socket_timeout_s,
            socket_connect_timeout=sc.socket_timeout_s,
            retry=Retry(NoBackoff(), 0),
        )
        return cls(client, config, sc)

    # ----- Redis availability ---------------------------------------------------------------
    def _use_redis(self) -> bool:
        return not self.degraded or self._clock() >= self._retry_at

    def _went_down(self, exc: BaseException) -> None:
        self._retry_at = self._clock() + self.shared.reconnect_interval_s
        if not self.degraded:
            self.degraded = True
            SHARED_DEGRADED.labels("cooldown").set(1)
            log.warning(
                "shared cooldown store unreachable (%s); each replica cools its models on its own",
                type(exc).__name__,
            )

    def _came_back(self) -> None:
        if self.degraded:
            self.degraded = False
            SHARED_DEGRADED.labels("cooldown").set(0)
            log.warning("shared cooldown store reachable again; cooldowns shared across replicas")

    # ----- the Cooldowns interface ------------------------------------------------------------
    def fail(self, model: str, retry_after_s: float | None = None, status: str = "server_error") -> float:
        self._models.add(model)
        secs = super().fail(model, retry_after_s, status)  # this replica cools it at once
        if not self._use_redis():
            return secs
        until, fails = cooldown_keys(model, self.shared.prefix)
        cfg = self.config
        args = [
            int(cfg.base_s * 1000),
            int(cfg.max_s * 1000),
            int((retry_after_s or 0) * 1000),
            status,
            int(max(cfg.max_s * 2, 1.0) * 1000),
        ]
        try:
            r = cast("list", self._fail_script(keys=[until, fails], args=args))
        except _DOWN as exc:
            self._went_down(exc)
            return secs
        self._came_back()
        ms, n = int(r[0]), int(r[1])
        with self._lock:
            self._until[model] = self._clock() + ms / 1000
            self._fails[model] = n
            self._status[model] = status
        return ms / 1000

    def ok(self, model: str) -> None:
        self._models.add(model)
        if model not in self._fails:
            return  # not failing here (nor seen failing elsewhere at the last refresh)
        super().ok(model)
        if self._use_redis():
            try:
                self.client.delete(*cooldown_keys(model, self.shared.prefix))
            except _DOWN as exc:
                self._went_down(exc)
            else:
                self._came_back()

    def remaining(self, model: str) -> float:
        if model not in self._models:
            self._models.add(model)
            self._next_sync = 0.0  # a model not mirrored yet: refresh now
        self.sync()
        return super().remaining(model)

    def status(self, model: str) -> str | None:
        self.sync()
        return super().status(model)

    def snapshot(self) -> dict[str, float]:
        self.sync()
        return super().snapshot()

    def sync(self, force: bool = False) -> None:
        """Refresh the mirror from Redis (at most every ``sync_interval_s`` unless ``force``)."""
        now = self._clock()
        if not force and now < self._next_sync:
            return
        self._next_sync = now + self.shared.sync_interval_s
        if not self._use_redis() or not self._models:
            return
        models = sorted(self._models)
        pipe = self.client.pipeline(transaction=False)
        for m in models:
            until, _ = cooldown_keys(m, self.shared.prefix)
            pipe.pttl(until)
            pipe.get(until)
        try:
            out: list[Any] = pipe.execute()
        except _DOWN as exc:
            self._went_down(exc)
            return
        self._came_back()
        now = self._clock()
        with self._lock:
            for i, m in enumerate(models):
                pttl, raw = int(out[2 * i]), out[2 * i + 1]
                if pttl > 0 and raw is not None:
                    self._until[m] = now + pttl / 1000
                    self._status[m] = raw.decode() if isinstance(raw, bytes) else str(raw)
                    self._fails.setdefault(m, 1)
                else:  # not cooling anywhere (expired, or a success on some replica)
                    self._until.pop(m, None)
                    self._status.pop(m, None)
                    self._fails.pop(m, None)

    def close(self) -> None:
        self.client.close()
