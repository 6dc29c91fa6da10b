"""What the router needs from a token estimator, and a small heuristic one.

The trained estimator (``estimator.default_estimator()``, issue 6) satisfies the same
:class:`Estimator` protocol; :func:`default_estimator` uses it when it is installed and
loadable, else :class:`HeuristicEstimator`.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

log = logging.getLogger("tao.router.estimate")


@runtime_checkable
class EstimateLike(Protocol):
    """Read-only fields (a frozen dataclass such as :class:`Estimate` satisfies it)."""

    @property
    def output_tokens(self) -> float: ...
    @property
    def total_tokens(self) -> float: ...
    @property
    def seconds(self) -> float: ...


@runtime_checkable
class Estimator(Protocol):
    """``features(request) -> dict``; ``predict(request_or_features)``; ``observe(...)`` learns online.

    ``observe`` receives the *output* token count and the wall seconds actually measured.
    """

    def features(self, request: dict[str, Any]) -> dict[str, Any]: ...

    def predict(self, request_or_features: dict[str, Any]) -> EstimateLike: ...

    def observe(self, features: dict[str, Any], actual_tokens: float, actual_seconds: float) -> None: ...


@dataclass(frozen=True, slots=True)
class Estimate:
    output_tokens: float
    total_tokens: float
    seconds: float


# Prior output lengths by task type (tokens); corrected online by observed/predicted ratios.
_PRIOR_OUTPUT = {
    "tool_call": 60.0,
    "plan": 250.0,
    "planning": 900.0,
    "reasoning": 900.0,
    "summarize": 250.0,
    "chat": 200.0,
}
_DEFAULT_OUTPUT = 200.0


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):  # OpenAI content parts
        return sum(len(p.get("text", "")) for p in content if isinstance(p, dict))
    return 0


class HeuristicEstimator:
    """Chars/4 prompt tokens; per-task-type output prior with an online EWMA correction."""

    def __init__(
        self,
        chars_per_token: float = 4.0,
        tokens_per_s: float = 50.0,
        ttft_s: float = 0.3,
        alpha: float = 0.05,
    ) -> None:
        self.chars_per_token, self.tokens_per_s, self.ttft_s, self.alpha = (
            chars_per_token,
            tokens_per_s,
            ttft_s,
            alpha,
        )
        self._scale: dict[str, float] = {}
        self._lock = threading.Lock()

    def features(self, request: dict[str, Any]) -> dict[str, Any]:
        if "prompt_tokens" in request and "messages" not in request:
            return request  # already features
        chars, turns = 0, 0
        for m in request.get("messages") or ():
            if isinstance(m, dict):
                chars += _content_chars(m.get("content"))
                turns += 1
        tool_results = request.get("tool_results")
        if tool_results:
            chars += len(str(tool_results))
        return {
            "prompt_tokens": int(chars / self.chars_per_token) + 4 * turns + 3,
            "turns": turns,
            "task_type": request.get("task_type") or "chat",
            "max_tokens": request.get("max_tokens") or request.get("max_completion_tokens"),
            "temperature": request.get("temperature"),
            "memory": bool(request.get("memory")),
        }

    def predict(self, request_or_features: dict[str, Any]) -> Estimate:
        f = self.features(request_or_features)
        task = f["task_type"]
        out = _PRIOR_OUTPUT.get(task, _DEFAULT_OUTPUT) * self._scale.get(task, 1.0)
        if f.get("max_tokens"):
            out = min(out, float(f["max_tokens"]))
        return Estimate(out, f["prompt_tokens"] + out, self.ttft_s + out / self.tokens_per_s)

    def observe(self, features: dict[str, Any], actual_tokens: float, actual_seconds: float) -> None:
        task = features.get("task_type", "chat")
        prior = _PRIOR_OUTPUT.get(task, _DEFAULT_OUTPUT)
        ratio = max(0.05, min(20.0, float(actual_tokens) / prior))
        with self._lock:
            s = self._scale.get(task, 1.0)
            self._scale[task] = (1 - self.alpha) * s + self.alpha * ratio


def default_estimator() -> Estimator:
    """The trained estimator of the ``estimator`` package when available, else the heuristic."""
    try:
        import estimator as _est

        make = getattr(_est, "default_estimator", None)
        if make is not None:
            est = make()
            if isinstance(est, Estimator):
                return est
    except Exception as exc:  # missing checkpoint, partial install: the heuristic still routes
        log.warning("trained estimator unavailable (%s); using the heuristic estimator", exc)
    return HeuristicEstimator()
