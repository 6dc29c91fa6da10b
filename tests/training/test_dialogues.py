"""``python -m training.dialogues``: dialogue files scored turn by turn (real default model)."""

from __future__ import annotations

import json

import pytest

from training.cases import CaseFormatError
from training.dialogues import load_dialogues, main

S = {"user_id": "U00000001", "now": "2026-06-10T10:00:00+08:00", "timezone": "Asia/Shanghai"}
DIALOGUES = [
    {
        "id": "w",
        "lang": "zh",
        "session": S,
        "turns": [
            {
                "request": "北京明天天气怎么样",
                "expect": {
                    "steps": [{"tool": "get_weather", "args": {"city": "北京", "date": "2026-06-11"}}]
                },
            },
            {
                "request": "那上海呢",
                "expect": {
                    "steps": [{"tool": "get_weather", "args": {"city": "上海", "date": "2026-06-11"}}]
                },
            },
        ],
    },
    {
        "id": "o",
        "lang": "zh",
        "session": S,
        "turns": [
            {
                "request": "查询我上个月的订单",
                "expect": {
                    "steps": [{"tool": "list_orders", "args": {"user_id": "U00000001", "period": "2026-05"}}]
                },
            },
            # a deliberately wrong label: the scorer must count it as a miss
            {
                "request": "那3月呢",
                "expect": {
                    "steps": [{"tool": "list_orders", "args": {"user_id": "U00000001", "period": "2026-04"}}]
                },
            },
        ],
    },
]


def test_format_errors_name_the_line(tmp_path) -> None:
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps({"id": "x", "turns": []}) + "\n")
    with pytest.raises(CaseFormatError, match=r"d.jsonl:1"):
        load_dialogues(p)
    p.write_text(json.dumps({"id": "x", "turns": [{"request": "a", "expect": {"kind": "plan"}}]}) + "\n")
    with pytest.raises(CaseFormatError, match=r"needs expect\.steps"):
        load_dialogues(p)
    assert main(["--cases", str(tmp_path / "missing.jsonl")]) == 2


@pytest.mark.slow
def test_scores_every_turn(tmp_path, capsys) -> None:
    p = tmp_path / "d.jsonl"
    p.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in DIALOGUES))
    out = tmp_path / "r.json"
    assert main(["--cases", str(p), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "every-turn exact" in text and "time anchors kept" in text
    r = json.loads(out.read_text())
    assert (r["dialogues"], r["turns"]) == (2, 4)
    assert [x["exact"] for x in r["results"]] == [True, True, True, False]
    assert r["turn_exact"] == 0.75 and r["dialogue_exact"] == 0.5 and r["followup_exact"] == 0.5
    # both dialogues carry a time argument after turn 1; the wrong month loses the second
    assert (r["time_anchor_dialogues"], r["time_anchor_kept"]) == (2, 0.5)
    assert r["results"][1]["carry"]["kind"] == "swap"
