"""The hybrid ComposingEngine wired into ``load_engine`` (``compose=`` / ``TAO_COMPOSE`` /
``COMPOSE_DEFAULT``), and two- and three-intent requests composed on the real default checkpoint."""

from __future__ import annotations

from datetime import datetime

import pytest

from tao.contracts import SessionState
from thought_model import compose
from thought_model.compose import ComposingEngine, compose_enabled
from thought_model.engine import load_engine
from thought_model.engine.base import PlanRequest


def test_compose_flag_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAO_COMPOSE", raising=False)
    assert compose_enabled() is compose.COMPOSE_DEFAULT
    monkeypatch.setattr(compose, "COMPOSE_DEFAULT", not compose.COMPOSE_DEFAULT)
    assert compose_enabled() is compose.COMPOSE_DEFAULT  # the one default, flipped
    monkeypatch.setenv("TAO_COMPOSE", "off")
    assert compose_enabled() is False
    monkeypatch.setenv("TAO_COMPOSE", "1")
    assert compose_enabled() is True
    assert compose_enabled(False) is False  # an explicit flag wins


@pytest.fixture(scope="module")
def composing() -> ComposingEngine:
    eng = load_engine("cpu", compose=True)
    assert isinstance(eng, ComposingEngine) and eng.name == "composing+cpu"
    yield eng
    eng.close()


def test_compose_false_is_the_plain_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAO_COMPOSE", "1")
    eng = load_engine("cpu", compose=False)
    try:
        assert not isinstance(eng, ComposingEngine)
    finally:
        eng.close()


SESSION = SessionState(user_id="U00000001", now=datetime(2026, 11, 25, 10, 0))
CASES = [
    (
        "查一下订单123456789012345678的状态，再看看上海明天的天气",
        [
            ("get_order_status", {"order_id": "123456789012345678"}),
            ("get_weather", {"city": "上海", "date": "@tomorrow"}),
        ],
    ),
    (
        "check the status of order 123456789012345678 and the weather in London tomorrow",
        [
            ("get_order_status", {"order_id": "123456789012345678"}),
            ("get_weather", {"city": "London", "date": "@tomorrow"}),
        ],
    ),
    (
        "查一下订单123456789012345678的状态，再看看上海明天的天气，还有我明天的日程",
        [
            ("get_order_status", {"order_id": "123456789012345678"}),
            ("get_weather", {"city": "上海", "date": "@tomorrow"}),
            ("list_calendar_events", {"date": "@tomorrow"}),
        ],
    ),
    (
        "用户U12345678在哪个城市？顺便看看那里明天天气",
        [
            ("get_user_profile", {"user_id": "U12345678"}),
            ("get_weather", {"city": "${t1.city}", "date": "@tomorrow"}),
        ],
    ),
]


def test_two_and_three_intents_on_the_default_checkpoint(composing: ComposingEngine) -> None:
    results = composing.generate([PlanRequest(text, SESSION) for text, _ in CASES])
    for (text, want), res in zip(CASES, results, strict=True):
        assert res.ok, (text, res.error)
        got = [(s.tool, s.arguments) for s in res.output.steps]
        assert got == want, text
