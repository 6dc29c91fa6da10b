"""``tao serve --workers N``: N worker processes serving one port.

Each worker is a spawned process that builds its own app and plan engine (``tao serve``'s own
start-up: :func:`tao.server.cli.build_server`) and listens on its **own** socket bound with
``SO_REUSEPORT`` to the same address, so the kernel spreads new connections evenly across the
workers (a listening socket shared by all of them lets whichever wakes first take a whole burst
of keep-alive connections, leaving the others idle for their lifetime). The parent only
supervises:

* a worker that dies (killed, crashed) is replaced; its in-flight requests are lost with it,
  connections already accepted by the others keep being served, and new connections go to the
  remaining sockets until the replacement listens (a replacement that fails again is retried
  with a growing back-off, never more often than every ``restart_backoff_s``);
* a worker that exits before it ever served during the first start-up (bad checkpoint, domain,
  port in use) stops them all: exit status 3;
* SIGTERM/SIGINT to the parent: each worker gets SIGTERM and drains as a single ``tao serve`` does
  (``--graceful-timeout``), then the parent exits 0; a worker still there
  ``graceful_timeout_s + kill_margin_s`` later is killed. A worker also gets SIGTERM when the
  parent dies (``PR_SET_PDEATHSIG``), so none outlives it.

State a request may need from another worker goes through Redis (``TAO_REDIS_URL``): idempotency
records, sessions, approvals and run state, as between replicas. Without it each worker keeps
its own in-process copies, so a resent ``Idempotency-Key`` or a follow-up turn that lands on
another worker is not recognised; the parent warns about that at start. Per worker: the
admission bounds (``--max-inflight-*``), the circuit breakers and ``/metrics`` (a scrape sees the
worker it lands on).
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing as mp
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event

log = logging.getLogger("tao.server.workers")

STARTUP_FAILED = 3  # a worker could not start: the whole command exits with this
_PR_SET_PDEATHSIG = 1


class WorkerStartError(RuntimeError):
    """A worker exited before it served during the first start-up."""


def reuseport_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` with ``SO_REUSEPORT`` (one per worker)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _die_with_parent() -> None:
    """Ask the kernel to SIGTERM this process when its parent dies (Linux; elsewhere a no-op)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
    except (OSError, AttributeError):
        pass


def _worker_main(argv: list[str], index: int, port: int, ready: Event) -> None:
    """One worker: ``tao serve``'s own start-up on a SO_REUSEPORT socket of the shared port."""
    _die_with_parent()
    from tao.server.cli import build_server, configure_logging, parser, server_config

    args = parser().parse_args(argv)
    configure_logging(args.log_level)
    cfg = server_config(args)
    server = build_server(args, cfg)
    if isinstance(server, str):
        print(f"tao serve (worker {index}): {server}", file=sys.stderr)
        raise SystemExit(STARTUP_FAILED)
    sock = reuseport_socket(cfg.host, port)

    def signal_ready() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.05)
        if server.started:
            ready.set()

    threading.Thread(target=signal_ready, daemon=True, name="tao-worker-ready").start()
    server.run(sockets=[sock])


@dataclass(frozen=True)
class SupervisorConfig:
    argv: list[str]  # the `tao serve` arguments every worker parses
    workers: int
    host: str
    port: int  # 0 = a free port chosen once, shared by every worker
    graceful_timeout_s: float = 30.0
    shared_state: bool = False  # TAO_REDIS_URL is set
    ready_timeout_s: float = 900.0  # a worker loading the plan model on a loaded machine
    restart_backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    kill_margin_s: float = 10.0


@dataclass
class _Slot:
    index: int
    proc: BaseProcess | None = None
    ready: Event | None = None
    served: bool = False
    failures: int = 0
    next_start: float = 0.0
    starts: int = field(default=0)


