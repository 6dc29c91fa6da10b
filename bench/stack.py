"""Start and stop the local HTTP services a load test talks to (loopback, free ports, by pid).

``Service`` runs one command as a subprocess, waits until an HTTP GET on its health path answers
(any status below 500), and on exit terminates it (then kills it after a grace period). Output
goes to a log file whose tail is quoted if the service dies or never becomes ready.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.common import ROOT


class ServiceError(RuntimeError):
    """A service did not start (its log tail is in the message)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree_ticks(pid: int, top: bool = False) -> int:
    """utime+stime clock ticks of ``pid`` and its live descendants (a child that has gone since is
    not counted; ``top``: errors reading ``pid`` itself are raised)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (OSError, IndexError, ValueError):
        if top:
            raise
        return 0
    return ticks + sum(_tree_ticks(int(k)) for k in kids)


@dataclass
class Service:
    """A subprocess HTTP service on 127.0.0.1:``port``."""

    name: str
    args: list[str]  # after ``python``; ``{port}`` is substituted
    port: int = field(default_factory=free_port)
    health_path: str = "/healthz"
    require_200: bool = False  # readiness probes: only 200 means ready; a body saying "failed" aborts
    ready_timeout_s: float = 60.0
    env: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen | None = None
    log_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:] if self.log_path else ""
        except OSError:
            return ""

    def start(self) -> Service:
        fd, log = tempfile.mkstemp(prefix=f"bench-{self.name}-", suffix=".log")
        self.log_path = Path(log)
        cmd = [sys.executable, *[a.replace("{port}", str(self.port)) for a in self.args]]
        with os.fdopen(fd, "wb") as out:
            self.proc = subprocess.Popen(
                cmd,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **self.env},
                start_new_session=True,
            )
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServiceError(
                    f"{self.name} exited with code {self.proc.returncode} before it was ready:\n"
                    f"{self.log_tail()}"
                )
            try:
                r = httpx.get(self.base_url + self.health_path, timeout=1.0)
                if r.status_code == 200 or (r.status_code < 500 and not self.require_200):
                    return self
                if self.require_200 and "failed" in r.text:
                    self.stop()
                    raise ServiceError(
                        f"{self.name} reported a failed readiness check: {r.text[:500]}\n{self.log_tail()}"
                    )
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise ServiceError(
            f"{self.name} was not ready within {self.ready_timeout_s:.0f} s:\n{self.log_tail()}"
        )

    def stop(self, grace_s: float = 10.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def cpu_seconds(self) -> float | None:
        """User+system CPU time of the service process so far (Linux /proc), None if unknown;
        its live child processes included (``tao serve --workers N``: the workers)."""
        if self.proc is None:
            return None
        try:
            return _tree_ticks(self.proc.pid, top=True) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return None

    def __enter__(self) -> Service:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if self.log_path and self.log_path.exists():
            self.log_path.unlink()
