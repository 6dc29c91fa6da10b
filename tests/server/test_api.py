"""The HTTP API through a real `tao serve` (uvicorn) on loopback with the CPU engine on a tiny
model: /v1/plan, /v1/observe(+batch), bad input, metrics, and graceful shutdown (last test)."""

from __future__ import annotations

import asyncio
import signal
import uuid

import httpx
import pytest

pytestmark = pytest.mark.slow  # heavy module: runs in `make test`, not `make test-fast`

PLAN_TOOLS = ["get_weather", "get_order_status", "get_user_profile"]


def test_ready_with_cpu_engine(plan_server):
    r = httpx.get(plan_server.base + "/readyz")
    assert r.status_code == 200
    # the hybrid composer wraps the CPU engine by default (COMPOSE_DEFAULT); TAO_COMPOSE=0 gives the bare one
    assert r.json()["checks"]["plan_engine"] in {"loaded (composing+cpu)", "loaded (cpu)"}


def test_plan_returns_checked_stamped_plan(plan_server):
    r = httpx.post(
        plan_server.base + "/v1/plan",
        headers={"X-Request-ID": "plan-1"},
        timeout=30,
        json={
            "request": "weather in Paris tomorrow",
            "tools": PLAN_TOOLS,
            "session": {"user_id": "U12345678", "timezone": "Europe/Paris"},
        },
    )
    assert r.status_code == 200, r.text
    assert r.headers["x-request-id"] == "plan-1"
    body = r.json()
    plan = body["plan"]
    uuid.UUID(plan["thought_id"])
    assert plan["created_at"] and plan["version"] == "1.0"
    assert body["order"] == [s["step_id"] for s in plan["steps"]]
    assert {s["tool"] for s in plan["steps"]} <= set(PLAN_TOOLS)
    assert body["stats"]["generated_tokens"] > 0 and body["stats"]["forward_passes"] > 0
    import rust_validator

    checked = {k: v for k, v in plan.items() if k not in ("thought_id", "created_at")}
    # resolved_from is the runtime's annotation (tao.loop.resolve.for_check drops it the same way)
    checked["steps"] = [{k: v for k, v in s.items() if k != "resolved_from"} for s in plan["steps"]]
    assert rust_validator.check_plan(checked)["valid"]


async def test_concurrent_plans_all_succeed(plan_server):
    async with httpx.AsyncClient(base_url=plan_server.base, timeout=60) as client:
        rs = await asyncio.gather(
            *(
                client.post("/v1/plan", json={"request": f"order {i:018d} status", "tools": PLAN_TOOLS})
                for i in range(8)
            )
        )
    assert [r.status_code for r in rs] == [200] * 8


@pytest.mark.parametrize(
    "body,ctype,status,etype",
    [
        (b'{"request": "weather', "application/json", 400, "malformed_json"),
        (b'{"request": "\xff\xfe"}', "application/json", 400, "invalid_utf8"),
        ('{"request": "a\u2028b"}'.encode(), "application/json", 400, "invalid_text"),
        (b'{"request": "a\\u2029b"}', "application/json", 400, "invalid_text"),
        (b'{"request": "hi", "tools": ["no_such_tool"]}', "application/json", 422, "unknown_tool"),
        (b'{"request": "hi", "bogus": 1}', "application/json", 422, "invalid_request"),
        (b'{"tools": ["get_weather"]}', "application/json", 422, "invalid_request"),
        (b'{"request": 42}', "application/json", 422, "invalid_request"),
        (b"[1, 2]", "application/json", 422, "invalid_request"),
        (b'{"request": "   "}', "application/json", 422, "invalid_request"),
        (b"", "application/json", 400, "malformed_json"),
    ],
)
def test_plan_bad_input_is_typed_4xx(plan_server, body, ctype, status, etype):
    r = httpx.post(plan_server.base + "/v1/plan", content=body, headers={"content-type": ctype})
    assert r.status_code == status, r.text
    err = r.json()
    assert err["error"]["type"] == etype and err["trace_id"] == r.headers["x-trace-id"]


