"""Feature extraction: turn an OpenAI-style chat request (plus hints) into a flat feature dict.

Every feature is a float; a feature that is unknown is ``NaN`` (XGBoost and the Rust tree
evaluator route it along the split's default branch). The order of features is fixed by a
:class:`FeatureSpec`, which is saved next to the trees so a loaded model reads rows the same way.

Request features (all computed before the request runs):

==================  =====================================================================
name                meaning
==================  =====================================================================
prompt_tokens       tokens of all message contents and tool results (target model's
                    tokenizer when one is given, else :func:`estimator.tokens.approx_tokens`)
history_turns       number of earlier user/assistant turns (messages before the last user one)
n_messages          number of messages
last_user_tokens    tokens of the last user message (the question being asked)
tool_depth          maximum JSON nesting depth over all tool results (0 when none)
tool_longest_str    length in characters of the longest string field in the tool results
tool_result_chars   total size of the tool results, compact JSON characters
n_tool_results      number of tool results (``tool_results`` hint plus ``role: tool`` messages)
memory              1 when memory retrieval is on, 0 when off, NaN when not said
temperature         sampling temperature (NaN when not given)
max_tokens          output cap (NaN when not given)
task_type           0 planning, 1 tool_call, 2 summarize, 3 chat (NaN when not given/unknown)
model_id            index of ``model`` in the spec's model vocabulary (NaN when unknown)
==================  =====================================================================

A spec may add *extra* numeric features (for example the trace features ``hour`` or
``rate_60s`` of :mod:`estimator.data.azure`); they are read from the request's ``hints`` dict
(or the request itself) by name and are NaN when absent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from estimator.tokens import approx_tokens

NAN = float("nan")
TASK_TYPES: tuple[str, ...] = ("planning", "tool_call", "summarize", "chat")

REQUEST_FEATURES: tuple[str, ...] = (
    "prompt_tokens",
    "history_turns",
    "n_messages",
    "last_user_tokens",
    "tool_depth",
    "tool_longest_str",
    "tool_result_chars",
    "n_tool_results",
    "memory",
    "temperature",
    "max_tokens",
    "task_type",
    "model_id",
)


class FeatureError(ValueError):
    """A request that cannot be turned into features (wrong types, not a dict, ...)."""


@dataclass(frozen=True)
class FeatureSpec:
    """Ordered feature names plus the model vocabulary used for ``model_id``."""

    names: tuple[str, ...] = REQUEST_FEATURES
    models: tuple[str, ...] = ()

    def index(self) -> dict[str, int]:
        """Map from feature name to column."""
        return {n: i for i, n in enumerate(self.names)}

    def row(self, feats: dict[str, float]) -> list[float]:
        """The features of one request as a list in spec order (missing → NaN)."""
        get = feats.get
        return [float(get(n, NAN)) for n in self.names]

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "models": list(self.models)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FeatureSpec:
        return cls(names=tuple(data["names"]), models=tuple(data.get("models", ())))


def json_depth(value: Any) -> int:
    """Nesting depth of a JSON value: scalars 0, ``[]``/``{}`` 1, ``{"a": [1]}`` 2."""
    depth = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            d += 1
            stack.extend((x, d) for x in v.values())
        elif isinstance(v, (list, tuple)):
            d += 1
            stack.extend((x, d) for x in v)
        depth = max(depth, d)
    return depth


def longest_string(value: Any) -> int:
    """Length of the longest string (keys included) anywhere in a JSON value."""
    best = 0
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            best = max(best, len(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                best = max(best, len(str(k)))
                stack.append(x)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return best


def _as_json(value: Any) -> Any:
    """Tool results may arrive as JSON text; parse it when it is, else keep the value."""
    if isinstance(value, (str, bytes)):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _content_text(content: Any) -> str:
    """Message content as text (strings, or OpenAI content parts with ``text``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return orjson.dumps(content, default=str).decode()


def _num(value: Any, name: str) -> float:
    if value is None:
        return NAN
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    raise FeatureError(f"{name} must be a number, got {type(value).__name__}")


@dataclass
class FeatureExtractor:
    """Computes :data:`REQUEST_FEATURES` (+ spec extras) for one request."""

    spec: FeatureSpec = field(default_factory=FeatureSpec)
    count_tokens: Callable[[str], int] = approx_tokens

    def __call__(self, request: dict[str, Any]) -> dict[str, float]:
        if not isinstance(request, dict):
            raise FeatureError(f"request must be a dict, got {type(request).__name__}")
        messages = request.get("messages") or []
        if not isinstance(messages, list):
            raise FeatureError("messages must be a list")
        count = self.count_tokens
        prompt = 0
        last_user = 0
        last_user_idx = -1
        tool_values: list[Any] = []
        for i, m in enumerate(messages):
            if not isinstance(m, dict):
                raise FeatureError(f"messages[{i}] must be an object")
            text = _content_text(m.get("content"))
            n = count(text) + 4  # per-message framing tokens (role, separators)
            prompt += n
            if m.get("role") == "user":
                last_user, last_user_idx = n - 4, i
            elif m.get("role") == "tool":
                tool_values.append(_as_json(m.get("content")))
        extra = request.get("tool_results") or []
        if not isinstance(extra, list):
            raise FeatureError("tool_results must be a list")
        for r in extra:
            v = _as_json(r)
            tool_values.append(v)
            prompt += count(v if isinstance(v, str) else orjson.dumps(v, default=str).decode())
        tool_chars = sum(
            len(v) if isinstance(v, str) else len(orjson.dumps(v, default=str)) for v in tool_values
        )
        history = sum(1 for m in messages[: max(last_user_idx, 0)] if m.get("role") in ("user", "assistant"))
        task = request.get("task_type")
        model = request.get("model")
        models = self.spec.models
        feats: dict[str, float] = {
            "prompt_tokens": float(prompt),
            "history_turns": float(history),
            "n_messages": float(len(messages)),
            "last_user_tokens": float(last_user),
            "tool_depth": float(max((json_depth(v) for v in tool_values), default=0)),
            "tool_longest_str": float(max((longest_string(v) for v in tool_values), default=0)),
            "tool_result_chars": float(tool_chars),
            "n_tool_results": float(len(tool_values)),
            "memory": _num(request.get("memory"), "memory"),
            "temperature": _num(request.get("temperature"), "temperature"),
            "max_tokens": _num(request.get("max_tokens"), "max_tokens"),
            "task_type": float(TASK_TYPES.index(task)) if task in TASK_TYPES else NAN,
            "model_id": float(models.index(model)) if model in models else NAN,
        }
        hints = request.get("hints") or {}
        for name in self.spec.names:
            if name not in feats:
                feats[name] = _num(hints.get(name, request.get(name)), name)
        for k, v in feats.items():
            if math.isinf(v):
                raise FeatureError(f"{k} is infinite")
        return feats
