"""Garbage collection for a long-lived replica: once it is ready, freeze what start-up made.

A replica's heap after start-up holds hundreds of thousands of long-lived objects (imported
modules, the tool contracts, the estimator, the plan model's tables, FastAPI's routes). CPython's
full (generation-2) collection walks all of them every time, and a busy replica triggers one every
few seconds: measured here on ``tao serve --no-model`` at 1,000 replays/s offered, 4 full
collections in 4 s took 461 ms (up to 117 ms each, the event loop stopped meanwhile), which
is the overload step's client P99. ``gc.freeze()`` moves every object alive at that moment into
the permanent generation, which no collection scans: after it the same step's full collections took
2-3 ms each and its client P99 fell from 403 to 84 ms.

The first minutes of traffic make long-lived objects too (modules imported on first use, compiled
patterns, schema and pool caches); left in the scanned heap they made every full collection a
30–50 ms stop again (one every ~4 s at 278 replays/s: that step's client P99 was 26–54 ms).
So the replica freezes again 10, 60 and 300 s after ready (:data:`AGAIN_AFTER_S`): after the 10 s
one the same step's client P99 was 6–7 ms. A freeze also keeps whatever is alive at that moment,
so a handful of in-flight requests' objects that later become cyclic garbage are never
collected: a bounded, one-time cost (four freezes), traded for no long pauses.

So, when every readiness probe of the app passes (the plan model loaded, its grammars warmed), the
replica collects once and freezes (``ServerConfig.gc_freeze``, on by default in ``tao serve``;
``TAO_GC_FREEZE=0`` turns it off; :func:`install`). Objects made later are collected as usual; the frozen ones are never freed, which
is what they are (they live as long as the process). A replica that never becomes ready
(a model that fails to load) never freezes. Each worker of ``--workers N`` freezes its own heap.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from prometheus_client import Gauge

from tao.server.metrics import REGISTRY

if TYPE_CHECKING:
    from fastapi import FastAPI

log = logging.getLogger("tao.server")

FROZEN = Gauge(
    "tao_gc_frozen_objects",
    "objects moved to the permanent GC generation once the replica was ready",
    registry=REGISTRY,
)
POLL_S = 0.25
# after the first freeze, freeze again at these seconds after ready: what the first minutes of
# traffic made for good (lazy imports, regex and schema caches, pools) leaves the scanned heap too
AGAIN_AFTER_S = (10.0, 60.0, 300.0)


def ready(app: Any) -> bool:
    """Whether every readiness probe of ``app`` passes (``/readyz`` would answer ready)."""
    return all(probe()[0] for probe in dict(getattr(app.state, "readiness", {}) or {}).values())


def freeze() -> int:
    """Collect once, then freeze every object still alive; returns how many are frozen now."""
    gc.collect()
    gc.freeze()
    count = gc.get_freeze_count()
    FROZEN.set(count)
    return count


async def freeze_when_ready(
    app: Any, poll_s: float = POLL_S, again_after_s: tuple[float, ...] = (), on_freeze: Any = None
) -> int:
    """Wait until :func:`ready`, then :func:`freeze`; then freeze again ``again_after_s`` seconds
    after that (the objects the first requests made for good: lazily imported modules, compiled
    patterns, caches). Returns the last count (cancelled with the app if never ready)."""
    while not ready(app):
        await asyncio.sleep(poll_s)
    count = freeze()
    log.info("gc: %d start-up objects frozen (full collections skip them)", count)
    t0 = time.monotonic()
    for at in again_after_s:
        await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
        count = freeze()
        log.info("gc: %d objects frozen %.0f s after ready", count, at)
        if on_freeze is not None:
            on_freeze(count)
    return count


def install(app: FastAPI) -> None:
    """Freeze once ready, in ``app``'s lifespan. ``tao serve`` (and each of its workers) calls this
    for its own process; an app embedded in another program (``create_app``) leaves that
    program's collector alone: freezing a heap is the process owner's decision."""
    prev = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[Any]:
        async with prev(app_) as state:
            task = asyncio.create_task(freeze_when_ready(app_, again_after_s=AGAIN_AFTER_S))
            try:
                yield state
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    app.router.lifespan_context = lifespan
