"""The decode loop in a process of its own: the parent keeps HTTP, perception, prompts and parsing;
a child process owns the model, the compiled grammars and the :class:`ContinuousBatcher`.

Why: in one process the decode thread and the request-side Python (event loop, composer, parsing)
take turns on one interpreter lock, so ``tao serve`` never used more than ~0.97 of a core for
``/v1/plan`` while a second core sat partly idle (docs/serving.md). Here the decode loop has an
interpreter of its own.

Protocol (one socket pair, pickled tuples, in order):

- parent → child: ``(GRAMMAR, gid, schema)`` compiles a plan grammar (a warm-up or the first
  request of a slot set; on the child's compile thread, so rows of other grammars keep flowing in)
  and keeps it under ``gid``; ``(ROW, rid, prompt_ids, gid, deadline,
  max_new)`` decodes one row (``deadline`` is a ``time.perf_counter()`` value: CLOCK_MONOTONIC,
  the same clock in both processes); ``(CANCEL, rid)`` drops a row whose caller left;
  ``(SYNC, n)`` asks for ``(SYNCED, n)`` once everything before it was taken and every grammar
  sent before it compiled (the warm-up waits on it); ``(CLEAR,)`` forgets every grammar id.
- child → parent: ``(READY, pid)`` once loaded; ``(DONE, rid, out_ids, stats, error)`` per row.

If the child dies, every row in flight fails with :class:`EngineUnavailableError` (a 503 with
``Retry-After`` at the server), the child is started again and the grammars it knew are sent
again; rows submitted while it restarts fail the same way, at once.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import logging
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

from thought_model.engine.base import EngineUnavailableError
from thought_model.engine.rows import DecodeConfig, Row
from thought_model.engine.scheduler import SchedulerConfig

log = logging.getLogger("tao.engine.decode_process")

ROW, GRAMMAR, CANCEL, SYNC, CLEAR = "row", "grammar", "cancel", "sync", "clear"
READY, DONE, SYNCED = "ready", "done", "synced"
MAX_GRAMMAR_IDS = 4096  # distinct (tools, slots) keys kept; past it both sides forget them all


@dataclass
class DecodeProcessConfig:
    """What the child needs to build the same decoder the in-process engine would."""

    checkpoint: str
    threads: int = 1
    dtype: str = "float32"
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)
    start_timeout_s: float = 180.0  # loading torch + the model in a fresh interpreter
    restart: bool = True  # start a new child when one dies

    def to_json(self) -> str:
        d = asdict(self)
        return json.dumps(d)

    @classmethod
    def from_json(cls, text: str) -> DecodeProcessConfig:
        d = json.loads(text)
        d["decode"] = DecodeConfig(**d["decode"])
        d["scheduler"] = SchedulerConfig(**d["scheduler"])
        return cls(**d)


def _send(conn: Connection, lock: threading.Lock, msg: tuple) -> None:
    data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
    with lock:
        conn.send_bytes(data)


def _quiet_send(conn: Connection, lock: threading.Lock, msg: tuple) -> None:
    """:func:`_send` where a closed parent only means nobody is listening any more."""
    try:
        _send(conn, lock, msg)
    except OSError:
        pass


# --------------------------------------------------------------------------------- parent side
class DecodeProcess:
    """The parent's handle: ``submit(row) -> Future`` like :class:`ContinuousBatcher` (the row's
    ``grammar_id`` from :meth:`grammar_id`), resolved with the same row, its ``out_ids``,
    ``stats`` and ``error`` filled in by the child."""

    def __init__(self, config: DecodeProcessConfig) -> None:
        self.cfg = config
        self._lock = threading.Lock()  # state + ordered sends
        self._send_lock = threading.Lock()
        self._pending: dict[int, tuple[Row, Future]] = {}
        self._rids = itertools.count(1)
        self._gids: dict[Hashable, int] = {}
        self._schemas: dict[int, dict] = {}  # what a restarted child is sent again
        self._next_gid = itertools.count(1)
        self._syncs: dict[int, threading.Event] = {}
        self._sync_ids = itertools.count(1)
        self._closing = False
        self.exits = 0  # times the child ended while the engine was open (a crash, a kill)
        self.restarts = 0  # times a new child was started after one ended
        self._conn: Connection | None = None
        self._proc: subprocess.Popen | None = None
        self._start()

    # -- life cycle -----------------------------------------------------------------------------
    def _start(self) -> None:
        mine, theirs = socket.socketpair()
        cmd = [sys.executable, "-m", "thought_model.engine.decode_process", "--fd", str(theirs.fileno())]
        cmd += ["--config", self.cfg.to_json()]
        proc = subprocess.Popen(cmd, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        theirs.close()
        conn = Connection(mine.detach())
        if not conn.poll(self.cfg.start_timeout_s):
            proc.kill()
            conn.close()
            raise EngineUnavailableError(f"decode process did not start in {self.cfg.start_timeout_s:.0f}s")
        try:
            msg = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError) as exc:
            proc.wait(5)
            conn.close()
            raise EngineUnavailableError(f"decode process failed to start (exit {proc.returncode})") from exc
        assert msg[0] == READY, msg
        with self._lock:
            self._conn, self._proc = conn, proc
            for gid, schema in self._schemas.items():  # a restarted child: the grammars again
                _send(conn, self._send_lock, (GRAMMAR, gid, schema))
        threading.Thread(
            target=self._read, args=(conn, proc), name="decode-process-reader", daemon=True
        ).start()
        log.info("decode process %d ready", proc.pid)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        return self._conn is not None

    def close(self, timeout: float = 10.0) -> None:
        with self._lock:
            self._closing = True
            conn, proc, self._conn = self._conn, self._proc, None
        if conn is not None:
            conn.close()  # the child reads EOF and exits
        if proc is not None:
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self._fail_pending(EngineUnavailableError("engine is closed"))

    # -- requests -------------------------------------------------------------------------------
    def grammar_id(self, key: Hashable, schema: Callable[[], dict]) -> int:
        """The id of ``key``'s grammar in the child; the first time, ``schema()`` (which may raise
        for a tool subset no grammar exists for) is sent to be compiled."""
        gid = self._gids.get(key)
        if gid is not None:
            return gid
        body = schema()
        with self._lock:
            gid = self._gids.get(key)
            if gid is not None:
                return gid
            if len(self._gids) >= MAX_GRAMMAR_IDS:
                self._gids.clear()
                self._schemas.clear()
                self._send_locked((CLEAR,))
            gid = next(self._next_gid)
            self._gids[key] = gid
            self._schemas[gid] = body
            self._send_locked((GRAMMAR, gid, body))
            return gid

    def knows(self, key: Hashable) -> bool:
        return key in self._gids

    def sync(self, timeout: float = 600.0) -> bool:
        """Wait until the child has taken everything sent before (e.g. compiled the warm-up)."""
        n = next(self._sync_ids)
        ev = threading.Event()
        self._syncs[n] = ev
        with self._lock:
            if not self._send_locked((SYNC, n)):
                return False
        ok = ev.wait(timeout)
        self._syncs.pop(n, None)
        return ok

    def submit(self, row: Row) -> Future:
        fut: Future = Future()
        if row.grammar_id is None:
            raise ValueError("a row for the decode process needs a grammar_id")
        with self._lock:
            if self._closing:
                raise RuntimeError("engine is closed")
            rid = next(self._rids)
            self._pending[rid] = (row, fut)
            sent = self._send_locked((ROW, rid, row.prompt_ids, row.grammar_id, row.deadline, row.max_new))
        if not sent:
            self._pending.pop(rid, None)
            fut.set_exception(EngineUnavailableError("the decode process is restarting"))
            return fut
        fut.add_done_callback(lambda f, rid=rid: self._on_done(rid, f))
        return fut

    @property
    def waiting(self) -> int:
        return len(self._pending)

    def _on_done(self, rid: int, fut: Future) -> None:
        if fut.cancelled() and self._pending.pop(rid, None) is not None:  # its caller left
            with self._lock:
                self._send_locked((CANCEL, rid))

    def _send_locked(self, msg: tuple) -> bool:
        """Send under ``self._lock``; False when there is no live child to send to."""
        if self._conn is None:
            return False
        try:
            _send(self._conn, self._send_lock, msg)
            return True
        except OSError:
            return False

    # -- the reader -----------------------------------------------------------------------------
    def _read(self, conn: Connection, proc: subprocess.Popen) -> None:
        while True:
            try:
                msg = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                break
            if msg[0] == DONE:
                _, rid, out_ids, stats, error = msg
                entry = self._pending.pop(rid, None)
                if entry is None:
                    continue
                row, fut = entry
                row.out_ids = out_ids
                st = row.stats
                st.prompt_tokens, st.generated_tokens, st.forward_passes, st.jump_forward_tokens = stats
                row.error, row.done = error, True
                try:
                    fut.set_result(row)
                except InvalidStateError:
                    pass
            elif msg[0] == SYNCED:
                ev = self._syncs.get(msg[1])
                if ev is not None:
                    ev.set()
        with self._lock:
            if self._conn is conn:
                self._conn = None
            closing = self._closing
        if closing:
            return
        code = proc.poll()
        self.exits += 1
        log.error("decode process %d ended (exit %s); rows in flight fail, restarting", proc.pid, code)
        self._fail_pending(EngineUnavailableError("the decode process ended; retry"))
        for ev in list(self._syncs.values()):
            ev.set()
        conn.close()
        if not self.cfg.restart:
            return
        try:
            proc.kill()
            proc.wait(5)
        except Exception:
            pass
        try:
            self._start()
            self.restarts += 1
        except Exception as exc:  # every later row fails fast with the same typed error
            log.error("decode process restart failed: %s", exc)

    def _fail_pending(self, exc: Exception) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for _, fut in pending.values():
            try:
                fut.set_exception(exc)
            except InvalidStateError:
                pass


# --------------------------------------------------------------------------------- child side
def _child(conn: Connection, cfg: DecodeProcessConfig) -> None:
    import torch

    from thought_model.engine.decode import DecodeBatch, Decoder
    from thought_model.engine.loading import GrammarCache, load_model
    from thought_model.engine.scheduler import ContinuousBatcher

    torch.set_num_threads(cfg.threads)
    model, tokenizer, vocab_size, eos_id = load_model(Path(cfg.checkpoint), cfg.dtype)
    decoder = Decoder(model, tokenizer, vocab_size, eos_id, cfg.decode)
    cache = GrammarCache(tokenizer, vocab_size, eos_id)

    batcher = ContinuousBatcher(
        lambda n: DecodeBatch(decoder, n),
        cfg.scheduler,
        on_start=lambda: torch.set_num_threads(cfg.threads),
        name="decode-process",
    )
    send_lock = threading.Lock()
    # gid -> the compile's Future (its exception: the schema has no grammar). Compiles run on a
    # thread of their own, in order: a cold slot set does not hold up the intake of other rows
    # (xgrammar releases the interpreter lock while it compiles); a row of a grammar still
    # compiling waits for it in ``held``.
    compiler = ThreadPoolExecutor(1, thread_name_prefix="grammar-compile")
    grammars: dict[int, Future] = {}
    futures: dict[int, Future] = {}
    held: set[int] = set()  # rows waiting for their grammar
    lock = threading.RLock()  # a row failing inside submit runs reply() on this thread

    def reply(rid: int, fut: Future) -> None:
        with lock:
            futures.pop(rid, None)
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:  # the model failed: the parent's row fails with its reason
            msg = (DONE, rid, [], (0, 0, 0, 0), f"failed: {type(exc).__name__}: {exc}"[:300])
        else:
            r = fut.result()
            st = r.stats
            stats = (st.prompt_tokens, st.generated_tokens, st.forward_passes, st.jump_forward_tokens)
            msg = (DONE, rid, r.out_ids, stats, r.error)
        _quiet_send(conn, send_lock, msg)

    def start(rid: int, ids: list[int], g: Future, deadline: float | None, max_new: int) -> None:
        if g.cancelled():  # the child is shutting down: nobody waits for this row any more
            return
        exc = g.exception()
        if exc is not None:
            why = f"{type(exc).__name__}: {exc}"[:300]
            _quiet_send(conn, send_lock, (DONE, rid, [], (len(ids), 0, 0, 0), f"grammar_compile: {why}"))
            return
        with lock:
            fut = batcher.submit(Row(prompt_ids=ids, grammar=g.result(), deadline=deadline, max_new=max_new))
            futures[rid] = fut
        fut.add_done_callback(lambda f, rid=rid: reply(rid, f))

    def release(rid: int, ids: list[int], g: Future, deadline: float | None, max_new: int) -> None:
        with lock:
            if rid not in held:  # cancelled while its grammar compiled
                return
            held.discard(rid)
        start(rid, ids, g, deadline, max_new)

    gc.collect()
    gc.freeze()  # the loaded model and libraries are never garbage: keep them out of collections
    _send(conn, send_lock, (READY, os.getpid()))
    while True:
        try:
            msg = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            break
        kind = msg[0]
        if kind == ROW:
            _, rid, ids, gid, deadline, max_new = msg
            g = grammars.get(gid)
            if g is None:
                why = f"unknown grammar id {gid}"
                _send(conn, send_lock, (DONE, rid, [], (len(ids), 0, 0, 0), f"grammar_compile: {why}"))
            elif g.done():
                start(rid, ids, g, deadline, max_new)
            else:
                with lock:
                    held.add(rid)
                g.add_done_callback(lambda g, a=(rid, ids, deadline, max_new): release(a[0], a[1], g, *a[2:]))
        elif kind == GRAMMAR:
            _, gid, schema = msg
            grammars[gid] = compiler.submit(cache.get, schema)
        elif kind == CANCEL:
            with lock:
                held.discard(msg[1])
                f = futures.pop(msg[1], None)
            if f is not None:
                f.cancel()
        elif kind == SYNC:  # after every compile sent before it (one compile thread, in order)
            compiler.submit(_quiet_send, conn, send_lock, (SYNCED, msg[1]))
        elif kind == CLEAR:
            grammars.clear()
    compiler.shutdown(wait=False, cancel_futures=True)
    batcher.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m thought_model.engine.decode_process")
    ap.add_argument("--fd", type=int, required=True, help="this end of the parent's socket pair")
    ap.add_argument("--config", required=True, help="DecodeProcessConfig as JSON")
    a = ap.parse_args(argv)
    conn = Connection(a.fd)
    t0 = time.perf_counter()
    try:
        _child(conn, DecodeProcessConfig.from_json(a.config))
    finally:
        conn.close()
    log.debug("decode process ran %.1fs", time.perf_counter() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
