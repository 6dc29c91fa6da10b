"""``tao run --registry FILE``: a contract-file domain has no mock handlers, so the run calls the
tools at ``--tools-url`` (here: the helpdesk mock service on loopback) or says why it cannot."""

from __future__ import annotations

import json
from pathlib import Path

from tao.cli.run_cli import main
from tao.domains import load_domain
from tao.mock_service import MockState, start_in_thread

FILE = Path(__file__).resolve().parents[3] / "tao" / "domains" / "helpdesk" / "tools.yaml"
PLAN = {
    "version": "1.0",
    "intent": "tickets",
    "steps": [
        {
            "step_id": "t1",
            "tool": "list_tickets",
            "arguments": {"employee_id": "E108222"},
            "dependencies": [],
        },
        {
            "step_id": "t2",
            "tool": "get_ticket",
            "arguments": {"ticket_id": "${t1.ticket_id}"},
            "dependencies": ["t1"],
        },
    ],
}


def test_no_handlers_without_a_tools_url(capsys) -> None:
    rc = main(["my tickets", "--plan", json.dumps(PLAN), "--registry", str(FILE)])
    err = capsys.readouterr().err
    assert rc == 2 and "has no mock handlers" in err and "--tools-url" in err and str(FILE.resolve()) in err


def test_file_domain_calls_the_real_tools(capsys) -> None:
    svc = start_in_thread(MockState(domain=load_domain("tao.domains.helpdesk:registry")))
    try:
        rc = main(
            [
                "my tickets",
                "--plan",
                json.dumps(PLAN),
                "--registry",
                str(FILE),
                "--tools-url",
                svc.url,
                "--json",
            ]
        )
        out = json.loads(capsys.readouterr().out)
        assert rc == 0 and out["status"] == "success", out
        assert out["answer"]["t2"] == {"status": "waiting", "assignee": "Li Ming"}  # TCK-160816
        assert svc.state.calls["get_ticket"] == 1
    finally:
        svc.stop()
