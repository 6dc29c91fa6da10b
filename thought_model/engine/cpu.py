"""The CPU plan engine: lean Llama forward + KV cache, xgrammar masks, jump-forward, dynamic batching.

Usage::

    engine = CpuEngine("thought_model/checkpoints/default")
    [result] = engine.generate([PlanRequest("查询上个月的订单状态")])
    result.output  # ThoughtPlan | InsufficientContext, or result.error (ErrorInfo)
"""

from __future__ import annotations

import asyncio
import enum
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tao.contracts import ErrorInfo, ErrorType
from thought_model.checkpoint import checkpoint_domain
from thought_model.engine.base import EngineUnavailableError, PlanEngine, PlanRequest, PlanResult
from thought_model.engine.batcher import BatcherConfig, DynamicBatcher
from thought_model.engine.codec import PlanCodec, decoded_result, default_codec
from thought_model.engine.decode_process import DecodeProcess, DecodeProcessConfig
from thought_model.engine.loading import GrammarCache, load_model, load_tokenizer, model_limits
from thought_model.engine.rows import DecodeConfig, Row, row_text
from thought_model.engine.scheduler import ContinuousBatcher, SchedulerConfig

if TYPE_CHECKING:  # torch and xgrammar load only where a model runs (not in a decode process's parent)
    import xgrammar as xgr

    from thought_model.engine.decode import Decoder
    from thought_model.engine.lean import LeanLlama


class Scheduling(enum.Enum):
    """How concurrent requests share the model (docs/serving.md, "Batching")."""

    CONTINUOUS = "continuous"  # iteration-level: join/leave the running batch at every step
    WINDOW = "window"  # the earlier design: gather for wait_ms, run that batch to completion


def _scheduling_from_env() -> Scheduling:
    """``TAO_SCHEDULING`` (``continuous`` | ``window``), default continuous (A/B of the designs)."""
    import os

    return Scheduling(os.environ.get("TAO_SCHEDULING", "continuous").strip().lower() or "continuous")


@dataclass
class CpuEngineConfig:
    threads: int = 1  # torch intra-op threads; 1 is fastest for small models on a shared CPU
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    scheduling: Scheduling = field(default_factory=_scheduling_from_env)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)  # CONTINUOUS
    batch: BatcherConfig = field(default_factory=BatcherConfig)  # WINDOW
    max_prompt_tokens: int = 1024
    dtype: str = "float32"
    # decode in a child process (engine.decode_process): the decode loop gets an interpreter lock
    # of its own. ``tao serve`` turns it on (ServerConfig.decode_process); embedded engines,
    # tests and the offline benchmark keep the in-process scheduler.
    decode_process: bool = False


PROMPT_CACHE_SIZE = 8192  # distinct masked prompts kept tokenized (cleared when full)


