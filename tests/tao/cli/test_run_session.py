"""``tao run --session ID``: one conversation across CLI calls (real default model, CPU engine)."""

from __future__ import annotations

import json

import pytest

from tao.cli.run_cli import main


@pytest.mark.slow
def test_follow_up_across_calls(tmp_path, capsys) -> None:
    common = ["--session", "c1", "--session-dir", str(tmp_path), "--now", "2026-06-10T10:00:00+08:00"]
    common += ["--engine", "cpu", "--json"]
    assert main(["北京明天天气怎么样", *common]) == 0
    first = json.loads(capsys.readouterr().out)
    assert (tmp_path / "default" / "c1.json").is_file()
    assert main(["那上海呢", *common]) == 0
    second = json.loads(capsys.readouterr().out)
    steps = [(s["tool"], s["arguments"]) for s in second["plan"]["steps"]]
    assert steps == [("get_weather", {"city": "上海", "date": "2026-06-11"})]
    ctx = second["trajectory"][0]["payload"]
    assert ctx["snapshot"]["steps"][0]["arguments"] == first["plan"]["steps"][0]["arguments"]
    assert ctx["carry_over"]["kind"] == "swap"
    # another session id starts a new conversation: nothing carried
    assert main(["那上海呢", *common[:1], "c2", *common[2:]]) in (0, 1)
    third = json.loads(capsys.readouterr().out)
    assert third["trajectory"][0]["payload"]["snapshot"] is None


def test_bad_session_id_is_a_usage_error(tmp_path, capsys) -> None:
    plan = '{"intent":"weather","steps":[{"step_id":"t1","tool":"get_weather","arguments":{"city":"北京"}}]}'
    assert main(["x", "--plan", plan, "--session", "../evil", "--session-dir", str(tmp_path)]) == 2
    assert "session_id" in capsys.readouterr().err
