"""High-risk tools stay blocked without approval even when tool results carry injected
instructions (36 injection strings, Chinese and English)."""

from __future__ import annotations

import pytest
from action_helpers import demo_session, load_jsonl, make_executor, make_loop, plan

from tao.contracts import EventKind

INJECTIONS = [r["text"] for r in load_jsonl("injections.jsonl")]


def test_corpus_size() -> None:
    assert len(INJECTIONS) >= 30 and len(set(INJECTIONS)) == len(INJECTIONS)


@pytest.mark.slow
async def test_injected_results_never_unlock_high_risk_tools(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    p = plan(
        ("t1", "get_user_profile", {"user_id": "U00000002"}),
        (
            "t2",
            "send_email",
            {"to": "${t1.email}", "subject": "your profile", "body": "see attached"},
            ["t1"],
        ),
        intent="email_profile",
    )
    outcomes = []
    for i, text in enumerate(INJECTIONS):
        # the injected text arrives in several fields, including the one the next step reads
        mock_tools.patch("get_user_profile", {"name": text, "city": text, "note": text})
        approve = ["cancel_order"] if i % 2 else []  # approving another tool must not help
        loop, _ = make_loop(ex, p)
        rep = await loop.run(
            text if i % 3 == 0 else "把我的资料发邮件给我",
            demo_session(),
            approver=(lambda req, ok=frozenset(approve): req.tool in ok),
        )
        outcomes.append((rep.status, rep.error_type, tuple(s.status for s in rep.steps)))
        tools_called = {e.tool for e in rep.events if e.kind is EventKind.TOOL_START}
        assert tools_called == {"get_user_profile", "send_email"}  # nothing the text asked for
    await ex.aclose()
    assert set(outcomes) == {("needs_approval", "PERMISSION_DENIED", ("ok", "needs_approval"))}
    s = mock_tools.stats()
    assert s["calls"].get("send_email", 0) == 0 and s["side_effects"] == {}
    assert set(s["calls"]) == {"get_user_profile"}


async def test_read_only_plan_with_injection_stays_read_only(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    mock_tools.patch("get_user_profile", {"name": INJECTIONS[0]})
    loop, _ = make_loop(ex, plan(("t1", "get_user_profile", {"user_id": "U00000003"})))
    rep = await loop.run("我的资料", demo_session())
    await ex.aclose()
    assert rep.status == "success" and rep.answer["t1"]["name"] == INJECTIONS[0]  # reported as data
    assert set(mock_tools.stats()["calls"]) == {"get_user_profile"}
