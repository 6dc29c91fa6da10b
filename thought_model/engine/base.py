"""The plan-engine interface shared by the CPU engine, the vLLM engine, the server and the loop.

An engine turns :class:`PlanRequest` objects into :class:`PlanResult` objects. ``generate`` is
synchronous and batched; ``agenerate`` is the async variant the server uses (the default runs
``generate`` in a worker thread). A result carries either the parsed output (a
:class:`~tao.contracts.ThoughtPlan` or :class:`~tao.contracts.InsufficientContext`) or a typed
:class:`~tao.contracts.ErrorInfo` (``LLM_OUTPUT_MALFORMED``, ``BUDGET_EXHAUSTED`` for a missed
deadline, ...), never both, plus per-request :class:`GenerationStats`.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from tao.contracts import ErrorInfo, InsufficientContext, SessionState, ThoughtPlan


class EngineUnavailableError(RuntimeError):
    """The engine cannot take requests right now (its decode process is restarting, or it is
    closed); retryable: the server answers 503 with ``Retry-After``."""


@dataclass
class PlanRequest:
    """One plan request: the user's text, optional session facts and an optional tool subset."""

    text: str
    session: SessionState | None = None
    tools: list[str] | None = None  # None = every tool of the engine's registry
    deadline_s: float | None = None  # wall-clock budget for this request, from submission


@dataclass
class GenerationStats:
    """Per-request decoding statistics."""

    prompt_tokens: int = 0
    generated_tokens: int = 0
    forward_passes: int = 0
    jump_forward_tokens: int = 0  # tokens appended by jump-forward (no sampling step)
    ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "generated_tokens": self.generated_tokens,
            "forward_passes": self.forward_passes,
            "jump_forward_tokens": self.jump_forward_tokens,
            "ms": round(self.ms, 3),
        }


@dataclass
class PlanResult:
    """The outcome of one :class:`PlanRequest`: ``output`` xor ``error``, plus stats and raw text."""

    output: ThoughtPlan | InsufficientContext | None = None
    error: ErrorInfo | None = None
    stats: GenerationStats = field(default_factory=GenerationStats)
    text: str = ""  # the raw model output (JSON text), for logs and debugging

    @property
    def ok(self) -> bool:
        return self.error is None and self.output is not None


class PlanEngine(ABC):
    """Common interface of the plan engines."""

    name: str = "engine"

    @abstractmethod
    def generate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        """Generate one result per request, in order. Never raises for a bad model output."""

    async def agenerate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        """Async variant (default: ``generate`` in a worker thread)."""
        return await asyncio.to_thread(self.generate, requests)

    async def agenerate_one(self, request: PlanRequest) -> PlanResult:
        return (await self.agenerate([request]))[0]

    def close(self) -> None:  # noqa: B027 (an optional hook: the default holds nothing)
        """Release threads / processes held by the engine."""

    @property
    def decode_process(self) -> Any:
        """The child process decoding for this engine (its ``alive``, ``exits`` and ``restarts``
        are exported as metrics by the server), or None when there is none."""
        return None

    @property
    def ready(self) -> bool:
        return True
