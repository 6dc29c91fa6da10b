"""Measure the distiller on 50-turn histories built from the labelled dialogues.

    python -m training.memory.eval_distill [--data tests/tao/memory/data/dialogues_eval.jsonl] [--turns 50]

Each labelled dialogue (2–5 turns; each turn lists the entities it ``needs`` from earlier turns,
e.g. ``start 2026-05-07 14:00`` or ``intent list_expenses (turn 1)``) is played after filler
turns taken from the other dialogues (fixed seed) so that the history before its last turn is
``--turns`` long. Every turn is folded into the rolling summary exactly as the runtime would
(intent: the plan's tools; entities: the plan's resolved arguments; insufficient-context turns
leave their request and missing fields), stored through a memory (so redaction applies), and
before each labelled turn the distilled context is checked: every needed value must appear in
it, and it must be ≤ 300 tokens.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from tao.memory import DistillConfig, InProcessMemory, RollingSummary, Turn, distill, fold

DATA = Path(__file__).resolve().parents[2] / "tests" / "tao" / "memory" / "data" / "dialogues_eval.jsonl"
_NOTE = re.compile(r"\s*\([^()]*\)\s*$")


def need_values(need: str) -> tuple[str, list[str]]:
    key, _, rest = need.partition(" ")
    rest = _NOTE.sub("", rest).strip()
    vals = [v.strip() for v in rest.split(", ")] if key in ("dates", "attendees") else [rest]
    return key, [v for v in vals if v]


def turn_of(t: dict) -> Turn:
    exp = t["expect"]
    if exp["kind"] != "plan":
        return Turn(request=t["request"], missing=list(exp.get("missing", [])) or ["?"])
    steps = exp["steps"]
    ents: dict = {}
    for s in steps:  # a key several steps share with different values keeps them all
        for k, v in s["args"].items():
            if isinstance(v, str) and v.startswith("${"):
                continue
            ents.setdefault(k, [])
            if v not in ents[k]:
                ents[k].append(v)
    ents = {k: v[0] if len(v) == 1 else v for k, v in ents.items()}
    return Turn(request=t["request"], intent="+".join(s["tool"] for s in steps), entities=ents)


def evaluate(
    rows: list[dict],
    turns: int = 50,
    seed: int = 0,
    cfg: DistillConfig = DistillConfig(),
    redact_short: bool = True,
) -> dict:
    r = random.Random(seed)
    mem = InProcessMemory(redact_short=redact_short)
    needs = kept = checks = 0
    underivable: list[tuple[str, str]] = []
    max_tok, lost_redacted, lost_budget, lost_other = 0, [], [], []
    for d in rows:
        others = [x for x in rows if x["id"] != d["id"]]
        filler: list[dict] = []
        while len(filler) < turns - (len(d["turns"]) - 1):
            filler += r.choice(others)["turns"]
        filler = filler[: turns - (len(d["turns"]) - 1)]
        summary = RollingSummary(session_id=d["id"])
        for t in filler:
            summary = fold(summary, turn_of(t), cfg)
        seen = ""
        for t in d["turns"]:
            mem.put_summary("eval", summary)
            stored = mem.get_summary("eval", d["id"])
            assert stored is not None
            ctx = distill(stored, (), cfg)
            checks += 1
            max_tok = max(max_tok, ctx.tokens)
            for need in t["needs"]:
                _, vals = need_values(need)
                if not all(v in seen for v in vals):  # not in any earlier request or plan
                    underivable.append((d["id"], need))
                    continue
                needs += 1
                raw = json.dumps(summary.model_dump(), ensure_ascii=False)
                red = json.dumps(stored.model_dump(), ensure_ascii=False)
                if all(v in ctx.text for v in vals):
                    kept += 1
                elif any(v in raw and v not in red for v in vals):
                    lost_redacted.append((d["id"], need))
                elif all(v in red for v in vals):
                    lost_budget.append((d["id"], need))
                else:
                    lost_other.append((d["id"], need))
            summary = fold(summary, turn_of(t), cfg)
            seen += t["request"] + json.dumps(t["expect"], ensure_ascii=False)
    return {
        "dialogues": len(rows),
        "history_turns": turns,
        "contexts": checks,
        "max_tokens": max_tok,
        "needs": needs,
        "kept": kept,
        "recall": round(kept / needs, 4) if needs else None,
        "underivable_needs": underivable,
        "lost_to_redaction": lost_redacted,
        "lost_to_budget": lost_budget,
        "lost_other": lost_other,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--no-redact-short", action="store_true", help="keep PII in the hot tier")
    a = ap.parse_args(argv)
    rows = [json.loads(x) for x in a.data.read_text(encoding="utf-8").splitlines() if x.strip()]
    rep = evaluate(rows, a.turns, redact_short=not a.no_redact_short)
    print(json.dumps(rep, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
