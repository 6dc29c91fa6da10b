"""``Idempotency-Key`` on ``POST /v1/run`` across replicas: two real ``tao serve`` processes on one
real Redis — a single server and a three-primary Redis Cluster (``redis+cluster://``) — the mock tool service as a process with ``--no-dedup`` (it ignores the key, so only
the runtime can prevent a duplicate). Side effects are counted by the mock's ``GET /_stats``."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest
from action_helpers import plan

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "server"))
from serve_helpers import ServeProcess, free_port, wait_http  # noqa: E402

pytestmark = pytest.mark.slow

EXPENSE = {"amount": 42.0, "category": "meal", "date": "2026-11-14", "description": "team lunch"}
LOCK_TTL_S = 5.0  # well above an event-loop stall on a loaded machine (heartbeat every ttl/3)


@pytest.fixture(scope="module")
def mock_proc(tmp_path_factory):
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
        proc.kill()  # it may still sleep on a killed replica's slow call
        proc.wait(10)
        log.close()


@pytest.fixture(scope="module", params=["redis", "redis-cluster"])
def shared_redis_url(request, redis_server):
    if request.param == "redis":
        yield redis_server.url
        return
    from router.testing.redis_cluster import RedisClusterServer

    with RedisClusterServer() as cluster:
        yield cluster.url


@pytest.fixture(scope="module")
def replicas(mock_proc, shared_redis_url, tmp_path_factory):
    env = {
        "TAO_REDIS_URL": shared_redis_url,
        "TAO_TOOLS_URL": mock_proc,
        "TAO_API_KEY": "",
        "TAO_IDEMPOTENCY_LOCK_TTL_S": str(LOCK_TTL_S),
    }
    d = tmp_path_factory.mktemp("replicas")
    procs = [ServeProcess(["--no-model", "--timeout", "20"], d / f"r{i}.log", env=env) for i in range(2)]
    try:
        for p in procs:
            wait_http(p.base + "/healthz", 150, p.proc)
        yield procs
    finally:
        for p in procs:
            p.stop()


@pytest.fixture
def mock(mock_proc):
    httpx.post(mock_proc + "/_reset", timeout=5).raise_for_status()
    httpx.post(mock_proc + "/_config", json={"slow_rate": 0.0, "tools": None}, timeout=5).raise_for_status()
    return mock_proc


def _stats(url: str) -> dict:
    return httpx.get(url + "/_stats", timeout=5).json()


def _body() -> dict:
    return {
        "request": "报销午餐 42 元",
        "session": {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
        "plan": plan(("t1", "submit_expense", EXPENSE)),
    }


def _send_until_done(base: str, body: dict, key: str, limit_s: float = 25.0) -> tuple[httpx.Response, list]:
    """Resend while the key is in flight (409 request_in_progress + Retry-After), as a client would."""
    seen = []
    end = time.monotonic() + limit_s
    while True:
        r = httpx.post(base + "/v1/run", json=body, headers={"Idempotency-Key": key}, timeout=30)
        seen.append(r.status_code)
        if r.status_code != 409 or time.monotonic() > end:
            return r, seen
        assert r.json()["error"]["type"] == "request_in_progress", r.text
        assert int(r.headers["retry-after"]) >= 1
        time.sleep(0.25)


def test_same_key_to_both_replicas_runs_once(replicas, mock) -> None:
    a, b = replicas
    assert _stats(mock)["dedup"] is False
    httpx.post(
        mock + "/_config", json={"slow_rate": 1.0, "slow_s": 1.5, "tools": ["submit_expense"]}, timeout=5
    )
    key, body = f"k-{uuid.uuid4()}", _body()
    out: dict[str, tuple[httpx.Response, list]] = {}
    threads = [
        threading.Thread(target=lambda s=s, n=n: out.__setitem__(n, _send_until_done(s.base, body, key)))
        for n, s in (("a", a), ("b", b))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    (ra, seen_a), (rb, seen_b) = out["a"], out["b"]
    assert ra.status_code == rb.status_code == 200, (ra.text, rb.text)
    assert 409 in seen_a + seen_b  # one of them found the other's run in flight
    ja, jb = ra.json(), rb.json()
    assert ja["status"] == "success" and ja == jb  # the very same recorded reply
    assert "true" in (ra.headers.get("idempotent-replayed"), rb.headers.get("idempotent-replayed"))
    assert _stats(mock)["side_effects"] == {"submit_expense": 1}
    # later resends, to either replica: the recorded reply, nothing runs
    for s in (a, b):
        r = httpx.post(s.base + "/v1/run", json=body, headers={"Idempotency-Key": key}, timeout=30)
        assert r.status_code == 200 and r.json() == ja and r.headers["idempotent-replayed"] == "true"
    # the same key with another body: 409, typed
    other = dict(body, request="报销午餐 43 元")
    r = httpx.post(b.base + "/v1/run", json=other, headers={"Idempotency-Key": key}, timeout=30)
    assert r.status_code == 409 and r.json()["error"]["type"] == "idempotency_key_reused"
    # a request refused before running leaves its key free for the corrected request
    k2 = f"k-{uuid.uuid4()}"
    r = httpx.post(
        b.base + "/v1/run", json=dict(body, approve=["x"] * 65), headers={"Idempotency-Key": k2}, timeout=30
    )
    assert r.status_code == 422
    r = httpx.post(
        b.base + "/v1/run", json={"request": "no plan, no model"}, headers={"Idempotency-Key": k2}, timeout=30
    )
    assert r.status_code == 503 and r.json()["error"]["type"] == "model_not_ready"
    r = httpx.post(
        b.base + "/v1/run", json=dict(body, request="报销 1 元"), headers={"Idempotency-Key": k2}, timeout=30
    )
    assert r.status_code == 200 and r.json()["status"] == "success"
    # a bad key is a typed 422
    r = httpx.post(b.base + "/v1/run", json=body, headers={"Idempotency-Key": "has space"}, timeout=30)
    assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_idempotency_key"
    # a new key is a new request: it does run (the counter is not stuck)
    httpx.post(mock + "/_config", json={"slow_rate": 0.0}, timeout=5)
    r, _ = _send_until_done(a.base, body, f"k-{uuid.uuid4()}")
    assert r.status_code == 200 and r.json()["status"] == "success"
    assert _stats(mock)["side_effects"] == {"submit_expense": 3}  # k2's corrected request and this one
    assert _stats(mock)["calls"] == {"submit_expense": 3}


def test_replica_killed_mid_step_ends_recorded_without_a_duplicate(
    replicas, mock, shared_redis_url, tmp_path
) -> None:
    env = {
        "TAO_REDIS_URL": shared_redis_url,
        "TAO_TOOLS_URL": mock,
        "TAO_API_KEY": "",
        "TAO_IDEMPOTENCY_LOCK_TTL_S": str(LOCK_TTL_S),
    }
    victim = ServeProcess(["--no-model", "--timeout", "20"], tmp_path / "victim.log", env=env)
    survivor = replicas[1]
    try:
        wait_http(victim.base + "/healthz", 150, victim.proc)
        warm = {
            "request": "天气",
            "plan": plan(("t1", "get_weather", {"city": "北京", "date": "2026-11-16"})),
        }
        assert httpx.post(victim.base + "/v1/run", json=warm, timeout=60).status_code == 200  # runtime up
        # the effect happens at once, the reply would come 30 s later: kill in between
        httpx.post(
            mock + "/_config", json={"slow_rate": 1.0, "slow_s": 30.0, "tools": ["submit_expense"]}, timeout=5
        )
        key, body = f"k-{uuid.uuid4()}", _body()

        def first() -> None:
            try:
                httpx.post(victim.base + "/v1/run", json=body, headers={"Idempotency-Key": key}, timeout=40)
            except httpx.HTTPError:
                pass  # the replica dies under it

        t = threading.Thread(target=first, daemon=True)
        t.start()
        end = time.monotonic() + 60  # a loaded machine is slow, not wrong
        while _stats(mock)["side_effects"].get("submit_expense", 0) < 1:
            assert time.monotonic() < end, "the first run never reached the tool"
            time.sleep(0.05)
        victim.stop(signal.SIGKILL)
        killed_at = time.monotonic()
        httpx.post(mock + "/_config", json={"slow_rate": 0.0}, timeout=5)  # a re-run would be fast now
        r, seen = _send_until_done(survivor.base, body, key)
        took = time.monotonic() - killed_at
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["status"] == "needs_user" and out["error_type"] == "LOW_CONFIDENCE", out
        assert "outcome unknown" in out["message"]
        assert took <= 20.0
        assert _stats(mock)["side_effects"] == {"submit_expense": 1}  # 0 duplicates
        assert _stats(mock)["calls"]["submit_expense"] == 1  # never even re-sent
        again = httpx.post(survivor.base + "/v1/run", json=body, headers={"Idempotency-Key": key}, timeout=30)
        assert again.status_code == 200 and again.json() == out  # the outcome is recorded
        assert again.headers["idempotent-replayed"] == "true"
        if 409 in seen:  # a resend while the dead replica's lock was still alive
            assert seen[0] == 409
    finally:
        victim.stop(signal.SIGKILL)
        t0 = time.monotonic()
        while victim.proc.poll() is None and time.monotonic() - t0 < 5:
            time.sleep(0.05)
