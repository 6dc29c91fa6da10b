"""The load tester's accounting: an open-loop run with injected faults where every request is
classified and the counts add up exactly (client side and against the server's own count)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import httpx
import orjson
import pytest

from bench.load import LoadConfig, LoadConfigError, Request, classify_body, run_load, tool_time_ms
from bench.plans import PlanGenerator, broken_dependency
from bench.stack import Service

STUB = Path(__file__).with_name("stub_run_server.py")
# kind -> (share of requests, header value, the exact category the client must report)
MIX = {
    "tool_timeout": (0.10, "timeout", "failed:TOOL_TIMEOUT"),
    "malformed": (0.05, "malformed", "failed:TOOL_MALFORMED_RESPONSE"),
    "broken_dependency": (0.02, None, "failed:DEPENDENCY_MISSING"),
    "reject": (0.04, "reject", "rejected"),
    "error500": (0.02, "error500", "http_500:internal_error"),
    "hang": (0.01, "hang", "transport:timeout"),
}


def _requests(n: int, seed: int = 7) -> list[Request]:
    rng = random.Random(seed)
    plans = PlanGenerator().plans(n)
    kinds = [k for k, (share, _, _) in MIX.items() for _ in range(round(share * n))]
    kinds += ["normal"] * (n - len(kinds))
    rng.shuffle(kinds)
    out = []
    for plan, kind in zip(plans, kinds, strict=False):
        headers = {"content-type": "application/json"}
        if kind == "broken_dependency":
            plan = broken_dependency(plan)
        elif kind != "normal":
            headers["x-mock-fault"] = MIX[kind][1]
        out.append(Request(orjson.dumps({"request": "bench", "plan": plan}), headers, kind))
    return out


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_accounting_with_injected_faults_adds_up_exactly():
    n = 400
    reqs = _requests(n)
    with Service("stub", [str(STUB), "--port", "{port}", "--hang-s", "6"]) as svc:
        cfg = LoadConfig(
            url=svc.base_url + "/v1/run",
            qps=200,
            duration_s=n / 200 + 1,
            max_requests=n,
            timeout_s=2.5,
            drain_s=2.0,
        )
        s = run_load(cfg, reqs)
        server_seen = httpx.get(svc.base_url + "/stats", timeout=5).json()
    assert s["sent"] == n
    assert s["lost"] == 0 and s["accounted"] == n and s["balanced"]
    assert s["received"] + s["transport_failures"] == s["sent"]
    # every injected kind ends in exactly the category it must, no more, no less
    want = Counter(r.kind for r in reqs)
    for kind, (_, _, category) in MIX.items():
        assert s["by_kind"][kind] == {category: want[kind]}, kind
    assert s["by_kind"]["normal"] == {"success": want["normal"]}
    assert s["outcomes"]["transport:timeout"] == want["hang"] == s["transport_failures"]
    # the server saw every request the client sent (the hung ones too), and nothing more
    assert server_seen["_total"] == n
    assert server_seen["hang"] == want["hang"] and server_seen["timeout"] == want["tool_timeout"]
    # one distinct trace id per answered 200; open loop: the offered rate was held
    assert s["unique_trace_ids"] == s["with_trace_id"] == n - want["hang"] - want["reject"] - want["error500"]
    assert s["send_rate_qps"] == pytest.approx(200, rel=0.25)  # held by the clock (2 busy shared cores)
    assert s["overhead_ms"]["n"] == s["with_trace_id"] and s["stages_ms"]["total"]["p99"] is not None


@pytest.mark.timeout(30)
def test_unreachable_server_is_classified_not_lost():
    from bench.stack import free_port

    cfg = LoadConfig(
        url=f"http://127.0.0.1:{free_port()}/v1/run", qps=100, duration_s=0.3, timeout_s=1, drain_s=1
    )
    s = run_load(cfg, _requests(10))
    assert s["sent"] == 30 and s["lost"] == 0 and s["received"] == 0
    assert s["outcomes"] == {"transport:connect_error": 30}


def test_only_loopback_and_positive_rates():
    with pytest.raises(LoadConfigError):
        LoadConfig(url="http://10.1.2.3:80/v1/run", qps=10).validate()
    with pytest.raises(LoadConfigError):
        LoadConfig(url="http://127.0.0.1:80/v1/run", qps=0).validate()
    LoadConfig(url="http://localhost:80/v1/run", qps=1).validate()
    assert LoadConfig(url="http://127.0.0.1:1/x", qps=100, duration_s=2, max_requests=50).planned == 50


def test_classify_body_covers_every_shape():
    ok = orjson.dumps(
        {"status": "success", "steps": [{"response_time_ms": 1.5}, {"action": {"response_time_ms": 2}}]}
    )
    assert classify_body(200, ok)[0] == "success"
    assert tool_time_ms(orjson.loads(ok)) == (3.5, "steps")
    traj = {
        "trajectory": [
            {"kind": "tool_end", "duration_ms": 2.0},
            {"kind": "observation", "duration_ms": 9},
            {"kind": "tool_end", "duration_ms": 1.25},
        ],
        "stages_ms": {"action": 7.0},
    }
    assert tool_time_ms(traj) == (3.25, "trajectory")
    assert tool_time_ms({"steps": [{"duration_ms": 3}], "stages_ms": {"action": 7.0}}) == (
        7.0,
        "action_stage",
    )
    assert tool_time_ms({}) == (None, None)
    assert classify_body(200, b'{"status":"failed","error_type":"TOOL_TIMEOUT"}')[0] == "failed:TOOL_TIMEOUT"
    assert classify_body(200, b'{"status":"needs_approval"}')[0] == "needs_approval"
    assert (
        classify_body(200, b'{"status":"needs_user","error_type":"TOOL_CLIENT_ERROR"}')[0]
        == "needs_user:TOOL_CLIENT_ERROR"
    )
    assert classify_body(200, b"not json")[0] == "bad_body"
    assert classify_body(429, b"")[0] == "rejected"
    assert classify_body(503, b'{"error":{"type":"model_unavailable"}}')[0] == "http_503:model_unavailable"
    assert classify_body(502, b"<html>")[0] == "http_502:unknown"
