"""The carry-over decision of one turn (:class:`Carry`) and its configuration."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tao.contracts import SessionState
from tao.loop.followup import CarryKind, Followup
from tao.loop.snapshot import Snapshot


class CarryStrategy(StrEnum):
    REWRITE = "rewrite"  # the plan model sees the rewritten, complete request
    FILL = "fill"  # the plan model sees the user's words; the snapshot fills the gaps
    OFF = "off"


@dataclass
class CarryConfig:
    strategy: CarryStrategy = CarryStrategy.REWRITE
    guard: bool = True  # a swap whose plan changes the tools falls back to the edited previous plan
    lexicon: Any = None  # perception's lexicon (default: the reference domain's)


@dataclass
class Carry:
    kind: CarryKind
    request: str  # what the planner sees
    original: str
    strategy: CarryStrategy
    followup: Followup
    slots: dict[str, Any] = field(default_factory=dict)
    base_steps: list[dict[str, Any]] | None = None
    ref: dict[str, Any] | None = None
    prev_tools: list[str] = field(default_factory=list)
    session: SessionState | None = None
    notes: list[str] = field(default_factory=list)
    snap: Snapshot | None = None  # the previous turn's snapshot (the session candidates read it)
    candidate: str | None = None  # the session candidate the turn was planned from, if any
    settled: bool = False

    def record(self) -> dict[str, Any]:
        """The carry-over decision as the trajectory records it."""
        return {
            "kind": self.kind.value,
            "strategy": self.strategy.value,
            "request": self.request,
            "rewritten": self.request != self.original,
            "cues": self.followup.cues,
            "deltas": [{"type": d.type, "value": d.value, "text": d.text} for d in self.followup.deltas],
            "ref": self.ref,
            "base_tools": [s["tool"] for s in self.base_steps] if self.base_steps is not None else None,
            "candidate": self.candidate,
            "notes": self.notes,
        }
