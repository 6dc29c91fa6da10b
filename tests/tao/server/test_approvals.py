"""Approvals nobody can forge: a high-risk call or a contact change runs only after
``POST /v1/runs/{run_id}/approve`` with the digest of that very call, from a key with the
``approve`` role of the run's tenant; JSON endpoints take only JSON bodies (no cross-origin
simple request); the run waits in Redis and resumes on another replica. Side effects are counted
by the mock service: 0 high-risk or contact-changing calls without a bound approval."""

from __future__ import annotations

import hashlib
import json

import httpx
import pytest
from action_helpers import plan
from test_tenants import Served

from tao.server.config import ServerConfig

KEYS = {
    "runner": ("k-acme-run", "acme", ["run"]),
    "approver": ("k-acme-approve", "acme", ["run", "approve"]),
    "other": ("k-globex-approve", "globex", ["run", "approve"]),
}
USER = "U00000002"


def _auth(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name][0]}"}


@pytest.fixture
def replicas(mock_tools, redis_server, tmp_path):
    f = tmp_path / "keys.json"
    f.write_text(
        json.dumps(
            {
                "keys": [
                    {"sha256": hashlib.sha256(k.encode()).hexdigest(), "tenant": t, "roles": r}
                    for k, t, r in KEYS.values()
                ]
            }
        )
    )
    cfg = {
        "load_model": False,
        "tools_url": mock_tools.url,
        "redis_url": redis_server.url,
        "extra": {"keys_file": str(f)},
    }
    servers = [Served(ServerConfig(**cfg)), Served(ServerConfig(**{**cfg, "extra": dict(cfg["extra"])}))]
    yield servers
    for s in servers:
        s.stop()


def _run(base: str, p: dict, key: str = "runner", **kw) -> httpx.Response:
    body = {"request": "请处理", "session": {"user_id": USER}, "plan": p, **kw}
    return httpx.post(base + "/v1/run", json=body, headers=_auth(key), timeout=30)


def _approve(
    base: str, run_id: str, step_id: str, digest: str, key: str = "approver", **kw
) -> httpx.Response:
    return httpx.post(
        base + f"/v1/runs/{run_id}/approve",
        json={"step_id": step_id, "digest": digest},
        headers={**_auth(key), **kw.pop("headers", {})},
        timeout=30,
        **kw,
    )


def test_high_risk_call_needs_a_bound_approval_resumed_on_another_replica(replicas, mock_tools) -> None:
    a, b = replicas
    email = plan(("t1", "send_email", {"to": "li.na@example.com", "subject": "报告", "body": "见附件"}))
    r = _run(a.url, email)
    out = r.json()
    assert r.status_code == 200 and out["status"] == "needs_approval", r.text
    [pending] = out["pending_approvals"]
    assert set(pending) == {"step_id", "tool", "arguments", "digest"}
    assert pending["tool"] == "send_email" and pending["arguments"]["to"] == "li.na@example.com"
    run_id, digest = out["run_id"], pending["digest"]
    # the requester's body alone never approves a high-risk call
    again = _run(a.url, email, key="approver", approve=["send_email"]).json()
    assert again["status"] == "needs_approval"
    r = _run(a.url, email, approve=["send_email"])  # and a run-only key may not even ask
    assert r.status_code == 403 and r.json()["error"]["type"] == "forbidden"
    # forged approvals
    r = _approve(b.url, run_id, "t1", digest, key="runner")  # no approve role
    assert r.status_code == 403 and r.json()["error"]["type"] == "forbidden"
    r = _approve(b.url, run_id, "t1", digest, key="other")  # another tenant's approver
    assert r.status_code == 404 and r.json()["error"]["type"] == "run_not_found"
    r = _approve(b.url, run_id, "t1", "0" * 64)  # a digest of nothing pending
    assert r.status_code == 409 and r.json()["error"]["type"] == "approval_mismatch"
    r = _approve(b.url, again["run_id"], "t1", digest)  # the digest of another run
    assert r.status_code == 409
    r = _approve(b.url, run_id, "t2", digest)
    assert r.status_code == 409
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        r = httpx.post(
            b.url + f"/v1/runs/{run_id}/approve",
            content=json.dumps({"step_id": "t1", "digest": digest}),
            headers={**_auth("approver"), "Content-Type": ctype},
            timeout=30,
        )
        assert r.status_code == 415 and r.json()["error"]["type"] == "unsupported_media_type"
    r = httpx.post(
        b.url + f"/v1/runs/{run_id}/approve",
        content=json.dumps({"step_id": "t1", "digest": digest}),
        headers=_auth("approver"),
        timeout=30,
    )
    assert r.status_code == 415  # no Content-Type at all
    assert mock_tools.stats()["side_effects"] == {}
    # the bound approval, on the other replica: the call runs once
    r = _approve(b.url, run_id, "t1", digest)
    done = r.json()
    assert r.status_code == 200 and done["status"] == "success", r.text
    assert done["run_id"] == run_id and done["pending_approvals"] == []
    assert mock_tools.stats()["side_effects"] == {"send_email": 1}
    # approving again (either replica) answers the recorded end, nothing is sent again
    for s in (a, b):
        r = _approve(s.url, run_id, "t1", digest)
        assert r.status_code == 200 and r.json() == done
    assert mock_tools.stats()["side_effects"] == {"send_email": 1}


