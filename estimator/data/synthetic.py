"""Synthetic agent traces: requests with every estimator feature, and what they really cost.

The hidden generating process (not visible to the estimator except through the requests):

* output tokens depend nonlinearly on the task type — planning grows with history and tool
  results, tool calls grow with the tool-result JSON depth, summaries saturate with the size
  of what is summarised, chat follows the question length — times a per-model verbosity, a
  temperature effect, plus memory retrieval; then lognormal noise (``noise`` sigma) and a small
  additive jitter; capped by ``max_tokens``;
* the backend's prompt-token count is our approximate count times a per-model tokenizer factor
  (the local model's smaller vocabulary needs more tokens), plus rounding noise;
* seconds = time-to-first-token + prefill + decode at per-model speeds, times load noise.

``expected_output`` (the noise-free mean) is returned too, so evaluations can report the noise
floor next to the estimator's error.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from estimator.features import TASK_TYPES
from estimator.tokens import approx_tokens

MODELS: tuple[str, ...] = ("gpt-4o-mini", "gpt-4.1", "o3", "tao-plan-local")
_VERBOSITY = {"gpt-4o-mini": 0.85, "gpt-4.1": 1.0, "o3": 1.3, "tao-plan-local": 0.75}
_TOKENIZER = {"gpt-4o-mini": 1.0, "gpt-4.1": 1.0, "o3": 1.0, "tao-plan-local": 1.08}
# (time to first token s, prefill tokens/s, decode tokens/s)
_SPEED = {
    "gpt-4o-mini": (0.20, 9000.0, 90.0),
    "gpt-4.1": (0.35, 6000.0, 60.0),
    "o3": (1.50, 5000.0, 40.0),
    "tao-plan-local": (0.05, 3000.0, 120.0),
}
_WORDS = (
    "order invoice status shipment refund customer address meeting room calendar weather "
    "expense report email last month tomorrow please check the of and to for with is "
    "delivered pending cancelled amount total due date schedule summary plan tool result "
    "查询 订单 状态 上个月 发票 会议室 明天 天气"
).split()


@dataclass(frozen=True)
class AgentTraceConfig:
    """Knobs of the generator (``verbosity_shift`` multiplies outputs per model: drift)."""

    noise: float = 0.06
    jitter: float = 2.0
    verbosity_shift: dict[str, float] = field(default_factory=dict)


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choices(_WORDS, k=max(1, n_words)))


def _json_value(rng: random.Random, depth: int, long_str: int) -> Any:
    if depth <= 0:
        r = rng.random()
        if r < 0.4:
            return rng.randrange(10**6)
        if r < 0.5:
            return rng.random() < 0.5
        return "x" * rng.randint(1, long_str) if r < 0.6 else _text(rng, rng.randint(1, 5))
    if rng.random() < 0.5:
        return [_json_value(rng, depth - 1, long_str) for _ in range(rng.randint(1, 3))]
    return {f"k{i}": _json_value(rng, depth - 1, long_str) for i in range(rng.randint(1, 4))}


def _request(rng: random.Random) -> dict[str, Any]:
    model = rng.choice(MODELS)
    task = rng.choices(TASK_TYPES, weights=(0.25, 0.35, 0.15, 0.25))[0]
    messages = [{"role": "system", "content": _text(rng, rng.randint(10, 79))}]
    for _ in range(rng.randint(0, 6)):
        messages.append({"role": "user", "content": _text(rng, rng.randint(3, 39))})
        messages.append({"role": "assistant", "content": _text(rng, rng.randint(5, 79))})
    messages.append({"role": "user", "content": _text(rng, rng.randint(3, 119))})
    n_tools = 0 if task == "chat" else rng.randint(0, 3)
    depth = rng.randint(1, 5)
    long_str = rng.choice((8, 40, 200, 800))
    tool_results = [{"tool": f"t{i}", "data": _json_value(rng, depth, long_str)} for i in range(n_tools)]
    return {
        "model": model,
        "messages": messages,
        "tool_results": tool_results,
        "max_tokens": rng.choice((None, 64, 128, 256, 512, 1024)),
        "temperature": rng.choice((0.0, 0.2, 0.7, 1.0)),
        "task_type": task,
        "memory": rng.random() < 0.4,
    }


def _expected_output(req: dict[str, Any], f: dict[str, float], cfg: AgentTraceConfig) -> float:
    task, model = req["task_type"], req["model"]
    tool_tok = f["tool_result_chars"] / 4.0
    if task == "planning":
        base = 70 + 22 * min(f["history_turns"], 5) + 60 * math.tanh(tool_tok / 400)
    elif task == "tool_call":
        base = 18 + 9 * f["tool_depth"] + 0.02 * min(f["tool_longest_str"], 300)
    elif task == "summarize":
        base = 30 + 380 * (1 - math.exp(-tool_tok / 900))
    else:
        base = 40 + 0.8 * min(f["last_user_tokens"], 150) + 4 * min(f["history_turns"], 6)
    if req["memory"] and task in ("chat", "planning"):
        base += 25
    mult = _VERBOSITY[model] * cfg.verbosity_shift.get(model, 1.0)
    return base * mult * (1 + 0.2 * req["temperature"] ** 2)


def generate(n: int, seed: int = 0, cfg: AgentTraceConfig | None = None) -> list[dict[str, Any]]:
    """``n`` records: ``{"request", "output_tokens", "total_tokens", "seconds",
    "prompt_tokens", "expected_output"}`` (``prompt_tokens`` is the backend's count)."""
    from estimator.features import FeatureExtractor, FeatureSpec

    cfg = cfg or AgentTraceConfig()
    rng = random.Random(seed)
    extract = FeatureExtractor(FeatureSpec(models=MODELS), approx_tokens)
    out = []
    for _ in range(n):
        req = _request(rng)
        f = extract(req)
        mean = _expected_output(req, f, cfg)
        y = mean * math.exp(rng.gauss(0.0, cfg.noise)) + rng.gauss(0.0, cfg.jitter)
        cap = req["max_tokens"]
        y = max(1, round(min(y, cap) if cap else y))
        expected = min(mean, cap) if cap else mean
        prompt = round(f["prompt_tokens"] * _TOKENIZER[req["model"]] + rng.gauss(0.0, 1.0))
        ttft, prefill, decode = _SPEED[req["model"]]
        secs = (ttft + prompt / prefill + y / decode) * math.exp(rng.gauss(0.0, 0.08))
        out.append(
            {
                "request": req,
                "output_tokens": y,
                "total_tokens": prompt + y,
                "prompt_tokens": prompt,
                "seconds": secs,
                "expected_output": expected,
            }
        )
    return out
