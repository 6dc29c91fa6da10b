"""JsonLogic conformance: every case of the shared jsonlogic.com tests.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rust_validator as rv
from estimator.data.paths import JSONLOGIC_TESTS


def _equal(a: object, b: object) -> bool:
    """JSON equality where 1 == 1.0 but True != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return a == b


def test_all_shared_cases(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [c for c in json.loads((data_dir / JSONLOGIC_TESTS).read_text()) if not isinstance(c, str)]
    failures = []
    for rule, data, expected in cases:
        try:
            got = rv.jsonlogic(rule, data)
        except rv.CompileError as exc:
            failures.append((rule, data, expected, f"error: {exc}"))
            continue
        if not _equal(got, expected):
            failures.append((rule, data, expected, got))
    with capsys.disabled():
        print(f"\n[JsonLogic tests.json] {len(cases) - len(failures)}/{len(cases)} passed")
    assert len(cases) == 277
    assert not failures, failures[:10]


def test_bytes_and_objects_agree() -> None:
    rule = {"if": [{">": [{"var": "t"}, 30]}, "hot", "ok"]}
    assert rv.jsonlogic(rule, {"t": 31}) == "hot"
    assert rv.jsonlogic(json.dumps(rule).encode(), b'{"t": 3}') == "ok"


def test_bad_rule_is_a_typed_error() -> None:
    with pytest.raises(rv.CompileError):
        rv.jsonlogic({"no_such_operator": [1, 2]}, {})
    with pytest.raises(rv.ValidationInputError):
        rv.jsonlogic({"var": "x"}, {"x": float("nan")})


def test_current_spec_cases(capsys: pytest.CaptureFixture[str]) -> None:
    """Our own cases for the current spec (newer operators and edge semantics), with comments."""
    path = Path(__file__).parent / "data" / "jsonlogic_extra.json"
    cases = [c for c in json.loads(path.read_text()) if isinstance(c, dict)]
    failures = []
    for c in cases:
        try:
            got = rv.jsonlogic(c["rule"], c["data"])
        except rv.CompileError as exc:
            if not c.get("error"):
                failures.append((c["comment"], f"error: {exc}"))
            continue
        if c.get("error") or not _equal(got, c["result"]):
            failures.append((c["comment"], got))
    with capsys.disabled():
        print(f"\n[JsonLogic current-spec extra] {len(cases) - len(failures)}/{len(cases)} passed")
    assert len(cases) >= 50
    assert not failures, failures[:10]


def test_newer_operators_in_observation_rules() -> None:
    """The newer operators compile in contract rules too (not only in one-shot jsonlogic())."""
    spec = {
        "name": "probe",
        "description": "",
        "args_schema": {},
        "observation_rules": [
            {"name": "coalesce", "logic": {"!==": [{"??": [{"val": ["data", "x"]}, None]}, None]}},
            {"name": "exists", "logic": {"exists": ["data", "x"]}},
            {
                "name": "guarded",
                "logic": {"try": [{"all": [{"var": "data.xs"}, {">": [{"var": ""}, 0]}]}, False]},
            },
        ],
    }
    checker = rv.ObservationChecker(spec)
    ok = checker.check({"status_code": 200, "response_time_ms": 1, "parsed_data": {"x": 1, "xs": [1, 2]}})
    assert ok["valid"], ok["audit_trail"]
    bad = checker.check({"status_code": 200, "response_time_ms": 1, "parsed_data": {"xs": 5}})
    failed = {a["check"] for a in bad["audit_trail"] if not a["passed"]}
    assert failed == {"rule:coalesce", "rule:exists", "rule:guarded"}
