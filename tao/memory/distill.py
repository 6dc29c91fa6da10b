"""The distiller: a bounded context (≤ 300 tokens) for the next turn of a conversation.

Each turn is folded into the conversation's :class:`RollingSummary` (the short-term tier), which
stays bounded however long the conversation gets: the last intents, the entities the turns
resolved (newest value per key first, a few values per key), the last failure (error code,
tool, input hash) and a request that stopped at insufficient context. :func:`distill` renders it
with the top memories (score ≥ 0.6, top 2) into lines, filling in priority order until the
token bound:

1. turn number, last failure, pending request with its missing fields, the last intents;
2. entities, newest first (the next turn most often needs the latest ones);
3. the memories (each cut to ``memory_tokens``), then any entities left.

Tokens are counted with :func:`estimator.tokens.approx_tokens` (the project's estimator helper:
~4 Latin letters, one punctuation mark or one CJK character per token), or a given counter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from estimator.tokens import approx_tokens
from tao.memory.records import Entity, Failure, Hit, Pending, RollingSummary
from tao.memory.store import DEFAULT_MIN_SCORE, DEFAULT_TOP_K

MAX_TOKENS = 300


@dataclass
class Turn:
    """What one finished turn leaves behind (from the plan, its resolved arguments and outputs)."""

    request: str = ""
    intent: str | None = None
    entities: Mapping[str, Any] = field(default_factory=dict)
    failure: Failure | None = None
    missing: Sequence[str] = ()


@dataclass(frozen=True)
class DistillConfig:
    max_tokens: int = MAX_TOKENS
    keep_intents: int = 6
    keep_entities: int = 48  # in the rolling summary
    values_per_key: int = 3
    max_value_chars: int = 120
    pending_chars: int = 160
    min_score: float = DEFAULT_MIN_SCORE
    top_k: int = DEFAULT_TOP_K
    memory_tokens: int = 45


def _flat(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(_flat(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_flat(x)}" for k, x in sorted(v.items()))
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def fold(summary: RollingSummary, turn: Turn, cfg: DistillConfig = DistillConfig()) -> RollingSummary:
    """The summary after one more turn (a new object; bounded sizes)."""
    n = summary.turns + 1
    intents = [*summary.intents, *([(n, turn.intent)] if turn.intent else [])][-cfg.keep_intents :]
    ents = list(summary.entities)
    for key, raw in turn.entities.items():
        val = _flat(raw)[: cfg.max_value_chars]
        if not val:
            continue
        ents = [e for e in ents if not (e.key == key and e.value == val)]
        ents.append(Entity(key=key, value=val, turn=n))
        same = [e for e in ents if e.key == key]
        if len(same) > cfg.values_per_key:
            drop = same[0]
            ents = [e for e in ents if e is not drop]
    ents = ents[-cfg.keep_entities :]
    pending = (
        Pending(request=turn.request[: cfg.pending_chars], missing=list(turn.missing), turn=n)
        if turn.missing
        else None
    )
    return RollingSummary(
        session_id=summary.session_id,
        turns=n,
        intents=intents,
        entities=ents,
        last_failure=turn.failure or summary.last_failure,
        pending=pending,
    )


@dataclass(frozen=True)
class Distilled:
    text: str
    tokens: int
    entities: tuple[Entity, ...]
    memories: tuple[Hit, ...]
    dropped_entities: int


def _cut(text: str, limit: int, count: Callable[[str], int]) -> str:
    if count(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid] + "…") <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…"


def distill(
    summary: RollingSummary,
    memories: Iterable[Hit] = (),
    cfg: DistillConfig = DistillConfig(),
    count: Callable[[str], int] = approx_tokens,
) -> Distilled:
    """Render the summary and the relevant memories within ``cfg.max_tokens``."""
    lines: list[str] = []
    used = 0

    def add(line: str) -> bool:
        nonlocal used
        n = count("\n".join([*lines, line]))  # the exact count of the text so far (not additive)
        if n > cfg.max_tokens:
            return False
        lines.append(line)
        used = n
        return True

    add(f"turn {summary.turns}")
    if f := summary.last_failure:
        add(f"last failure: {f.error_code} tool={f.tool or '-'} input#{f.input_hash or '-'}")
    if p := summary.pending:
        add(f"pending (t{p.turn}): missing {', '.join(p.missing)}; request: {_cut(p.request, 60, count)}")
    if summary.intents:
        add("intents: " + " > ".join(f"{i}@t{t}" for t, i in summary.intents))
    hits = sorted((h for h in memories if h.score >= cfg.min_score), key=lambda h: (-h.score, h.record.id))[
        : cfg.top_k
    ]
    mem_lines = [f"memory {h.score:.2f}: {_cut(h.record.summary(), cfg.memory_tokens, count)}" for h in hits]
    reserve = sum(count(m) + 1 for m in mem_lines)
    newest = sorted(summary.entities, key=lambda e: -e.turn)
    kept: list[Entity] = []
    rest: list[Entity] = []
    for e in newest:
        line = f"{e.key}={e.value}@t{e.turn}"
        if used + count(line) + 2 + reserve <= cfg.max_tokens and add(line):
            kept.append(e)
        else:
            rest.append(e)
    kept_hits = [h for h, m in zip(hits, mem_lines, strict=True) if add(m)]
    for e in list(rest):
        if add(f"{e.key}={e.value}@t{e.turn}"):
            kept.append(e)
            rest.remove(e)
    text = "\n".join(lines)
    return Distilled(text, count(text), tuple(kept), tuple(kept_hits), len(rest))
