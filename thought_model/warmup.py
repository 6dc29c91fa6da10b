"""Grammar warm-up: the slot sets a tool registry's requests most often bring, derived from the
registry itself, so a server can compile their grammars before it says it is ready.

A request's output grammar depends on its tool subset and on the slot tokens its perception
found (``<ORDER1>``, ``<DATE1>``, ``<ME>`` ...): a cache miss costs the schema build plus an
xgrammar compile (tens of milliseconds, the bulk of a cold request's latency). The frequent
slot sets are the ones a single tool call needs: for every tool, the slot of each required
argument (the best-fitting kind, ``<ME>`` for the session user's id), alone and with each
optional argument (a user-id argument as ``<ME>`` and as another user's ``<USER1>``), with and
without ``<ME>`` (a known user) and ``<DATE1>`` (a time word, which
most requests carry); pairs of tools that chain (one's ``extract`` feeds the other) add their
union. Nothing here reads request texts: the list follows from the contracts.
"""

from __future__ import annotations

from collections.abc import Sequence

from tao.contracts import ToolSpec
from tao.contracts.domain import Lexicon
from thought_model.entities import ME_SLOT

DATE = "<DATE1>"


def _token(kind: str) -> str:
    return f"<{kind}1>"


def _field_slots(tool: ToolSpec, graph, me_kind: str | None) -> tuple[list[str], list[str]]:
    """(slots of the required arguments, slots of the optional ones) of ``tool``: one per argument
    that takes a slot, its best-fitting kind."""
    required = set(tool.args_schema.get("required", []))
    req: list[str] = []
    opt: list[str] = []
    for name in tool.args_schema.get("properties", {}):
        kinds = graph.slot_kinds(name)
        if not kinds:
            continue
        tok = ME_SLOT if me_kind is not None and kinds[0] == me_kind else _token(kinds[0])
        (req if name in required else opt).append(tok)
    return req, opt


def registry_slot_sets(
    tools: Sequence[ToolSpec], lexicon: Lexicon | None = None, max_sets: int = 600
) -> list[frozenset[str]]:
    """The slot sets worth compiling at start-up for ``tools``, most basic first (at most
    ``max_sets``)."""
    from thought_model.compose import RegistryGraph

    graph = RegistryGraph(tools)
    me_kind = lexicon.me_kind if lexicon is not None else "USER"
    base: list[frozenset[str]] = [frozenset(), frozenset({ME_SLOT})]
    per_tool: dict[str, list[frozenset[str]]] = {}
    for t in tools:
        req, opt = _field_slots(t, graph, me_kind)
        variants = [frozenset(req)] + [frozenset([*req, o]) for o in opt] + [frozenset(req + opt)]
        per_tool[t.name] = variants
        base.extend(variants)
    chains: list[frozenset[str]] = []
    for a in tools:
        for b in tools:
            if a.name != b.name and any(
                graph.provider(a.name, n) for n in b.args_schema.get("properties", {})
            ):
                chains.append(per_tool[a.name][0] | per_tool[b.name][0])
    user = _token(me_kind) if me_kind else None
    others = [(s - {ME_SLOT}) | {user} for s in base if user and ME_SLOT in s]  # another user's id
    out: dict[frozenset[str], None] = {}
    for s in [*base, *others, *chains]:
        for extra in ((), (ME_SLOT,), (DATE,), (ME_SLOT, DATE)):
            out.setdefault(s | frozenset(extra), None)
    return list(out)[:max_sets]
