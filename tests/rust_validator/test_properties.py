"""Property tests: SchemaValidator agrees with jsonschema_rs (same engine family, independent
bindings) on generated schemas and instances, and bytes input agrees with object input."""

from __future__ import annotations

import jsonschema_rs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rust_validator as rv

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ints = st.integers(min_value=-(2**63), max_value=2**64 - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)
texts = st.text(max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | ints | floats | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
small_num = st.integers(min_value=-5, max_value=20)
keys = st.sampled_from(["a", "b", "c", "id", "status"])
types = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])
formats = st.sampled_from(["date", "date-time", "email", "ipv4", "ipv6", "uuid", "hostname", "uri"])
patterns = st.sampled_from(["^a", "b$", "^[0-9]+$", "x|y", "^.{2,4}$", "\\d"])


def leaf_schemas() -> st.SearchStrategy[dict]:
    return st.one_of(
        st.builds(lambda t: {"type": t}, types),
        st.builds(lambda t: {"type": t}, st.lists(types, min_size=1, max_size=3, unique=True)),
        st.builds(lambda m: {"minimum": m}, small_num),
        st.builds(lambda m: {"exclusiveMaximum": m}, small_num),
        st.builds(lambda m: {"multipleOf": m}, st.integers(min_value=1, max_value=5)),
        st.builds(lambda n: {"minLength": n}, st.integers(0, 5)),
        st.builds(lambda n: {"maxLength": n}, st.integers(0, 5)),
        st.builds(lambda p: {"pattern": p}, patterns),
        st.builds(lambda f: {"format": f}, formats),
        st.builds(lambda v: {"enum": v}, st.lists(json_values, min_size=1, max_size=3)),
        st.builds(lambda v: {"const": v}, json_values),
        st.builds(lambda n: {"minItems": n}, st.integers(0, 3)),
        st.builds(lambda b: {"uniqueItems": b}, st.booleans()),
        st.builds(lambda r: {"required": r}, st.lists(keys, max_size=3, unique=True)),
        st.just({}),
        st.booleans(),
    )


schemas = st.recursive(
    leaf_schemas(),
    lambda inner: st.one_of(
        st.builds(lambda p: {"properties": p}, st.dictionaries(keys, inner, max_size=3)),
        st.builds(lambda a: {"additionalProperties": a}, inner),
        st.builds(lambda i: {"items": i}, inner),
        st.builds(lambda xs: {"allOf": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda xs: {"anyOf": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda xs: {"oneOf": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda x: {"not": x}, inner),
        st.builds(
            lambda a, b: {**a, **b} if isinstance(a, dict) and isinstance(b, dict) else a, inner, inner
        ),
    ),
    max_leaves=6,
)
instances = st.recursive(
    st.none()
    | st.booleans()
    | ints
    | floats
    | texts
    | st.sampled_from(["2024-05-01", "2024-05-01T10:00:00+08:00", "a@b.co", "10.0.0.1", "ab", "123"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys | texts, inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.timeout(120)
@SETTINGS
@given(schema=schemas, instance=instances, validate_formats=st.booleans())
def test_agrees_with_jsonschema_rs(schema, instance, validate_formats) -> None:
    ours = rv.SchemaValidator(schema, validate_formats=validate_formats, lenient_datetime=False)
    theirs = jsonschema_rs.validator_for(schema, validate_formats=validate_formats)
    expected = theirs.is_valid(instance)
    assert ours.is_valid(instance) == expected
    assert (ours.errors(instance) == []) == expected


@pytest.mark.timeout(120)
@SETTINGS
@given(schema=schemas, instance=instances)
def test_bytes_and_objects_agree(schema, instance) -> None:
    v = rv.SchemaValidator(schema)
    raw = orjson.dumps(instance)
    assert v.is_valid(raw) == v.is_valid(instance)
    assert v.errors(raw) == v.errors(instance)
    assert rv.SchemaValidator(orjson.dumps(schema)).is_valid(raw) == v.is_valid(instance)


# JsonLogic numbers are i64 or f64 (datalogic-rs): integers above i64::MAX come back as floats.
logic_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | floats | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.timeout(60)
@settings(max_examples=100, deadline=None)
@given(data=logic_values)
def test_jsonlogic_passthrough_and_var(data) -> None:
    # A var of the whole data returns the data itself; bytes and objects agree.
    assert rv.jsonlogic({"var": ""}, {"x": data}) == {"x": data}
    assert rv.jsonlogic({"var": "x"}, orjson.dumps({"x": data})) == rv.jsonlogic({"var": "x"}, {"x": data})
