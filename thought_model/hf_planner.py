"""The transformers planning path: a checkpoint + Hugging Face ``generate`` + xgrammar.

Slow on CPU compared to the lean engine (per-step overhead of ``generate``), but simple and the
reference for evaluation. ``HFPlanner(checkpoint).plan(request, session)`` returns a
:class:`ThoughtPlan`, an :class:`InsufficientContext` or a typed :class:`ErrorInfo` (per request,
as the engines do).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, SessionState, ThoughtPlan, ToolSpec
from tao.contracts.domain import Domain, Lexicon
from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain
from thought_model.grammar import OutputGrammarCompiler, PlanParseError, make_logits_processor, request_slots
from thought_model.output_parse import parse_output
from thought_model.prompt import EOS_TOKEN, PAD_TOKEN, PreparedPrompt, prepare_prompt


def checkpoint_intents(checkpoint: str | Path) -> list[str] | None:
    """The intents a checkpoint was trained on (from its ``train_config.json``), if recorded."""
    p = Path(checkpoint) / "train_config.json"
    if not p.exists():
        return None
    return json.loads(p.read_text()).get("intents")


@dataclass
class HFPlanGenerator:
    """Batch greedy generation from prompts, with or without the output grammar."""

    model: Any
    tokenizer: Any
    tools: Sequence[ToolSpec]
    intents: list[str] | None = None
    max_new_tokens: int = 160
    lexicon: Lexicon | None = None
    _grammar: Any = field(default=None, repr=False)

    @classmethod
    def load(
        cls,
        checkpoint: str | Path,
        tools: Sequence[ToolSpec] | None = None,
        *,
        domain: Domain | None = None,
        registry: str | None = None,
    ) -> HFPlanGenerator:
        """Load ``checkpoint`` for its own domain (:func:`~thought_model.checkpoint.checkpoint_domain`;
        ``registry`` / ``domain`` override it, ``tools`` narrows the tool list)."""
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        path = Path(checkpoint)
        if not (path / "config.json").exists():
            raise FileNotFoundError(f"no model checkpoint at {path}")
        hf_logging.disable_progress_bar()
        tok = AutoTokenizer.from_pretrained(str(path))
        tok.padding_side = "left"
        model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32)
        model.eval()
        dom = domain or checkpoint_domain(path, registry)
        return cls(
            model=model,
            tokenizer=tok,
            tools=list(tools or dom.tools),
            intents=checkpoint_intents(path),
            lexicon=dom.lexicon,
        )

    per_request_grammar: bool = True  # restrict each row's slots to those its request contains

    @property
    def compiler(self) -> OutputGrammarCompiler:
        if self._grammar is None:
            self._grammar = OutputGrammarCompiler(
                self.tokenizer, self.tools, self.model.config.vocab_size, self.intents, self.lexicon
            )
        return self._grammar

    def prepare(self, request: str, session: SessionState | None) -> PreparedPrompt:
        return prepare_prompt(request, session, self.tools, self.lexicon)

    def generate_prepared(
        self, prepared: Sequence[PreparedPrompt], constrained: bool = True
    ) -> list[tuple[str, int]]:
        """Greedy outputs for prepared prompts (per-request grammars when enabled)."""
        grammars = None
        if constrained and self.per_request_grammar:
            grammars = [self.compiler.compile(request_slots(p.perception, p.user_known)) for p in prepared]
        return self.generate([p.text for p in prepared], constrained=constrained, grammars=grammars)

    @torch.no_grad()
    def generate(
        self, prompts: Sequence[str], constrained: bool = True, grammars: Sequence[Any] | None = None
    ) -> list[tuple[str, int]]:
        """Greedy outputs for ``prompts``: (decoded text without special tokens, generated tokens).

        ``grammars``: one compiled grammar per prompt (default: the registry-wide grammar)."""
        tok = self.tokenizer
        enc = tok(list(prompts), add_special_tokens=False, padding=True, return_tensors="pt")
        eos = tok.convert_tokens_to_ids(EOS_TOKEN)
        kw: dict[str, Any] = {}
        if constrained:
            kw["logits_processor"] = [
                make_logits_processor(list(grammars) if grammars else self.compiler.compile())
            ]
        out = self.model.generate(
            input_ids=enc["input_ids"],
            attention_mask=enc["attention_mask"],
            max_new_tokens=self.max_new_tokens,
            do_sample=False,
            eos_token_id=eos,
            pad_token_id=tok.convert_tokens_to_ids(PAD_TOKEN),
            **kw,
        )
        gen = out[:, enc["input_ids"].shape[1] :]
        results = []
        for row in gen.tolist():
            n = row.index(eos) + 1 if eos in row else len(row)
            results.append((tok.decode(row[:n], skip_special_tokens=True), n))
        return results


class HFPlanner:
    """Plans requests with a checkpoint through transformers (constrained decoding on)."""

    def __init__(
        self,
        checkpoint: str | Path = DEFAULT_CHECKPOINT,
        tools: Sequence[ToolSpec] | None = None,
        *,
        registry: str | None = None,
    ):
        self.gen = HFPlanGenerator.load(checkpoint, tools, registry=registry)

    def plan(
        self, request: str, session: SessionState | None = None
    ) -> ThoughtPlan | InsufficientContext | ErrorInfo:
        """Plan one request: a plan, an insufficient-context result, or a typed
        :class:`~tao.contracts.ErrorInfo` (``LLM_OUTPUT_MALFORMED`` for output that does not parse,
        ``PLAN_INVALID`` for a request that cannot be prepared) — never an exception for one bad
        request, like the engines."""
        return self.plan_batch([request], [session])[0]

    def plan_batch(
        self, requests: Sequence[str], sessions: Sequence[SessionState | None]
    ) -> list[ThoughtPlan | InsufficientContext | ErrorInfo]:
        """One result per request, in order; a bad row is a typed error in its own slot and the
        other rows of the batch are still planned."""
        if len(requests) != len(sessions):
            raise ValueError(f"{len(requests)} requests but {len(sessions)} sessions")
        results: list[Any] = [None] * len(requests)
        prepared: list[tuple[int, PreparedPrompt, SessionState | None]] = []
        for i, (r, s) in enumerate(zip(requests, sessions)):
            try:
                prepared.append((i, self.gen.prepare(r, s), s))
            except Exception as exc:  # perception failed on this request only
                results[i] = ErrorInfo(
                    error_type=ErrorType.PLAN_INVALID,
                    message=f"cannot prepare the request: {type(exc).__name__}: {exc}"[:300],
                )
        if prepared:
            try:
                outs = self.gen.generate_prepared([p for _, p, _ in prepared], constrained=True)
            except Exception:  # a failure in the batch: plan the rows one by one to isolate it
                outs = []
                for _, p, _ in prepared:
                    try:
                        outs.extend(self.gen.generate_prepared([p], constrained=True))
                    except Exception as exc:
                        outs.append(exc)
            for (i, p, s), out in zip(prepared, outs):
                if isinstance(out, Exception):
                    results[i] = ErrorInfo(
                        error_type=ErrorType.LLM_OUTPUT_MALFORMED,
                        message=f"generation failed: {type(out).__name__}: {out}"[:300],
                    )
                    continue
                try:
                    results[i] = parse_output(out[0], p.perception, s, self.gen.tools, self.gen.lexicon)
                except PlanParseError as exc:
                    results[i] = ErrorInfo(
                        error_type=ErrorType.LLM_OUTPUT_MALFORMED,
                        message=f"the model's output is not a valid plan: {exc}"[:300],
                    )
        return results
