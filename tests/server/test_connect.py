"""The README's "Connect" commands as real processes: ``tao upstream-mock`` + ``tao serve --no-model``
with the shipped profiles, the official SDK in front; and the access log of ``tao serve`` survives
the in-process mock tool service that its first ``/v1/run`` starts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import openai
import pytest
from serve_helpers import ROOT, ServeProcess, free_port, wait_http

from router.profile import DEFAULT_PROFILES_PATH, load_profiles

MOCK_DEFAULT_PORT = 9100


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_default_profiles_point_at_the_mock_upstream_not_the_gateway():
    profiles = load_profiles(None)
    assert {p.endpoint for p in profiles} == {f"http://127.0.0.1:{MOCK_DEFAULT_PORT}/v1"}
    assert DEFAULT_PROFILES_PATH.read_text().count(":8080") == 0  # never the gateway's own port


@pytest.fixture
def upstream_mock(tmp_path):
    port = MOCK_DEFAULT_PORT if _port_free(MOCK_DEFAULT_PORT) else free_port()
    log = open(tmp_path / "mock.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tao", "upstream-mock", "--port", str(port)],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/v1/models", 30, proc)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


@pytest.mark.slow  # two processes; the SDK suite covers the gateway in-process
def test_gateway_with_default_profiles_and_mock_upstream(upstream_mock, tmp_path):
    env = {"TAO_API_KEY": ""}
    if upstream_mock != MOCK_DEFAULT_PORT:  # 9100 taken on this machine: same profiles, moved endpoints
        for name in ("GPT_4O_MINI", "GPT_4_1", "O3", "TAO_PLAN_LOCAL"):
            env[f"TAO_ENDPOINT_{name}"] = f"http://127.0.0.1:{upstream_mock}/v1"
    srv = ServeProcess(["--no-model"], tmp_path / "serve.log", env=env)
    try:
        wait_http(srv.base + "/healthz", 60, srv.proc)
        with openai.OpenAI(api_key="unused", base_url=srv.base + "/v1", max_retries=0) as c:
            r = c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
            assert r.choices[0].message.content
            text = "".join(
                ch.choices[0].delta.content or ""
                for ch in c.chat.completions.create(
                    model="o3", messages=[{"role": "user", "content": "hi"}], stream=True
                )
            )
            assert text.startswith("tok")
        assert srv.log_text().count("POST /v1/chat/completions") == 2  # no self-calls
    finally:
        srv.stop()


@pytest.mark.slow
def test_access_log_survives_the_in_process_mock_service(tmp_path):
    srv = ServeProcess(["--no-model"], tmp_path / "serve.log", env={"TAO_API_KEY": "", "TAO_TOOLS_URL": ""})
    try:
        wait_http(srv.base + "/healthz", 60, srv.proc)
        plan = {
            "version": "1.0",
            "intent": "weather",
            "steps": [
                {"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京"}, "dependencies": []}
            ],
        }
        with httpx.Client(base_url=srv.base, timeout=60) as c:
            r = c.post("/v1/run", json={"request": "北京天气", "plan": plan})
            assert r.status_code == 200, r.text
            for _ in range(3):
                assert c.get("/healthz", headers={"X-Request-ID": "after-run"}).status_code == 200
        deadline = time.monotonic() + 5
        while srv.log_text().count('"GET /healthz HTTP/1.1" 200') < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        log = srv.log_text()
        assert '"POST /v1/run HTTP/1.1" 200' in log
        assert log.count('"GET /healthz HTTP/1.1" 200') >= 4, log[-2000:]  # the wait's + 3 after the run
    finally:
        srv.stop()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_upstream_mock_cli_help():
    out = subprocess.run(
        [sys.executable, "-m", "tao", "upstream-mock", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0 and "--port" in out.stdout
