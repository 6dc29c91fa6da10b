"""The loop's expectations (tao.observe.echo) and how the Rust checker reads them: an echoed
argument must come back unchanged, an absent one is fine (null in the allowed list), numbers
compare by value; the compiled checkers stay bounded (Observer's LRU)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import rust_validator as rv
from tao.contracts import ActionResult, ErrorType
from tao.domains.reference.registry import reference_registry
from tao.observe.echo import echo_expectations
from tao.observe.observer import Observer

REG = reference_registry()
ORDER = "209911150000000007"


def _res(tool: str, data: Any) -> ActionResult:
    return ActionResult(tool=tool, status_code=200, response_time_ms=3.0, parsed_data=data)


def test_expectations_of_a_call() -> None:
    exp = echo_expectations(REG["list_orders"], {"user_id": "U00000002", "status": "paid", "x": {"a": 1}})
    assert exp == {
        "/user_id": ["U00000002", None],
        "/status": ["paid", None],
        "/orders/0/status": ["paid", None],  # the output named like the argument
    }
    assert echo_expectations(REG["refund_payment"], {"amount": 5})["/amount"] == [5, 5.0, None]
    assert echo_expectations(REG["refund_payment"], {"amount": 2.5})["/amount"] == [2.5, None]
    assert echo_expectations(REG["get_user_profile"], {"flag": True, "a/b": "x"}) == {"/a~1b": ["x", None]}


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        ({"order_id": ORDER, "status": "paid"}, True),
        ({"order_id": "209901010000000000", "status": "paid"}, False),
        ({"order_id": None, "status": "paid"}, None),  # null: required by the schema -> schema error
    ],
)
def test_echoed_id(data: dict[str, Any], valid: bool | None) -> None:
    spec = REG["get_order_status"]
    obs = Observer().observe(spec, _res(spec.name, data), echo_expectations(spec, {"order_id": ORDER}))
    if valid is None:
        assert obs.error_type is ErrorType.TOOL_SCHEMA_VIOLATION
    elif valid:
        assert obs.valid and obs.confidence_score == 1.0
    else:
        assert obs.error_type is ErrorType.OBSERVATION_INCONSISTENT and not obs.valid
        assert obs.confidence_score == pytest.approx(0.6 / 0.7)  # hard checks passed, consistency 0


def test_absent_echo_and_empty_list_are_consistent_on_both_paths() -> None:
    spec = REG["list_orders"]
    exp = echo_expectations(spec, {"user_id": "U00000002", "status": "paid"})
    checker = rv.ObservationChecker(spec.model_dump(mode="json"), expected=exp)
    for data in ({"orders": [], "count": 0}, {"user_id": "U00000002", "orders": [], "count": 0}):
        doc = _res(spec.name, data).model_dump(mode="json")
        a, b = checker.check(doc), checker.check(orjson.dumps(doc))  # tree and fast (bytes) path
        assert a["valid"] and b["valid"] and a == b, (a, b)
    bad = _res(spec.name, {"orders": [{"order_id": ORDER, "status": "shipped", "amount": 1.0}], "count": 1})
    doc = bad.model_dump(mode="json")
    a, b = checker.check(doc), checker.check(orjson.dumps(doc))
    assert a["error_type"] == b["error_type"] == "OBSERVATION_INCONSISTENT"


def test_without_null_an_absent_value_is_still_missing() -> None:
    spec = REG["get_logistics"]
    c = rv.ObservationChecker(spec.model_dump(mode="json"), expected={"/nope": ["x"]})
    out = c.check(
        {
            "status_code": 200,
            "response_time_ms": 1,
            "parsed_data": {"order_id": ORDER, "status": "in_transit"},
        }
    )
    assert out["error_type"] == "OBSERVATION_INCONSISTENT"


def test_expectations_never_compile_and_the_cache_is_bounded() -> None:
    spec = REG["get_order_status"]
    obs = Observer(max_checkers=2)
    for i in range(50):
        oid = f"2099111500000000{i:02d}"
        good = _res(spec.name, {"order_id": oid, "status": "paid"})
        assert obs.observe(spec, good, echo_expectations(spec, {"order_id": oid})).valid
        other = echo_expectations(spec, {"order_id": "209901010000000000"})
        assert obs.observe(spec, good, other).error_type is ErrorType.OBSERVATION_INCONSISTENT
    assert list(obs._checkers) == ["get_order_status"]  # one compiled checker for 100 expectations
    for name in ("get_logistics", "get_user_profile", "get_weather"):
        obs.observe(REG[name], _res(name, {}))
    assert len(obs._checkers) == 2
    # a replaced contract of the same name is not answered by its predecessor's checker
    obs.observe(spec, _res(spec.name, {"order_id": ORDER, "status": "paid"}))
    strict = spec.model_copy(update={"allowed_status_codes": [201]})
    assert not obs.observe(strict, _res(spec.name, {"order_id": ORDER, "status": "paid"})).valid
    assert obs._checkers[spec.name][0] is strict


def test_per_call_expectations_equal_compiled_ones() -> None:
    spec = REG["get_order_status"]
    exp = echo_expectations(spec, {"order_id": ORDER})
    compiled = rv.ObservationChecker(spec.model_dump(mode="json"), expected=exp)
    per_call = rv.ObservationChecker(spec.model_dump(mode="json"))
    for data in (
        {"order_id": ORDER, "status": "paid"},
        {"order_id": "209901010000000000", "status": "paid"},
        {"status": "paid"},
        {"order_id": ORDER, "status": "bogus"},
    ):
        doc = _res(spec.name, data).model_dump(mode="json")
        for d in (doc, orjson.dumps(doc)):
            assert dict(compiled.check(d)) == dict(per_call.check(d, expected=exp)), data
    with pytest.raises(rv.CompileError):
        per_call.check(doc, expected={"no-pointer": [1]})
