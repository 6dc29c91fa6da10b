"""ObservationChecker: every check, error type, confidence rule and output shape."""

from __future__ import annotations

import threading
from typing import Any

import orjson
import pytest

import rust_validator as rv
from tao.contracts import ObservationResult
from tao.domains.reference.registry import reference_registry

REG = reference_registry()


def spec(name: str) -> dict[str, Any]:
    return REG[name].model_dump(mode="json")


def action(data: Any, *, status: int | None = 200, ms: float = 120.0, **kw: Any) -> dict[str, Any]:
    return {
        "tool": "get_order_status",
        "status_code": status,
        "response_time_ms": ms,
        "parsed_data": data,
        **kw,
    }


ORDER = {"order_id": "123456789012345678", "status": "shipped", "amount": 12.5}


@pytest.fixture(scope="module")
def order_checker() -> rv.ObservationChecker:
    return rv.ObservationChecker(spec("get_order_status"))


def checked(checker: rv.ObservationChecker, act: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """Check as dict and as bytes; both must agree and validate as ObservationResult."""
    out = checker.check(act, **kw)
    assert checker.check(orjson.dumps(act), **kw) == out
    ObservationResult.model_validate(out)
    return out


def test_clean_observation(order_checker) -> None:
    out = checked(order_checker, action(dict(ORDER)))
    assert out["valid"] and out["error_type"] is None
    assert out["confidence_score"] == 1.0
    assert out["extracted_data"] == {"order_id": ORDER["order_id"], "status": "shipped", "amount": 12.5}
    checks = [a["check"] for a in out["audit_trail"]]
    assert checks == ["status_code", "latency", "schema", "required_fields", "rule:status_not_unknown"]
    assert all(a["passed"] for a in out["audit_trail"])


@pytest.mark.parametrize(
    "status,error_type",
    [
        (404, "TOOL_CLIENT_ERROR"),
        (400, "TOOL_CLIENT_ERROR"),
        (503, "TOOL_TRANSIENT"),
        (500, "TOOL_TRANSIENT"),
        (504, "TOOL_TIMEOUT"),
        (408, "TOOL_TIMEOUT"),
        (429, "RATE_LIMITED"),
        (302, "TOOL_SCHEMA_VIOLATION"),
    ],
)
def test_status_codes(order_checker, status, error_type) -> None:
    out = checked(order_checker, action(dict(ORDER), status=status))
    assert not out["valid"] and out["error_type"] == error_type
    assert out["confidence_score"] == 0.0 and out["extracted_data"] == {}
    assert "status_code" in out["details"]["failed_checks"]


def test_latency_bound(order_checker) -> None:
    assert checked(order_checker, action(dict(ORDER), ms=7499.9))["valid"]  # timeout 5000 * 1.5
    out = checked(order_checker, action(dict(ORDER), ms=7500.0))
    assert out["error_type"] == "TOOL_TIMEOUT" and out["confidence_score"] == 0.0


def test_schema_violation_has_errors(order_checker) -> None:
    out = checked(order_checker, action({"order_id": 5, "status": "shipped"}))
    assert out["error_type"] == "TOOL_SCHEMA_VIOLATION"
    assert out["details"]["schema_errors"][0]["path"] == "/order_id"
    assert out["details"]["schema_errors"][0]["keyword"] == "type"


def test_rule_violation_and_required_fields() -> None:
    c = rv.ObservationChecker(spec("get_logistics"))
    out = checked(c, action({"order_id": "1", "status": "error"}))
    assert out["error_type"] == "RULE_VIOLATION"
    assert out["details"]["failed_checks"] == ["rule:status_not_unknown"]
    req = rv.ObservationChecker({"name": "t_x", "required_fields": ["/a/b"], "response_schema": {}})
    out = checked(req, action({"a": {"b": None}}))
    assert out["error_type"] == "TOOL_SCHEMA_VIOLATION" and "/a/b" in out["audit_trail"][-1]["detail"]


def test_blacklist_and_rules_see_status_and_latency() -> None:
    c = rv.ObservationChecker(
        {
            "name": "t_x",
            "blacklist": {"/state": ["error", "unknown"]},
            "observation_rules": [
                {"name": "fast", "logic": {"<": [{"var": "response_time_ms"}, 100]}},
                {"name": "ok", "logic": {"==": [{"var": "status_code"}, 200]}},
            ],
        }
    )
    assert checked(c, action({"state": "fine"}, ms=50))["valid"]
    out = checked(c, action({"state": "unknown"}, ms=50))
    assert out["error_type"] == "RULE_VIOLATION" and out["details"]["failed_checks"] == ["blacklist"]
    out = checked(c, action({"state": "fine"}, ms=150))
    assert out["details"]["failed_checks"] == ["rule:fast"]


def test_consistency_and_soft_score() -> None:
    c = rv.ObservationChecker(spec("get_order_status"), expected={"/status": ["shipped", "delivered"]})
    out = checked(c, action(dict(ORDER)))
    assert out["valid"] and out["confidence_score"] == 1.0
    out = checked(c, action({**ORDER, "status": "cancelled"}))
    assert not out["valid"] and out["error_type"] == "OBSERVATION_INCONSISTENT"
    assert out["confidence_score"] == pytest.approx(0.6 / 0.7)  # no soft check: renormalized
    assert out["extracted_data"]["status"] == "cancelled"  # hard checks passed: still reported
    out = checked(c, action({**ORDER, "status": "cancelled"}), soft=0.5)
    assert out["confidence_score"] == pytest.approx(0.6 + 0.15)
    assert checked(c, action(dict(ORDER)), soft=1.0)["confidence_score"] == pytest.approx(1.0)
    assert checked(c, action(dict(ORDER)), soft=0.0)["confidence_score"] == pytest.approx(0.7)


def test_normalization() -> None:
    w = rv.ObservationChecker(spec("get_weather"))
    data = {"city": "北京", "condition": "sunny", "temperature_c": 21, "humidity": "65%", "wind": "12 km/h"}
    out = checked(w, action(data, ms=100))
    assert out["valid"] and out["extracted_data"]["humidity"] == 65.0
    # get_weather declares units: every declared field is normalized (a bare number is taken in
    # the declared unit), and a wind in m/s is converted to the contract's km/h, never stripped
    assert out["details"]["normalized"] == ["/temperature_c", "/humidity", "/wind"]
    conv = {c["pointer"]: c for c in out["details"]["unit_conversions"]}
    assert conv["/wind"]["value"] == pytest.approx(12.0) and conv["/wind"]["unit"] == "km/h"
    ms = checked(w, action({**data, "wind": "3 m/s"}, ms=100))
    assert ms["valid"]
    assert {c["pointer"]: c for c in ms["details"]["unit_conversions"]}["/wind"]["value"] == pytest.approx(
        10.8
    )
    lg = rv.ObservationChecker(spec("get_logistics"), expected={"/status": ["in_transit"]})
    out = checked(lg, action({"order_id": "1", "status": "In Transit", "location": "SH"}))
    assert out["valid"] and out["extracted_data"]["status"] == "in_transit"
    ren = rv.ObservationChecker(
        {
            "name": "t_x",
            "normalization": {"rename": {"/temp": "temperature_c"}},
            "extract": {"t": "/temperature_c"},
        }
    )
    assert checked(ren, action({"temp": 3}))["extracted_data"] == {"t": 3}


def test_malformed_and_reported_errors(order_checker) -> None:
    out = checked(order_checker, action(None, original_response="<html>oops"))
    assert out["error_type"] == "TOOL_MALFORMED_RESPONSE"
    info = {"error_type": "TOOL_CIRCUIT_OPEN", "message": "breaker open"}
    out = checked(order_checker, action(None, status=None, error_info=info))
    assert out["error_type"] == "TOOL_CIRCUIT_OPEN" and out["confidence_score"] == 0.0


def test_missing_extract_is_reported(order_checker) -> None:
    out = checked(order_checker, action({"order_id": "1", "status": "paid"}))
    assert out["valid"] and out["details"]["missing_extract"] == ["amount"]


def test_lenient_datetime_in_contract() -> None:
    c = rv.ObservationChecker(
        {"name": "t_x", "response_schema": {"properties": {"at": {"format": "date-time"}}}}
    )
    assert checked(c, action({"at": "2024-05-01 10:00:00+08:00"}))["valid"]
    assert not checked(c, action({"at": "yesterday"}))["valid"]
    strict = rv.ObservationChecker(
        {"name": "t_x", "response_schema": {"properties": {"at": {"format": "date-time"}}}},
        lenient_datetime=False,
    )
    assert not strict.check(action({"at": "2024-05-01 10:00:00"}))["valid"]


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "t_x", "response_schema": {"type": 5}},
        {"name": "t_x", "observation_rules": [{"name": "r"}]},
        {"name": "t_x", "required_fields": ["no_slash"]},
        {"name": "t_x", "extract": {"a": 1}},
        {"name": "t_x", "timeout_ms": -1},
        {"response_schema": {}},
        [1, 2],
    ],
)
def test_bad_contracts_raise_compile_error(bad) -> None:
    with pytest.raises(rv.CompileError):
        rv.ObservationChecker(bad)


