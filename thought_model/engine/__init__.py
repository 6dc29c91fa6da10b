"""Plan engines: the lean CPU engine (KV cache, xgrammar masks, jump-forward, dynamic batching)
and the vLLM engine, behind one :class:`PlanEngine` interface. See :func:`load_engine`."""

from thought_model.engine.base import GenerationStats, PlanEngine, PlanRequest, PlanResult

__all__ = ["GenerationStats", "PlanEngine", "PlanRequest", "PlanResult", "load_engine"]


def load_engine(*args, **kwargs) -> PlanEngine:
    """Build an engine (lazy import so ``import thought_model.engine`` stays light)."""
    from thought_model.engine.loader import load_engine as _load

    return _load(*args, **kwargs)
