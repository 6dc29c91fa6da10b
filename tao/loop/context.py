"""The context budget for prompts the runtime assembles (DESIGN.md, "Context budget").

A window of ``W`` tokens is split into reserves:

* output: 8% of ``W``, at most 8192 (never lent to anything else: the model must be able to answer);
* system prompt: 5%, at most 2000;
* tool descriptions: 15%;
* memory (the distilled context of :mod:`tao.memory`): 15%;
* the rest: history and tool results.

What the system prompt, the tool descriptions and the memory leave unused flows to history and
tool results. Every part that enters the context is ordered deterministically: by score
(descending), then by id (ascending); when a part does not fit its share, the lowest-ranked items
are dropped first (whole items, never cut mid-text, except the system prompt, which is required
and is refused with :class:`ContextOverflow` when it exceeds its share).

Tokens are counted with :func:`estimator.tokens.approx_tokens` unless a counter is passed (the
target model's tokenizer, :func:`estimator.tokens.hf_token_counter`, when exact counts matter).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from estimator.tokens import approx_tokens

TokenCounter = Callable[[str], int]


class ContextOverflow(ValueError):
    """A required part (the system prompt) does not fit its share of the window."""


@dataclass(frozen=True)
class BudgetConfig:
    """Shares of the context window (fractions of ``window``) and their caps in tokens."""

    window: int
    output_share: float = 0.08
    output_cap: int | None = 8192
    system_share: float = 0.05
    system_cap: int | None = 2000
    tools_share: float = 0.15
    tools_cap: int | None = None
    memory_share: float = 0.15
    memory_cap: int | None = None

    def __post_init__(self) -> None:
        if self.window <= 0:
            raise ValueError("window must be positive")
        shares = (self.output_share, self.system_share, self.tools_share, self.memory_share)
        if any(s < 0 for s in shares) or sum(shares) > 1.0:
            raise ValueError("shares must be non-negative and sum to at most 1")

    @staticmethod
    def _part(window: int, share: float, cap: int | None) -> int:
        n = math.floor(window * share)
        return n if cap is None else min(n, cap)

    def reserves(self) -> Budget:
        """The nominal reserves, before any unused share flows to history."""
        out = self._part(self.window, self.output_share, self.output_cap)
        sys_ = self._part(self.window, self.system_share, self.system_cap)
        tools = self._part(self.window, self.tools_share, self.tools_cap)
        mem = self._part(self.window, self.memory_share, self.memory_cap)
        return Budget(out, sys_, tools, mem, self.window - out - sys_ - tools - mem)


@dataclass(frozen=True)
class Budget:
    """Token allowances per part; they always sum to the window."""

    output: int
    system: int
    tools: int
    memory: int
    history: int  # history and tool results

    @property
    def total(self) -> int:
        return self.output + self.system + self.tools + self.memory + self.history


def allocate(cfg: BudgetConfig, *, system: int, tools: int, memory: int) -> Budget:
    """Allowances given what the system prompt, tool descriptions and memory actually need.

    Each of the three gets ``min(need, reserve)``; the remainder of its reserve flows to history.
    The output reserve never shrinks or flows.
    """
    r = cfg.reserves()
    s, t, m = min(system, r.system), min(tools, r.tools), min(memory, r.memory)
    return Budget(r.output, s, t, m, cfg.window - r.output - s - t - m)


@dataclass(frozen=True)
class Item:
    """One piece of context: a tool description, a memory, a history turn or a tool result."""

    id: str
    text: str
    score: float = 0.0


def ordered(items: Iterable[Item]) -> list[Item]:
    """Deterministic order: score descending, then id ascending."""
    return sorted(items, key=lambda it: (-it.score, it.id))


def fit(items: Iterable[Item], limit: int, count: TokenCounter = approx_tokens) -> tuple[list[Item], int]:
    """The best-ranked items that fit in ``limit`` tokens (greedy in rank order; an item that
    does not fit is skipped and smaller lower-ranked ones may still enter). Returns (kept, used)."""
    kept, used = [], 0
    for it in ordered(items):
        n = count(it.text)
        if used + n <= limit:
            kept.append(it)
            used += n
    return kept, used


def _pointer_get(data: Any, pointer: str) -> tuple[bool, Any]:
    cur = data
    for raw in pointer.lstrip("/").split("/") if pointer not in ("", "/") else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return False, None
    return True, cur


def trim_tool_result(data: Any, fields: Mapping[str, str] | Sequence[str]) -> dict[str, Any]:
    """Only the fields the model needs from a tool result.

    ``fields``: a ToolSpec ``extract`` map (output name → JSON pointer) or a list of JSON
    pointers / top-level keys. Missing fields are left out; the result has sorted keys.
    """
    pairs = (
        list(fields.items())
        if isinstance(fields, Mapping)
        else [(p.lstrip("/").replace("/", ".") or p, p if p.startswith("/") else "/" + p) for p in fields]
    )
    out: dict[str, Any] = {}
    for name, ptr in sorted(pairs):
        found, v = _pointer_get(data, ptr)
        if found:
            out[name] = v
    return out


def result_text(data: Any) -> str:
    """Compact, key-sorted JSON of a (trimmed) tool result, as it enters the context."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()


@dataclass
class AssembledContext:
    budget: Budget
    system: str
    tools: list[Item]
    memory: list[Item]
    history: list[Item]
    dropped: dict[str, list[str]] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)


def assemble(
    cfg: BudgetConfig,
    *,
    system: str,
    tools: Iterable[Item] = (),
    memory: Iterable[Item] = (),
    history: Iterable[Item] = (),
    count: TokenCounter = approx_tokens,
) -> AssembledContext:
    """Fit each part into its share; unused system/tool/memory shares flow to ``history``
    (history turns and trimmed tool results, one list: give recent or relevant ones a higher
    score). Raises :class:`ContextOverflow` when the system prompt alone exceeds its share."""
    r = cfg.reserves()
    sys_n = count(system)
    if sys_n > r.system:
        raise ContextOverflow(f"system prompt needs {sys_n} tokens, its share is {r.system}")
    tools_l, mem_l, hist_l = list(tools), list(memory), list(history)
    tools_kept, tools_n = fit(tools_l, r.tools, count)
    mem_kept, mem_n = fit(mem_l, r.memory, count)
    budget = allocate(cfg, system=sys_n, tools=tools_n, memory=mem_n)
    hist_kept, hist_n = fit(hist_l, budget.history, count)

    def dropped(all_: list[Item], kept: list[Item]) -> list[str]:
        ids = {it.id for it in kept}
        return [it.id for it in ordered(all_) if it.id not in ids]

    return AssembledContext(
        budget=budget,
        system=system,
        tools=tools_kept,
        memory=mem_kept,
        history=hist_kept,
        dropped={
            "tools": dropped(tools_l, tools_kept),
            "memory": dropped(mem_l, mem_kept),
            "history": dropped(hist_l, hist_kept),
        },
        used={"system": sys_n, "tools": tools_n, "memory": mem_n, "history": hist_n},
    )
