"""What a decode row is and how it is configured, with no torch or xgrammar import: a server whose
plan model decodes in a child process (:mod:`thought_model.engine.decode_process`) builds rows,
sends them and turns their token ids into text without loading either."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from thought_model.engine.base import GenerationStats

if TYPE_CHECKING:
    import xgrammar as xgr


@dataclass
class DecodeConfig:
    max_new_tokens: int = 512
    jump_forward: bool = True
    max_draft: int = 64  # longest forced run fed in one pass (a single row)
    batch_draft_tokens: int = 32  # with several rows, drafts per row <= this / rows (padding costs)
    min_batch_draft: int = 4


@dataclass
class Row:
    """One sequence being decoded."""

    prompt_ids: list[int]
    grammar: xgr.CompiledGrammar | None  # None in a parent whose decode runs in a child process
    deadline: float | None = None  # time.perf_counter() value
    max_new: int | None = None  # per-row limit (context window); default DecodeConfig.max_new_tokens
    out_ids: list[int] = field(default_factory=list)
    stats: GenerationStats = field(default_factory=GenerationStats)
    error: str | None = None  # "deadline" | "length" | "grammar"
    done: bool = False
    ctx: Any = None  # the codec's per-request context (handed back to its parser)
    grammar_id: int | None = None  # the grammar's id in a decode process (engine.decode_process)


def row_text(tokenizer: Any, eos_id: int, out_ids: list[int]) -> str:
    """The text of a row's generated ids (EOS dropped, special tokens kept)."""
    return tokenizer.decode([t for t in out_ids if t != eos_id], skip_special_tokens=False)
