"""A required enum value the request never writes: the plan is insufficient (issue #15).

For a user registry the checkpoint records the trained intents' plans (``intent_steps``): an enum
argument there is either a placeholder the request writes (``reset_password.system = {system}``)
or a constant of the phrasing (``create_ticket.category = hardware`` for "my laptop is broken":
the value follows from the rest of the request). An argument that is **required** and a
placeholder in **every** intent of its tool is one no request can leave out; when the registry
also says which words requests use for its values (``Domain.value_words``) and the request writes
none of them outside its free text, the model's value is a guess ("can you send me a password
reset link" -> ``system=email``), so the answer is ``insufficient_context`` for that argument.

:func:`must_write` derives those arguments; :func:`unwritten_required` applies them to a plan.
A step whose value is a reference to an earlier step, or whose argument no word is known for, is
left alone (the check cannot tell).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tao.contracts import InsufficientContext, ThoughtPlan, ToolSpec
from tao.contracts.plan import REF_PATTERN
from thought_model.enum_words import EnumWords, outside_free_text

_PLACEHOLDER = re.compile(r"^\{[a-z_0-9]+\}$")
_REF = re.compile(REF_PATTERN)

MustWrite = dict[str, frozenset[str]]
"""Tool name -> its required enum arguments every request must write."""


def must_write(
    tools: Sequence[ToolSpec], intent_steps: Mapping[str, Sequence[tuple[str, Mapping[str, Any]]]]
) -> MustWrite:
    """The required enum arguments that are a placeholder in every trained intent of their tool."""
    seen: dict[tuple[str, str], bool] = {}
    for steps in intent_steps.values():
        for tool, template in steps:
            for arg, v in template.items():
                key = (tool, arg)
                placeholder = isinstance(v, str) and _PLACEHOLDER.match(v) is not None
                seen[key] = seen.get(key, True) and placeholder
    out: dict[str, set[str]] = {}
    for t in tools:
        props = t.args_schema.get("properties", {})
        for arg in t.args_schema.get("required", []):
            prop = props.get(arg, {})
            if isinstance(prop, dict) and "enum" in prop and seen.get((t.name, arg)):
                out.setdefault(t.name, set()).add(arg)
    return {k: frozenset(v) for k, v in out.items()}


def unwritten_required(
    plan: ThoughtPlan, masked: str, words: EnumWords, required: MustWrite
) -> InsufficientContext | None:
    """``insufficient_context`` naming the must-write enum arguments of ``plan`` whose words the
    request (``masked``, perception's masked text) does not write; None when it writes them all."""
    if not required:
        return None
    text = outside_free_text(masked)
    missing: list[str] = []
    for s in plan.steps:
        for arg in sorted(required.get(s.tool, ())):
            v = s.arguments.get(arg)
            if isinstance(v, str) and _REF.match(v):
                continue
            found = words.written(arg, text)
            if found is not None and not found:
                missing.append(arg)
    if not missing:
        return None
    intent = plan.intent or next(s.tool for s in plan.steps if required.get(s.tool))
    return InsufficientContext(required_fields=list(dict.fromkeys(missing)), intent=intent)
