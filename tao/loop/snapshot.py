"""The structured snapshot a conversation keeps after each turn (``SessionState.memory["conversation"]``).

What the next turn may refer to: the turn's request and the request the planner saw, its intent,
the steps of its plan with their *resolved* arguments (time symbols turned into dates against that
turn's session clock — the time anchors — with the symbols beside them), the values its results
extracted (``order_id``, ``room_id`` …) and the ids of list results (``items``: the first five
of each list, for "the second one"), an insufficient-context question still open (``pending``),
``entities``: every argument and extracted value of the conversation so far by name, newest
value winning, and ``days``: the distinct days the turns planned with (newest last, at most five;
"那两天的日程" names the last two). Plain JSON, so the in-process, Redis and file session stores all keep it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tao.contracts.plan import REF_PATTERN

MEMORY_KEY = "conversation"
MAX_ITEMS = 5
MAX_ENTITIES = 48
_DAY_VALUE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?: [0-2][0-9]:[0-5][0-9])?$")


class StepSnap(BaseModel):
    model_config = ConfigDict(extra="ignore")

    step_id: str = ""
    tool: str
    dependencies: list[str] = Field(default_factory=list)
    arguments: dict[str, Any] = Field(default_factory=dict)
    resolved_from: dict[str, str] = Field(default_factory=dict)
    extracted: dict[str, Any] = Field(default_factory=dict)
    items: dict[str, list[Any]] = Field(default_factory=dict)


class PendingSnap(BaseModel):
    model_config = ConfigDict(extra="ignore")

    request: str
    intent: str | None = None
    required_fields: list[str] = Field(default_factory=list)


class Snapshot(BaseModel):
    model_config = ConfigDict(extra="ignore")

    turn: int = 0
    request: str = ""
    effective_request: str = ""
    now: str | None = None  # the session clock the turn resolved its times against
    intent: str | None = None
    status: str = ""
    steps: list[StepSnap] = Field(default_factory=list)
    entities: dict[str, Any] = Field(default_factory=dict)
    days: list[str] = Field(default_factory=list)  # the distinct days the turns planned with, newest last
    earlier_steps: list[StepSnap] = Field(default_factory=list)  # the plan before ``steps`` (other tools)
    pending: PendingSnap | None = None
    carry: dict[str, Any] = Field(default_factory=dict)

    def items(self) -> dict[str, list[Any]]:
        """List-result ids of the last turn, by output name (``room_id`` -> [R101, R203, ...])."""
        out: dict[str, list[Any]] = {}
        for s in self.steps:
            for k, v in s.items.items():
                out.setdefault(k, v)
        return out


def load_snapshot(memory: dict[str, Any]) -> Snapshot | None:
    raw = memory.get(MEMORY_KEY)
    if not isinstance(raw, dict):
        return None
    try:
        return Snapshot.model_validate(raw)
    except ValueError:
        return None  # a snapshot written by another version: start over


def _is_ref(v: Any) -> bool:
    import re

    return isinstance(v, str) and re.match(REF_PATTERN, v) is not None


def list_items(data: Any) -> dict[str, list[Any]]:
    """``{"rooms": [{"room_id": "R101"}, ...]}`` -> ``{"room_id": ["R101", ...]}`` (top-level lists
    of objects; every ``*_id`` field; first :data:`MAX_ITEMS`)."""
    out: dict[str, list[Any]] = {}
    if not isinstance(data, dict):
        return out
    for v in data.values():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for key in v[0]:
                if key.endswith("_id"):
                    out.setdefault(key, [x.get(key) for x in v[:MAX_ITEMS] if x.get(key) is not None])
    return out


def build_snapshot(
    prev: Snapshot | None,
    *,
    request: str,
    effective_request: str,
    now: str | None,
    plan: dict[str, Any] | None,
    steps: list[Any],
    outputs: dict[str, Any],
    status: str,
    required_fields: list[str],
    pending_intent: str | None,
    carry: dict[str, Any],
) -> Snapshot:
    """The snapshot after one turn. ``plan`` is the resolved plan the turn ran (or None), ``steps``
    its :class:`~tao.loop.report.StepRecord` list, ``outputs`` the runner's step outputs
    (``step_id -> StepOutput``, for list results)."""
    entities: dict[str, Any] = dict(prev.entities) if prev else {}
    snaps: list[StepSnap] = []
    records = {s.step_id: s for s in steps}
    for st in (plan or {}).get("steps", []):
        args = {k: v for k, v in (st.get("arguments") or {}).items() if v is not None}
        rec = records.get(st.get("step_id"))
        extracted = dict(rec.extracted) if rec is not None else {}
        out = outputs.get(st.get("step_id"))
        items = list_items(getattr(out, "parsed", None)) if out is not None else {}
        snaps.append(
            StepSnap(
                step_id=st.get("step_id", ""),
                tool=st["tool"],
                dependencies=list(st.get("dependencies") or []),
                arguments=args,
                resolved_from=dict(st.get("resolved_from") or {}),
                extracted=extracted,
                items=items,
            )
        )
        for k, v in args.items():
            if not _is_ref(v):
                entities.pop(k, None)
                entities[k] = v
        for k, v in extracted.items():
            if v is not None and not isinstance(v, (dict, list)):
                entities.pop(k, None)
                entities[k] = v
    while len(entities) > MAX_ENTITIES:
        entities.pop(next(iter(entities)))
    days = list(prev.days) if prev else []
    for sn in snaps:
        for v in sn.arguments.values():
            if isinstance(v, str) and _DAY_VALUE.match(v):
                days = [d for d in days if d != v[:10]] + [v[:10]]
    days = days[-MAX_ITEMS:]
    pending = None
    if required_fields and plan is None:
        pending = PendingSnap(
            request=effective_request, intent=pending_intent, required_fields=required_fields
        )
    earlier = list(prev.earlier_steps) if prev else []
    if plan is not None and prev is not None and prev.steps:
        if [s.tool for s in prev.steps] != [s.tool for s in snaps]:
            earlier = list(prev.steps)
    return Snapshot(
        turn=(prev.turn if prev else 0) + 1,
        request=request,
        effective_request=effective_request,
        now=now,
        intent=(plan or {}).get("intent") or pending_intent,
        status=status,
        steps=snaps
        if plan is not None
        else list(prev.steps if prev else []),  # a turn without a plan keeps the last
        entities=entities,
        days=days,
        earlier_steps=earlier,
        pending=pending,
        carry=carry,
    )
