"""Memory records: the three tiers, their lifetimes, and what each record holds."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

_SAFE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


class MemoryKeyError(ValueError):
    """A tenant, session or record id that cannot be used as a key."""


def check_key(what: str, v: str) -> str:
    if not isinstance(v, str) or not _SAFE.match(v):
        raise MemoryKeyError(f"invalid {what}: {v!r} (allowed: letters, digits, _ . : -, up to 128)")
    return v


class Tier(StrEnum):
    """short: the rolling summary of one conversation (hot); episodic: finished tasks (warm);
    fact: long-term facts and preferences, written only after explicit confirmation (cold)."""

    SHORT = "short"
    EPISODIC = "episodic"
    FACT = "fact"


@dataclass(frozen=True)
class Lifetimes:
    """TTLs in seconds: hot (short-term summary), warm (episodes), cold (facts), and how long a
    proposed fact waits for its confirmation."""

    hot_s: float = 30 * 60
    warm_s: float = 30 * 86400
    cold_s: float = 365 * 86400
    pending_s: float = 10 * 60

    def for_tier(self, tier: Tier) -> float:
        return {Tier.SHORT: self.hot_s, Tier.EPISODIC: self.warm_s, Tier.FACT: self.cold_s}[tier]


class Episode(BaseModel):
    """A finished task: what was asked, the key decisions, the outcome."""

    model_config = ConfigDict(extra="forbid")

    input_summary: str
    decisions: list[str] = Field(default_factory=list)
    outcome: str
    tools: list[str] = Field(default_factory=list)
    session_id: str | None = None

    def text(self) -> str:
        return " ".join([self.input_summary, *self.decisions, self.outcome, *self.tools])


class Fact(BaseModel):
    """A long-term fact or preference of a user ("preferred_city" = "上海")."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    value: str
    kind: Literal["fact", "preference"] = "fact"
    user_id: str | None = None
    source: str = ""

    def text(self) -> str:
        return f"{self.key.replace('_', ' ')} {self.value}"


class MemoryRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    tenant: str
    tier: Tier
    text: str = Field(description="what is embedded (redacted)")
    payload: dict[str, Any] = Field(default_factory=dict)
    created_at: float
    expires_at: float

    def summary(self, max_chars: int = 160) -> str:
        if self.tier is Tier.EPISODIC:
            p = self.payload
            s = f"{p.get('input_summary', '')} → {p.get('outcome', '')}"
        elif self.tier is Tier.FACT:
            s = f"{self.payload.get('key')}={self.payload.get('value')}"
        else:
            s = self.text
        return s if len(s) <= max_chars else s[: max_chars - 1] + "…"


@dataclass(frozen=True)
class Hit:
    record: MemoryRecord
    score: float


@dataclass(frozen=True)
class Proposal:
    """A fact waiting for explicit confirmation (expires after ``Lifetimes.pending_s``)."""

    id: str
    tenant: str
    fact: Fact
    expires_at: float


class Entity(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str
    value: str
    turn: int


class Failure(BaseModel):
    """The last failure of a conversation: error code, tool and a hash of its input."""

    model_config = ConfigDict(extra="forbid")

    error_code: str
    tool: str | None = None
    input_hash: str | None = None

    @staticmethod
    def hash_input(args: Any) -> str:
        return hashlib.sha256(orjson.dumps(args, option=orjson.OPT_SORT_KEYS, default=str)).hexdigest()[:12]


class Pending(BaseModel):
    """A request that stopped at insufficient context: the fields still missing."""

    model_config = ConfigDict(extra="forbid")

    request: str
    missing: list[str] = Field(default_factory=list)
    turn: int


class RollingSummary(BaseModel):
    """The short-term tier: a bounded summary of one conversation, folded turn by turn."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    turns: int = 0
    intents: list[tuple[int, str]] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    last_failure: Failure | None = None
    pending: Pending | None = None
