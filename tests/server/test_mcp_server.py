"""MCP out: the official SDK's client lists and calls ``tao mcp`` tools, over stdio and streamable
HTTP, against the reference domain (its mock tool service started in-process by the runtime)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import httpx
import pytest
from mcp import Client, StdioServerParameters
from serve_helpers import ROOT, free_port

pytestmark = pytest.mark.slow  # heavy module: runs in `make test`, not `make test-fast`

WEATHER_PLAN = {
    "version": "1.0",
    "intent": "weather",
    "steps": [{"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京"}, "dependencies": []}],
}
EMAIL_PLAN = {
    "version": "1.0",
    "intent": "send_mail",
    "steps": [
        {
            "step_id": "t1",
            "tool": "send_email",
            "arguments": {"to": "a@example.com", "subject": "hi", "body": "hello"},
            "dependencies": [],
        }
    ],
}


def _data(res) -> dict:
    return res.structured_content if res.structured_content is not None else json.loads(res.content[0].text)


async def _exercise(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"plan", "run", "observe", "get_weather", "list_orders"} <= set(tools)
    assert "send_email" not in tools and "cancel_order" not in tools  # only read-only registry tools
    assert tools["get_weather"].annotations.read_only_hint is True
    assert tools["run"].annotations.read_only_hint is False
    assert tools["get_weather"].input_schema["required"] == ["city"]

    weather = await client.call_tool("get_weather", {"city": "北京"})
    assert weather.is_error is False and "temperature" in json.dumps(_data(weather))
    bad = await client.call_tool("get_weather", {})  # argument check before any call
    assert bad.is_error is True and "city" in bad.content[0].text

    run = _data(await client.call_tool("run", {"request": "北京天气", "plan": WEATHER_PLAN}))
    assert run["status"] == "success" and run["steps"][0]["confidence"] == 1.0
    blocked = _data(await client.call_tool("run", {"request": "send it", "plan": EMAIL_PLAN}))
    assert blocked["status"] == "needs_approval" and blocked["error_type"] == "PERMISSION_DENIED"

    obs = _data(
        await client.call_tool(
            "observe",
            {
                "tool": "get_weather",
                "result": {"status_code": 500, "response_time_ms": 3, "parsed_data": None},
            },
        )
    )
    assert obs["valid"] is False and obs["confidence_score"] == 0.0

    no_model = await client.call_tool("plan", {"request": "北京天气"})
    assert no_model.is_error is True and "--no-model" in no_model.content[0].text


def test_tao_mcp_over_stdio():
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tao", "mcp", "--no-model"], cwd=str(ROOT)
    )

    async def go() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            await _exercise(client)

    asyncio.run(go())


@pytest.mark.slow  # the same tool calls as over stdio, through a second transport
def test_tao_mcp_over_streamable_http(tmp_path):
    port = free_port()
    log = open(tmp_path / "mcp.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tao", "mcp", "--no-model", "--transport", "http", "--port", str(port)],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        import time

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)

        async def go() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=60) as client:
                await _exercise(client)

        asyncio.run(go())
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
