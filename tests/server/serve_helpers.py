"""Helpers for real servers on 127.0.0.1: `tao serve` subprocesses and in-thread uvicorn."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited early with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not ready after {timeout}s")


class ServeProcess:
    """``python -m tao serve ARGS`` on a free port; stderr goes to a log file."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        full_env = {**os.environ, **(env or {})}
        self._log_f = open(log, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tao", "serve", "--port", str(self.port), *args],
            cwd=ROOT,
            env=full_env,
            stdout=self._log_f,
            stderr=subprocess.STDOUT,
        )

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log_f.close()
        return self.proc.returncode

    def log_text(self) -> str:
        self._log_f.flush()
        return self.log.read_text(errors="replace")


class ThreadServer:
    """A uvicorn server for an app object, run in a thread of the test process."""

    def __init__(self, app) -> None:
        import uvicorn

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(
                app, host="127.0.0.1", port=self.port, log_config=None, lifespan="on", access_log=False
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        wait_http(self.base + "/healthz", 20)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)
