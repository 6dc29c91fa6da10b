"""Batched, grammar-constrained greedy decoding with verified jump-forward.

Each row keeps an xgrammar ``GrammarMatcher``. After every accepted token the matcher's
jump-forward string (text the grammar forces: keys, punctuation, enum prefixes) is tokenized
and fed as *draft* tokens in the same forward pass as the next token. The logits at each draft
position are then checked exactly as token-by-token decoding would: the masked greedy choice is
taken, and drafts are kept only while they equal it. So the output is identical to token-by-token
constrained greedy decoding (no retokenization drift), while every forward pass yields one token
plus all the forced tokens the model agrees with. A mismatch just rolls the row's cache length
back; nothing is recomputed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import torch
import xgrammar as xgr

from thought_model.engine.base import GenerationStats
from thought_model.engine.lean import LeanLlama


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
    grammar: xgr.CompiledGrammar
    deadline: float | None = None  # time.perf_counter() value
    max_new: int | None = None  # per-row limit (context window); default DecodeConfig.max_new_tokens
    out_ids: list[int] = field(default_factory=list)
    stats: GenerationStats = field(default_factory=GenerationStats)
    error: str | None = None  # "deadline" | "length" | "grammar"
    done: bool = False
    ctx: Any = None  # the codec's per-request context (handed back to its parser)


class Decoder:
    """Runs :class:`Row` batches through a :class:`LeanLlama` under their grammars."""

    def __init__(
        self, model: LeanLlama, tokenizer, vocab_size: int, eos_id: int, config: DecodeConfig
    ) -> None:
        self.model, self.tok, self.vocab_size, self.eos_id, self.cfg = (
            model,
            tokenizer,
            vocab_size,
            eos_id,
            config,
        )
        self._jf_cache: dict[tuple[int, str], list[int]] = {}
        # compact JSON never contains raw control characters, but xgrammar's string rule lets
        # some through; tokens that decode to one are banned outright
        banned = [
            i
            for i in range(min(vocab_size, len(tokenizer)))
            if i != eos_id and any(ord(c) < 0x20 for c in tokenizer.decode([i]))
        ]
        self._banned = torch.tensor(banned, dtype=torch.long)
        self._banned_set = frozenset(banned)

    # -- drafts -------------------------------------------------------------------------------
    def _drafts(self, matcher: xgr.GrammarMatcher, last_id: int) -> list[int]:
        if not self.cfg.jump_forward:
            return []
        s = matcher.find_jump_forward_string()
        if not s:
            return []
        key = (last_id, s)
        hit = self._jf_cache.get(key)
        if hit is None:
            # token healing: prefer the tokenization of (last token + forced text) when it keeps
            # the last token intact, which is what a model trained on whole texts expects
            last_text = self.tok.decode([last_id])
            joint = self.tok.encode(last_text + s, add_special_tokens=False)
            hit = joint[1:] if joint and joint[0] == last_id else self.tok.encode(s, add_special_tokens=False)
            hit = hit[: self.cfg.max_draft]
            if len(self._jf_cache) > 50_000:
                self._jf_cache.clear()
            self._jf_cache[key] = hit
        return hit

    # -- main loop ----------------------------------------------------------------------------
    def run(self, rows: list[Row]) -> None:
        """Decode every row to completion (or error), filling ``out_ids``, ``stats``, ``error``."""
        if not rows:
            return
        t0 = time.perf_counter()
        matchers = [xgr.GrammarMatcher(r.grammar) for r in rows]
        bitmask = xgr.allocate_token_bitmask(1, self.vocab_size)
        limits: list[int] = []  # each row's resolved max_new
        for r in rows:
            r.max_new = min(r.max_new or self.cfg.max_new_tokens, self.cfg.max_new_tokens)
            limits.append(r.max_new)
        capacity = (
            max(len(r.prompt_ids) + n for r, n in zip(rows, limits, strict=True)) + self.cfg.max_draft + 2
        )
        cache = self.model.new_cache(len(rows), capacity)
        active = list(range(len(rows)))
        fed: list[list[int]] = []
        n_draft: list[int] = []
        for i, r in enumerate(rows):
            r.stats.prompt_tokens = len(r.prompt_ids)
            d = self._drafts_initial(matchers[i])
            fed.append(list(r.prompt_ids) + d)
            n_draft.append(len(d))
        while active:
            n = max(len(f) for f in fed)
            toks = torch.zeros((len(active), n), dtype=torch.long)
            for b, f in enumerate(fed):
                toks[b, : len(f)] = torch.tensor(f, dtype=torch.long)
            lens = torch.tensor([len(f) for f in fed], dtype=torch.long)
            first = min(len(f) - nd - 1 for f, nd in zip(fed, n_draft))  # earliest logits read
            logits = self.model.forward(toks, lens, cache, logits_from=first)
            now = time.perf_counter()
            keep: list[int] = []
            new_fed, new_nd = [], []
            for b, i in enumerate(active):
                r, m, f = rows[i], matchers[i], fed[b]
                r.stats.forward_passes += 1
                j = len(f) - n_draft[b] - 1
                g = -1
                while True:
                    g = self._masked_argmax(logits[b, j - first], m, bitmask)
                    if g < 0 or not m.accept_token(g):
                        r.error, r.done = "grammar", True
                        break
                    r.out_ids.append(g)
                    if j + 1 < len(f) and g == f[j + 1] and len(r.out_ids) < limits[i]:
                        r.stats.jump_forward_tokens += 1
                        j += 1
                        if m.is_terminated():
                            break
                        continue
                    break
                cache.lengths[b] += j + 1
                r.stats.generated_tokens = len(r.out_ids)
                if r.done:
                    continue
                if m.is_terminated():
                    r.done = True
                elif len(r.out_ids) >= limits[i]:
                    r.error, r.done = "length", True
                elif r.deadline is not None and now > r.deadline:
                    r.error, r.done = "deadline", True
                if r.done:
                    continue
                d = self._drafts(m, g)
                keep.append(b)
                new_fed.append([g, *d])
                new_nd.append(len(d))
            if len(keep) != len(active):
                if keep:
                    cache.keep(keep)
                active = [active[b] for b in keep]
            if len(keep) > 1:  # every row is padded to the longest: keep drafts short in batches
                cap = max(self.cfg.min_batch_draft, self.cfg.batch_draft_tokens // len(keep))
                new_fed = [f[: 1 + cap] for f in new_fed]
                new_nd = [min(nd, cap) for nd in new_nd]
            fed, n_draft = new_fed, new_nd
        ms = (time.perf_counter() - t0) * 1000.0
        for r in rows:
            r.stats.ms = ms

    def _drafts_initial(self, matcher: xgr.GrammarMatcher) -> list[int]:
        if not self.cfg.jump_forward:
            return []
        s = matcher.find_jump_forward_string()
        return self.tok.encode(s, add_special_tokens=False)[: self.cfg.max_draft] if s else []

    def _masked_argmax(self, logits: torch.Tensor, matcher: xgr.GrammarMatcher, bitmask: torch.Tensor) -> int:
        """Greedy token under the grammar. Fast path: the unmasked argmax, when the grammar allows
        it (masking only removes tokens, so it is then also the masked argmax)."""
        row = logits[: self.vocab_size]
        need = matcher.fill_next_token_bitmask(bitmask, 0)
        best = int(torch.argmax(row).item())
        if best not in self._banned_set and (
            not need or (int(bitmask[0, best >> 5].item()) >> (best & 31)) & 1
        ):
            return best
        row = row.unsqueeze(0).clone()
        if need:
            xgr.apply_token_bitmask_inplace(row, bitmask)
        if len(self._banned):
            row[0, self._banned] = float("-inf")
        best = int(torch.argmax(row[0]).item())
        if row[0, best].item() == float("-inf"):
            return -1
        return best

    def text(self, row: Row) -> str:
        ids = [t for t in row.out_ids if t != self.eos_id]
        return self.tok.decode(ids, skip_special_tokens=False)
