"""``tao serve --workers 2`` as a real process tree: a real Redis, the mock tool service as a
process with ``--no-dedup`` (only the runtime can prevent a duplicate side effect). Which worker
holds a connection is read from the kernel (the worker's own ESTABLISHED sockets, via psutil),
so "both answer" and "the same key on two workers" are facts, not guesses."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import orjson
import psutil
import pytest
from action_helpers import plan

from tao.server.cli import main

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow

EXPENSE = {"amount": 42.0, "category": "meal", "date": "2026-11-14", "description": "team lunch"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float, proc: subprocess.Popen) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, f"server exited early with {proc.returncode}"
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not ready after {timeout}s")


class RawConn:
    """One kept-alive HTTP/1.1 connection (its client port identifies it on the server side)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.local_port = self.sock.getsockname()[1]

    def request(
        self, method: str, path: str, body: dict | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        raw = orjson.dumps(body) if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(raw)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + raw)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = self.sock.recv(65536)
            assert chunk, "connection closed before a response"
            buf += chunk
        top, rest = buf.split(b"\r\n\r\n", 1)
        lines = top.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        hdrs = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}
        n = int(hdrs.get("content-length", "0"))
        while len(rest) < n:
            chunk = self.sock.recv(65536)
            assert chunk, "connection closed mid-body"
            rest += chunk
        return status, hdrs, rest[:n]

    def close(self) -> None:
        self.sock.close()


