"""The read of the item a record points to: "who is my manager? give me their email" (a user registry).

A read tool ``T`` whose one required argument ``a`` takes an id of some pattern, and whose response has
another field ``o`` of that same pattern that ``T`` ``extract``\\ s (``get_employee``: ``employee_id`` in,
``manager_id`` out, both ``^E[0-9]{6}$``), links a record to another record of its own kind. When the
plan ends with ``T(a=…)`` alone, the request has a word of ``o`` and, after it, asks something of that
item (a third-person pronoun, or a word of ``T`` other than the link word: ``邮箱``, ``office``), the
read ``T(a=${tN.o})`` is appended. The link is the contracts' (response schema + extract); the words of
``o`` are its name's (``manager``) and those of the registry's example chains that read ``${tK.o}``, less
the words of ``T``'s contract, of its one-step examples and of the other tools (``上级``, ``boss``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tao.contracts import ThoughtPlan, ToolSpec
from tao.contracts.domain import RequestExample
from tao.contracts.tools import Permission
from thought_model.perception.normalize import to_simplified
from thought_model.plan_edit import Draft, build, drafts
from thought_model.registry_graph import _base, _nonnull
from thought_model.tool_cues import ToolCues, words

_THIRD = re.compile(r"他|她|\b(?:he|him|his|she|her|they|them|their)\b", re.I)
"""A pronoun after the link word: the linked item is asked about ("把他的邮箱告诉我")."""


@dataclass(frozen=True)
class Link:
    """``tool(arg=${tN.output})`` reads the item ``output`` of ``tool``'s own result points to."""

    tool: str
    arg: str
    output: str
    words: frozenset[str]


def _text_without(text: str, steps: Sequence[tuple[str, object]]) -> str:
    for _, args in steps:
        for v in args.values() if isinstance(args, dict) else ():
            if isinstance(v, str) and v and not v.startswith(("<", "${")):
                text = text.replace(v, " ")
    return text


def derive_links(tools: Sequence[ToolSpec], examples: Iterable[RequestExample], cues: ToolCues) -> list[Link]:
    """The registry's record -> record links and their words (see the module doc)."""
    examples = list(examples)
    out: list[Link] = []
    for t in tools:
        props = t.args_schema.get("properties", {})
        required = list(t.args_schema.get("required", []))
        if t.permission is not Permission.READ or len(required) != 1:
            continue
        arg = required[0]
        base = _base(_nonnull(props.get(arg, {})).get("pattern"))
        if not base:
            continue
        resp = t.response_schema.get("properties", {})
        for o in t.extract:
            if o == arg or _base(_nonnull(resp.get(o, {})).get("pattern")) != base:
                continue
            own = words(" ".join([t.name, t.description, *props, *(x for x in t.extract if x != o)]))
            ref = re.compile(r"\$\{t\d+\." + re.escape(o) + r"\}")
            one: set[str] = set()
            for ex in examples:
                if len(ex.steps) == 1 and ex.steps[0][0] == t.name:
                    one |= words(_text_without(ex.text, ex.steps))
            others = set().union(*(c for name, c in cues.cues.items() if name != t.name))
            known = own | one | others
            chain: set[str] = set()
            for ex in examples:
                if any(s == t.name and any(ref.fullmatch(str(v)) for v in a.values()) for s, a in ex.steps):
                    chain |= words(_cut(to_simplified(_text_without(ex.text, ex.steps)).casefold(), known))
            chain -= known
            found = words(o.replace("_", " ")) | chain
            if found:
                out.append(Link(t.name, arg, o, frozenset(found)))
    return out


def linked_read(plan: ThoughtPlan, text: str, links: Sequence[Link], cues: ToolCues) -> ThoughtPlan:
    """``plan`` with the linked read appended (see the module doc), else ``plan`` itself."""
    if len(plan.steps) != 1 or not links:
        return plan
    last = plan.steps[-1]
    plain = to_simplified(text).casefold()
    for link in links:
        if last.tool != link.tool or set(last.arguments) != {link.arg}:
            continue
        at = _first(plain, link.words)
        if at is None:
            continue
        after = plain[at:]
        asked = words(after) & (cues.cues.get(link.tool, frozenset()) - link.words)
        if _THIRD.search(after) is None and not asked:
            continue
        new = Draft("_linked", link.tool, {link.arg: f"${{{last.step_id}.{link.output}}}"}, [last.step_id])
        return build(plan, [*drafts(plan), new]) or plan
    return plan


def _first(plain: str, found: frozenset[str]) -> int | None:
    """The end of the first link word in ``plain`` (words are case-folded, a plural ``s`` dropped)."""
    best: int | None = None
    for w in found:
        m = re.search(r"\b" + re.escape(w) + r"s?\b" if w.isascii() else re.escape(w), plain)
        if m is not None and (best is None or m.end() < best):
            best = m.end()
    return best


def _cut(text: str, known: set[str]) -> str:
    """``text`` with the known words blanked (``员工信息`` leaves no ``工信`` behind)."""
    for w in sorted(known, key=len, reverse=True):
        text = re.sub(r"\b" + re.escape(w) + r"s?\b", " ", text) if w.isascii() else text.replace(w, " ")
    return text
