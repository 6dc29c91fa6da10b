"""Each object's own enum value when one tool is planned for several objects (issue #15).

"reset E204118's vpn password and E204552's email password" is two resets, one system each; the
model gives both steps the first system. :func:`~thought_model.enum_words.fix_enums` leaves an
argument that several steps have alone; :func:`align_enums` places the values instead:

1. the steps of one tool that have the same enum argument (two or more) are each **anchored** by
   a slot value of theirs that no other of them has (``<EMPLOYEE1>``, ``<EMPLOYEE2>``), found
   once in the masked request;
2. the request is cut at the anchors two ways: each anchor's words *after* it, up to the next
   anchor ("E1's vpn password and | E2's email password"), or *before* it, from the previous one
   ("the vpn password of E1 | and the email password of E2");
3. a way in which every piece writes exactly one value of the argument (outside free text) gives
   each step its piece's value; when both ways do and they disagree, nothing changes.
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.entities import Perception
from thought_model.enum_words import EnumWords
from thought_model.perception.normalize import to_simplified

_FREE = re.compile(r"<TEXT[0-9]>「[^」]*」|<[A-Z][A-Z0-9_]*[0-9]>|「[^」]*」")


def _blanked(masked: str) -> str | None:
    """``masked`` with its slot tokens and free text as spaces (positions kept), simplified."""
    t = to_simplified(_FREE.sub(lambda m: " " * len(m.group(0)), masked))
    return t if len(t) == len(masked) else None


def _pieces(anchors: list[int], ends: list[int], n: int, after: bool) -> list[tuple[int, int]]:
    if after:
        return [(ends[i], anchors[i + 1] if i + 1 < len(anchors) else n) for i in range(len(anchors))]
    return [(ends[i - 1] if i else 0, anchors[i]) for i in range(len(anchors))]


def align_enums(plan: ThoughtPlan, perception: Perception, words: EnumWords) -> ThoughtPlan:
    """``plan`` with each anchored step's enum value from its own piece of the request (module
    doc); ``plan`` itself when nothing changes."""
    text = _blanked(perception.masked)
    if text is None:
        return plan
    token_of = {repr(v): t for t, v in perception.slots.items()}
    args_of = [dict(s.arguments) for s in plan.steps]
    changed = False
    for tool in dict.fromkeys(s.tool for s in plan.steps):
        spec = words.tools.get(tool)
        props = spec.args_schema.get("properties", {}) if spec is not None else {}
        idx = [i for i, s in enumerate(plan.steps) if s.tool == tool]
        for arg in (a for a, p in props.items() if isinstance(p, dict) and "enum" in p):
            group = [i for i in idx if arg in args_of[i]]
            if len(group) < 2:
                continue
            where = _anchors(perception.masked, [args_of[i] for i in group], arg, token_of)
            if where is None:
                continue
            at: list[tuple[int, int]] = where  # narrowed: the lambda below keeps the type
            order = sorted(range(len(group)), key=lambda k: at[k][0])
            starts = [at[k][0] for k in order]
            ends = [at[k][1] for k in order]
            spans = words.spans(arg, text)
            choice: list[str] | None = None
            for after in (True, False):
                found = [
                    {v for a, b, v in spans if lo <= a and b <= hi}
                    for lo, hi in _pieces(starts, ends, len(text), after)
                ]
                if all(len(f) == 1 for f in found):
                    vals = [next(iter(f)) for f in found]
                    if choice is not None and vals != choice:
                        choice = None
                        break
                    choice = vals
            if choice is None:
                continue
            for k, v in zip(order, choice, strict=True):
                if args_of[group[k]][arg] != v:
                    args_of[group[k]][arg] = v
                    changed = True
    if not changed:
        return plan
    steps = [s.model_copy(update={"arguments": a}) for s, a in zip(plan.steps, args_of, strict=True)]
    return plan.model_copy(update={"steps": steps})


def _anchors(
    masked: str, group: list[dict[str, Any]], arg: str, token_of: dict[str, str]
) -> list[tuple[int, int]] | None:
    """Per step, the (start, end) in ``masked`` of the one slot token only it uses; None when a
    step has none, or more than one."""
    tokens = [
        {token_of[repr(v)] for a, v in args.items() if a != arg and repr(v) in token_of} for args in group
    ]
    out: list[tuple[int, int]] = []
    for k, mine in enumerate(tokens):
        others = set().union(*(t for j, t in enumerate(tokens) if j != k))
        own = sorted(mine - others)
        if len(own) != 1 or masked.count(own[0]) != 1:
            return None
        at = masked.index(own[0])
        out.append((at, at + len(own[0])))
    return out
