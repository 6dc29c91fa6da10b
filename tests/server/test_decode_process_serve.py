"""A real ``tao serve`` decodes in a child process of its own (thought_model.engine.decode_process):
killed mid-load, the child's rows are answered 503 ``engine_unavailable`` with ``Retry-After`` (never
a hang or a 500), ``/readyz`` says ``restarting`` until a new child is up, and ``/v1/plan`` answers
200 again; ``TAO_DECODE_PROCESS=0``
keeps decoding in the server process."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.server.serve_helpers import ServeProcess, wait_http

pytestmark = pytest.mark.slow

BODY = {"request": "What is the status of order 202401150000000001?", "session": {"user_id": "U00000001"}}


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:  # field 4: the parent's pid
            out.append(int(d.name))
    return out


def _decode_children(pid: int) -> list[int]:
    found = []
    for c in _children(pid):
        try:
            cmd = Path(f"/proc/{c}/cmdline").read_bytes()
        except OSError:
            continue
        if b"thought_model.engine.decode_process" in cmd:
            found.append(c)
    return found


def _decode_metrics(base: str) -> dict[str, float]:
    """The ``tao_plan_decode_process_*`` samples of ``/metrics`` (name suffix -> value)."""
    text = httpx.get(base + "/metrics", timeout=10).text
    prefix = "tao_plan_decode_process_"
    out = {}
    for line in text.splitlines():
        if line.startswith(prefix) and not line.endswith("_created"):
            name, value = line.split()[:2]
            if not name.endswith("_created"):
                out[name[len(prefix) :]] = float(value)
    return out


def _serve(tmp_path: Path, env: dict[str, str]) -> ServeProcess:
    srv = ServeProcess(["--engine", "cpu"], tmp_path / "serve.log", env={"TAO_API_KEY": "", **env})
    try:
        wait_http(srv.base + "/readyz", 240, srv.proc)
    except Exception:
        srv.stop()
        raise RuntimeError("server did not become ready:\n" + srv.log_text()[-3000:]) from None
    return srv


def test_a_killed_decode_process_is_a_503_then_restarted(tmp_path: Path) -> None:
    srv = _serve(tmp_path, {"TAO_DECODE_PROCESS": "1"})
    try:
        [child] = _decode_children(srv.proc.pid)
        assert _decode_metrics(srv.base) == {"up": 1.0, "exits_total": 0.0, "restarts_total": 0.0}
        maps = Path(f"/proc/{srv.proc.pid}/maps").read_text()
        assert "libtorch" not in maps and "xgrammar" not in maps  # the model lives in the child only
        assert "libtorch" in Path(f"/proc/{child}/maps").read_text()
        ok = httpx.post(srv.base + "/v1/plan", json=BODY, timeout=30)
        assert ok.status_code == 200, ok.text
        assert ok.json()["plan"]["steps"][0]["tool"] == "get_order_status"

        async def load() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=srv.base, timeout=60) as client:
                tasks = [asyncio.create_task(client.post("/v1/plan", json=BODY)) for _ in range(24)]
                await asyncio.sleep(0.05)
                os.kill(child, signal.SIGKILL)
                return await asyncio.gather(*tasks)

        answers = asyncio.run(load())
        codes = {r.status_code for r in answers}
        assert codes <= {200, 503}, codes  # every caller answered: a plan or a typed retry
        assert 503 in codes  # 24 rows take > 50 ms to decode: some were in the killed child
        for r in answers:
            if r.status_code == 503:
                assert r.json()["error"]["code"] == "engine_unavailable", r.text
                assert r.headers.get("retry-after")
        ready = httpx.get(srv.base + "/readyz", timeout=10)  # a new child imports torch: seconds
        assert ready.status_code == 503, ready.text
        assert ready.json()["checks"]["plan_engine"].startswith("restarting"), ready.text
        assert _decode_metrics(srv.base)["exits_total"] == 1.0
        end = time.monotonic() + 180
        while time.monotonic() < end:
            r = httpx.post(srv.base + "/v1/plan", json=BODY, timeout=30)
            if r.status_code == 200:
                break
            assert r.status_code == 503, r.text
            time.sleep(0.5)
        assert r.status_code == 200
        assert r.json()["plan"]["steps"] == ok.json()["plan"]["steps"]  # the same plan as before
        [again] = _decode_children(srv.proc.pid)
        assert again != child
        assert _decode_metrics(srv.base) == {"up": 1.0, "exits_total": 1.0, "restarts_total": 1.0}
        assert srv.proc.poll() is None  # the server itself never went down
    finally:
        srv.stop()
    assert not _decode_children(srv.proc.pid)


def test_the_switch_keeps_decoding_in_the_server_process(tmp_path: Path) -> None:
    srv = _serve(tmp_path, {"TAO_DECODE_PROCESS": "0"})
    try:
        assert _decode_children(srv.proc.pid) == []
        assert _decode_metrics(srv.base) == {}  # nothing exported without a child
        r = httpx.post(srv.base + "/v1/plan", json=BODY, timeout=30)
        assert r.status_code == 200, r.text
    finally:
        srv.stop()
