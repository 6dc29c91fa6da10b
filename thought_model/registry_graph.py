"""The registry's extract -> argument graph the composer links clause plans through, and the
reference domain's multi-step plan shapes (to name a composed plan)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tao.contracts import ThoughtPlan, ToolSpec
from tao.contracts.plan import REF_PATTERN


def _nonnull(prop: dict[str, Any]) -> dict[str, Any]:
    for key in ("anyOf", "oneOf"):
        if key in prop:
            opts = [s for s in prop[key] if s.get("type") != "null"]
            if len(opts) == 1:
                return {**{k: v for k, v in prop.items() if k != key}, **opts[0]}
    return prop


def _base(pattern: str | None) -> str | None:
    if not pattern:
        return None
    base = pattern.replace(f"|({REF_PATTERN})", "")
    if base != pattern and base.startswith("(") and base.endswith(")"):
        base = base[1:-1]
    return base


class RegistryGraph:
    """Which slot kinds fill an argument, and which earlier outputs may feed it (``extract``)."""

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        from thought_model.grammar import SLOT_SAMPLES

        self.tools = {t.name: t for t in tools}
        self.props: dict[str, dict[str, Any]] = {}
        for t in tools:
            for n, p in t.args_schema.get("properties", {}).items():
                self.props.setdefault(n, _nonnull(p))
        self._samples = SLOT_SAMPLES

    def slot_kinds(self, name: str) -> list[str]:
        """Slot kinds that can fill the argument ``name`` (best first)."""
        prop = self.props.get(name, {})
        pattern = prop.get("pattern")
        if pattern:
            kinds = [k for k, ss in self._samples.items() if any(re.search(pattern, s) for s in ss)]
            if kinds or f"|({REF_PATTERN})" not in pattern:
                return kinds
            # a free-text field that also takes a reference (get_weather.city): by name below
        typ = prop.get("type")
        if typ == "integer":
            return ["DUR"] if "dur" in name else ["NUM", "DUR"]
        if typ == "number":
            return ["AMOUNT"]
        if typ == "array":
            return ["NAME"]
        if "enum" in prop or typ == "boolean":
            return []
        by_name = {"city": "CITY", "name": "NAME", "value": "TEXT"}
        return [by_name.get(name, "TEXT")]

    def outputs_for(self, name: str) -> set[str]:
        """Output names (``extract`` keys) that may feed the argument ``name``: its own name, or
        arguments with the same base pattern (``to`` ← ``email``)."""
        base = _base(self.props.get(name, {}).get("pattern"))
        names = {name}
        if base:
            names |= {n for n, p in self.props.items() if _base(p.get("pattern")) == base}
        return names

    def provider(self, tool: str, name: str) -> str | None:
        """The output of ``tool`` that can feed argument ``name`` (None if it extracts none)."""
        spec = self.tools.get(tool)
        if spec is None:
            return None
        outs = self.outputs_for(name)
        for o in [name, *sorted(outs - {name})]:
            if o in spec.extract:
                return o
        return None


def reference_tools() -> list[ToolSpec]:
    from tao.domains.reference.registry import reference_tools

    return reference_tools()


def is_reference_lexicon(lexicon: Any) -> bool:
    """Whether ``lexicon`` is the reference domain's (or none: perception's default). A user registry
    may reuse the reference tools' names (the reference tools retrained from their contracts) and
    still have its own slot kinds: the lexicon's id kinds (its slot tokens), not the tool names, say
    whose model it is."""
    if lexicon is None:
        return True
    from tao.domains.reference.lexicon import LEXICON

    return lexicon is LEXICON or tuple(lexicon.id_kinds) == tuple(LEXICON.id_kinds)


def reference_intent_shapes() -> dict[tuple, str]:
    """Plan shape (tools and dependency positions) → intent, for the multi-step intents of the
    reference domain (used to name a composed plan whose clauses reference each other)."""
    from tao.domains.reference.phrasing.intents import INTENTS

    shapes: dict[tuple, list[str]] = {}
    for spec in INTENTS:
        if len(spec.steps) < 2:
            continue
        key = tuple((tool, tuple(int(d[1:]) - 1 for d in deps)) for tool, _, deps in spec.steps)
        shapes.setdefault(key, []).append(spec.name)
    return {k: v[0] for k, v in shapes.items() if len(v) == 1}


def plan_shape(plan: ThoughtPlan) -> tuple:
    idx = {s.step_id: i for i, s in enumerate(plan.steps)}
    return tuple((s.tool, tuple(sorted(idx[d] for d in s.dependencies))) for s in plan.steps)


def is_reference(tools: Sequence[ToolSpec]) -> bool:
    """Whether ``tools`` are the reference domain's (its intent plans then apply)."""
    names = {t.name for t in tools}
    return bool(names) and names <= {t.name for t in reference_tools()}
