"""check_many: the columnar ObservationBatch equals check_batch item by item, on the calling
thread (small batches) and in parallel (≥ 32 KiB of text in total)."""

from __future__ import annotations

import gc
from typing import Any

import orjson
import pytest

import rust_validator as rv
from tao.domains.reference.registry import reference_registry

ORDER = {"order_id": "123456789012345678", "status": "shipped", "amount": 12.5}
BIG = 700  # enough documents for the parallel path (PARALLEL_MIN_BYTES = 32 KiB in total)

HOSTILE: list[Any] = [
    b'{"status_code": 200, "status_code": 201}',  # duplicate key
    b'{"tool": "x", "parsed_data": ',  # truncated
    b"\xff\xfe",  # invalid UTF-8
    '{"tool": "\ud800"}',  # lone surrogate in a str
    {"tool": "x", "parsed_data": {"tags": {1, 2}}},  # a set
    {"tool": "x", "parsed_data": {"amount": float("nan")}},  # NaN
    b"[" * 200 + b"]" * 200,  # too deep
]


def doc(i: int, **kw: Any) -> bytes:
    data = {**ORDER, "amount": i, **kw}
    return orjson.dumps(
        {"tool": "get_order_status", "status_code": 200, "response_time_ms": 120.0, "parsed_data": data}
    )


@pytest.fixture(scope="module")
def checker() -> rv.ObservationChecker:
    return rv.ObservationChecker(reference_registry()["get_order_status"].model_dump(mode="json"))


def _as_dict(o: Any) -> dict[str, object]:
    return dict(o.to_dict() if isinstance(o, rv.Observation) else o)


def mixed(n: int) -> list[Any]:
    kinds = [
        lambda i: doc(i),
        lambda i: doc(i).decode(),
        lambda i: orjson.loads(doc(i)),
        lambda i: bytearray(doc(i)),
        lambda i: memoryview(doc(i)),
        lambda i: doc(i, status="unknown"),  # a rule failure (full path)
    ]
    items = [kinds[i % len(kinds)](i) for i in range(n)]
    for k, bad in enumerate(HOSTILE):
        items[(k * 7919) % n] = bad
    return items


@pytest.mark.parametrize("n", [20, BIG])
def test_equal_to_check_batch_item_by_item(checker, n: int) -> None:
    items = mixed(n)
    want = checker.check_batch(items)
    got = checker.check_many(items)
    assert isinstance(got, rv.ObservationBatch)
    assert len(got) == n
    assert [_as_dict(got[i]) for i in range(n)] == [_as_dict(o) for o in want]
    assert [type(got[i]) for i in range(n)] == [type(o) for o in want]
    assert [_as_dict(o) for o in got.to_list()] == [_as_dict(o) for o in want]
    assert [_as_dict(o) for o in rv.check_many(checker, tuple(items))] == [_as_dict(o) for o in want]


@pytest.mark.parametrize("n", [20, BIG])
def test_verdicts(checker, n: int) -> None:
    items = mixed(n)
    want = [bool(o["valid"]) for o in checker.check_batch(items)]
    got = checker.check_many(items)
    assert got.valid == want
    assert all(type(v) is bool for v in got.valid)
    assert got.n_valid == sum(want)
    assert got.invalid_indices() == [i for i, v in enumerate(want) if not v]
    assert 0 < got.n_valid < n  # the mix has both
    assert repr(got) == f"ObservationBatch(len={n}, n_valid={sum(want)})"


def test_indexing(checker) -> None:
    items = [doc(i) for i in range(BIG)]
    b = checker.check_many(items)
    assert b[-1]["extracted_data"]["amount"] == BIG - 1
    assert b[-BIG]["extracted_data"]["amount"] == 0
    assert b[0] is b[0] and b[-1] is b[BIG - 1]  # built once, then the same object
    for bad in (BIG, -BIG - 1, 10**6):
        with pytest.raises(IndexError):
            b[bad]
    with pytest.raises(TypeError):
        b["0"]
    assert [o["extracted_data"]["amount"] for o in b[3:9:2]] == [3, 5, 7]
    assert [o["extracted_data"]["amount"] for o in b[-2:]] == [BIG - 2, BIG - 1]
    assert b[5:2] == [] and b[::-1][0] is b[-1]


def test_iteration_twice(checker) -> None:
    items = mixed(40)
    b = checker.check_many(items)
    first = [_as_dict(o) for o in b]
    second = [_as_dict(o) for o in b]
    assert first == second == [_as_dict(o) for o in checker.check_batch(items)]
    it = iter(b)
    assert iter(it) is it
    assert len(list(it)) == 40 and list(it) == []


def test_batch_outlives_its_input_list(checker) -> None:
    items = [doc(i) for i in range(BIG)] + [doc(i).decode() for i in range(3)]
    b = checker.check_many(items)
    items.clear()
    del items
    gc.collect()
    assert b.n_valid == BIG + 3
    assert [o["extracted_data"]["amount"] for o in b[:3]] == [0, 1, 2]
    assert _as_dict(b[-1]) == _as_dict(checker.check(doc(2).decode()))
    # An item's result outlives the batch too.
    last = b[BIG - 1]
    del b
    gc.collect()
    assert last["extracted_data"]["amount"] == BIG - 1


@pytest.mark.parametrize("n", [20, BIG])
def test_errors_raise_gives_the_first_input_error(checker, n: int) -> None:
    items = mixed(n)
    with pytest.raises(rv.ValidationInputError) as many:
        checker.check_many(items, errors="raise")
    with pytest.raises(rv.ValidationInputError) as batch:
        checker.check_batch(items, errors="raise")
    assert (many.value.kind, many.value.pointer, str(many.value)) == (
        batch.value.kind,
        batch.value.pointer,
        str(batch.value),
    )
    # Without input errors, "raise" returns the batch.
    assert checker.check_many([doc(i) for i in range(n)], errors="raise").n_valid == n


def test_empty_bad_arguments_and_soft(checker) -> None:
    b = checker.check_many([])
    assert len(b) == 0 and b.valid == [] and b.n_valid == 0 and b.to_list() == [] and list(b) == []
    assert len(checker.check_many(iter(()))) == 0
    with pytest.raises(ValueError, match="errors must be"):
        checker.check_many([doc(1)], errors="ignore")
    with pytest.raises(TypeError):
        checker.check_many(5)
    soft = checker.check_many([doc(i) for i in range(BIG)], soft=0.5)
    assert {o["confidence_score"] for o in soft} == {checker.check(doc(0), soft=0.5)["confidence_score"]}
