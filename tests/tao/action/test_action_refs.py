"""Step references resolve against extracted data first, then a dotted path into parsed data."""

from __future__ import annotations

import pytest

from tao.action.refs import MissingDependency, StepOutput, refs_in, resolve_refs

OUT = {
    "t1": StepOutput(
        extracted={"user_id": "U00000001", "empty": None},
        parsed={"orders": [{"order_id": "202611010000000001"}], "user_id": "U99999999"},
    )
}


def test_extracted_wins_then_dotted_path() -> None:
    args = {"user_id": "${t1.user_id}", "order_id": "${t1.orders.0.order_id}", "keep": "plain", "n": 1}
    assert resolve_refs(args, OUT) == {
        "user_id": "U00000001",
        "order_id": "202611010000000001",
        "keep": "plain",
        "n": 1,
    }


@pytest.mark.parametrize(
    "ref,why",
    [
        ("${t2.user_id}", "has no output"),
        ("${t1.never_produced}", "no value"),
        ("${t1.orders.5.order_id}", "no value"),
        ("${t1.empty}", "no value"),
    ],
)
def test_missing_values_raise_with_pointer(ref: str, why: str) -> None:
    with pytest.raises(MissingDependency) as exc:
        resolve_refs({"a": [{"b": ref}]}, OUT)
    assert why in str(exc.value) and exc.value.pointer == "/a/0/b"


def test_refs_in_lists_every_reference() -> None:
    assert refs_in({"a": "${t1.x}", "b": ["${t2.y.z}", "no"], "c": {"d": "${t3.w}"}}) == [
        ("t1", "x"),
        ("t2", "y.z"),
        ("t3", "w"),
    ]
