"""check_batch: order, mixed item types, hostile items, error modes — on the calling thread
(small batches) and in parallel (≥ 32 KiB of text in total: rayon, GIL released)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import rust_validator as rv
from tao.domains.reference.registry import reference_registry

ORDER = {"order_id": "123456789012345678", "status": "shipped", "amount": 12.5}
# Enough documents for the parallel path (PARALLEL_MIN_BYTES = 32 KiB of text in total).
BIG = 700


def action(data: Any, *, status: int | None = 200, ms: float = 120.0) -> dict[str, Any]:
    return {"tool": "get_order_status", "status_code": status, "response_time_ms": ms, "parsed_data": data}


def doc(i: int, **kw: Any) -> bytes:
    return orjson.dumps(action({**ORDER, "amount": i, **kw}))


@pytest.fixture(scope="module")
def checker() -> rv.ObservationChecker:
    return rv.ObservationChecker(reference_registry()["get_order_status"].model_dump(mode="json"))


def _single(checker: rv.ObservationChecker, item: Any) -> dict[str, Any]:
    try:
        return dict(checker.check(item))
    except rv.ValidationInputError as e:
        return {"kind": e.kind, "pointer": e.pointer}


def _batch_entry(obs: Any) -> dict[str, Any]:
    d = dict(obs)
    info = d["details"].get("input_error")
    return {"kind": info["kind"], "pointer": info["pointer"]} if info else d


@pytest.mark.parametrize("n", [3, BIG])
def test_order_is_preserved(checker, n: int) -> None:
    docs = [doc(i) for i in range(n)]
    assert sum(map(len, docs)) >= 32 * 1024 or n < 10
    out = checker.check_batch(docs)
    assert len(out) == n
    assert [o["extracted_data"]["amount"] for o in out] == list(range(n))
    assert all(o["valid"] for o in out)


@pytest.mark.parametrize("n", [6, BIG])
def test_mixed_items_match_single_checks(checker, n: int) -> None:
    kinds = [
        lambda i: doc(i),
        lambda i: doc(i).decode(),
        lambda i: orjson.loads(doc(i)),
        lambda i: bytearray(doc(i)),
        lambda i: memoryview(doc(i)),
        lambda i: doc(i, status="unknown"),  # a rule failure (full path)
    ]
    items = [kinds[i % len(kinds)](i) for i in range(n)]
    expected = [_single(checker, it) for it in items]
    out = checker.check_batch(items)
    assert [dict(o) for o in out] == expected
    assert [o["valid"] for o in out] == [i % len(kinds) != 5 for i in range(n)]
    # Any iterable works, not only a list.
    assert [dict(o) for o in checker.check_batch(iter(items))] == expected
    assert [dict(o) for o in rv.check_batch(checker, tuple(items))] == expected


HOSTILE: list[Any] = [
    b'{"status_code": 200, "status_code": 201}',  # duplicate key
    b'{"tool": "x", "parsed_data": ',  # truncated
    b"\xff\xfe",  # invalid UTF-8
    '{"tool": "\ud800"}',  # lone surrogate in a str
    {"tool": "x", "parsed_data": {"tags": {1, 2}}},  # a set
    {"tool": "x", "parsed_data": {"amount": float("nan")}},  # NaN
    b"[" * 200 + b"]" * 200,  # too deep
]


@pytest.mark.parametrize("n", [20, BIG])
def test_a_hostile_item_loses_nothing_else(checker, n: int) -> None:
    items: list[Any] = [doc(i) for i in range(n)]
    spots = {(k * 7919) % n: bad for k, bad in enumerate(HOSTILE)}
    for at, bad in spots.items():
        items[at] = bad
    out = checker.check_batch(items, errors="observe")
    assert len(out) == n
    for i, o in enumerate(out):
        if i in spots:
            assert o["valid"] is False and o["error_type"] == "TOOL_MALFORMED_RESPONSE"
            assert _batch_entry(o) == _single(checker, spots[i]), i
        else:
            assert o["valid"] and o["extracted_data"]["amount"] == i
    with pytest.raises(rv.ValidationInputError) as e:
        checker.check_batch(items, errors="raise")
    first = spots[min(spots)]
    assert {"kind": e.value.kind, "pointer": e.value.pointer} == _single(checker, first)


def test_empty_batch_and_bad_errors_argument(checker) -> None:
    assert checker.check_batch([]) == []
    assert checker.check_batch(iter(())) == []
    with pytest.raises(ValueError, match="errors must be"):
        checker.check_batch([doc(1)], errors="ignore")
    with pytest.raises(TypeError):
        checker.check_batch(5)


def test_results_outlive_the_batch_list(checker) -> None:
    items = [doc(i) for i in range(BIG)]
    out = checker.check_batch(items)
    items.clear()
    del items
    assert [o["extracted_data"]["amount"] for o in out[:5]] == [0, 1, 2, 3, 4]
    assert dict(out[-1]) == dict(checker.check(doc(BIG - 1)))


def test_soft_score_reaches_every_result(checker) -> None:
    out = checker.check_batch([doc(i) for i in range(BIG)], soft=0.5)
    assert {o["confidence_score"] for o in out} == {checker.check(doc(0), soft=0.5)["confidence_score"]}
