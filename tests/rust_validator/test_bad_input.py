"""Hostile and malformed documents: each gets its typed error (never a crash), memory bounded."""

from __future__ import annotations

import resource

import pytest

import rust_validator as rv

# (name, JSON bytes, expected kind, expected pointer or None to skip the pointer check)
CORPUS: list[tuple[str, bytes, str, str | None]] = [
    ("deep arrays 100k", b"[" * 100_000, "too_deep", None),
    ("deep objects 100k", b'{"a":' * 100_000, "too_deep", None),
    ("deep closed arrays 100k", b"[" * 100_000 + b"]" * 100_000, "too_deep", None),
    ("deep mixed 10k", b'[{"k":' * 10_000, "too_deep", None),
    ("string 50 MB", b'"' + b"x" * 50_000_000 + b'"', "too_large", ""),
    ("array 20 MB", b"[" + b"1," * 10_000_000 + b"1]", "too_large", ""),
    ("utf8 0xff", b'"\xff"', "invalid_utf8", ""),
    ("utf8 bad continuation", b'"\xc3\x28"', "invalid_utf8", ""),
    ("utf8 overlong slash", b'"\xc0\xaf"', "invalid_utf8", ""),
    ("utf8 encoded surrogate", b'"\xed\xa0\x80"', "invalid_utf8", ""),
    ("utf8 truncated", b'"\xe2\x82"', "invalid_utf8", ""),
    ("utf8 in key", b'{"\xfe": 1}', "invalid_utf8", ""),
    ("utf8 beyond U+10FFFF", b'"\xf4\x90\x80\x80"', "invalid_utf8", ""),
    ("utf16 BOM bytes", b"\xff\xfe{\x00}\x00", "invalid_utf8", ""),
    ("lone high surrogate", rb'"\ud800"', "syntax", ""),
    ("lone low surrogate", rb'"\udc00"', "syntax", ""),
    ("high surrogate then letter", rb'"\ud800\u0041"', "syntax", ""),
    ("lone surrogate in key", rb'{"\udfff": 1}', "syntax", ""),
    ("lone surrogate nested", rb'{"a": ["ok", "\ud83d"]}', "syntax", "/a/1"),
    ("1e400", b"1e400", "bad_number", ""),
    ("-1e400", b"-1e400", "bad_number", ""),
    ("1e999999999", b"1e999999999", "bad_number", ""),
    ("400-digit integer", b"9" * 400, "bad_number", ""),
    ("huge number in object", b'{"n": 1e309}', "bad_number", "/n"),
    ("duplicate key", b'{"a": 1, "a": 2}', "duplicate_key", "/a"),
    ("duplicate key nested", b'{"a": {"b": 1, "c": 2, "b": 3}}', "duplicate_key", "/a/b"),
    ("duplicate key in array", b'[1, {"x": 1, "x": 1}]', "duplicate_key", "/1/x"),
    ("duplicate escaped key", b'{"a/b": 1, "a\\/b": 2}', "duplicate_key", "/a~1b"),
    ("NaN", b"NaN", "syntax", ""),
    ("-Infinity", b"-Infinity", "syntax", ""),
    ("NaN in object", b'{"a": NaN}', "syntax", "/a"),
    ("Infinity in array", b"[1, Infinity]", "syntax", "/1"),
    ("empty", b"", "syntax", ""),
    ("whitespace only", b"   \n ", "syntax", ""),
    ("unclosed object", b'{"a": 1', "syntax", None),
    ("trailing comma array", b"[1,]", "syntax", None),
    ("trailing comma object", b'{"a": 1,}', "syntax", None),
    ("single quotes", b"{'a': 1}", "syntax", ""),
    ("leading zero", b"01", "syntax", ""),
    ("bare dot number", b".5", "syntax", ""),
    ("trailing dot number", b"1.", "syntax", ""),
    ("plus sign", b"+1", "syntax", ""),
    ("hex escape", rb'"\x41"', "syntax", ""),
    ("unterminated string", b'"abc', "syntax", ""),
    ("raw control char", b'"a\tb"', "syntax", ""),
    ("raw newline in string", b'"a\nb"', "syntax", ""),
    ("nul byte", b"\x00", "syntax", ""),
    ("truncated true", b"tru", "syntax", ""),
    ("missing colon", b'{"a" 1}', "syntax", None),
    ("missing comma", b"[1 2]", "syntax", None),
    ("two documents", b"{} {}", "syntax", ""),
    ("trailing garbage", b'{"a": 1} x', "syntax", ""),
    ("utf8 BOM", b"\xef\xbb\xbf{}", "syntax", ""),
    ("block comment", b"/* c */ {}", "syntax", ""),
    ("line comment", b"[1] // c", "syntax", ""),
    ("unquoted key", b"{a: 1}", "syntax", ""),
    ("bad escape", rb'"\q"', "syntax", ""),
    ("short unicode escape", rb'"\u12"', "syntax", ""),
]

