"""Dynamic batching: one worker thread gathers requests for a short window and runs them together."""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Generic, TypeVar

Req = TypeVar("Req")
Res = TypeVar("Res")


@dataclass
class BatcherConfig:
    max_batch: int = 8
    wait_ms: float = 2.0  # how long the first request of a batch waits for company


class DynamicBatcher(Generic[Req, Res]):
    """Feeds ``run_batch(list[Req]) -> list[Res]`` from a queue on a single worker thread."""

    def __init__(
        self,
        run_batch: Callable[[list[Req]], list[Res]],
        config: BatcherConfig,
        on_start: Callable[[], None] | None = None,
        name: str = "plan-batcher",
    ) -> None:
        self._run, self.cfg, self._on_start = run_batch, config, on_start
        self._q: queue.Queue[tuple[Req, Future] | None] = queue.Queue()
        self._closed = False
        self.batch_sizes: Counter[int] = Counter()  # how many batches of each size ran
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, item: Req) -> Future:
        if self._closed:
            raise RuntimeError("engine is closed")
        fut: Future = Future()
        self._q.put((item, fut))
        return fut

    def close(self, timeout: float = 10.0) -> None:
        if not self._closed:
            self._closed = True
            self._q.put(None)
            self._thread.join(timeout)

    def _loop(self) -> None:
        if self._on_start:
            self._on_start()
        while True:
            first = self._q.get()
            if first is None:
                return
            batch = [first]
            stop = False
            end = time.perf_counter() + self.cfg.wait_ms / 1000.0
            while len(batch) < self.cfg.max_batch:
                left = end - time.perf_counter()
                try:
                    nxt = self._q.get(timeout=left) if left > 0 else self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                batch.append(nxt)
            self._execute(batch)
            if stop:
                return

    def _execute(self, batch: list[tuple[Req, Future]]) -> None:
        live = [(r, f) for r, f in batch if f.set_running_or_notify_cancel()]
        if not live:
            return
        self.batch_sizes[len(live)] += 1
        try:
            results = self._run([r for r, _ in live])
        except BaseException as exc:
            for _, f in live:
                f.set_exception(exc)
            return
        for (_, f), res in zip(live, results):
            f.set_result(res)
