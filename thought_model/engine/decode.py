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

import torch
import xgrammar as xgr

from thought_model.engine.lean import LeanLlama
from thought_model.engine.rows import DecodeConfig, Row, row_text

__all__ = ["DecodeBatch", "DecodeConfig", "Decoder", "Row"]


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
        """Decode every row to completion (or error), filling ``out_ids``, ``stats``, ``error``:
        one :class:`DecodeBatch` holding all of them (the offline batch)."""
        if not rows:
            return
        t0 = time.perf_counter()
        batch = DecodeBatch(self, len(rows))
        for r in rows:
            batch.add(r)
        while len(batch):
            batch.step()
        ms = (time.perf_counter() - t0) * 1000.0
        for r in rows:
            r.stats.ms = ms

    def _drafts_initial(self, matcher: xgr.GrammarMatcher) -> list[int]:
        if not self.cfg.jump_forward:
            return []
        s = matcher.find_jump_forward_string()
        if not s:
            return []
        key = (-1, s)  # the grammar's opening text: a handful of strings, tokenized once each
        hit = self._jf_cache.get(key)
        if hit is None:
            hit = self.tok.encode(s, add_special_tokens=False)[: self.cfg.max_draft]
            if len(self._jf_cache) > 50_000:
                self._jf_cache.clear()
            self._jf_cache[key] = hit
        return hit

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
        return row_text(self.tok, self.eos_id, row.out_ids)


class DecodeBatch:
    """The rows decoded together, one forward pass per :meth:`step`; rows join (:meth:`add`) and
    leave (finished rows are returned by :meth:`step`) at step boundaries.

    Each row keeps its own grammar matcher and its own slot of a preallocated KV cache
    (``[max_rows, capacity]``); live rows occupy slots ``0..len-1`` (a finished row's slot is
    refilled by moving later rows down, in place). A joining row's first pass feeds its prompt
    (plus the forced prefix) while the others feed their next token and drafts: the forward is
    packed (:meth:`LeanLlama.forward_packed`), so nobody pays for anybody else's length. A row's
    tokens depend only on its own prompt, grammar and cache, never on who else is in the batch:
    joining, leaving and batch size leave each output identical to decoding it alone."""

    def __init__(self, decoder: Decoder, max_rows: int, capacity: int | None = None) -> None:
        self.dec = decoder
        self.max_rows = max_rows
        cap = capacity or decoder.model.max_positions + decoder.cfg.max_draft + 2
        self.cache = decoder.model.new_cache(max_rows, cap)
        self.rows: list[Row] = []
        self._matchers: list[xgr.GrammarMatcher] = []
        self._fed: list[list[int]] = []  # what each row feeds in the next pass
        self._n_draft: list[int] = []  # how many of those are unverified drafts
        self._bitmask = xgr.allocate_token_bitmask(1, decoder.vocab_size)
        self.passes = 0

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def free(self) -> int:
        return self.max_rows - len(self.rows)

    def add(self, row: Row) -> None:
        """Join ``row`` (its prompt is fed in the next :meth:`step`)."""
        if not self.free:
            raise RuntimeError("decode batch is full")
        cfg = self.dec.cfg
        row.max_new = min(row.max_new or cfg.max_new_tokens, cfg.max_new_tokens)
        row.stats.prompt_tokens = len(row.prompt_ids)
        if row.grammar is None:
            raise ValueError("row has no compiled grammar")
        m = xgr.GrammarMatcher(row.grammar)
        d = self.dec._drafts_initial(m)
        self.cache.lengths[len(self.rows)] = 0
        self.rows.append(row)
        self._matchers.append(m)
        self._fed.append([*row.prompt_ids, *d])
        self._n_draft.append(len(d))

    def drop(self, keep: list[int]) -> None:
        """Keep only the rows at ``keep`` (ascending indices), e.g. after their callers left."""
        if len(keep) == len(self.rows):
            return
        self.cache.compact(keep)
        self.rows = [self.rows[b] for b in keep]
        self._matchers = [self._matchers[b] for b in keep]
        self._fed = [self._fed[b] for b in keep]
        self._n_draft = [self._n_draft[b] for b in keep]

    def step(self) -> list[Row]:
        """One forward pass over every row; returns the rows that finished (and left)."""
        if not self.rows:
            return []
        dec, cfg = self.dec, self.dec.cfg
        read_from = [len(f) - nd - 1 for f, nd in zip(self._fed, self._n_draft, strict=True)]
        logits, offsets = dec.model.forward_packed(self._fed, self.cache, read_from)
        self.passes += 1
        now = time.perf_counter()
        keep: list[int] = []
        done: list[Row] = []
        for b, r in enumerate(self.rows):
            m, f = self._matchers[b], self._fed[b]
            r.stats.forward_passes += 1
            j = read_from[b]
            g = -1
            while True:
                g = dec._masked_argmax(logits[offsets[b] + j - read_from[b]], m, self._bitmask)
                if g < 0 or not m.accept_token(g):
                    r.error, r.done = "grammar", True
                    break
                r.out_ids.append(g)
                if j + 1 < len(f) and g == f[j + 1] and len(r.out_ids) < (r.max_new or 0):
                    r.stats.jump_forward_tokens += 1
                    j += 1
                    if m.is_terminated():
                        break
                    continue
                break
            self.cache.lengths[b] += j + 1
            r.stats.generated_tokens = len(r.out_ids)
            if not r.done:
                if m.is_terminated():
                    r.done = True
                elif len(r.out_ids) >= (r.max_new or 0):
                    r.error, r.done = "length", True
                elif r.deadline is not None and now > r.deadline:
                    r.error, r.done = "deadline", True
            if r.done:
                done.append(r)
                continue
            d = dec._drafts(m, g)
            keep.append(b)
            self._fed[b] = [g, *d]
            self._n_draft[b] = len(d)
        self.drop(keep)
        if len(keep) > 1:  # drafts past the batch's share would mostly be rejected work
            cap = max(cfg.min_batch_draft, cfg.batch_draft_tokens // len(keep))
            self._fed = [fd[: 1 + cap] for fd in self._fed]
            self._n_draft = [min(nd, cap) for nd in self._n_draft]
        return done
