"""Simple rules take a native fast path in the core; their audit results must equal JsonLogic's."""

from __future__ import annotations

import itertools
from typing import Any

import orjson

import rust_validator as rv

RULES = [
    {"name": "ok", "logic": {"==": [{"var": "status_code"}, 200]}},
    {"name": "fast", "logic": {"<": [{"var": "response_time_ms"}, 3000]}},
    {"name": "known", "logic": {"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}}},
    {"name": "positive", "logic": {">=": [{"var": "data.amount"}, 0]}},
    {"name": "second", "logic": {">": [{"var": "data.items.1"}, 1.5]}},
]
VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    0.5,
    2,
    200,
    200.0,
    2999.9,
    3000,
    "0",
    "",
    "paid",
    "unknown",
    "error",
    [1],
    {},
]


def passes(logic: dict[str, Any], ctx: dict[str, Any]) -> bool:
    """JsonLogic truthiness of the rule; an evaluation error fails the rule (as in the checker)."""
    try:
        v = rv.jsonlogic(logic, ctx)
    except rv.CompileError:
        return False
    return bool(v) if not isinstance(v, (list, dict)) else len(v) > 0


def test_rule_results_equal_jsonlogic() -> None:
    contract = {
        "name": "t",
        "args_schema": {},
        "observation_rules": RULES,
        "allowed_status_codes": [200, 404],
        "timeout_ms": 100000,
    }
    checker = rv.ObservationChecker(contract)
    n = 0
    for status, ms, v in itertools.product([200, 404], [87.5, 5000], VALUES):
        data = {"status": v, "amount": v, "items": [0, v]}
        doc = {"tool": "t", "status_code": status, "response_time_ms": ms, "parsed_data": data}
        ctx = {"status_code": status, "response_time_ms": ms, "data": data}
        obs = checker.check(orjson.dumps(doc))
        got = {a["check"]: a["passed"] for a in obs["audit_trail"] if a["check"].startswith("rule:")}
        want = {f"rule:{r['name']}": passes(r["logic"], ctx) for r in RULES}
        assert got == want, (doc, got, want)
        assert obs["valid"] == all(want.values())
        n += 1
    assert n == 2 * 2 * len(VALUES)