def test_oversize_body_is_413_and_server_survives(plan_server):
    r = httpx.post(
        plan_server.base + "/v1/plan",
        content=b'{"request":"' + b"a" * (2 << 20) + b'"}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["error"]["type"] == "body_too_large"
    assert httpx.get(plan_server.base + "/healthz").status_code == 200


def _order_result(status: str) -> dict:
    return {
        "tool": "get_order_status",
        "status_code": 200,
        "response_time_ms": 12.0,
        "parsed_data": {"order_id": "123456789012345678", "status": status},
    }


def test_observe_valid_and_invalid(plan_server):
    ok = httpx.post(
        plan_server.base + "/v1/observe",
        json={"tool": "get_order_status", "result": _order_result("shipped")},
    )
    assert ok.status_code == 200, ok.text
    assert ok.json()["valid"] is True and ok.json()["extracted_data"]["status"] == "shipped"
    bad = httpx.post(plan_server.base + "/v1/observe", json={"result": _order_result("unknown")})
    assert bad.status_code == 200
    assert bad.json()["valid"] is False and bad.json()["error_type"]


def test_observe_raw_bytes_and_batch(plan_server):
    import orjson

    raw = orjson.dumps(_order_result("delivered"))
    r = httpx.post(
        plan_server.base + "/v1/observe?tool=get_order_status",
        content=raw,
        headers={"content-type": "application/octet-stream"},
    )
    assert r.status_code == 200 and r.json()["valid"] is True
    items = [{"result": _order_result(s)} for s in ("paid", "unknown", "refunded")]
    b = httpx.post(plan_server.base + "/v1/observe/batch", json={"items": items})
    assert b.status_code == 200
    assert [x["valid"] for x in b.json()["results"]] == [True, False, True]


@pytest.mark.parametrize(
    "url,body,ctype,status,etype",
    [
        (
            "/v1/observe",
            b'{"tool": "nope", "result": {"tool": "nope"}}',
            "application/json",
            422,
            "unknown_tool",
        ),
        (
            "/v1/observe",
            b'{"result": {"tool": "get_order_status", "status_code": "x"}}',
            "application/json",
            422,
            "invalid_request",
        ),
        ("/v1/observe", b'{"result": ', "application/json", 400, "malformed_json"),
        (
            "/v1/observe?tool=get_order_status",
            b"not json at all",
            "application/octet-stream",
            400,
            "invalid_action_result",
        ),
        ("/v1/observe", b"{}", "application/octet-stream", 422, "invalid_request"),
        ("/v1/observe/batch", b'{"items": []}', "application/json", 422, "invalid_request"),
    ],
)
def test_observe_bad_input_is_typed_4xx(plan_server, url, body, ctype, status, etype):
    r = httpx.post(plan_server.base + url, content=body, headers={"content-type": ctype})
    assert r.status_code == status, r.text
    assert r.json()["error"]["type"] == etype


def test_metrics_count_plans_tokens_and_stages(plan_server):
    text = httpx.get(plan_server.base + "/metrics").text
    assert 'tao_plan_results_total{outcome="plan"}' in text
    assert 'tao_stage_seconds_count{endpoint="/v1/plan",stage="decode"}' in text
    passes = [ln for ln in text.splitlines() if ln.startswith("tao_plan_forward_passes_total ")]
    assert passes and float(passes[0].split()[1]) > 0
    assert "tao_plan_jump_forward_ratio" in text
    assert 'tao_observations_total{tool="get_order_status",valid="false"}' in text


async def test_graceful_shutdown_finishes_in_flight(plan_server):
    """SIGTERM while plans are in flight: all of them complete with 200, then the process exits."""
    async with httpx.AsyncClient(base_url=plan_server.base, timeout=60) as client:
        tasks = [
            asyncio.create_task(
                client.post("/v1/plan", json={"request": f"weather {i}", "tools": PLAN_TOOLS})
            )
            for i in range(6)
        ]
        in_flight = 0
        for _ in range(300):  # wait until the server is serving several of them
            text = (await client.get("/metrics")).text
            line = next(ln for ln in text.splitlines() if ln.startswith("tao_http_in_flight_requests "))
            in_flight = int(float(line.split()[1])) - 1  # minus this /metrics request
            if in_flight >= 2:
                break
            await asyncio.sleep(0.005)
        plan_server.proc.send_signal(signal.SIGTERM)
        rs = await asyncio.gather(*tasks)
    assert in_flight >= 2
    assert [r.status_code for r in rs] == [200] * 6
    # uvicorn re-raises the captured signal after a clean shutdown, so -SIGTERM is a clean exit
    assert plan_server.proc.wait(30) in (0, -signal.SIGTERM)
    log = plan_server.log_text()
    assert "Shutting down" in log and "Finished server process" in log
