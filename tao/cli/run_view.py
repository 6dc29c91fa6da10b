"""Readable rendering of a run (``tao run`` without ``--json``) with rich."""

from __future__ import annotations

from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

_STYLE = {
    "success": "bold green",
    "ok": "green",
    "failed": "bold red",
    "skipped": "yellow",
    "needs_user": "bold yellow",
    "needs_approval": "bold magenta",
}


def _short(v: Any, n: int = 90) -> str:
    s = v if isinstance(v, str) else orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode()
    return s if len(s) <= n else s[: n - 1] + "…"


def _carry_line(carry: dict[str, Any] | None) -> str:
    """The carry-over decision of a follow-up turn (``tao run --session``)."""
    if not carry or carry.get("kind") == "new":
        return ""
    return (
        f"  [carry-over {carry['kind']}"
        + (f" via candidate {carry['candidate']}" if carry.get("candidate") else "")
        + (f" → {_short(carry['request'], 60)}" if carry.get("rewritten") else "")
        + "]"
    )


def render(out: dict[str, Any], console: Console | None = None) -> None:
    c = console or Console()
    c.rule(f"[bold]TAO run[/] trace {out['trace_id']}")
    c.print(
        f"thought_id [cyan]{out['thought_id']}[/]   planner {out.get('planner')}   "
        f"tools {out.get('tools_url')}   observer {out.get('observer')}"
    )
    t = Table(title="trajectory", show_lines=False, expand=True)
    for col in ("#", "event", "step", "tool", "ms", "detail"):
        t.add_column(col, overflow="fold")
    for ev in out.get("trajectory", []):
        p = ev.get("payload", {})
        detail = {
            "context_built": lambda: _short(p.get("request", "")) + _carry_line(p.get("carry_over")),
            "model_request": lambda: f"attempt {p.get('attempt')} strict={p.get('strict')}",
            "model_response": lambda: _short(p.get("plan") or p.get("insufficient") or p.get("error")),
            "tool_start": lambda: _short(p.get("arguments")),
            "tool_end": lambda: (
                f"HTTP {p.get('status_code')} attempts {p.get('attempts')}"
                + (f" error {p['error']['error_type']}" if p.get("error") else "")
                + (" (dedup)" if p.get("deduplicated") else "")
                + (f" fallback from {p['from_fallback']}" if p.get("from_fallback") else "")
            ),
            "observation": lambda: (
                f"valid={p.get('valid')} conf={p.get('confidence')} "
                + (p.get("error_type") or _short(p.get("extracted"), 70))
            ),
            "correction": lambda: f"{p.get('error_type')} → {p.get('handler')} → {p.get('action')}",
            "error": lambda: f"{p.get('error_type')}: {_short(p.get('message') or p.get('errors'), 80)}",
            "final": lambda: (
                f"{p.get('status')} {p.get('error_type') or ''}"  # a session candidate changes the turn
                + (_carry_line(p.get("carry_over")) if (p.get("carry_over") or {}).get("candidate") else "")
            ),
        }.get(ev["kind"], lambda: _short(p))()
        dur = ev.get("duration_ms")
        t.add_row(
            str(ev["seq"]),
            ev["kind"],
            ev.get("step_id") or "",
            ev.get("tool") or "",
            "" if dur is None else f"{dur:.1f}",
            detail,
        )
    c.print(t)
    st = Table(title="steps", expand=True)
    for col in ("step", "tool", "status", "arguments", "extracted / error"):
        st.add_column(col, overflow="fold")
    for s in out.get("steps", []):
        tail = (
            _short(s["extracted"])
            if s["status"] == "ok"
            else f"{s.get('error_type')}: {_short(s.get('message'), 120)}"
        )
        st.add_row(
            s["step_id"],
            s.get("tool_used") or s["tool"],
            f"[{_STYLE.get(s['status'], '')}]{s['status']}[/]",
            _short(s.get("arguments")),
            tail,
        )
    c.print(st)
    stages = out.get("stages_ms", {})
    c.print("stages ms: " + "  ".join(f"{k} {v:.1f}" for k, v in stages.items()))
    status = out["status"]
    c.print(
        f"status [{_STYLE.get(status, '')}]{status}[/]"
        + (f"  error_type {out['error_type']}" if out.get("error_type") else "")
        + (f"  — {out.get('message')}" if status != "success" else "")
    )
    if out.get("required_fields"):
        c.print("missing: " + ", ".join(out["required_fields"]))
    c.print("answer:", orjson.dumps(out.get("answer", {}), option=orjson.OPT_INDENT_2).decode())
