"""Filling insufficient clauses: a missing field taken from a slot of another clause, or offered as
a reference to an earlier clause's step whose tool extracts it (an extra slot bound to
``REF_MARK``); "there / 那里" resolved to a city the same way."""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import InsufficientContext, ThoughtPlan
from thought_model.clauses import Clause, is_zh
from thought_model.compose_job import ComposeJob
from thought_model.registry_graph import RegistryGraph

REF_MARK = "\x00ref:"  # value of a reference slot: \x00ref:<clause>:<step index>:<output>
_ZH_PRONOUN = re.compile(r"那里|那边|那儿|该订单|这个订单|这单|该单|它的|他的|她的|它|他|她")
_THERE = re.compile(r"那里|那边|那儿|\bthere\b", re.I)
_EN_PRONOUN = re.compile(r"\b(?:it|there|that one|them|its|their|his|her)\b", re.I)


def _kind(tok: str) -> str:
    return re.sub(r"[0-9<>]", "", tok)


def _free_token(kind: str, used: set[str]) -> str:
    for i in range(9, 0, -1):
        tok = f"<{kind}{i}>"
        if tok not in used:
            return tok
    raise ValueError("no free slot token")


def _augment(clause: Clause, adds: list[tuple[str, Any, bool]]) -> Clause:
    """The clause with extra slots: (token, value, replace-a-pronoun)."""
    text = clause.masked
    zh = is_zh(text)
    slots = dict(clause.slots)
    for tok, value, pronoun in adds:
        rx = _THERE if _kind(tok) == "CITY" else _ZH_PRONOUN if zh else _EN_PRONOUN
        if pronoun and rx.search(text):
            text = rx.sub(tok, text, count=1)
        else:
            text = f"{text}，{tok}" if zh else f"{text} {tok}"
        slots[tok] = value
    return Clause(masked=text, slots=slots)


def refills(job: ComposeJob, graph: RegistryGraph) -> list[tuple[int, Clause]]:
    """Clauses to re-plan with slots taken from other clauses or references to earlier steps."""
    if not job.clauses:
        return []
    out: list[tuple[int, Clause]] = []
    for k, res in enumerate(job.parts):
        if res is not None and isinstance(res.output, ThoughtPlan) and k not in job.located:
            # "顺便看看那里明天天气" / "weather there": the place is the city an earlier
            # clause names or a step of it extracts; the model cannot resolve "there" alone
            clause = job.clauses[k]
            if _THERE.search(clause.masked) and not any(_kind(t) == "CITY" for t in clause.slots):
                add = fill_one(job, graph, k, "city", set(clause.slots))
                job.located.add(k)
                if add is not None:
                    out.append((k, _augment(clause, [add])))
            continue
        if res is None or not isinstance(res.output, InsufficientContext):
            continue
        adds: list[tuple[str, Any, bool]] = []
        used = set(job.clauses[k].slots)
        fillable = True
        for f in res.output.required_fields:
            add = fill_one(job, graph, k, f, used)
            if add is None:
                fillable = False
                break
            adds.append(add)
            used.add(add[0])
        if fillable and adds:
            out.append((k, _augment(job.clauses[k], adds)))
    return out


def fill_one(
    job: ComposeJob, graph: RegistryGraph, k: int, f: str, used: set[str]
) -> tuple[str, Any, bool] | None:
    kinds = graph.slot_kinds(f)
    if f == "user_id" and job.req.session is not None and job.req.session.user_id:
        kinds = [x for x in kinds if x != "USER"] or kinds
    # nearest earlier clause first; a later clause only for a clause that has slots of its own
    # (an ask with one argument said later: "look for a room … and reserve it for an hour")
    order = list(range(k - 1, -1, -1))
    if job.clauses[k].slots:
        order += list(range(k + 1, len(job.clauses)))
    for j in order:  # a slot of the field's kind from another clause (nearest earlier first)
        for tok, v in job.clauses[j].slots.items():
            if _kind(tok) in kinds and tok not in used:
                job.borrowed.setdefault(k, set()).add(j)
                return tok, v, True
    for j in range(k - 1, -1, -1):  # a reference to an earlier clause's step that extracts it
        res = job.parts[j]
        if res is None or not isinstance(res.output, ThoughtPlan):
            continue
        for i in range(len(res.output.steps) - 1, -1, -1):
            o = graph.provider(res.output.steps[i].tool, f)
            if o and kinds:
                return _free_token(kinds[0], used), f"{REF_MARK}{j}:{i}:{o}", True
    return None
