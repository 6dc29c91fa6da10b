"""A remote plan engine: ``vllm serve`` of the same checkpoint, called through its OpenAI API.

``tao serve --engine vllm-server --engine-url http://host:8000/v1`` plans through a vLLM
OpenAI-compatible server (a GPU fleet, or vLLM-CPU) instead of a model in the runtime's own
process, so runtime replicas and model servers scale apart (docs/scaling.md).

What goes over the wire is exactly what the in-process engines decode: the prompt as the local
tokenizer's token ids (the codec's prompt, no chat template), greedy, and the per-request plan
grammar (the codec's JSON Schema for the request's tool subset and perceived slots) as
``structured_outputs`` — vLLM compiles it with xgrammar, as the in-process engines do. The
output is parsed by the same codec, so a plan from the server is the plan the CPU engine would
return from the same logits. The composer (clause split, registry-graph composition) wraps this
engine like any other: each clause is one completion request.

Errors are typed per request, never raised for one bad row: a refused connection or a 5xx is
``TOOL_TRANSIENT`` (field ``/engine``), a 429 ``RATE_LIMITED``, a timeout or a missed
deadline ``BUDGET_EXHAUSTED``, a cut or unparsable output ``LLM_OUTPUT_MALFORMED``. The engine
does not retry: the loop's self-correction and the caller's retry policy own that.

The official ``openai`` client makes the calls (``max_retries=0``; one pooled HTTP client per
event loop; the synchronous ``generate`` runs the batch on a loop of its own).
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tao.contracts import ErrorInfo, ErrorType
from thought_model.checkpoint import checkpoint_domain
from thought_model.engine.base import GenerationStats, PlanEngine, PlanRequest, PlanResult
from thought_model.engine.codec import PlanCodec, decoded_result, default_codec, error_info_from


@dataclass
class RemoteEngineConfig:
    """Where the model server is and how to call it."""

    url: str  # the OpenAI API base, e.g. http://127.0.0.1:8000/v1 (a bare host:port gets /v1)
    model: str | None = None  # the served model name; None = the server's first (only) model
    api_key: str = "EMPTY"  # vLLM accepts any key unless started with --api-key
    timeout_s: float = 30.0  # per request, unless the request's deadline is shorter
    max_new_tokens: int = 512  # capped by the server's max_model_len minus the prompt


class RemoteEngineError(RuntimeError):
    """The model server cannot be used (unreachable at start-up, no model, a model of another size)."""


def _base_url(url: str) -> str:
    url = url.rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


def _error(kind: ErrorType, message: str) -> ErrorInfo:
    return ErrorInfo(error_type=kind, message=message[:500], field="/engine")


class VllmServerEngine(PlanEngine):
    """Plans through a ``vllm serve`` (any OpenAI-compatible server with vLLM's structured outputs)."""

    name = "vllm-server"

    def __init__(
        self, checkpoint: str | Path, config: RemoteEngineConfig, codec: PlanCodec | None = None
    ) -> None:
        import openai

        from thought_model.engine.loading import load_tokenizer

        self.checkpoint = Path(checkpoint)
        self.cfg = config
        self.base_url = _base_url(config.url)
        self.codec = codec or default_codec(checkpoint_domain(checkpoint))
        self.tokenizer = load_tokenizer(self.checkpoint)
        self._openai = openai
        self._sync = openai.OpenAI(
            base_url=self.base_url, api_key=config.api_key, max_retries=0, timeout=config.timeout_s
        )
        self.model, self.max_model_len = self._served_model()
        self._async: dict[int, Any] = {}  # one AsyncOpenAI per event loop (its pool is loop-bound)
        self._pool: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------ set-up
    def _served_model(self) -> tuple[str, int | None]:
        try:
            models = self._sync.models.list().data
        except self._openai.APIError as exc:
            raise RemoteEngineError(f"model server at {self.base_url} unreachable: {exc}") from exc
        if not models:
            raise RemoteEngineError(f"model server at {self.base_url} serves no model")
        pick = next((m for m in models if m.id == self.cfg.model), None) if self.cfg.model else models[0]
        if pick is None:
            names = ", ".join(m.id for m in models)
            raise RemoteEngineError(
                f"model {self.cfg.model!r} not served at {self.base_url} (serves: {names})"
            )
        extra = getattr(pick, "model_extra", None) or {}
        max_len = extra.get("max_model_len")
        return pick.id, int(max_len) if isinstance(max_len, int) else None

    def _client(self):
        loop = asyncio.get_running_loop()
        client = self._async.get(id(loop))
        if client is None:  # the client's default pool (keep-alive, up to 1000 connections)
            client = self._openai.AsyncOpenAI(
                base_url=self.base_url, api_key=self.cfg.api_key, max_retries=0, timeout=self.cfg.timeout_s
            )
            self._async[id(loop)] = client
        return client

    # ------------------------------------------------------------------ one request
    def _body(self, req: PlanRequest) -> tuple[dict[str, Any], Any] | PlanResult:
        """The completion call's arguments for ``req``, or a typed result when it cannot be asked."""
        from thought_model.engine.loading import _strip_inner_anchors

        try:
            prompt, ctx = self.codec.prepare(req)
            schema = _strip_inner_anchors(self.codec.schema(req.tools, self.codec.slots(req, ctx)))
        except Exception as exc:
            return PlanResult(
                error=ErrorInfo(error_type=ErrorType.TOOL_UNKNOWN, message=str(exc)[:500], field="/tools")
            )
        ids = self.tokenizer.encode(prompt, add_special_tokens=False)
        room = self.cfg.max_new_tokens
        if self.max_model_len is not None:
            room = min(room, self.max_model_len - len(ids))
        if room < 8:
            return PlanResult(
                error=ErrorInfo(
                    error_type=ErrorType.BUDGET_EXHAUSTED,
                    message=f"prompt of {len(ids)} tokens leaves no room under the server's max_model_len",
                    field="/text",
                )
            )
        timeout = (
            self.cfg.timeout_s
            if req.deadline_s is None
            else max(0.001, min(self.cfg.timeout_s, req.deadline_s))
        )
        kwargs = {
            "model": self.model,
            "prompt": ids,
            "max_tokens": room,
            "temperature": 0.0,
            "timeout": timeout,
            "extra_body": {"structured_outputs": {"json": schema, "disable_any_whitespace": True}},
        }
        return kwargs, ctx

    def _failure(self, exc: BaseException) -> PlanResult:
        o = self._openai
        if isinstance(exc, o.APITimeoutError | TimeoutError):
            return PlanResult(error=_error(ErrorType.BUDGET_EXHAUSTED, f"model server timed out: {exc}"))
        if isinstance(exc, o.RateLimitError):
            return PlanResult(error=_error(ErrorType.RATE_LIMITED, f"model server: {exc}"))
        if isinstance(exc, o.APIConnectionError | o.InternalServerError):
            return PlanResult(error=_error(ErrorType.TOOL_TRANSIENT, f"model server unavailable: {exc}"))
        if isinstance(exc, o.APIStatusError):
            return PlanResult(error=_error(ErrorType.LLM_OUTPUT_MALFORMED, f"model server refused: {exc}"))
        return PlanResult(error=error_info_from(exc))

    def _finish(self, req: PlanRequest, ctx: Any, resp: Any, t0: float) -> PlanResult:
        choice = resp.choices[0] if resp.choices else None
        gen = resp.usage.completion_tokens if resp.usage else 0
        stats = GenerationStats(
            prompt_tokens=resp.usage.prompt_tokens if resp.usage else 0,
            generated_tokens=gen,
            forward_passes=gen,
            ms=(time.perf_counter() - t0) * 1000.0,
        )
        if choice is None:
            return decoded_result(self.codec, "", req, ctx, stats, cut="model server returned no choice")
        cut = f"output exceeded {gen} tokens" if choice.finish_reason == "length" else None
        return decoded_result(self.codec, choice.text or "", req, ctx, stats, cut=cut)

    async def _one(self, req: PlanRequest) -> PlanResult:
        t0 = time.perf_counter()
        prepared = self._body(req)
        if isinstance(prepared, PlanResult):
            return prepared
        kwargs, ctx = prepared
        try:
            resp = await self._client().completions.create(**kwargs)
        except Exception as exc:
            return self._failure(exc)
        return self._finish(req, ctx, resp, t0)

    # ------------------------------------------------------------------ the interface
    async def agenerate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        """Every request in flight at once: the server batches them (continuous batching)."""
        return list(await asyncio.gather(*(self._one(r) for r in requests)))

    def generate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        """The batch on an event loop of its own (in a helper thread, so a caller that runs a loop
        is fine), its client closed before that loop ends."""

        async def run() -> list[PlanResult]:
            try:
                return await self.agenerate(requests)
            finally:
                await self.aclose()

        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="tao-remote")
        return self._pool.submit(asyncio.run, run()).result()

    async def aclose(self) -> None:
        """Close the pooled client of the running event loop (call before that loop ends)."""
        client = self._async.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
        self._sync.close()
        self._async.clear()  # clients of loops still running: close them with aclose() in that loop