def test_every_reference_contract_compiles() -> None:
    for name in REG:
        assert rv.ObservationChecker(orjson.dumps(spec(name))).tool == name


def test_batch_matches_single_and_threads(order_checker) -> None:
    docs = [orjson.dumps(action({**ORDER, "amount": i})) for i in range(200)]
    docs += [orjson.dumps(action({**ORDER, "status": "unknown"}))]
    single = [order_checker.check(d) for d in docs]
    assert order_checker.check_batch(docs) == single
    assert rv.check_batch(order_checker, [orjson.loads(d) for d in docs]) == single
    results: list[list[dict[str, Any]]] = []

    def worker() -> None:
        results.append(order_checker.check_batch(docs))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [single] * 4


RULES = [
    {"==": [{"var": "data.status"}, "shipped"]},
    {"!!": [{"var": "data.orders.1.id"}]},
    {"all": [{"var": "data.orders"}, {">": [{"var": "amount"}, 0]}]},
    {"some": [{"var": "data.orders"}, {"==": [{"var": "id"}, "b"]}]},
    {"missing": ["data.status", "data.nope"]},
    {"missing_some": [1, ["data.nope", "data.status"]]},
    {"<": [{"var": ["response_time_ms", 0]}, 100]},
    {"in": [{"var": "data.status"}, ["paid", "shipped"]]},
    {"var": {"cat": ["data.", "status"]}},  # dynamic path: no projection
    {
        "==": [
            {
                "reduce": [
                    {"var": "data.orders"},
                    {"+": [{"var": "current.amount"}, {"var": "accumulator"}]},
                    0,
                ]
            },
            3,
        ]
    },
]


@pytest.mark.parametrize("rule", RULES, ids=[str(i) for i in range(len(RULES))])
def test_rule_results_match_one_shot_jsonlogic(rule) -> None:
    """Rules see exactly what a one-shot evaluation on the full context sees (the checker only
    brings the parts a rule can read into the evaluation arena)."""
    data = {
        "status": "shipped",
        "orders": [{"id": "a", "amount": 1}, {"id": "b", "amount": 2}],
        "other": [1] * 50,
    }
    act = action(data, ms=42.0)
    ctx = {"status_code": 200, "response_time_ms": 42.0, "data": data}
    expected = rv.jsonlogic({"!!": [rule]}, ctx)
    c = rv.ObservationChecker({"name": "t_x", "observation_rules": [{"name": "r", "logic": rule}]})
    assert c.check(act)["valid"] is expected