class Supervisor:
    """Starts, replaces and stops the worker processes (see the module doc)."""

    def __init__(self, config: SupervisorConfig) -> None:
        self.config = config
        self._ctx = mp.get_context("spawn")
        self._stop = threading.Event()
        self._slots = [_Slot(i) for i in range(config.workers)]
        self._reserve: socket.socket | None = None
        self.port = config.port

    # ------------------------------------------------------------------ lifecycle
    def run(self) -> int:
        """Serve until SIGTERM/SIGINT; the exit status of ``tao serve``."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._stop.set())
        try:
            self.start()
        except WorkerStartError as exc:
            log.error("%s", exc)
            self.stop()
            return STARTUP_FAILED
        except OSError as exc:
            log.error("cannot bind %s:%s: %s", self.config.host, self.config.port, exc)
            self.stop()
            return STARTUP_FAILED
        while not self._stop.wait(0.2):
            self.supervise()
        self.stop()
        return 0

    def start(self) -> None:
        """Start every worker and wait until each serves (or raise :class:`WorkerStartError`)."""
        c = self.config
        if not c.shared_state:
            log.warning(
                "tao serve: %d workers without TAO_REDIS_URL: idempotency keys, sessions, approvals "
                "and run state stay inside each worker (a resent key or a follow-up turn on another "
                "worker is not recognised); set TAO_REDIS_URL to share them",
                c.workers,
            )
        host = c.host.strip("[]")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # a plain bind first: a port some other server holds (SO_REUSEPORT or not) is an error
        # here, never a silent share of its connections
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, self.port))
            self.port = probe.getsockname()[1]
        # this socket holds the port while workers come and go (it never listens)
        self._reserve = socket.socket(family, socket.SOCK_STREAM)
        self._reserve.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._reserve.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self._reserve.bind((host, self.port))
        for slot in self._slots:
            self._spawn(slot)
        deadline = time.monotonic() + c.ready_timeout_s
        for slot in self._slots:
            assert slot.proc is not None and slot.ready is not None
            while not slot.ready.wait(0.2):
                if self._stop.is_set():
                    return
                if slot.proc.exitcode is not None:
                    raise WorkerStartError(
                        f"worker {slot.index} exited with status {slot.proc.exitcode} before it served"
                    )
                if time.monotonic() > deadline:
                    raise WorkerStartError(
                        f"worker {slot.index} did not serve within {c.ready_timeout_s:.0f} s"
                    )
            slot.served = True
        log.info(
            "tao serve: %d workers on %s:%d (pids %s)",
            c.workers,
            c.host,
            self.port,
            ", ".join(str(s.proc.pid) for s in self._slots if s.proc),
        )

    def supervise(self) -> None:
        """One pass: replace workers that exited (with back-off for ones that fail again)."""
        now = time.monotonic()
        for slot in self._slots:
            proc = slot.proc
            if proc is not None and slot.ready is not None and slot.ready.is_set():
                slot.served, slot.failures = True, 0
            if proc is not None and proc.exitcode is None:
                continue
            if proc is not None:  # it died: schedule its replacement
                failed_early = slot.ready is None or not slot.ready.is_set()
                slot.failures = slot.failures + 1 if failed_early else 0
                delay = min(
                    self.config.max_backoff_s, self.config.restart_backoff_s * 2 ** max(0, slot.failures - 1)
                )
                slot.next_start = now + (delay if failed_early else 0.0)
                log.warning(
                    "tao serve: worker %d (pid %s) exited with status %s; replacing it%s",
                    slot.index,
                    proc.pid,
                    proc.exitcode,
                    f" in {delay:.0f} s" if failed_early else "",
                )
                proc.join(0)
                slot.proc = None
            if now >= slot.next_start:
                self._spawn(slot)

    def stop(self) -> None:
        """SIGTERM every worker, wait for their graceful shutdown, kill what is left."""
        procs = [s.proc for s in self._slots if s.proc is not None]
        for p in procs:
            if p.exitcode is None:
                p.terminate()
        deadline = time.monotonic() + self.config.graceful_timeout_s + self.config.kill_margin_s
        for p in procs:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.exitcode is None:
                log.warning("tao serve: worker pid %s did not stop in time; killing it", p.pid)
                p.kill()
                p.join(5)
        if self._reserve is not None:
            self._reserve.close()
            self._reserve = None

    # ------------------------------------------------------------------ helpers
    def _spawn(self, slot: _Slot) -> None:
        slot.ready = self._ctx.Event()
        proc = self._ctx.Process(
            target=_worker_main,
            args=(self.config.argv, slot.index, self.port, slot.ready),
            name=f"tao-serve-worker-{slot.index}",
            daemon=False,
        )
        proc.start()
        slot.proc = proc
        slot.starts += 1

    def pids(self) -> list[int]:
        return [s.proc.pid for s in self._slots if s.proc is not None and s.proc.pid is not None]
