"""Scoring multi-turn dialogues turn by turn: ``python -m training.dialogues --cases FILE [--json OUT]``.

A dialogue (one JSON line)::

    {"id": "d-001", "lang": "zh", "session": {"user_id": "U00000001", "now": "2026-06-10T10:00:00+08:00"},
     "turns": [{"request": "查询我上个月的订单", "expect": {"kind": "plan", "steps": [...]}},
               {"request": "那3月呢？", "expect": {...}}]}

``expect`` is the case format of :mod:`training.cases` (dates written resolved). Each dialogue is
played as one conversation through the real loop (:class:`tao.loop.runtime.Runtime`: the plan
model, the carry-over step, the domain's mock service started in-process, every tool approved),
one session per dialogue, so later turns see the snapshots of the earlier ones and the values
their results extracted. Each turn's output (the plan the loop ran, or its insufficient-context
answer, or a typed error) is scored with :func:`training.cases.compare`.

Reported: every-turn exact (all turns pooled), per-dialogue all-turns exact, follow-up turns
(turn 2+) exact, and the **time-anchor kept rate**: among dialogues with a time-valued argument
(an argument whose schema takes time symbols: ``date``, ``start``, ``period`` …) in a turn after
the first, the share in which every such turn has all its time arguments right.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, ThoughtPlan
from training.cases import Case, CaseFormatError, case_session, compare, expected_steps, predicted_steps


@dataclass
class Dialogue:
    id: str
    lang: str
    session: dict[str, Any]
    turns: list[Case]


def load_dialogues(path: str | Path, limit: int | None = None) -> list[Dialogue]:
    out: list[Dialogue] = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            sess = dict(d.get("session") or {})
            turns = []
            for j, t in enumerate(d["turns"]):
                exp = t["expect"]
                kind = exp.get("kind", "plan")
                if kind not in ("plan", "insufficient_context"):
                    raise ValueError(f"turn {j + 1}: unknown expect.kind {kind!r}")
                if kind == "plan" and not exp.get("steps"):
                    raise ValueError(f"turn {j + 1}: a plan turn needs expect.steps")
                if kind == "insufficient_context" and not exp.get("missing"):
                    raise ValueError(f"turn {j + 1}: an insufficient_context turn needs expect.missing")
                turns.append(
                    Case(
                        request=t["request"],
                        session=case_session(sess),
                        expect=exp,
                        id=f"{d.get('id', i)}#{j + 1}",
                        lang=d.get("lang", ""),
                    )
                )
            if not turns:
                raise ValueError("a dialogue needs turns")
        except (KeyError, ValueError, TypeError) as exc:
            raise CaseFormatError(f"{path}:{i}: {type(exc).__name__}: {exc}") from None
        out.append(Dialogue(str(d.get("id", i)), d.get("lang", ""), sess, turns))
        if limit is not None and len(out) >= limit:
            break
    return out


def report_output(report: Any) -> ThoughtPlan | InsufficientContext | ErrorInfo:
    """What one loop run planned: the plan it ran, its insufficient-context answer, or the error."""
    if report.plan:
        return ThoughtPlan.model_validate(report.plan)
    if report.error_type == ErrorType.INSUFFICIENT_CONTEXT and report.required_fields:
        return InsufficientContext(required_fields=list(report.required_fields))
    return ErrorInfo(error_type=report.error_type or ErrorType.LLM_OUTPUT_MALFORMED, message=report.message)


def _time_args(schemas: dict[str, dict]) -> dict[str, set[str]]:
    return {
        tool: {k for k, p in (s.get("properties") or {}).items() if "@(now|today" in json.dumps(p)}
        for tool, s in schemas.items()
    }


def time_args_ok(
    case: Case, output: Any, schemas: dict[str, dict], targs: dict[str, set[str]]
) -> bool | None:
    """None when the expected plan has no time argument; else whether every expected step's time
    arguments are matched, step by step, by the output's."""
    if case.kind != "plan":
        return None
    exp = expected_steps(case, schemas)

    def pick(rows: list[tuple[str, tuple]]) -> list[tuple[str, tuple]]:
        return [(t, tuple(kv for kv in args if kv[0] in targs.get(t, set()))) for t, args in rows]

    want = pick(exp)
    if not any(args for _, args in want):
        return None
    if not isinstance(output, ThoughtPlan):
        return False
    return pick(predicted_steps(output, case, schemas)) == want


