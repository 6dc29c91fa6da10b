"""Tenants from credentials: a keys file maps hashed API keys to tenants and roles; the tenant of a
request is its key's, never the body's or a header's. The cross-tenant suite runs ≥ 20 attacks
(key confusion, header/body tenant, encoded separators, replayed sessions, replayed idempotency
keys and thought ids) against a real server on a real Redis and counts reads of another tenant's
data from what the server stored and answered: 0."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
import uuid

import httpx
import pytest
import redis
import uvicorn
from action_helpers import plan

from tao.loop.session import RedisSessionStore
from tao.server.app import create_app
from tao.server.auth import KeyRing, KeysFileError, Role
from tao.server.config import ServerConfig

KEYS = {
    "acme": ("key-acme-0001", ["run"]),
    "acme:prod": ("key-acmeprod-0002", ["run"]),
    "globex": ("key-globex-0003", ["run", "approve"]),
    "acme-approver": ("key-acme-approve-0004", ["approve"]),
}
SECRET = "acme-secret-7f3a"
VICTIM_USER = "U00000003"


def _sha(k: str) -> str:
    return hashlib.sha256(k.encode()).hexdigest()


def _keys_file(tmp_path) -> str:
    entries = [
        {"sha256": _sha(k), "tenant": "acme" if t == "acme-approver" else t, "roles": roles}
        for t, (k, roles) in KEYS.items()
    ]
    p = tmp_path / "keys.json"
    p.write_text(json.dumps({"keys": entries}))
    return str(p)


class Served:
    def __init__(self, config: ServerConfig) -> None:
        self.app = create_app(config)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", ws="none", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)


@pytest.fixture
def served(mock_tools, redis_server, tmp_path):
    cfg = ServerConfig(
        load_model=False,
        tools_url=mock_tools.url,
        redis_url=redis_server.url,
        extra={"keys_file": _keys_file(tmp_path)},
    )
    s = Served(cfg)
    yield s
    s.stop()


def test_keys_file_parsing(tmp_path) -> None:
    ring = KeyRing.load(_keys_file(tmp_path))
    p = ring.authenticate(b"key-acmeprod-0002")
    assert p is not None and p.tenant == "acme:prod" and p.roles == {Role.RUN}
    assert ring.authenticate(b"key-acmeprod-000") is None and ring.authenticate(b"") is None
    assert KeyRing.single("k").authenticate(b"k").roles == frozenset(Role)  # TAO_API_KEY: both roles
    bad = [
        "not json",
        json.dumps({"keys": []}),
        json.dumps({"keys": [{"sha256": "abc", "tenant": "a", "roles": ["run"]}]}),
        json.dumps({"keys": [{"sha256": _sha("x"), "tenant": "a", "roles": ["admin"]}]}),
        json.dumps({"keys": [{"sha256": _sha("x"), "tenant": "a", "roles": []}]}),
        json.dumps({"keys": [{"sha256": _sha("x"), "tenant": "a\n", "roles": ["run"]}]}),
        json.dumps({"keys": [{"sha256": _sha("x"), "tenant": "a", "roles": ["run"], "key": "x"}]}),
        json.dumps({"keys": [{"sha256": _sha("x"), "tenant": "a", "roles": ["run"]}] * 2}),
    ]
    for i, text in enumerate(bad):
        f = tmp_path / f"bad{i}.json"
        f.write_text(text)
        with pytest.raises(KeysFileError):
            KeyRing.load(f)


def _weather(sid: str | None = None, **session) -> dict:
    s = {"now": "2026-11-15T10:00:00+08:00", **session}
    if sid is not None:
        s["session_id"] = sid
    return {
        "request": "明天北京天气",
        "session": s,
        "plan": plan(("t1", "get_weather", {"city": "北京", "date": "@tomorrow"})),
    }


def test_cross_tenant_suite(served, redis_server, mock_tools) -> None:
    store = RedisSessionStore(redis.Redis.from_url(redis_server.url))
    key = {t: k for t, (k, _) in KEYS.items()}

    def post(k: str | None, body: dict, **headers: str) -> httpx.Response:
        h = dict(headers)
        if k is not None:
            h.setdefault("Authorization", f"Bearer {k}")
        return httpx.post(served.url + "/v1/run", json=body, headers=h, timeout=30)

    # the victim: tenant acme, session prod:42, a user id, a secret in memory, a profile read
    victim = _weather("prod:42", user_id=VICTIM_USER, memory={"secret": SECRET})
    assert post(key["acme"], victim).json()["status"] == "success"
    profile_body = {
        "request": "我的资料",
        "session": {"user_id": VICTIM_USER},
        "plan": plan(("t1", "get_user_profile", {"user_id": VICTIM_USER})),
    }
    idem = f"shared-{uuid.uuid4()}"
    r = post(key["acme"], profile_body, **{"Idempotency-Key": idem})
    victim_profile = r.json()["answer"]["t1"]
    assert r.status_code == 200 and victim_profile
    expense = {"amount": 9.5, "category": "meal", "date": "2026-11-14", "description": "acme lunch"}
    exp_plan = dict(plan(("t1", "submit_expense", expense)), thought_id="th-acme-expense")
    r = post(key["acme"], {"request": "报销", "plan": exp_plan})
    acme_expense = r.json()["answer"]["t1"]
    assert r.json()["status"] == "success"

    attempts: list[tuple[str, httpx.Response]] = []

    def attempt(name: str, r: httpx.Response) -> httpx.Response:
        attempts.append((name, r))
        assert r.status_code < 500, (name, r.text)
        return r

    # 1-2: key confusion across the `:` separator
    attempt("acme:prod reads 42", post(key["acme:prod"], _weather("42")))
    attempt("acme:prod reads prod:42", post(key["acme:prod"], _weather("prod:42")))
    # 3-6: the tenant named in the body
    for t in ("acme", "acme:prod", " acme", "ACME"):
        r = attempt(f"body tenant {t!r}", post(key["globex"], _weather("prod:42", tenant=t)))
        assert r.status_code == 403 and r.json()["error"]["type"] == "tenant_mismatch"
    # 7-9: the tenant named in headers
    for h in ("X-Tenant-ID", "X-Tenant", "X-Tao-Tenant"):
        attempt(f"header {h}", post(key["globex"], _weather("prod:42"), **{h: "acme"}))
    # 10-13: no key, a wrong key, a near key, an approve-only key
    r = attempt("no key", post(None, _weather("prod:42")))
    assert r.status_code == 401
    r = attempt("wrong key", post("key-acme-0000", _weather("prod:42")))
    assert r.status_code == 401
    r = attempt("hash as key", post(_sha(key["acme"]), _weather("prod:42")))
    assert r.status_code == 401
    r = attempt("approve-only key", post(key["acme-approver"], _weather("prod:42")))
    assert r.status_code == 403 and r.json()["error"]["type"] == "forbidden"
    # 14: two credentials: the Authorization header is the one used
    attempt(
        "bearer globex + x-api-key acme",
        post(key["globex"], _weather("prod:42"), **{"X-API-Key": key["acme"]}),
    )
    # 15-20: encoded separators and bad ids (typed 422, never a 500)
    raw = json.dumps(_weather("prod:42")).replace("prod:42", "prod\\u003a42").encode()
    r = httpx.post(
        served.url + "/v1/run",
        content=raw,
        headers={"Authorization": f"Bearer {key['globex']}", "Content-Type": "application/json"},
        timeout=30,
    )
    attempt("json-escaped colon", r)
    for sid in ("prod%3A42", "acme/prod:42", "../acme:prod:42", "prod 42", "x" * 129):
        r = attempt(f"session id {sid[:20]!r}", post(key["globex"], _weather(sid)))
        assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_session_id", r.text
    # 21-22: a replayed session (the victim's whole snapshot as the request's session)
    snap = json.loads(store.get("acme", "prod:42").model_dump_json())
    replay = {"request": "again", "session": snap, "plan": _weather()["plan"]}
    r = attempt("replayed snapshot", post(key["globex"], replay))
    assert r.status_code == 403
    snap.pop("tenant")
    snap["memory"] = {}
    snap["user_id"] = None
    attempt("replayed snapshot without tenant", post(key["globex"], dict(replay, session=snap)))
    # 23: the victim's Idempotency-Key from another tenant: its own run, not the victim's reply
    body = dict(profile_body, session={}, plan=_weather()["plan"])
    r = attempt("idempotency key from globex", post(key["globex"], body, **{"Idempotency-Key": idem}))
    assert r.status_code == 200 and "idempotent-replayed" not in r.headers
    assert VICTIM_USER not in r.text
    # 24-25: the same body and key from another tenant: it runs for that tenant (no recorded reply)
    r = attempt(
        "same keyed body from acme:prod", post(key["acme:prod"], profile_body, **{"Idempotency-Key": idem})
    )
    assert r.status_code == 200 and "idempotent-replayed" not in r.headers
    assert (
        r.json()["thought_id"]
        != post(key["acme"], profile_body, **{"Idempotency-Key": idem}).json()["thought_id"]
    )
    # 26: the victim's thought id replayed by another tenant: its step runs anew
    r = attempt("replayed thought id", post(key["globex"], {"request": "报销", "plan": exp_plan}))
    assert r.json()["steps"][0]["deduplicated"] is False
    assert r.json()["answer"]["t1"] != acme_expense
    # 27: a snapshot planted under globex's key that names acme: refused on load
    store.client.set(
        store.key("globex", "planted"),
        store.get("acme", "prod:42").model_dump_json(),  # tenant acme, session prod:42
    )
    attempt("planted snapshot", post(key["globex"], _weather("planted")))

    assert len(attempts) >= 20
    # the count: nothing any attacker got back or had stored carries the victim's data
    leaks = []
    for name, r in attempts:
        if SECRET in r.text or ("idempotent-replayed" in r.headers):
            leaks.append(name)
    for tenant in ("acme:prod", "globex"):
        for sid in ("42", "prod:42", "planted"):
            s = store.get(tenant, sid)
            if s is not None and (s.user_id == VICTIM_USER or SECRET in s.model_dump_json()):
                leaks.append(f"snapshot {tenant}/{sid}")
    for k in store.client.scan_iter("tao:session:*"):
        if k.decode().startswith(("tao:session:4:acme:",)):
            continue
        if SECRET.encode() in (store.client.get(k) or b""):
            leaks.append(k.decode())
    assert leaks == []
    # reads of one's own data still work (the suite can fail): acme's next turn sees its snapshot
    assert post(key["acme"], _weather("prod:42")).status_code == 200
    own = store.get("acme", "prod:42")
    assert own is not None and own.memory["secret"] == SECRET and own.memory["turns"] == 2
    assert own.user_id == VICTIM_USER
    fresh = store.get("acme:prod", "42")
    assert fresh is not None and fresh.memory["turns"] == 1 and fresh.user_id is None
    assert mock_tools.stats()["side_effects"] == {"submit_expense": 2}  # acme's and globex's own
