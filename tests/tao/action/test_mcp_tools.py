"""MCP in: a real MCP server process (the SDK's MCPServer, tests/tao/action/mcp_inventory_server.py)
imported as a tool domain, its tools planned (replayed plans), executed through the MCP session
under the same contracts, and observed; over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tao.action.mcp_tools import McpRefError, McpSource, permission_of, tool_name
from tao.contracts import ErrorType, Permission
from tao.domains import DomainLoadError, load_domain
from tao.loop.planner import ReplayPlanner
from tao.loop.runtime import Runtime, RuntimeConfig

SERVER = Path(__file__).with_name("mcp_inventory_server.py")
ROOT = Path(__file__).resolve().parents[3]


def _plan(*steps: tuple) -> dict:
    return {
        "version": "1.0",
        "intent": "inventory",
        "steps": [
            {
                "step_id": s[0],
                "tool": s[1],
                "arguments": s[2],
                "dependencies": list(s[3]) if len(s) > 3 else [],
            }
            for s in steps
        ],
    }


@pytest.fixture
def call_log(tmp_path, monkeypatch):
    path = tmp_path / "calls.log"
    path.write_text("")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return path


def _stdio_ref(call_log: Path) -> str:
    # the SDK starts stdio servers with a minimal environment: the log path goes through `env`
    return f"mcp+stdio:env MCP_CALL_LOG={call_log} {sys.executable} {SERVER}"


def _calls(call_log: Path) -> list[str]:
    return call_log.read_text().split()


def test_refs_and_annotation_mapping():
    assert McpSource.parse("mcp+stdio:python x.py --a 'b c'").command == ("python", "x.py", "--a", "b c")
    assert McpSource.parse("mcp+http://h:1/mcp").url == "http://h:1/mcp"
    with pytest.raises(McpRefError):
        McpSource.parse("mcp+stdio:")
    assert tool_name("Get-Item.v2") == "get_item_v2"
    assert permission_of(None) == (Permission.HIGH_RISK, False)  # MCP defaults: may be destructive


@pytest.mark.slow
def test_stdio_server_becomes_contracts(call_log):
    dom = load_domain(_stdio_ref(call_log))
    specs = dom.registry()
    assert set(specs) == {"list_items", "get_item", "add_note", "set_price", "delete_item", "export_report"}
    want = {
        "list_items": (Permission.READ, True),
        "get_item": (Permission.READ, True),
        "add_note": (Permission.WRITE, False),
        "set_price": (Permission.WRITE, True),
        "delete_item": (Permission.HIGH_RISK, False),
        "export_report": (Permission.HIGH_RISK, False),  # no annotations
    }
    assert {n: (s.permission, s.idempotent) for n, s in specs.items()} == want
    get = specs["get_item"]
    assert get.args_schema["properties"]["sku"]["pattern"] == "^[A-Z][0-9]$"  # inputSchema
    assert set(get.response_schema["required"]) == {"sku", "name", "price", "notes"}  # outputSchema
    assert get.extract["price"] == "/price" and dom.transport.startswith("mcp+stdio:")
    assert _calls(call_log) == []  # listing calls nothing


@pytest.mark.slow
def test_unreachable_server_is_a_typed_load_error(tmp_path):
    with pytest.raises(DomainLoadError):
        load_domain(f"mcp+stdio:{sys.executable} {tmp_path / 'missing.py'}")


async def _run(dom, plan: dict, approve: tuple[str, ...] = ()):
    from tao.action.permissions import approve_tools

    rt = Runtime(RuntimeConfig(), domain=dom)
    try:
        await rt.registry.aconnect()
        rep = await rt.loop(ReplayPlanner(plan)).run("inventory", None, approver=approve_tools(approve))
        return rep.to_dict(), rt
    finally:
        await rt.aclose()


@pytest.mark.slow
def test_plan_executed_and_observed_through_mcp_destructive_blocked(call_log):
    dom = load_domain(_stdio_ref(call_log))
    plan = _plan(
        ("t1", "list_items", {"max_price": 100}),
        ("t2", "get_item", {"sku": "A1"}, ["t1"]),
        ("t3", "add_note", {"sku": "A1", "note": "checked"}, ["t2"]),
        ("t4", "set_price", {"sku": "A1", "price": 30.0}, ["t2"]),
        ("t5", "delete_item", {"sku": "A1"}, ["t3", "t4"]),
    )
    out, _ = asyncio.run(_run(dom, plan))
    steps = {s["step_id"]: s for s in out["steps"]}
    for sid in ("t1", "t2", "t3", "t4"):  # executed and observed: contract checks passed
        assert steps[sid]["status"] == "ok" and steps[sid]["confidence"] == 1.0, steps[sid]
    assert steps["t1"]["extracted"] == {"count": 2, "skus": ["A1", "B2"]}
    assert steps["t2"]["extracted"]["name"] == "kettle"
    assert out["status"] == "needs_approval" and steps["t5"]["error_type"] == "PERMISSION_DENIED"
    assert "delete_item" not in _calls(call_log)  # the destructive call never reached the server
    assert sorted(_calls(call_log)) == ["add_note", "get_item", "list_items", "set_price"]

    approved, _ = asyncio.run(
        _run(dom, _plan(("t1", "delete_item", {"sku": "B2"})), approve=("delete_item",))
    )
    assert approved["status"] == "success" and _calls(call_log)[-1] == "delete_item"


@pytest.mark.slow
def test_arguments_checked_before_the_call_and_tool_errors_typed(call_log):
    dom = load_domain(_stdio_ref(call_log))
    out, _ = asyncio.run(_run(dom, _plan(("t1", "get_item", {"sku": "zz"}))))
    err = out["steps"][0]["error_type"] if out["steps"] else out["error_type"]
    assert err in ("TOOL_ARGUMENT_INVALID", "PLAN_INVALID"), out  # the plan check uses inputSchema
    assert _calls(call_log) == []  # no call made
    out, _ = asyncio.run(_run(dom, _plan(("t1", "get_item", {"sku": "Z9"}))))  # the tool raises
    assert out["steps"][0]["error_type"] == ErrorType.TOOL_CLIENT_ERROR
    assert _calls(call_log) == ["get_item"]  # a client error is not retried


@pytest.mark.slow  # a second server process; stdio covers the same contract path in the fast suite
def test_streamable_http_server(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = open(tmp_path / "mcp.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)], stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        dom = load_domain(f"mcp+http://127.0.0.1:{port}/mcp")
        assert dom.registry()["delete_item"].permission is Permission.HIGH_RISK
        out, _ = asyncio.run(_run(dom, _plan(("t1", "get_item", {"sku": "B2"}))))
        assert out["status"] == "success" and out["steps"][0]["extracted"]["price"] == 12.5
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
