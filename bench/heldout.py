"""Held-out plan requests and exact-match plan accuracy (benchmarks, INT4 verification).

Rows come from the training data generator's held-out splits (whole templates, values and
combinations never seen in training); a prediction is correct when its plan (intent, steps with
tools, arguments and dependencies) or insufficient-context error equals the expected one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tao.contracts import SessionState
from thought_model.engine.base import PlanRequest, PlanResult

HELDOUT_SPLITS = ("heldout_templates", "heldout_values", "heldout_combos")


@dataclass
class HeldoutCase:
    request: PlanRequest
    expected: dict[str, Any]


def heldout_cases(n_per_split: int = 50, splits: tuple[str, ...] = HELDOUT_SPLITS) -> list[HeldoutCase]:
    """``n_per_split`` deterministic rows from each held-out split."""
    from training.generate import GenConfig, iter_split

    cases = []
    for split in splits:
        for row in iter_split(split, n_per_split, GenConfig()):
            now = datetime.fromisoformat(row["today"] + "T10:00:00")
            session = SessionState(user_id=row.get("user_id"), now=now)
            cases.append(HeldoutCase(PlanRequest(text=row["request"], session=session), row["expected"]))
    return cases


def _canonical(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in ("thought_id", "created_at")}


def is_correct(result: PlanResult, expected: dict[str, Any]) -> bool:
    if not result.ok or result.output is None:  # ok implies an output; the check narrows it
        return False
    got = result.output.model_dump(mode="json", exclude_none=True)
    return _canonical(got) == _canonical({k: v for k, v in expected.items() if v is not None})


def accuracy(results: list[PlanResult], cases: list[HeldoutCase]) -> float:
    return sum(is_correct(r, c.expected) for r, c in zip(results, cases)) / max(1, len(cases))
