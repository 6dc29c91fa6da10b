"""bench routing: the writer's held-out file is read in its accepted shapes, and the metrics and
the confusion matrix count what they say (a small router fit in the test)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.suites.routing import _writer_rows, evaluate
from tao.domains import load_domain
from tao.loop.intent import IntentRouter, RouterConfig
from tao.loop.intent.corpus import IntentRow


def test_writer_rows_accept_tools_tool_expected_and_out_of_scope(tmp_path: Path) -> None:
    lines = [
        {"text": "reset my vpn password", "tools": ["reset_password"]},
        {"request": "who is my manager", "tool": "get_employee"},
        {
            "text": "tickets of Alice",
            "expected": {"steps": [{"tool": "find_employee"}, {"tool": "list_tickets"}]},
        },
        {"text": "tell me a joke", "tools": []},
        {"text": "what is love", "out_of_scope": True},
    ]
    p = tmp_path / "routing_eval.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    rows = _writer_rows(p)
    assert [sorted(t) for _x, t in rows] == [
        ["reset_password"],
        ["get_employee"],
        ["find_employee", "list_tickets"],
        [],
        [],
    ]


def test_evaluate_counts_routing_and_the_fallback_branch() -> None:
    d = load_domain("tao.domains.helpdesk:registry")
    rows = [
        IntentRow(t, "en", frozenset({tool}))
        for tool, ts in {
            "reset_password": ["reset my vpn password", "reset the email password", "password reset for erp"],
            "list_devices": ["what devices do I have", "list my laptops", "my assigned devices"],
        }.items()
        for t in ts
    ] + [IntentRow("tell me a joke", "en", frozenset()), IntentRow("write a poem", "en", frozenset())]
    r = IntentRouter.build(d, RouterConfig(max_iter=40, min_similarity=0.0), rows=rows)
    ev = evaluate(
        r, [("reset my wifi password", frozenset({"reset_password"})), ("tell me a joke", frozenset())]
    )
    assert ev["n"] == 2 and ev["out_of_scope"] == 1
    assert ev["confusion"]["rows"]["access"] == {"access": 1}
    assert ev["confusion"]["rows"]["out_of_scope"] == {"fallback": 1}
    assert ev["routing_accuracy"] == 1.0 and ev["out_of_scope_fallback_rate"] == 1.0