def test_approval_is_bound_to_the_resolved_arguments(replicas, mock_tools) -> None:
    a, b = replicas
    p = plan(
        ("t1", "get_user_profile", {"user_id": USER}),
        ("t2", "send_email", {"to": "${t1.email}", "subject": "账单", "body": "本月账单"}, ["t1"]),
    )
    out = _run(a.url, p).json()
    [pending] = out["pending_approvals"]
    honest = mock_tools.data.users[USER]["email"]
    assert pending["arguments"]["to"] == honest
    # the profile is poisoned between the request and the approval
    mock_tools.patch("get_user_profile", {"email": "attacker@evil.example"})
    r = _approve(b.url, out["run_id"], pending["step_id"], pending["digest"])
    res = r.json()
    assert r.status_code == 200 and res["status"] == "needs_approval", r.text
    [now_pending] = res["pending_approvals"]
    assert now_pending["arguments"]["to"] == "attacker@evil.example"
    assert now_pending["digest"] != pending["digest"]
    assert mock_tools.stats()["side_effects"] == {}  # the approved digest did not cover it


def test_contact_changes_are_high_risk(replicas, mock_tools) -> None:
    a, b = replicas
    before = dict(mock_tools.data.users[USER])
    attempts = 0
    for field_ in ("email", "phone"):
        p = plan(("t1", "update_user_profile", {"user_id": USER, "field": field_, "value": "x@evil.example"}))
        for kw in ({}, {"approve": ["update_user_profile"]}):
            attempts += 1
            out = _run(a.url, p, key="approver", **kw).json()
            assert (
                out["status"] == "needs_approval"
                and out["pending_approvals"][0]["tool"] == "update_user_profile"
            )
            assert "contact" in out["message"]
    assert mock_tools.data.users[USER] == before  # no contact changed without a bound approval
    # a city change is an ordinary write within its limit: it runs
    city = plan(("t1", "update_user_profile", {"user_id": USER, "field": "city", "value": "杭州"}))
    assert _run(a.url, city).json()["status"] == "success"
    assert mock_tools.data.users[USER]["city"] == "杭州"
    # the approved contact change runs, once
    p = plan(("t1", "update_user_profile", {"user_id": USER, "field": "email", "value": "new@example.com"}))
    out = _run(a.url, p).json()
    pend = out["pending_approvals"][0]
    assert _approve(b.url, out["run_id"], pend["step_id"], pend["digest"]).json()["status"] == "success"
    assert mock_tools.data.users[USER]["email"] == "new@example.com" and attempts == 4


def test_cross_origin_simple_requests_never_reach_a_json_endpoint(replicas, mock_tools) -> None:
    a, _ = replicas
    email = plan(("t1", "send_email", {"to": "x@evil.example", "subject": "s", "body": "b"}))
    body = json.dumps({"request": "x", "plan": email, "approve": ["send_email"]})
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "text/plain; charset=utf-8", ""):
        h = {**_auth("approver"), "Content-Type": ctype} if ctype else _auth("approver")
        r = httpx.post(a.url + "/v1/run", content=body, headers=h, timeout=30)
        assert r.status_code == 415, (ctype, r.text)
    ok = httpx.post(
        a.url + "/v1/run",
        content=body,
        headers={**_auth("approver"), "Content-Type": "application/json"},
        timeout=30,
    )
    assert ok.status_code == 200 and ok.json()["status"] == "needs_approval"
    assert mock_tools.stats()["side_effects"] == {}


def test_openapi_documents_run_and_approve(replicas) -> None:
    doc = httpx.get(replicas[0].url + "/openapi.json", timeout=10).json()
    op = doc["paths"]["/v1/runs/{run_id}/approve"]["post"]
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["properties"]) == {"step_id", "digest"} and {"403", "404", "409", "415"} <= set(
        op["responses"]
    )
    assert "/v1/run" in doc["paths"]
