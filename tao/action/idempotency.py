"""Idempotency keys and local deduplication of side effects.

A key is derived from ``thought_id + step_id + canonical arguments`` (sorted-key compact JSON,
SHA-256), so the same step of the same plan always carries the same key, whoever retries it. It
is sent to non-idempotent tools (``Idempotency-Key`` header) and the executor keeps the last
successful result per key, so a repeated step returns the recorded result without calling the
tool again; concurrent duplicates wait for the first call instead of racing it.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson

from tao.contracts import ActionResult


def canonical_args(args: dict[str, Any]) -> bytes:
    return orjson.dumps(args, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def idempotency_key(thought_id: str | None, step_id: str | None, tool: str, args: dict[str, Any]) -> str:
    h = hashlib.sha256()
    for part in (thought_id or "-", step_id or "-", tool):
        h.update(part.encode())
        h.update(b"\x1f")
    h.update(canonical_args(args))
    return "tao-" + h.hexdigest()[:40]


@dataclass
class IdempotencyStore:
    """Bounded in-process record of completed non-idempotent calls (key → ActionResult)."""

    max_entries: int = 10_000
    ttl_s: float = 24 * 3600.0
    _done: OrderedDict[str, tuple[float, ActionResult]] = field(default_factory=OrderedDict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def lock(self, key: str) -> asyncio.Lock:
        lk = self._locks.get(key)
        if lk is None:
            lk = self._locks[key] = asyncio.Lock()
        return lk

    def forget_lock(self, key: str) -> None:
        """Drop an idle lock (results stay recorded); keeps the lock table from growing."""
        lk = self._locks.get(key)
        if lk is not None and not lk.locked() and not getattr(lk, "_waiters", None):
            del self._locks[key]

    def get(self, key: str) -> ActionResult | None:
        hit = self._done.get(key)
        if hit is None:
            return None
        if time.monotonic() - hit[0] > self.ttl_s:
            del self._done[key]
            return None
        return hit[1]

    def put(self, key: str, result: ActionResult) -> None:
        self._done[key] = (time.monotonic(), result)
        self._done.move_to_end(key)
        while len(self._done) > self.max_entries:
            old, _ = self._done.popitem(last=False)
            self._locks.pop(old, None)
