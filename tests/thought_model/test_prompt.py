"""The prompt format is deterministic and marks whether the session knows the user."""

from __future__ import annotations

from datetime import datetime

from tao.contracts import SessionState
from thought_model.prompt import BOS_TOKEN, ME_MARK, PLAN_MARK, build_prompt, prepare_prompt, target_text


def test_prompt_layout_and_determinism() -> None:
    s = SessionState(user_id="U10000001", now=datetime(2026, 3, 1, 9, 0))
    a = build_prompt("查询上个月的订单状态", s)
    assert a == f"{BOS_TOKEN}查询<DATE1>的订单状态{ME_MARK}<ME>{PLAN_MARK}"
    assert build_prompt("查询上个月的订单状态", s) == a
    anon = build_prompt("查询上个月的订单状态", None)
    assert anon.endswith(f"{ME_MARK}none{PLAN_MARK}")


def test_session_date_sets_the_year_of_dates_without_one() -> None:
    p = prepare_prompt("3月5日的天气", SessionState(now=datetime(2031, 1, 2)))
    assert p.perception.slots == {"<DATE1>": "2031-03-05"}


def test_target_text_ends_with_eos() -> None:
    assert target_text('{"a":1}').endswith("<|eos|>")
