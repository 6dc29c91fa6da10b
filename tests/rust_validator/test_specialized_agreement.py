"""The specialised checker (the fast path's per-contract scan plan: predicted keys, captures
compiled into the schema nodes, sequence patterns matched on the bytes) agrees with
``jsonschema_rs`` and with the full check, on generated schemas of the fast subset and documents
generated from them (mostly valid, with near misses, shuffled key order, spacing, non-ASCII
strings, escaped keys and duplicate keys)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rust_validator as rv

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = ["a", "b", "id", "status", "order_id", "é", "0", "1", "long_key_name_over_16"]
# Patterns the sequence matcher takes (anchored ASCII classes), and some it does not.
PATTERNS = {
    "^[A-Z]{2}\\d{6}$": ["AB123456", "ab123456", "AB12345", "AB1234567", "AB12345६", "ÀB123456"],
    "^[0-9]{18}$": ["202405011234567890", "20240501123456789", "2024050112345678901", "２02405011234567890"],
    "^[a-z]+-\\d+$": ["ab-12", "-12", "ab-", "ab-12x", "é-1"],
    "^ord_": ["ord_1", "ord", "xord_", "ord_é"],
    "^\\w{2,4}$": ["ab", "a", "abcde", "a_1", "éé"],
    "^[^x]{2}$": ["ab", "xa", "é中", "abc"],
    "^.{2,3}$": ["ab", "a\nb", "中文", "abcd"],
    "b$": ["ab", "ba", "b\n"],
}
STRINGS = ["", "x", "paid", "shipped", "é中", "2024-05-01", 'a"q', "tab\there"]


@st.composite
def schemas(draw: st.DrawFn, depth: int = 2) -> Any:
    kind = draw(
        st.sampled_from(
            ["object", "array", "string", "number", "scalar"] if depth else ["string", "number", "scalar"]
        )
    )
    if kind == "object":
        props = {
            k: draw(schemas(depth - 1))
            for k in draw(st.lists(st.sampled_from(KEYS), max_size=4, unique=True))
        }
        s: dict[str, Any] = {"type": "object", "properties": props}
        if props and draw(st.booleans()):
            s["required"] = draw(st.lists(st.sampled_from([*sorted(props), "b"]), max_size=3, unique=True))
        extra = draw(st.sampled_from(["none", "false", "schema"]))
        if extra == "false":
            s["additionalProperties"] = False
        elif extra == "schema":
            s["additionalProperties"] = draw(schemas(depth - 1))
        if draw(st.integers(0, 4)) == 0:
            s["maxProperties"] = draw(st.integers(0, 4))
        return s
    if kind == "array":
        s = {"type": "array", "items": draw(schemas(depth - 1))}
        if draw(st.booleans()):
            s["maxItems"] = draw(st.integers(0, 4))
        return s
    if kind == "string":
        s = {"type": "string"}
        if draw(st.booleans()):
            s["pattern"] = draw(st.sampled_from(sorted(PATTERNS)))
        if draw(st.integers(0, 3)) == 0:
            s["maxLength"] = draw(st.integers(1, 8))
        if draw(st.integers(0, 5)) == 0:
            s["enum"] = draw(st.lists(st.sampled_from([*STRINGS, "AB123456"]), min_size=1, max_size=3))
        return s
    if kind == "number":
        s = {"type": draw(st.sampled_from(["number", "integer", ["number", "null"]]))}
        if draw(st.booleans()):
            s["minimum"] = draw(st.integers(-3, 3))
        if draw(st.booleans()):
            s["exclusiveMaximum"] = draw(st.integers(5, 500))
        return s
    return draw(
        st.sampled_from(
            [{"type": "boolean"}, {"type": "null"}, {"const": "x"}, {"enum": [1, "a", None]}, True, {}]
        )
    )


@st.composite
def instance_for(draw: st.DrawFn, schema: Any, depth: int = 3) -> Any:
    """A value that mostly fits `schema`, sometimes not."""
    if draw(st.integers(0, 9)) == 0 or not isinstance(schema, dict) or depth == 0:
        return draw(
            st.sampled_from([None, True, 0, -1, 2.5, 1e300, 2**63, "x", "é中", [], {}, [1], {"a": 1}])
        )
    t = schema.get("type")
    if t == "object":
        out: dict[str, Any] = {}
        for k, sub in schema.get("properties", {}).items():
            if draw(st.integers(0, 4)):
                out[k] = draw(instance_for(sub, depth - 1))
        if draw(st.integers(0, 3)) == 0:
            out[draw(st.sampled_from([*KEYS, "zz", "tool"]))] = draw(
                instance_for(schema.get("additionalProperties", {}), depth - 1)
            )
        items = list(out.items())
        if draw(st.booleans()):
            items = draw(st.permutations(items))
        return dict(items)
    if t == "array":
        return [draw(instance_for(schema["items"], depth - 1)) for _ in range(draw(st.integers(0, 4)))]
    if t == "string":
        if "enum" in schema and draw(st.booleans()):
            return draw(st.sampled_from(schema["enum"]))
        pool = PATTERNS.get(schema.get("pattern", ""), []) + STRINGS
        return draw(st.sampled_from(pool))
    if t in ("number", "integer") or t == ["number", "null"]:
        return draw(st.sampled_from([0, 1, -4, 3.0, 7.25, 499, 500, 501, 2**53 + 1, -0.0, 1e-7, None]))
    return draw(st.sampled_from([None, True, False, "x", "a", 1]))


def texts(value: Any, spaced: bool, ascii_only: bool = False) -> bytes:
    sep = (", ", ": ") if spaced else (",", ":")
    return json.dumps(value, ensure_ascii=ascii_only, separators=sep).encode()


@pytest.mark.timeout(300)
@SETTINGS
@given(st.data())
def test_schema_fast_path_agrees_with_jsonschema_rs(data: st.DataObject) -> None:
    schema = data.draw(schemas())
    value = data.draw(instance_for(schema))
    ours = rv.SchemaValidator(schema)
    assert ours.fast_path, schema
    expected = jsonschema_rs.is_valid(schema, value)
    assert ours.is_valid(value) == expected, (schema, value)
    for spaced, ascii_only in ((False, False), (True, False), (False, True)):
        assert ours.is_valid(texts(value, spaced, ascii_only)) == expected, (schema, value, spaced)


def contract(schema: dict[str, Any], extract: dict[str, str]) -> dict[str, Any]:
    return {
        "name": "t",
        "description": "",
        "args_schema": {},
        "response_schema": schema,
        "allowed_status_codes": [200],
        "extract": extract,
        "timeout_ms": 5000,
    }


def pointers(schema: Any, prefix: str = "") -> list[str]:
    """Pointers into documents of `schema` (and a few that miss), for captures."""
    out = [prefix + "/0", prefix + "/zz"]
    if isinstance(schema, dict):
        for k, sub in schema.get("properties", {}).items():
            out.append(f"{prefix}/{k}")
            out.extend(pointers(sub, f"{prefix}/{k}"))
        if "items" in schema:
            out.extend(pointers(schema["items"], prefix + "/1"))
    return out


@pytest.mark.timeout(300)
@SETTINGS
@given(st.data())
def test_observation_plan_agrees_with_full_check(data: st.DataObject) -> None:
    schema = data.draw(schemas())
    ptrs = data.draw(st.lists(st.sampled_from(pointers(schema)), max_size=4, unique=True))
    checker = rv.ObservationChecker(contract(schema, {f"x{i}": p for i, p in enumerate(ptrs)}))
    assert checker.fast_path
    value = data.draw(instance_for(schema))
    order = data.draw(st.permutations(["tool", "status_code", "response_time_ms", "parsed_data"]))
    fields = {"tool": "t", "status_code": 200, "response_time_ms": 12.5, "parsed_data": value}
    action = {k: fields[k] for k in order}
    full = checker.check(action).to_dict()  # a dict goes through the tree path
    if value is not None:
        assert full["valid"] == jsonschema_rs.is_valid(schema, value), (schema, value)
    for spaced in (False, True):
        obs = checker.check(texts(action, spaced))
        assert obs["valid"] == full["valid"]
        assert obs.to_dict() == full, (schema, action, spaced)
    # A duplicated key anywhere is rejected as on the full path.
    dup = texts(action, False).replace(b'"status_code":200', b'"status_code":200,"status_code":200')
    with pytest.raises(rv.ValidationInputError):
        checker.check(dup)


@pytest.mark.parametrize(
    ("pattern", "ok", "bad"),
    [(p, [s for s in xs if jsonschema_rs.is_valid({"pattern": p}, s)], xs) for p, xs in PATTERNS.items()],
)
def test_sequence_patterns_match_as_jsonschema_rs(pattern: str, ok: list[str], bad: list[str]) -> None:
    v = rv.SchemaValidator({"type": "string", "pattern": pattern})
    for s in bad:
        expected = s in ok
        assert v.is_valid(s) == expected, (pattern, s)
        assert v.is_valid(json.dumps(s).encode()) == expected, (pattern, s)
        assert v.is_valid(json.dumps(s, ensure_ascii=False).encode()) == expected, (pattern, s)