# Hostile but valid JSON: must be accepted and validated normally.
ACCEPTED: list[tuple[str, bytes]] = [
    ("U+2028/2029 escaped", rb'{"s": "\u2028\u2029"}'),
    ("U+2028 raw", '{"s": "a\u2028b"}'.encode()),
    ("escaped NUL", rb'{"s": "\u0000"}'),
    ("surrogate pair", rb'{"s": "\ud83d\ude00"}'),
    ("depth exactly 64", b"[" * 63 + b"{}" + b"]" * 63),
    ("1 MB string", b'{"s": "' + b"y" * 1_000_000 + b'"}'),
    ("64-bit ints", b'{"a": 18446744073709551615, "b": -9223372036854775808}'),
    ("tiny float", b'{"f": 5e-324}'),
]


def _kind(fn, arg) -> tuple[str, str]:
    with pytest.raises(rv.ValidationInputError) as info:
        fn(arg)
    err = info.value
    assert isinstance(err, ValueError)
    assert isinstance(err.reason, str) and err.reason
    return err.kind, err.pointer


@pytest.fixture(scope="module")
def schema_validator() -> rv.SchemaValidator:
    return rv.SchemaValidator({"type": ["object", "array", "string", "number", "boolean", "null"]})


@pytest.fixture(scope="module")
def checker() -> rv.ObservationChecker:
    return rv.ObservationChecker({"name": "probe", "response_schema": {"type": "object"}})


def test_corpus_size() -> None:
    assert len(CORPUS) >= 50
    assert len({name for name, *_ in CORPUS}) == len(CORPUS)


@pytest.mark.timeout(60)
def test_every_hostile_document_gets_its_typed_error(schema_validator, checker) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    plans = rv.PlanChecker({})
    for name, doc, kind, pointer in CORPUS:
        for fn in (schema_validator.is_valid, schema_validator.errors, checker.check, plans.check):
            got_kind, got_pointer = _kind(fn, doc)
            assert got_kind == kind, (name, fn, got_kind, got_pointer)
            if pointer is not None:
                assert got_pointer == pointer, (name, got_pointer)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200, f"peak RSS grew by {grown_mb:.0f} MB"


def test_batch_reports_each_bad_document(checker) -> None:
    docs = [doc for _, doc, _, _ in CORPUS if len(doc) < 1_000_000]
    out = checker.check_batch(docs)
    assert [o["details"]["input_error"]["kind"] for o in out] == [
        k for _, d, k, _ in CORPUS if len(d) < 1_000_000
    ]
    assert all(o["valid"] is False and o["error_type"] == "TOOL_MALFORMED_RESPONSE" for o in out)
    with pytest.raises(rv.ValidationInputError):
        checker.check_batch(docs, errors="raise")


@pytest.mark.parametrize("name,doc", ACCEPTED, ids=[a for a, _ in ACCEPTED])
def test_hostile_but_valid_documents_are_accepted(schema_validator, name, doc) -> None:
    assert schema_validator.is_valid(doc)


def test_limits_are_configurable() -> None:
    strict = rv.SchemaValidator({}, max_depth=2, max_bytes=100)
    assert strict.is_valid(b"[[1]]")
    assert _kind(strict.is_valid, b"[[[1]]]") == ("too_deep", "/0/0")
    assert _kind(strict.is_valid, b"[" + b"1," * 60 + b"1]")[0] == "too_large"
    lax = rv.SchemaValidator({"type": "object"}, allow_duplicate_keys=True)
    assert lax.is_valid(b'{"a": 1, "a": 2}')
    big = rv.SchemaValidator({"type": "string"}, max_bytes=64 * 1024 * 1024)
    assert big.is_valid(b'"' + b"z" * 20_000_000 + b'"')


class _Weird:
    pass


PY_BAD = [
    ("non-str key", {1: 2}, "unsupported", ""),
    ("set", {"a": {1, 2}}, "unsupported", "/a"),
    ("object", [1, _Weird()], "unsupported", "/1"),
    ("bytes inside", {"a": [b"x"]}, "unsupported", "/a/0"),
    ("nan", {"x": float("nan")}, "bad_number", "/x"),
    ("inf", [float("inf")], "bad_number", "/0"),
    ("10**400", {"n": 10**400}, "bad_number", "/n"),
    ("lone surrogate str", {"s": "\ud800"}, "invalid_utf8", "/s"),
    ("deep python list", None, "too_deep", None),
]


@pytest.mark.parametrize("name,value,kind,pointer", PY_BAD, ids=[p[0] for p in PY_BAD])
def test_bad_python_objects(schema_validator, name, value, kind, pointer) -> None:
    if value is None:
        value = []
        for _ in range(5000):
            value = [value]
    got_kind, got_pointer = _kind(schema_validator.is_valid, value)
    assert got_kind == kind
    if pointer is not None:
        assert got_pointer == pointer


def test_wrong_shapes(checker) -> None:
    assert _kind(checker.check, b"[1, 2]") == ("shape", "")
    assert _kind(checker.check, {"tool": "probe", "status_code": "ok"}) == ("shape", "/status_code")
    assert _kind(checker.check, '{"tool": "probe", "response_time_ms": "slow"}') == (
        "shape",
        "/response_time_ms",
    )