async def play(
    dialogues: list[Dialogue], planner: Any, runtime: Any, schemas: dict[str, dict]
) -> dict[str, Any]:
    from tao.action.permissions import approve_tools

    targs = _time_args(schemas)
    approver = approve_tools(sorted(schemas))
    rows: list[dict[str, Any]] = []
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    n_dlg_ok = n_turns = n_ok = n_follow = n_follow_ok = 0
    anchors_n = anchors_ok = 0
    loop = runtime.loop(planner)
    for k, dlg in enumerate(dialogues):
        all_ok, anchor_state = True, None
        for j, case in enumerate(dlg.turns):
            session = case.session.model_copy(update={"session_id": f"dlg-{k}", "tenant": "eval"})
            rep = await loop.run(case.request, session, approver=approver)
            out = report_output(rep)
            v = compare(case, out, schemas)
            carry = next((e.payload.get("carry_over") for e in rep.events if e.kind == "final"), None) or {}
            ck = carry.get("kind", "new")
            by_kind[ck][0] += 1
            by_kind[ck][1] += int(v.exact)
            n_turns += 1
            n_ok += int(v.exact)
            all_ok &= v.exact
            if j > 0:
                n_follow += 1
                n_follow_ok += int(v.exact)
                t_ok = time_args_ok(case, out, schemas, targs)
                if t_ok is not None:
                    anchor_state = t_ok if anchor_state is None else (anchor_state and t_ok)
            rows.append(
                {
                    "id": case.id,
                    "request": case.request,
                    "exact": v.exact,
                    "why": v.detail,
                    "carry": {x: carry.get(x) for x in ("kind", "request", "notes")},
                    "got": out.model_dump(
                        mode="json", exclude_none=True, exclude={"thought_id", "created_at"}
                    ),
                    "expect": case.expect,
                }
            )
        n_dlg_ok += int(all_ok)
        if anchor_state is not None:
            anchors_n += 1
            anchors_ok += int(anchor_state)

    def rate(a: int, b: int) -> float | None:
        return a / b if b else None

    return {
        "dialogues": len(dialogues),
        "turns": n_turns,
        "turn_exact": rate(n_ok, n_turns),
        "dialogue_exact": rate(n_dlg_ok, len(dialogues)),
        "followup_exact": rate(n_follow_ok, n_follow),
        "time_anchor_kept": rate(anchors_ok, anchors_n),
        "time_anchor_dialogues": anchors_n,
        "by_carry_kind": {k: {"n": v[0], "exact": rate(v[1], v[0])} for k, v in sorted(by_kind.items())},
        "results": rows,
    }


async def _main(a: argparse.Namespace, dialogues: list[Dialogue]) -> dict[str, Any]:
    from tao.loop.carryover import CarryConfig, CarryStrategy
    from tao.loop.loop import LoopConfig
    from tao.loop.planner import EnginePlanner
    from tao.loop.runtime import Runtime, RuntimeConfig, load_plan_engine
    from tao.loop.session import MemorySessionStore
    from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain

    ckpt = Path(a.checkpoint or DEFAULT_CHECKPOINT)
    engine = await asyncio.to_thread(load_plan_engine, ckpt, a.engine, a.registry)
    domain = checkpoint_domain(ckpt, a.registry, full=True)
    rt = Runtime(
        RuntimeConfig(
            loop=LoopConfig(wall_time_s=60.0),
            carry=CarryConfig(strategy=CarryStrategy(a.strategy), guard=not a.no_guard),
        ),
        domain=domain,
        session_store=MemorySessionStore(),
    )
    try:
        t0 = time.time()
        out = await play(dialogues, EnginePlanner(engine), rt, rt.registry.args_schemas())
        out["seconds"] = round(time.time() - t0, 1)
        out["strategy"], out["guard"], out["checkpoint"] = a.strategy, not a.no_guard, str(ckpt)
        return out
    finally:
        await rt.aclose()
        engine.close()


def format_summary(s: dict[str, Any]) -> str:
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}%"

    kinds = "  ".join(f"{k} {pct(v['exact'])} ({v['n']})" for k, v in s["by_carry_kind"].items())
    return (
        f"dialogues {s['dialogues']}  turns {s['turns']}  strategy {s.get('strategy')}\n"
        f"  every-turn exact      {pct(s['turn_exact'])}\n"
        f"  dialogue all-turns    {pct(s['dialogue_exact'])}\n"
        f"  follow-up turns exact {pct(s['followup_exact'])}\n"
        f"  time anchors kept     {pct(s['time_anchor_kept'])} of {s['time_anchor_dialogues']} dialogues\n"
        f"  by carry-over kind    {kinds}\n"
        f"  ({s.get('seconds', 0)} s)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.dialogues", description="score dialogues turn by turn"
    )
    ap.add_argument("--cases", required=True, type=Path, help="dialogue file (JSON Lines)")
    ap.add_argument("--json", type=Path, default=None, help="write the full report (per turn) here")
    ap.add_argument("--checkpoint", default=None, help="model folder (default: the embedded default)")
    ap.add_argument("--engine", default="cpu", choices=("auto", "cpu", "vllm"))
    ap.add_argument("--registry", default=None, metavar="MODULE:ATTR")
    ap.add_argument("--strategy", default="rewrite", choices=("rewrite", "fill", "off"))
    ap.add_argument("--no-guard", action="store_true", help="accept a swap's plan even when its tools change")
    ap.add_argument("--limit", type=int, default=None)
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        dialogues = load_dialogues(a.cases, a.limit)
    except (OSError, CaseFormatError) as exc:
        print(f"training.dialogues: {exc}", file=sys.stderr)
        return 2
    report = asyncio.run(_main(a, dialogues))
    report["cases"] = str(a.cases)
    print(format_summary(report))
    if a.json:
        a.json.write_text(json.dumps(report, indent=1, ensure_ascii=False, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
