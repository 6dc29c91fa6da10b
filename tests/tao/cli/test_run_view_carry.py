"""``tao run`` rendering of the carry-over decision (tao/cli/run_view.py)."""

from __future__ import annotations

from tao.cli.run_view import _carry_line


def test_carry_line_names_the_session_candidate() -> None:
    assert _carry_line({"kind": "new", "rewritten": False}) == ""
    line = _carry_line({"kind": "swap", "candidate": "swap", "rewritten": False, "request": "x"})
    assert line == "  [carry-over swap via candidate swap]"
    line = _carry_line(
        {"kind": "refer", "candidate": "anchor", "rewritten": True, "request": "on 2026-06-11"}
    )
    assert line == "  [carry-over refer via candidate anchor → on 2026-06-11]"
