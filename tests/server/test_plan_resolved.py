"""POST /v1/plan returns resolved plans (resolved_from), refuses unknown session fields and bad
user ids with typed 422s before any decoding; a plan whose resolved values break the schema is a
typed plan_invalid. A fake engine stands in for the model."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tao.contracts import ThoughtPlan
from thought_model.engine.base import PlanEngine, PlanRequest, PlanResult


class FakeEngine(PlanEngine):
    name = "fake"

    def __init__(self) -> None:
        self.calls = 0
        self.steps: list[dict] = []

    def generate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        self.calls += len(requests)
        plan = ThoughtPlan.model_validate({"intent": "multi_task", "steps": self.steps})
        return [PlanResult(output=plan) for _ in requests]


@pytest.fixture
def client_engine():
    from tao.server.app import create_app
    from tao.server.config import ServerConfig

    app = create_app(ServerConfig(load_model=False))
    engine = FakeEngine()
    app.state.plan_engine.engine = engine
    with TestClient(app) as client:
        yield client, engine


SESSION = {"user_id": "U12345678", "now": "2026-12-02T10:00:00+08:00", "timezone": "Asia/Shanghai"}


def test_plan_is_resolved_with_resolved_from(client_engine) -> None:
    client, engine = client_engine
    engine.steps = [
        {"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京", "date": "@this_weekend"}},
        {
            "step_id": "t2",
            "tool": "list_orders",
            "arguments": {"user_id": "U12345678", "period": "@last_days:7"},
        },
        {"step_id": "t3", "tool": "get_weather", "arguments": {"city": "上海"}},
    ]
    r = client.post("/v1/plan", json={"request": "这周末北京天气，最近7天订单，上海天气", "session": SESSION})
    assert r.status_code == 200, r.text
    steps = r.json()["plan"]["steps"]
    assert [(s["step_id"], s["tool"]) for s in steps] == [
        ("t1", "get_weather"),
        ("t2", "get_weather"),
        ("t3", "list_orders"),
        ("t4", "get_weather"),
    ]
    assert [s["arguments"].get("date") or s["arguments"].get("period") for s in steps] == [
        "2026-12-05",
        "2026-12-06",
        "2026-11-26/2026-12-02",
        "2026-12-02",
    ]
    assert [s["resolved_from"] for s in steps] == [
        {"date": "@this_weekend"},
        {"date": "@this_weekend"},
        {"period": "@last_days:7"},
        {"date": "@today"},
    ]
    assert r.json()["order"] == ["t1", "t2", "t3", "t4"]


def test_resolved_values_are_checked_against_the_schema(client_engine) -> None:
    client, engine = client_engine
    engine.steps = [
        {"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京", "date": "@this_week"}}
    ]
    r = client.post("/v1/plan", json={"request": "这周北京天气", "session": SESSION})
    assert r.status_code == 422 and r.json()["error"]["type"] == "plan_invalid", r.text


def test_unknown_session_field_is_a_422_naming_it(client_engine) -> None:
    client, engine = client_engine
    r = client.post(
        "/v1/plan", json={"request": "北京天气", "session": {**SESSION, "time_zone": "Europe/Paris"}}
    )
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["type"] == "invalid_request" and "time_zone" in err["message"]
    assert err.get("field") == "/session/time_zone"
    assert engine.calls == 0


@pytest.mark.parametrize("uid", ["bob", "u12345678", "U123", "${t1.user_id}"])
def test_bad_user_id_is_a_typed_422_before_decoding(client_engine, uid) -> None:
    client, engine = client_engine
    r = client.post("/v1/plan", json={"request": "查我的订单", "session": {**SESSION, "user_id": uid}})
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["type"] == "invalid_user_id" and err.get("field") == "/session/user_id"
    assert engine.calls == 0