class CpuEngine(PlanEngine):
    """Constrained greedy plan generation on CPU (see module docstring)."""

    name = "cpu"

    def __init__(
        self, checkpoint: str | Path, config: CpuEngineConfig | None = None, codec: PlanCodec | None = None
    ) -> None:
        self.checkpoint = Path(checkpoint)
        self.cfg = config or CpuEngineConfig()
        self.codec = codec or default_codec(checkpoint_domain(checkpoint))
        self.tokenizer = load_tokenizer(self.checkpoint)
        limits = model_limits(self.checkpoint, self.tokenizer)
        self.vocab_size, self.eos_id, self.max_positions = (
            limits.vocab_size,
            limits.eos_id,
            limits.max_positions,
        )
        self._by_tools: dict[tuple[tuple[str, ...] | None, frozenset[str] | None], xgr.CompiledGrammar] = {}
        self._lock = threading.Lock()  # one forward at a time (scheduler steps, generate_batch)
        self._local_parts: tuple[LeanLlama, GrammarCache, Decoder] | None = None
        self._load_lock = threading.Lock()  # not self._lock: a scheduler step holds that one
        self._prompt_ids: dict[str, tuple[int, ...]] = {}  # masked prompts repeat: tokenized once
        self._batcher: ContinuousBatcher | DynamicBatcher | DecodeProcess
        self._proc: DecodeProcess | None = None
        if self.cfg.decode_process:
            # the model, torch and xgrammar live in the child; this process loads them only if
            # generate_batch (benchmarks, tests) asks to decode here
            self._proc = DecodeProcess(
                DecodeProcessConfig(
                    checkpoint=str(self.checkpoint),
                    threads=self.cfg.threads,
                    dtype=self.cfg.dtype,
                    decode=self.cfg.decode,
                    scheduler=self.cfg.scheduler,
                )
            )
            self._batcher = self._proc
            return
        import torch

        torch.set_num_threads(self.cfg.threads)
        on_start = lambda: torch.set_num_threads(self.cfg.threads)  # noqa: E731
        self._local()
        if self.cfg.scheduling is Scheduling.CONTINUOUS:
            from thought_model.engine.decode import DecodeBatch

            self._batcher = ContinuousBatcher(
                lambda n: DecodeBatch(self.decoder, n), self.cfg.scheduler, self._lock, on_start
            )
        else:
            self._batcher = DynamicBatcher(self._decode_rows, self.cfg.batch, on_start=on_start)

    def _local(self) -> tuple[LeanLlama, GrammarCache, Decoder]:
        """The model, grammar cache and decoder of this process (loaded on first use)."""
        if self._local_parts is not None:
            return self._local_parts
        with self._load_lock:
            if self._local_parts is None:
                from thought_model.engine.decode import Decoder

                model, _, _, _ = load_model(self.checkpoint, self.cfg.dtype)
                grammars = GrammarCache(self.tokenizer, self.vocab_size, self.eos_id)
                decoder = Decoder(model, self.tokenizer, self.vocab_size, self.eos_id, self.cfg.decode)
                self._local_parts = (model, grammars, decoder)
            return self._local_parts

    @property
    def model(self) -> LeanLlama:
        return self._local()[0]

    @property
    def grammars(self) -> GrammarCache:
        return self._local()[1]

    @property
    def decoder(self) -> Decoder:
        return self._local()[2]

    # -- public API ---------------------------------------------------------------------------
    def generate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        now = time.perf_counter()
        prepared = [self._prepare(r, now) for r in requests]
        futures = [self._batcher.submit(p) if isinstance(p, Row) else None for p in prepared]
        for f in futures:
            if f is not None:
                f.result()  # raises EngineUnavailableError when the decode process died
        return [self._result(r, p, now) for r, p in zip(requests, prepared, strict=True)]

    def generate_batch(self, requests: list[PlanRequest]) -> list[PlanResult]:
        """Run exactly these requests as one batch on the calling thread (benchmarks, tests)."""
        now = time.perf_counter()
        prepared = [self._prepare(r, now, local=True) for r in requests]
        self._decode_rows([p for p in prepared if isinstance(p, Row)])
        return [self._result(r, p, now) for r, p in zip(requests, prepared, strict=True)]

    async def agenerate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        now = time.perf_counter()
        prepared: list[Row | PlanResult] = []
        for r in requests:
            enc = self._encode(r)
            if isinstance(enc, tuple) and not self._grammar_known(enc[2]):  # a grammar to build:
                try:  # off the event loop (a bad subset is answered by _prepare below)
                    await asyncio.to_thread(self._grammar_handle, *enc[2])
                except Exception:
                    pass
            prepared.append(self._prepare(r, now, enc))
        futures = [asyncio.wrap_future(self._batcher.submit(p)) for p in prepared if isinstance(p, Row)]
        await asyncio.gather(*futures)
        return [self._result(r, p, now) for r, p in zip(requests, prepared, strict=True)]

    def warm_up(
        self, slot_sets: list[frozenset[str] | None], tools: list[str] | None = None
    ) -> dict[str, float]:
        """Compile (and cache) the grammars of ``slot_sets`` for the tool subset ``tools`` now, so
        the first requests with those slot sets are not cold. Returns counts and seconds."""
        t0 = time.perf_counter()
        before = len(self.grammars) if self._proc is None else 0
        failed = 0
        for slots in dict.fromkeys(slot_sets):
            try:
                self._grammar_handle(tools, slots)
            except Exception:  # a slot set no tool can use: nothing to warm
                failed += 1
        if self._proc is not None:  # compiled in the child: ready once it has taken them all
            if not self._proc.sync():
                raise EngineUnavailableError("the decode process did not finish the grammar warm-up")
        compiled = len(self.grammars) - before if self._proc is None else len(set(slot_sets)) - failed
        return {
            "slot_sets": len(set(slot_sets)),
            "compiled": compiled,
            "skipped": failed,
            "seconds": round(time.perf_counter() - t0, 3),
        }

    def close(self) -> None:
        self._batcher.close()

    @property
    def ready(self) -> bool:
        """False while the decode process is (re)starting: ``/readyz`` says so, so a balancer
        sends plans to another replica meanwhile."""
        return self._proc is None or self._proc.alive

    @property
    def decode_process(self) -> DecodeProcess | None:
        """The child process that decodes (None when decoding runs in this process): its
        ``alive``, ``exits`` and ``restarts`` are exported as metrics by the server."""
        return self._proc

    # -- internals ----------------------------------------------------------------------------
    def _decode_rows(self, rows: list[Row]) -> list[Row]:
        import torch

        decoder = self.decoder
        with self._lock, torch.inference_mode():
            decoder.run(rows)
        return rows

    def _encode(self, request: PlanRequest) -> tuple[str, object, tuple] | PlanResult:
        """Prompt, codec context and grammar key of one request (or its typed error)."""
        try:
            prompt, ctx = self.codec.prepare(request)
            slots = self.codec.slots(request, ctx)
        except Exception as exc:
            return self._bad_request(request, exc)
        tools = None if request.tools is None else tuple(sorted(set(request.tools)))
        return prompt, ctx, (tools, slots)

    def _ids(self, prompt: str) -> list[int]:
        """The prompt's token ids (prompts carry their own BOS). Prompts are masked (values are slot
        tokens), so the same few thousand recur: each is tokenized once (a bounded cache)."""
        hit = self._prompt_ids.get(prompt)
        if hit is None:
            hit = tuple(self.tokenizer.encode(prompt, add_special_tokens=False))
            if len(self._prompt_ids) >= PROMPT_CACHE_SIZE:
                self._prompt_ids.clear()
            self._prompt_ids[prompt] = hit
        return list(hit)

    @staticmethod
    def _bad_request(request: PlanRequest, exc: Exception) -> PlanResult:
        return PlanResult(
            error=ErrorInfo(
                error_type=ErrorType.TOOL_UNKNOWN if request.tools else ErrorType.PLAN_INVALID,
                message=str(exc)[:500],
                field="/tools",
            )
        )

    def _prepare(
        self, request: PlanRequest, submitted: float, enc=None, *, local: bool = False
    ) -> Row | PlanResult:
        """The row of one request, or its typed error. ``local``: its grammar compiled in this
        process (``generate_batch``) even when the engine decodes in a child process."""
        enc = self._encode(request) if enc is None else enc
        if isinstance(enc, PlanResult):
            return enc
        prompt, ctx, (tools, slots) = enc
        try:
            grammar = self._grammar_for(tools, slots) if local else self._grammar_handle(tools, slots)
        except Exception as exc:
            return self._bad_request(request, exc)
        ids = self._ids(prompt)
        limit = min(self.cfg.max_prompt_tokens, self.max_positions - 16)
        if len(ids) > limit:
            return PlanResult(
                error=ErrorInfo(
                    error_type=ErrorType.BUDGET_EXHAUSTED,
                    field="/text",
                    message=f"prompt has {len(ids)} tokens, limit {limit}",
                )
            )
        deadline = submitted + request.deadline_s if request.deadline_s else None
        row = Row(
            prompt_ids=ids,
            grammar=None if isinstance(grammar, int) else grammar,
            grammar_id=grammar if isinstance(grammar, int) else None,
            deadline=deadline,
            max_new=self.max_positions - len(ids),
        )
        row.ctx = ctx
        return row

    def _result(self, req: PlanRequest, p: Row | PlanResult, submitted: float) -> PlanResult:
        return p if isinstance(p, PlanResult) else self._finish(req, p, submitted)

    def _grammar_known(self, key: tuple) -> bool:
        return key in self._by_tools if self._proc is None else self._proc.knows(key)

    def _grammar_handle(
        self, tools: list[str] | tuple[str, ...] | None, slots: frozenset[str] | None = None
    ) -> xgr.CompiledGrammar | int:
        """The grammar a row decodes under: compiled here, or its id in the decode process."""
        if self._proc is None:
            return self._grammar_for(tools, slots)
        key = (None if tools is None else tuple(sorted(set(tools))), slots)
        return self._proc.grammar_id(
            key, lambda: self.codec.schema(None if key[0] is None else list(key[0]), slots)
        )

    def _grammar_for(
        self, tools: list[str] | tuple[str, ...] | None, slots: frozenset[str] | None = None
    ) -> xgr.CompiledGrammar:
        """The compiled grammar of a tool subset and (per request) the slots its perception found."""
        key = (None if tools is None else tuple(sorted(set(tools))), slots)
        hit = self._by_tools.get(key)
        if hit is None:
            hit = self.grammars.get(self.codec.schema(None if tools is None else list(key[0] or ()), slots))
            if len(self._by_tools) >= 1024:
                self._by_tools.pop(next(iter(self._by_tools)))
            self._by_tools[key] = hit
        return hit

    def _finish(self, req: PlanRequest, row: Row, submitted: float) -> PlanResult:
        text = row_text(self.tokenizer, self.eos_id, row.out_ids)
        row.stats.ms = (time.perf_counter() - submitted) * 1000.0
        if row.error == "deadline":
            return PlanResult(
                error=ErrorInfo(
                    error_type=ErrorType.BUDGET_EXHAUSTED,
                    retryable=True,
                    message=f"deadline of {req.deadline_s}s exceeded",
                ),
                stats=row.stats,
                text=text,
            )
        if row.error is not None:
            if row.error.startswith("grammar_compile: "):  # compiled in the decode process
                return self._bad_request(req, ValueError(row.error.removeprefix("grammar_compile: ")))
            if row.error.startswith("failed: "):  # the model failed in the decode process
                raise EngineUnavailableError(row.error.removeprefix("failed: "))
            msg = {
                "length": f"output exceeded {row.max_new} tokens (max_new_tokens or context window)",
                "grammar": "no token allowed by the grammar",
            }[row.error]
            return decoded_result(self.codec, text, req, row.ctx, row.stats, cut=msg)
        return decoded_result(self.codec, text, req, row.ctx, row.stats)
