"""``tao run --replay`` of a trajectory whose arguments were stored redacted: with TAO_REDIS_URL the
replaying process answers the non-idempotent step from the shared record of the original call
(keyed by the recorded digest), so the mock with dedup off sees 1 side effect; without the shared
records the step is refused (LOW_CONFIDENCE, nothing sent), never repeated."""

from __future__ import annotations

import json

import orjson
import pytest
from action_helpers import plan

from tao.cli.run_cli import main

EXPENSE = {
    "amount": 42.0,
    "category": "meal",
    "date": "2026-11-14",
    "description": "lunch with li.na@example.com",
}


@pytest.fixture
def no_dedup_mock(mock_tools):
    mock_tools.svc.state.dedup = False
    try:
        yield mock_tools
    finally:
        mock_tools.svc.state.dedup = True


def _run(capsys, *argv: str) -> tuple[int, dict]:
    rc = main([*argv, "--json"])
    return rc, orjson.loads(capsys.readouterr().out)


def test_cli_replay_with_shared_records_has_one_side_effect(
    capsys, no_dedup_mock, redis_server, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("TAO_REDIS_URL", redis_server.url)
    traj = tmp_path / "t.jsonl"
    url = no_dedup_mock.url
    p = json.dumps(plan(("t1", "submit_expense", EXPENSE)))
    rc, first = _run(capsys, "报销", "--plan", p, "--tools-url", url, "--trajectory", str(traj))
    assert rc == 0 and "li.na@example.com" not in traj.read_text(encoding="utf-8")
    rc, again = _run(capsys, "--replay", str(traj), "--tools-url", url)
    assert rc == 0 and again["thought_id"] == first["thought_id"] and again["steps"][0]["deduplicated"]
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}


def test_cli_replay_without_the_record_refuses(
    capsys, no_dedup_mock, redis_server, tmp_path, monkeypatch
) -> None:
    traj = tmp_path / "t.jsonl"
    url = no_dedup_mock.url
    p = json.dumps(plan(("t1", "submit_expense", EXPENSE)))
    monkeypatch.setenv("TAO_REDIS_URL", redis_server.url)
    assert _run(capsys, "报销", "--plan", p, "--tools-url", url, "--trajectory", str(traj))[0] == 0
    monkeypatch.delenv("TAO_REDIS_URL")  # another machine: in-process records, none for this call
    rc, again = _run(capsys, "--replay", str(traj), "--tools-url", url)
    assert rc == 1 and again["status"] == "needs_user" and again["error_type"] == "LOW_CONFIDENCE"
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
