"""Editing the previous turn for a ``swap`` or a ``refer``: multi-day symbols collapsed back,
the entity a reference points at, the previous request rewritten with the changed values."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from tao.loop.carry_schema import _DAY, _render
from tao.loop.followup import Delta, Followup
from tao.loop.snapshot import Snapshot, StepSnap

_REF = re.compile(r"\$\{(t\d+)\.")


def _collapse_expanded(steps: list[dict[str, Any]], snaps: list[StepSnap]) -> None:
    """Steps the resolver expanded from one multi-day symbol get the symbol back (a swap then
    changes the symbol, and the loop expands again)."""
    for st, sn in zip(steps, snaps):
        for k, sym in sn.resolved_from.items():
            if (k in st["arguments"] and sym.split(" ")[0] in ("@this_weekend", "@next_weekend")) or (
                k in st["arguments"]
                and sym.startswith(("@last_days:", "@next_days:"))
                and _DAY.match(str(st["arguments"][k]))
            ):
                st["arguments"][k] = sym


def _referent(snap: Snapshot, fu: Followup) -> tuple[str, Any]:
    items = snap.items()
    kind_key = f"{fu.ref_kind}_id" if fu.ref_kind else None
    if fu.ordinal is not None:
        keys = [kind_key] if kind_key in items else list(items)
        for k in keys:
            vals = items.get(k or "") or []
            n = fu.ordinal
            if vals and (n == -1 or n <= len(vals)):
                return k or "", vals[n - 1 if n > 0 else -1]
    candidates: list[tuple[str, Any]] = []
    for s in reversed(snap.steps):
        for src in (s.extracted, s.arguments):
            for k, v in src.items():
                if k.endswith("_id") and k != "user_id" and isinstance(v, str) and not v.startswith("${"):
                    candidates.append((k, v))
    if kind_key:
        hit = next((c for c in candidates if c[0] == kind_key), None)
        if hit is None and kind_key in snap.entities:
            hit = (kind_key, snap.entities[kind_key])
        if hit is not None:
            return hit
    if candidates:
        return candidates[0]
    return "", None


def _rewrite_swap(prev: str, placed: list[tuple[Delta, Any]], zh: bool, lexicon: Any) -> str:
    """The previous complete request with the changed values written in."""
    from tao.loop.followup import find_months, perceive_deltas
    from thought_model.perception.normalize import normalize_request

    base = normalize_request(prev)
    today = datetime.now().date()
    old = perceive_deltas(base, today, lexicon)
    if not any(d.type == "DATE" for d in old):
        old += find_months(base, today)
    text = base
    for d, v in placed:
        new = _render(d, v, zh)
        same = next((o for o in old if o.type == d.type and o.text in text), None)
        if same is not None:
            text = text.replace(same.text, new, 1)
            old.remove(same)
        else:
            text = f"{text.rstrip('。.？?！! ')} {new}"
    return text


def _refs(steps: list[dict[str, Any]]) -> set[str]:
    return set(_REF.findall(json.dumps([st["arguments"] for st in steps], default=str)))


def _drop_unfed(steps: list[dict[str, Any]], before: set[str]) -> list[dict[str, Any]]:
    """A step whose output fed an argument the turn now gives itself goes ("订 R305" after
    find_meeting_room -> book_meeting_room(${t1.room_id}): the booking alone, with R305).
    ``before``: the step ids the previous plan's arguments referenced."""
    now = _refs(steps)
    gone = {st["step_id"] for st in steps if st["step_id"] in before and st["step_id"] not in now}
    if not gone or len(gone) == len(steps):
        return steps
    out = [st for st in steps if st["step_id"] not in gone]
    for st in out:
        st["dependencies"] = [d for d in st["dependencies"] if d not in gone]
    if not now:  # nothing refers to a step id any more: number them again
        for i, st in enumerate(out):
            st["step_id"] = f"t{i + 1}"
    return out
