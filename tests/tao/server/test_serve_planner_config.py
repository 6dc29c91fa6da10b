"""``tao serve --planner-config FILE``: /v1/run's runtime gets the planning decision point (off
without it); a bad file refuses to start, naming the key."""

from __future__ import annotations

from typing import Any

from tao.server import cli
from tao.server.routes_run import RunHolder


def test_the_flag_reaches_the_run_runtime(tmp_path, monkeypatch) -> None:
    import asyncio

    monkeypatch.delenv("TAO_PLANNER_CONFIG", raising=False)
    f = tmp_path / "planner_config.yaml"
    f.write_text("routing: {enabled: false}\nmax_steps: 3\n")
    args = cli.parser().parse_args(["--no-model", "--planner-config", str(f)])
    cfg = cli.server_config(args)
    assert cfg.extra["planner_config"] == str(f) and cli.check_bind(cfg) is None

    async def build() -> Any:
        rt = await RunHolder(cfg).get()
        try:
            return rt.decision
        finally:
            await rt.aclose()

    decision = asyncio.run(build())
    assert decision is not None and decision.config.max_steps == 3 and decision.router is None


def test_without_the_flag_the_decision_point_is_off(monkeypatch) -> None:
    import asyncio

    monkeypatch.delenv("TAO_PLANNER_CONFIG", raising=False)
    cfg = cli.server_config(cli.parser().parse_args(["--no-model"]))
    assert "planner_config" not in cfg.extra

    async def build() -> object:
        rt = await RunHolder(cfg).get()
        try:
            return rt.decision
        finally:
            await rt.aclose()

    assert asyncio.run(build()) is None


def test_a_bad_file_refuses_to_start(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("TAO_PLANNER_CONFIG", raising=False)
    bad = tmp_path / "bad.yaml"
    bad.write_text("bypass: {max_input_tokens: -1}\n")
    assert cli.main(["--no-model", "--port", "0", "--planner-config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "--planner-config" in err and "bypass.max_input_tokens" in err
