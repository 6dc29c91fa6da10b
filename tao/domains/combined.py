"""The combined registry: the reference (22 tools), helpdesk (8) and workplace (11) domains as one
41-tool domain, ``tao.domains.combined:registry``, for intent routing's tests and benchmark.

Tool names are unique across the three (checked at load: a collision raises
:class:`~tao.domains.contract.ContractError`). The lexicon is the union of the three lexicons (id
kinds deduplicated by pattern; the helpdesk and workplace domains share ``EMPLOYEE``); the session
user (``<ME>``) is the reference domain's ``USER`` kind, since a lexicon names one. The mock service
keeps one state per part (:class:`CombinedData`) and routes each tool's handler to its part's state.
The reference domain has phrasing (intents and templates) and no examples; the other two have
examples and no phrasing: the combined domain carries the examples, and :data:`PARTS` names the
parts so a router can read each part's own data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cache
from typing import Any

from tao.contracts.domain import Domain, Lexicon

PARTS = ("tao.domains.reference:domain", "tao.domains.helpdesk:registry", "tao.domains.workplace:registry")
"""The refs of the combined domains, in tool order."""


@dataclass
class CombinedData:
    """One mock state per part domain, by part name."""

    parts: dict[str, Any] = field(default_factory=dict)


def parts() -> list[Domain]:
    """The part domains (loaded through :func:`tao.domains.load_domain`, cached)."""
    from tao.domains import load_domain

    return [load_domain(ref) for ref in PARTS]


def _lexicon(domains: list[Domain]) -> Lexicon:
    kinds: dict[str, Any] = {}
    for d in domains:
        for k in d.lexicon.id_kinds:
            kinds.setdefault(k.pattern, k)
    base = domains[0].lexicon
    return replace(
        base,
        id_kinds=tuple(kinds.values()),
        name_block_zh=frozenset().union(*(d.lexicon.name_block_zh for d in domains)),
        name_stop_en=frozenset().union(*(d.lexicon.name_stop_en for d in domains)),
        text_cues=tuple(dict.fromkeys(c for d in domains for c in d.lexicon.text_cues)),
    )


def _value_words(domains: list[Domain]) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for d in domains:
        for arg, values in d.value_words.items():
            for value, words in values.items():
                acc = out.setdefault(arg, {}).setdefault(value, [])
                acc.extend(w for w in words if w not in acc)
    return out


def _routed(part: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    def call(data: CombinedData, args: dict[str, Any]) -> Any:
        return handler(data.parts[part], args)

    call.__name__ = getattr(handler, "__name__", "handler")
    return call


@cache
def registry() -> Domain:
    """The 41-tool combined domain (built once per process)."""
    from tao.domains.contract import ContractError

    domains = parts()
    tools, owner = [], {}
    for d in domains:
        for t in d.tools:
            if t.name in owner:
                raise ContractError(f"tool {t.name!r} is in both {owner[t.name]!r} and {d.name!r}")
            owner[t.name] = d.name
            tools.append(t)
    handlers: dict[str, Callable[..., Any]] = {}
    for d in domains:
        for name, h in (d.mock_handlers or {}).items():
            handlers[name] = _routed(d.name, h)
    makers: Mapping[str, Callable[..., Any] | None] = {d.name: d.mock_data for d in domains}

    def mock_data(seed: int = 7, today: date | None = None) -> CombinedData:
        return CombinedData({n: m(seed, today) for n, m in makers.items() if m is not None})

    return Domain(
        name="combined",
        tools=tools,
        lexicon=_lexicon(domains),
        mock_handlers=handlers,
        mock_data=mock_data,
        examples=tuple(e for d in domains for e in d.examples),
        value_words=_value_words(domains),
    )


def tool_owner() -> dict[str, str]:
    """Tool name -> the name of the part domain it comes from."""
    return {t.name: d.name for d in parts() for t in d.tools}


domain = registry
"""``tao.domains.combined:domain`` names the same domain."""
