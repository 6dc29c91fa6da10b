"""The final evaluation scores a case-format set end to end *and* through the composing engine (the
engine ``tao serve`` plans with), and prints both (tiny checkpoint, two cases of our own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thought_model.checkpoint import CHECKPOINTS, checkpoint_domain
from thought_model.hf_planner import HFPlanGenerator
from training.evaluate import EvalConfig, _case_split, print_table

TINY = CHECKPOINTS / "tiny"
SESSION = {"user_id": "U71820364", "now": "2026-02-03T15:20:00+08:00", "timezone": "Asia/Shanghai"}
CASES = [
    {"id": "a", "request": "杭州今天天气怎么样", "family": "single", "session": SESSION,
     "expect": {"kind": "plan", "steps": [{"tool": "get_weather", "args": {"city": "杭州"}}]}},
    {"id": "b", "request": "what's the weather in Berlin", "family": "single", "session": SESSION,
     "expect": {"kind": "plan", "steps": [{"tool": "get_weather", "args": {"city": "Berlin"}}]}},
]  # fmt: skip


@pytest.mark.timeout(300)
def test_case_split_is_also_scored_composed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "own.jsonl"
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    domain = checkpoint_domain(TINY, full=True)
    gen = HFPlanGenerator.load(str(TINY), tools=domain.tools, domain=domain)
    s = _case_split(path, gen, domain, EvalConfig(checkpoint=str(TINY), progress=False, batch_size=2))
    c = s["composed"]
    assert c["n"] == 2 and 0.0 <= c["exact_match"] <= 1.0 and set(c["by_family"]) == {"single"}
    assert "results" not in c and "failures" not in c  # aggregates only
    print_table({"checkpoint": str(TINY), "splits": {"own": s}})
    out = capsys.readouterr().out
    assert "own composed (tao serve's engine): exact" in out and "family: single" in out
    off = _case_split(path, gen, domain, EvalConfig(checkpoint=str(TINY), progress=False, composed=False))
    assert "composed" not in off and off["exact_match"] == s["exact_match"]
