"""The Thought: a plan of tool calls with dependencies, or an insufficient-context error.

Argument values are JSON literals, with two string forms the runtime resolves:

* **step references** ``"${t1.user_id}"``: the output named ``user_id`` (from the tool's
  ``extract`` map, else a dotted path into ``parsed_data``) of an earlier step that is listed in
  ``dependencies``. See :data:`REF_PATTERN`.
* **relative time symbols** ``"@last_month"``, ``"@tomorrow T15:00"``: resolved by deterministic
  code against the session's date and time zone, never computed by the model. See
  :data:`TIME_SYMBOL_PATTERN`.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tao.contracts.daysymbols import DAY_SYMBOL_ALTS

PLAN_VERSION = "1.0"
MAX_STEPS = 7
STEP_ID_PATTERN = r"^t[1-7]$"
REF_PATTERN = r"^\$\{(t[1-7])\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\}$"
TIME_SYMBOLS = (
    "now",
    "today",
    "yesterday",
    "tomorrow",
    "day_after_tomorrow",
    "this_week",
    "last_week",
    "next_week",
    "this_month",
    "last_month",
    "next_month",
    "this_year",
    "last_year",
)
TIME_SYMBOL_PATTERN = (
    r"^@("
    + "|".join(TIME_SYMBOLS)
    + r"|days_ago:[1-9][0-9]?|in_days:[1-9][0-9]?|"
    + DAY_SYMBOL_ALTS
    + r")( T[0-2][0-9]:[0-5][0-9])?$"
)
"""A relative time symbol: a day, a period, ``@this_weekend`` / ``@next_weekend`` and
``@last_days:N`` / ``@next_days:N`` (see :mod:`tao.contracts.daysymbols`), optionally with a time."""


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step_id: str = Field(pattern=STEP_ID_PATTERN, description="t1, t2, ... unique within the plan")
    tool: str = Field(pattern=r"^[a-z][a-z0-9_]{1,63}$")
    arguments: dict[str, Any] = Field(default_factory=dict)
    dependencies: list[str] = Field(default_factory=list, description="step_ids of earlier steps")
    resolved_from: dict[str, str] | None = Field(
        default=None,
        description="argument -> the time symbol its value was resolved from (set by the runtime's "
        "resolution step, never by the model), e.g. {'date': '@this_weekend'}",
    )


class ThoughtPlan(BaseModel):
    """A plan. ``thought_id`` and ``created_at`` are stamped by the runtime, not the model."""

    model_config = ConfigDict(extra="forbid")

    version: Literal["1.0"] = PLAN_VERSION
    intent: str = Field(pattern=r"^[a-z][a-z0-9_]{1,63}$")
    steps: list[PlanStep] = Field(min_length=1, max_length=MAX_STEPS)
    thought_id: str | None = None
    created_at: datetime | None = None

    def stamped(self) -> ThoughtPlan:
        return self.model_copy(update={"thought_id": str(uuid.uuid4()), "created_at": datetime.now(UTC)})


class InsufficientContext(BaseModel):
    """What the model emits instead of inventing values the request does not contain."""

    model_config = ConfigDict(extra="forbid")

    error: Literal["insufficient_context"] = "insufficient_context"
    required_fields: list[str] = Field(min_length=1)
    intent: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{1,63}$")


class PlanOutput(BaseModel):
    """The model's output: exactly one of a plan or an insufficient-context error."""

    model_config = ConfigDict(extra="forbid")

    plan: ThoughtPlan | None = None
    insufficient: InsufficientContext | None = None


class SessionState(BaseModel):
    """Per-session facts the runtime resolves against (dates, user, locale). Unknown fields are
    refused (a misspelt ``timezone`` must not silently plan against the default zone); anything
    else a caller wants to keep goes into ``memory``."""

    model_config = ConfigDict(extra="forbid")

    session_id: str | None = None
    tenant: str = "default"
    user_id: str | None = None
    now: datetime | None = Field(default=None, description="session clock; defaults to the server's")
    timezone: str = "Asia/Shanghai"
    locale: str = "zh-CN"
    memory: dict[str, Any] = Field(default_factory=dict)
