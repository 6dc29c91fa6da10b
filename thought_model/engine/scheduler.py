"""Continuous (iteration-level) batching: one worker thread steps a :class:`DecodeBatch` and admits
new rows at every step boundary.

A request does not wait for a batch window, nor for the batch ahead of it to finish: it joins the
running batch at the next forward pass (its prompt is packed into that pass), and it leaves the
moment its grammar terminates, freeing its KV-cache slot for the next one. At most
``max_batch`` rows decode together; the rest wait in FIFO order. Rows whose caller gave up
(their future was cancelled) are dropped at the next boundary; rows whose deadline passed while
they waited are answered without decoding.

``submit(row)`` returns a ``concurrent.futures.Future`` resolved with the finished row (prompt
preparation and output parsing stay with the caller, off the decode loop).
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass
from typing import TYPE_CHECKING

from thought_model.engine.rows import Row

if TYPE_CHECKING:
    from thought_model.engine.decode import DecodeBatch


@dataclass
class SchedulerConfig:
    max_batch: int = 16  # rows decoded together (KV-cache slots)


class ContinuousBatcher:
    """Feeds rows from a queue into one :class:`DecodeBatch` on a single worker thread."""

    def __init__(
        self,
        new_batch: Callable[[int], DecodeBatch],
        config: SchedulerConfig,
        step_lock: threading.Lock | None = None,
        on_start: Callable[[], None] | None = None,
        name: str = "plan-scheduler",
    ) -> None:
        self.cfg = config
        self._new_batch, self._on_start = new_batch, on_start
        self._step_lock = step_lock or threading.Lock()
        self._q: queue.Queue[tuple[Row, Future] | None] = queue.Queue()
        self._closed = False
        self.batch_sizes: Counter[int] = Counter()  # rows in each forward pass
        self.joined_running = 0  # rows admitted while other rows were mid-decode
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, row: Row) -> Future:
        if self._closed:
            raise RuntimeError("engine is closed")
        fut: Future = Future()
        self._q.put((row, fut))
        return fut

    @property
    def waiting(self) -> int:
        return self._q.qsize()

    def close(self, timeout: float = 10.0) -> None:
        if not self._closed:
            self._closed = True
            self._q.put(None)
            self._thread.join(timeout)

    # -- worker -------------------------------------------------------------------------------
    def _loop(self) -> None:
        if self._on_start:
            self._on_start()
        batch = self._new_batch(self.cfg.max_batch)
        futures: dict[int, Future] = {}  # id(row) -> its caller's future, for the rows in the batch
        open_ = True
        while open_ or len(batch):
            if open_:
                open_ = self._admit(batch, futures, block=not len(batch))
            if not len(batch):
                continue
            try:
                with self._step_lock:
                    finished = batch.step()
            except BaseException as exc:  # the model failed: every row in the batch fails
                for f in futures.values():
                    try:
                        f.set_exception(exc)
                    except InvalidStateError:
                        pass
                batch, futures = self._new_batch(self.cfg.max_batch), {}
                continue
            self.batch_sizes[len(futures)] += 1
            for r in finished:
                _resolve(futures.pop(id(r)), r)
            if any(f.cancelled() for f in futures.values()):  # their callers left: free the slots
                keep = [b for b, r in enumerate(batch.rows) if not futures[id(r)].cancelled()]
                for r in batch.rows:
                    if futures[id(r)].cancelled():
                        del futures[id(r)]
                batch.drop(keep)
        self._fail_waiting()

    def _admit(self, batch: DecodeBatch, futures: dict[int, Future], block: bool) -> bool:
        """Move waiting rows into the batch while it has room; False once closed."""
        running = len(batch) > 0
        while batch.free:
            try:
                item = self._q.get() if block and not len(batch) else self._q.get_nowait()
            except queue.Empty:
                return True
            if item is None:
                return False
            row, fut = item
            if fut.cancelled():
                continue
            if row.deadline is not None and time.perf_counter() > row.deadline:
                row.error, row.done = "deadline", True
                _resolve(fut, row)
                continue
            batch.add(row)
            futures[id(row)] = fut
            self.joined_running += running
        return True

    def _fail_waiting(self) -> None:
        while True:
            try:
                item = self._q.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                try:
                    item[1].set_exception(RuntimeError("engine is closed"))
                except InvalidStateError:
                    pass


def _resolve(fut: Future, row: Row) -> None:
    try:
        fut.set_result(row)
    except InvalidStateError:  # cancelled by its caller meanwhile
        pass
