"""``tao run``: plan replay and the real plan engine, rich and JSON output, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from action_helpers import demo_session, make_executor, plan

from tao.cli.run_cli import DEFAULT_CHECKPOINT, main
from tao.contracts import EventKind
from tao.loop.loop import LoopConfig, TaoLoop
from tao.loop.planner import EnginePlanner

ROOT = Path(__file__).resolve().parents[3]
DEMO_PLAN = plan(
    ("t1", "list_orders", {"user_id": "U00000001", "period": "@last_month"}),
    ("t2", "get_order_status", {"order_id": "${t1.order_id}"}, ["t1"]),
    intent="order_status",
)


def test_replay_json(capsys, mock_tools) -> None:
    rc = main(
        [
            "查询上个月的订单状态",
            "--plan",
            json.dumps(DEMO_PLAN),
            "--json",
            "--tools-url",
            mock_tools.url,
            "--now",
            "2026-11-15T10:00:00+08:00",
        ]
    )
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    out = orjson.loads(cap.out)
    assert out["status"] == "success" and out["error_type"] is None
    assert out["steps"][0]["arguments"]["period"] == "2026-10-01/2026-10-31"
    assert out["answer"]["t2"]["order_id"] == out["answer"]["t1"]["order_id"]
    assert set(out["stages_ms"]) == {"thought", "action", "observation", "total"}
    assert [e["kind"] for e in out["trajectory"]][-1] == "final" and out["events"] == len(out["trajectory"])


def test_rich_output_and_exit_codes(capsys, mock_tools, tmp_path) -> None:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(
        json.dumps(plan(("t1", "send_email", {"to": "a@example.com", "subject": "s", "body": "b"})))
    )
    traj = tmp_path / "t.jsonl"
    rc = main(["发邮件", "--plan", str(plan_file), "--tools-url", mock_tools.url, "--trajectory", str(traj)])
    text = capsys.readouterr().out
    assert rc == 1 and "needs_approval" in text and "PERMISSION_DENIED" in text and "trajectory" in text
    assert traj.read_text().count("\n") >= 5
    rc = main(["发邮件", "--plan", str(plan_file), "--tools-url", mock_tools.url, "--approve", "send_email"])
    assert rc == 0 and "success" in capsys.readouterr().out
    assert main(["x", "--plan", "{not json"]) == 2 and "tao run:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["   "])
    assert exc.value.code == 2


def test_replay_a_recorded_trace(capsys, mock_tools, tmp_path) -> None:
    traj = tmp_path / "t.jsonl"
    oid = next(o for o, v in mock_tools.data.orders.items() if v["status"] == "pending")
    p = plan(("t1", "cancel_order", {"order_id": oid, "reason": "dup"}))
    assert (
        main(
            [
                "取消订单",
                "--plan",
                json.dumps(p),
                "--tools-url",
                mock_tools.url,
                "--trajectory",
                str(traj),
                "--json",
            ]
        )
        == 0
    )
    first = orjson.loads(capsys.readouterr().out)
    rc = main(["--replay", str(traj), "--tools-url", mock_tools.url, "--json"])
    again = orjson.loads(capsys.readouterr().out)
    assert rc == 0 and again["thought_id"] == first["thought_id"] and again["answer"] == first["answer"]
    s = mock_tools.stats()
    assert s["side_effects"] == {"cancel_order": 1} and s["replays"] == {
        "cancel_order": 1
    }  # not cancelled twice
    assert main(["--replay", str(traj), "--trace-id", "nope"]) == 2 and "no trace" in capsys.readouterr().err


def test_missing_model_is_a_clear_message(capsys, tmp_path) -> None:
    rc = main(["查询上个月的订单状态", "--checkpoint", str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert rc == 3 and "plan model is missing" in err and "--plan" in err


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_default_checkpoint_end_to_end() -> None:
    """`tao run` as a user runs it (a fresh process, in-process mock tools, the default model)."""
    r = subprocess.run(
        [sys.executable, "-m", "tao", "run", "查询上个月的订单状态", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=220,
    )
    if not (DEFAULT_CHECKPOINT / "config.json").is_file():
        assert r.returncode == 3 and "plan model is missing" in r.stderr
        return
    assert "Traceback" not in r.stderr
    out = json.loads(r.stdout)
    assert out["planner"] != "replay" and out["status"] == "success", out
    tools = [s["tool"] for s in out["steps"]]
    assert "list_orders" in tools


@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_real_engine_plugs_into_the_loop(tiny_checkpoint, mock_tools) -> None:
    """The CPU plan engine (random tiny model, generic codec) behind the Planner protocol."""
    from thought_model.engine.codec import GenericCodec
    from thought_model.engine.cpu import CpuEngine, CpuEngineConfig
    from thought_model.engine.decode import DecodeConfig

    engine = CpuEngine(
        tiny_checkpoint, CpuEngineConfig(decode=DecodeConfig(max_new_tokens=256)), codec=GenericCodec()
    )
    ex = make_executor(mock_tools.url)
    try:
        loop = TaoLoop(
            EnginePlanner(engine, tools=["get_weather", "get_order_status", "get_invoice"]),
            ex,
            config=LoopConfig(wall_time_s=120),
        )
        rep = await loop.run("weather in Paris tomorrow", demo_session())
    finally:
        await ex.aclose()
        engine.close()
    assert rep.status in ("success", "failed", "needs_user", "needs_approval")
    resp = next(e for e in rep.events if e.kind is EventKind.MODEL_RESPONSE)
    assert resp.payload["stats"]["generated_tokens"] > 0
    if rep.plan is not None:  # the grammar guarantees a schema-valid plan: its steps were executed
        started = {e.step_id for e in rep.events if e.kind is EventKind.TOOL_START}
        assert started | {s.step_id for s in rep.steps if s.status == "skipped"} == {
            s["step_id"] for s in rep.plan["steps"]
        }
