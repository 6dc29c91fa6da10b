"""``tao run --planner-config FILE``: the planning decision point is on for the run (off without
the flag); a bad file is a usage error naming the key."""

from __future__ import annotations

import orjson

from tao.cli import run_cli


class NeverAskedEngine:
    """The plan engine slot of a run whose decision point answers before any plan is asked."""

    codec = None

    async def agenerate_one(self, request):  # pragma: no cover - reaching it fails the test
        raise AssertionError("the plan model was asked")

    def close(self) -> None:
        pass


def test_the_flag_turns_the_decision_point_on(capsys, monkeypatch, tmp_path, mock_tools) -> None:
    import tao.loop.runtime as runtime

    monkeypatch.setattr(runtime, "load_plan_engine", lambda *a, **k: NeverAskedEngine())
    cfg = tmp_path / "planner_config.yaml"
    cfg.write_text("routing: {enabled: false}\nbypass: {max_input_tokens: 5}\n")
    request = "查询上个月的订单状态，" + "这是很长的背景说明。" * 5
    rc = run_cli.main([request, "--json", "--tools-url", mock_tools.url, "--planner-config", str(cfg)])
    out = orjson.loads(capsys.readouterr().out)
    assert rc == 1 and out["status"] == "failed" and out["error_type"] == "BUDGET_EXHAUSTED"
    decision = next(e for e in out["trajectory"] if e["kind"] == "planning_decision")
    assert decision["payload"]["path"] == "bypass"


def test_without_the_flag_there_is_no_decision_point(monkeypatch) -> None:
    monkeypatch.delenv("TAO_PLANNER_CONFIG", raising=False)
    assert run_cli._parser().parse_args(["x"]).planner_config is None


def test_a_bad_planner_config_is_a_usage_error_naming_the_key(
    capsys, monkeypatch, tmp_path, mock_tools
) -> None:
    import tao.loop.runtime as runtime

    monkeypatch.setattr(runtime, "load_plan_engine", lambda *a, **k: NeverAskedEngine())
    bad = tmp_path / "bad.yaml"
    bad.write_text("routing: {threshold: high}\n")
    rc = run_cli.main(["天气", "--tools-url", mock_tools.url, "--planner-config", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and "routing.threshold" in err and "bad.yaml" in err
