"""Run the mock service: in a background thread (tests, ``tao run``, ``tao serve``) or as a process."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

import uvicorn

from tao.mock_service.app import MockState, create_app


class _IsolatedConfig(uvicorn.Config):
    """uvicorn config whose logging options apply to this server only (no global logger changes)."""

    def configure_logging(self) -> None:
        return None


@dataclass
class RunningService:
    url: str
    state: MockState
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_in_thread(state: MockState | None = None, host: str = "127.0.0.1", port: int = 0) -> RunningService:
    """Start the service on a free loopback port in a daemon thread; returns once it accepts."""
    st = state or MockState()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    real_port = sock.getsockname()[1]
    # not uvicorn.Config: its configure_logging() would reset the process-wide uvicorn loggers and
    # silence the access log of the server this runs inside (tao serve's /v1/run)
    config = _IsolatedConfig(
        create_app(st), lifespan="off", ws="none", access_log=False, timeout_keep_alive=5
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="tao-mock")
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.01)
    if not server.started:
        raise RuntimeError("mock tool service did not start")
    return RunningService(f"http://{host}:{real_port}", st, server, thread)
