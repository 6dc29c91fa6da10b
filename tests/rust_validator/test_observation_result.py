"""The lazy `Observation` result: it must behave like the ObservationResult dict it replaces."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, MutableMapping
from typing import Any

import orjson
import pytest

import rust_validator as rv
from tao.contracts import ObservationResult
from tao.domains.reference.registry import reference_registry

KEYS = ["valid", "error_type", "extracted_data", "confidence_score", "audit_trail", "details"]
ORDER = {"order_id": "123456789012345678", "status": "shipped", "amount": 12.5}


def action(data: Any, *, status: int | None = 200, ms: float = 120.0) -> bytes:
    return orjson.dumps(
        {"tool": "get_order_status", "status_code": status, "response_time_ms": ms, "parsed_data": data}
    )


@pytest.fixture(scope="module")
def checker() -> rv.ObservationChecker:
    return rv.ObservationChecker(reference_registry()["get_order_status"].model_dump(mode="json"))


def test_is_a_lazy_mutable_mapping(checker) -> None:
    obs = checker.check(action(ORDER))
    assert isinstance(obs, rv.Observation) and isinstance(obs, MutableMapping) and isinstance(obs, Mapping)
    # Fast keys, answered before the dict exists.
    assert obs["valid"] is True and obs.get("error_type") is None and obs["confidence_score"] == 1.0
    assert obs.valid is True and obs.error_type is None and obs.confidence_score == 1.0
    assert len(obs) == 6 and "valid" in obs and "nope" not in obs and 3 not in obs
    assert list(obs) == KEYS and list(obs.keys()) == KEYS
    d = dict(obs)
    assert list(d) == KEYS and d == obs and obs == d and not (obs != d)
    assert obs.to_dict() == d and type(obs.to_dict()) is dict and obs.copy() == d
    assert dict(obs.items()) == d and list(obs.values()) == list(d.values())
    assert obs["audit_trail"] is obs["audit_trail"]  # built once, cached
    assert obs.get("missing", 7) == 7 and obs.get("missing") is None
    with pytest.raises(KeyError):
        obs["missing"]
    assert "Observation(" in repr(obs) and "'valid': True" in repr(obs)


def test_equals_the_dict_path_and_other_results(checker) -> None:
    bad = action({"order_id": "1", "status": "shipped", "amount": 12.5}, status=503)
    a, b = checker.check(bad), checker.check(orjson.loads(bad))
    assert a == b and a != checker.check(action(ORDER)) and a != 1
    assert a["valid"] is False and a["error_type"] == "TOOL_TRANSIENT" and a["confidence_score"] == 0.0
    assert "status_code" in a["details"]["failed_checks"]
    assert checker.check_batch([bad, action(ORDER)]) == [a, checker.check(action(ORDER))]


def test_item_assignment_and_pydantic(checker) -> None:
    obs = checker.check(action(ORDER))
    obs["error_type"] = "TOOL_TRANSIENT"  # what tao.observe.observer does on the dict
    assert obs["error_type"] == "TOOL_TRANSIENT" and obs.get("error_type") == "TOOL_TRANSIENT"
    assert obs.error_type == "TOOL_TRANSIENT"
    del obs["error_type"]
    assert "error_type" not in obs and len(obs) == 5
    with pytest.raises(KeyError):
        del obs["error_type"]
    fresh = checker.check(action(ORDER))
    model = ObservationResult.model_validate(fresh)
    assert model.valid and model.confidence_score == 1.0
    assert ObservationResult.model_validate(fresh.to_dict()) == model
    assert json.loads(json.dumps(fresh.to_dict())) == fresh
    assert copy.deepcopy(fresh.to_dict()) == fresh


def test_frozen_results_are_independent(checker) -> None:
    a, b = checker.check(action(ORDER)), checker.check(action(ORDER))
    a["valid"] = False
    assert b["valid"] is True and a != b


def test_result_outlives_its_checker() -> None:
    spec = reference_registry()["get_order_status"].model_dump(mode="json")
    c = rv.ObservationChecker(spec)
    results = [*c.check_batch([action(ORDER)] * 3), c.check(action(ORDER))]
    del c
    import gc

    gc.collect()
    assert [r["audit_trail"][0]["check"] for r in results] == ["status_code"] * 4
    assert all(r["extracted_data"]["order_id"] == ORDER["order_id"] for r in results)
