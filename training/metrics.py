"""Plan-level metrics: exact match, intent, tool sequence, dependency graph, arguments per field,
insufficient-context precision/recall, schema validity, tokens per plan."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


def canonical(obj: dict[str, Any] | None) -> str | None:
    """Canonical JSON of a plan/insufficient object: sorted keys, no runtime stamps, and the
    order of ``required_fields`` ignored."""
    if obj is None:
        return None
    o = {k: v for k, v in obj.items() if k not in ("thought_id", "created_at") and v is not None}
    if isinstance(o.get("steps"), list):  # unset optional step fields (resolved_from) are not content
        o["steps"] = [
            {k: v for k, v in s.items() if v is not None} if isinstance(s, dict) else s for s in o["steps"]
        ]
    if "required_fields" in o:
        o["required_fields"] = sorted(o["required_fields"])
    return json.dumps(o, sort_keys=True, ensure_ascii=False)


def _tools(o: dict[str, Any] | None) -> list[str] | None:
    if o is None:
        return None
    return [s["tool"] for s in o.get("steps", [])]


def _graph(o: dict[str, Any] | None) -> list[tuple[str, tuple[str, ...]]] | None:
    if o is None:
        return None
    return [(s["tool"], tuple(sorted(s["dependencies"]))) for s in o.get("steps", [])]


@dataclass
class SplitMetrics:
    """Accumulates metrics over one split."""

    n: int = 0
    exact: int = 0
    intent: int = 0
    tools: int = 0
    graph: int = 0
    valid_constrained: int = 0
    valid_unconstrained: int = 0
    unconstrained_n: int = 0
    parsed: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    gen_tokens: int = 0
    arg_hits: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    arg_total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failures: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        expected: dict[str, Any],
        predicted: dict[str, Any] | None,
        schema_valid: bool,
        n_tokens: int,
        request: str = "",
        raw: str = "",
    ) -> None:
        self.n += 1
        self.gen_tokens += n_tokens
        self.valid_constrained += int(schema_valid)
        self.parsed += int(predicted is not None)
        exp_ins = expected.get("error") == "insufficient_context"
        pred_ins = predicted is not None and predicted.get("error") == "insufficient_context"
        self.tp += int(exp_ins and pred_ins)
        self.fp += int(pred_ins and not exp_ins)
        self.fn += int(exp_ins and not pred_ins)
        ok = canonical(expected) == canonical(predicted)
        self.exact += int(ok)
        self.intent += int(predicted is not None and predicted.get("intent") == expected.get("intent"))
        self.tools += int(_tools(expected) == _tools(predicted) and exp_ins == pred_ins)
        self.graph += int(_graph(expected) == _graph(predicted) and exp_ins == pred_ins)
        if not exp_ins:
            psteps = predicted.get("steps", []) if predicted else []
            for i, s in enumerate(expected["steps"]):
                ps = psteps[i] if i < len(psteps) and psteps[i].get("tool") == s["tool"] else None
                for k, v in s["arguments"].items():
                    key = f"{s['tool']}.{k}"
                    self.arg_total[key] += 1
                    self.arg_hits[key] += int(ps is not None and ps.get("arguments", {}).get(k) == v)
        if not ok and len(self.failures) < 20:
            self.failures.append({"request": request, "expected": canonical(expected), "got": raw})

    def add_unconstrained(self, schema_valid: bool) -> None:
        self.unconstrained_n += 1
        self.valid_unconstrained += int(schema_valid)

    def summary(self) -> dict[str, Any]:
        n = max(self.n, 1)
        arg_total = sum(self.arg_total.values())
        return {
            "n": self.n,
            "exact_match": self.exact / n,
            "intent_accuracy": self.intent / n,
            "tool_sequence_accuracy": self.tools / n,
            "dependency_accuracy": self.graph / n,
            "argument_accuracy": sum(self.arg_hits.values()) / max(arg_total, 1),
            "argument_accuracy_per_field": {
                k: round(self.arg_hits[k] / self.arg_total[k], 4) for k in sorted(self.arg_total)
            },
            # None (shown as "-") when undefined: nothing predicted / nothing to find
            "insufficient_precision": self.tp / (self.tp + self.fp) if self.tp + self.fp else None,
            "insufficient_recall": self.tp / (self.tp + self.fn) if self.tp + self.fn else None,
            "insufficient_support": self.tp + self.fn,
            "schema_valid_constrained": self.valid_constrained / n,
            "schema_valid_unconstrained": (
                self.valid_unconstrained / self.unconstrained_n if self.unconstrained_n else None
            ),
            "parse_ok": self.parsed / n,
            "tokens_per_plan": self.gen_tokens / n,
        }
