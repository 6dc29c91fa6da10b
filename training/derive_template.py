"""One phrasing of a contract-derived intent while it is being derived (:mod:`training.derive`):
its text with ``{kind}`` placeholders and its plan, and the key phrasings of one intent share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tao.contracts.tools import ToolSpec


@dataclass
class _Template:
    lang: str
    text: str  # with {kind} placeholders
    steps: tuple[tuple[str, dict, tuple[str, ...]], ...]


def _key(
    steps: tuple[tuple[str, dict, tuple[str, ...]], ...], registry: Mapping[str, ToolSpec] | None = None
) -> tuple:
    """Phrasings with one key share an intent: same tools, constants, ``<ME>`` and references, and
    the same required slots (optional slots may be absent: the argument is then left out)."""
    out = []
    for tool, args, deps in steps:
        req = set(registry[tool].args_schema.get("required", [])) if registry else set(args)
        fixed = sorted(  # a list (array argument) is part of the key: its length is the plan's
            (a, tuple(v) if isinstance(v, list) else v)
            for a, v in args.items()
            if a in req or not (isinstance(v, str) and v.startswith("{"))
        )
        out.append((tool, tuple(fixed), deps))
    return tuple(out)