class WorkersProcess:
    def __init__(self, args: list[str], log: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._log = open(log, "wb")
        self.log_path = log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tao", "serve", "--port", str(self.port), *args],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def workers(self) -> list[psutil.Process]:
        """The worker processes (spawned children; not multiprocessing's resource tracker)."""
        out = []
        for c in psutil.Process(self.proc.pid).children():
            try:
                if "spawn_main" in " ".join(c.cmdline()):
                    out.append(c)
            except psutil.NoSuchProcess:
                pass
        return out

    def owners(self, conns: list[RawConn]) -> dict[int, int]:
        """client port -> pid of the worker holding that connection."""
        ports = {c.local_port for c in conns}
        out: dict[int, int] = {}
        for w in self.workers():
            for sc in w.net_connections(kind="tcp"):
                if sc.status == psutil.CONN_ESTABLISHED and sc.raddr and sc.raddr.port in ports:
                    if sc.laddr.port == self.port:
                        out[sc.raddr.port] = w.pid
        return out

    def wait_workers(self, n: int, timeout_s: float) -> list[psutil.Process]:
        """Until ``n`` workers exist and every one of them holds a connection it answered."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            ws = self.workers()
            if len(ws) == n:
                conns = [RawConn(self.port) for _ in range(24)]
                try:
                    if all(c.request("GET", "/healthz")[0] == 200 for c in conns):
                        if len(set(self.owners(conns).values())) == n:
                            return ws
                except (OSError, AssertionError):
                    pass
                finally:
                    for c in conns:
                        c.close()
            time.sleep(0.5)
        raise AssertionError(f"not {n} serving workers after {timeout_s} s:\n{self.log_text()[-3000:]}")

    def log_text(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout: float = 60.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                for w in self.workers():
                    w.kill()
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def mock_url(tmp_path_factory):
    port = free_port()
    log = open(tmp_path_factory.mktemp("mock") / "mock.log", "wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tao.mock_service",
            "--port",
            str(port),
            "--no-dedup",
            "--today",
            "2026-11-15",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/healthz", 30, proc)
        yield url
    finally:
        proc.kill()
        proc.wait(10)
        log.close()


@pytest.fixture(scope="module")
def served(mock_url, redis_server, tmp_path_factory):
    env = {"TAO_REDIS_URL": redis_server.url, "TAO_TOOLS_URL": mock_url, "TAO_API_KEY": ""}
    log = tmp_path_factory.mktemp("workers") / "serve.log"
    w = WorkersProcess(["--workers", "2", "--no-model", "--timeout", "20", "--log-level", "info"], log, env)
    try:
        wait_http(w.base + "/healthz", 180, w.proc)
        w.wait_workers(2, 180)
        yield w
    finally:
        w.stop()


def _expense_body() -> dict:
    return {
        "request": "报销午餐 42 元",
        "session": {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
        "plan": plan(("t1", "submit_expense", EXPENSE)),
    }


def _one_conn_per_worker(served: WorkersProcess) -> dict[int, RawConn]:
    """A kept-alive connection held by each worker (pid -> connection)."""
    picked: dict[int, RawConn] = {}
    spare: list[RawConn] = []
    for _ in range(64):
        c = RawConn(served.port)
        assert c.request("GET", "/healthz")[0] == 200
        pid = served.owners([c]).get(c.local_port)
        if pid is not None and pid not in picked:
            picked[pid] = c
        else:
            spare.append(c)
        if len(picked) == 2:
            break
    for c in spare:
        c.close()
    assert len(picked) == 2, "64 connections all landed on one worker"
    return picked


def test_two_workers_both_answer(served) -> None:
    workers = served.workers()
    assert len(workers) == 2 and len({w.pid for w in workers}) == 2
    conns = [RawConn(served.port) for _ in range(32)]
    try:
        body = {
            "request": "天气",
            "session": {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
            "plan": plan(("t1", "get_weather", {"city": "北京", "date": "2026-11-16"})),
        }
        for c in conns:
            status, _, raw = c.request("POST", "/v1/run", body)
            assert status == 200 and orjson.loads(raw)["status"] == "success", raw[:300]
        owners = served.owners(conns)
        assert set(owners) == {c.local_port for c in conns}  # every connection has exactly one owner
        per_worker = {pid: sum(1 for v in owners.values() if v == pid) for pid in {w.pid for w in workers}}
        assert all(n >= 1 for n in per_worker.values()), per_worker  # SO_REUSEPORT spread them
    finally:
        for c in conns:
            c.close()


def test_same_key_on_two_workers_runs_once_through_redis(served, mock_url) -> None:
    httpx.post(mock_url + "/_reset", timeout=5).raise_for_status()
    httpx.post(
        mock_url + "/_config", json={"slow_rate": 1.0, "slow_s": 1.5, "tools": ["submit_expense"]}, timeout=5
    ).raise_for_status()
    conns = _one_conn_per_worker(served)
    key, body = f"k-{uuid.uuid4()}", _expense_body()
    out: dict[int, list[tuple[int, dict[str, str], bytes]]] = {pid: [] for pid in conns}

    def send(pid: int, c: RawConn) -> None:
        end = time.monotonic() + 25
        while True:  # resend while the other worker's run holds the key, as a client would
            r = c.request("POST", "/v1/run", body, {"Idempotency-Key": key})
            out[pid].append(r)
            if r[0] != 409 or time.monotonic() > end:
                return
            time.sleep(0.25)

    try:
        threads = [threading.Thread(target=send, args=(pid, c)) for pid, c in conns.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        finals = [rs[-1] for rs in out.values()]
        assert all(r[0] == 200 for r in finals), [r[2][:200] for r in finals]
        a, b = (orjson.loads(r[2]) for r in finals)
        assert a["status"] == "success" and a == b, (a.get("message"), a.get("steps"))  # one recorded reply
        stats = httpx.get(mock_url + "/_stats", timeout=5).json()
        assert stats["dedup"] is False
        assert stats["side_effects"] == {"submit_expense": 1}, stats
    finally:
        httpx.post(mock_url + "/_config", json={"slow_rate": 0.0, "tools": None}, timeout=5)
        for c in conns.values():
            c.close()


def test_killed_worker_is_replaced_and_the_other_keeps_answering(served) -> None:
    before = {w.pid for w in served.workers()}
    victim = sorted(before)[0]
    os.kill(victim, signal.SIGKILL)
    end = time.monotonic() + 10
    while psutil.pid_exists(victim) and psutil.Process(victim).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < end
        time.sleep(0.05)
    # while the replacement starts, every new connection is answered by the survivor
    for _ in range(20):
        r = httpx.get(served.base + "/healthz", timeout=10)
        assert r.status_code == 200
    after = served.wait_workers(2, 180)
    pids = {w.pid for w in after}
    assert victim not in pids and len(pids & before) == 1  # the survivor, plus a new worker
    assert "exited with status -9; replacing it" in served.log_text()


def test_sigterm_drains_in_flight_and_stops_every_worker(mock_url, redis_server, tmp_path) -> None:
    env = {"TAO_REDIS_URL": redis_server.url, "TAO_TOOLS_URL": mock_url, "TAO_API_KEY": ""}
    w = WorkersProcess(
        ["--workers", "2", "--no-model", "--timeout", "20", "--test-fault-headers"], tmp_path / "s.log", env
    )
    try:
        wait_http(w.base + "/healthz", 180, w.proc)
        pids = [p.pid for p in w.wait_workers(2, 180)]
        body = {
            "request": "天气",
            "session": {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
            "plan": plan(("t1", "get_weather", {"city": "北京", "date": "2026-11-16"})),
        }
        got: list[httpx.Response] = []
        slow = threading.Thread(
            target=lambda: got.append(
                httpx.post(w.base + "/v1/run", json=body, headers={"X-Mock-Fault": "slow"}, timeout=30)
            )
        )
        slow.start()
        time.sleep(0.7)  # the run is waiting on the mock's slow reply (1.5 s)
        w.proc.send_signal(signal.SIGTERM)
        slow.join(30)
        assert got and got[0].status_code == 200 and got[0].json()["status"] == "success"
        assert w.proc.wait(60) == 0
        assert not any(
            psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids
        )
        with pytest.raises(httpx.HTTPError):
            httpx.get(w.base + "/healthz", timeout=2)
    finally:
        w.stop()


def test_workers_flag_is_checked(capsys) -> None:
    assert main(["--workers", "0", "--no-model", "--port", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_a_worker_that_cannot_start_stops_the_command(tmp_path) -> None:
    w = WorkersProcess(
        ["--workers", "2", "--no-model", "--registry", "no_such_module_h5:domain"], tmp_path / "f.log", {}
    )
    try:
        assert w.proc.wait(180) == 3, w.log_text()[-2000:]
        assert "before it served" in w.log_text()
    finally:
        w.stop()
