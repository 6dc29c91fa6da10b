"""Tool contracts: what a tool takes, returns, may do, and how its results are checked."""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Permission(str, Enum):
    """Permission level, enforced in code by the executor (never by the plan)."""

    READ = "read"  # runs automatically
    WRITE = "write"  # runs automatically within `write_limit`, else needs approval
    HIGH_RISK = "high_risk"  # payments, bulk deletes, outbound messages: approval callback only


class CostLevel(str, Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class ObservationRule(BaseModel):
    """A hard rule checked on every observation of a tool.

    ``logic`` is a JsonLogic expression evaluated against
    ``{"status_code", "response_time_ms", "data": parsed_data}``; it must be truthy.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="stable rule id, shown in the audit trail")
    logic: dict[str, Any] = Field(description="JsonLogic expression that must evaluate truthy")
    message: str = Field(default="", description="human-readable meaning of a failure")


#: Units a contract can declare for a numeric field (the Rust validator converts between the
#: units of one family: temperature, speed, length, ratio; see docs/validator.md).
Unit = Literal["degC", "degF", "K", "m/s", "km/h", "mph", "kn", "m", "km", "mi", "ft", "percent", "permille"]


class Normalization(BaseModel):
    """Declarative normalization applied to parsed data before checks and extraction."""

    model_config = ConfigDict(extra="forbid")

    units: dict[str, Unit] = Field(
        default_factory=dict,
        description="JSON pointer -> declared unit; values like '72 °F', '12 km/h', '65%' or '3公里' are "
        "converted to it, and a unit that does not convert fails the observation (never stripped)",
    )
    require_unit: bool = Field(
        default=False,
        description="with units: a number written without a unit fails instead of being read in the declared unit",
    )
    strip_units: list[str] = Field(
        default_factory=list,
        description="deprecated, use units: JSON pointers whose '65%' / '12 km/h' strings become numbers "
        "with the unit dropped (ignored for pointers that units declares)",
        json_schema_extra={"deprecated": True},
    )
    enum_map: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="JSON pointer -> {raw value: snake_case canonical value}"
    )
    rename: dict[str, str] = Field(default_factory=dict, description="JSON pointer -> new key name")


class ToolSpec(BaseModel):
    """A tool contract (see shared DESIGN.md, 'Action').

    ``args_schema`` and ``response_schema`` are JSON Schemas (draft 2020-12); argument schemas
    are usually generated from a pydantic model with :meth:`ToolSpec.from_models`.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{1,63}$")
    description: str = Field(description="what the tool does, when to use it and when not")
    args_schema: dict[str, Any] = Field(description="JSON Schema of the arguments object")
    response_schema: dict[str, Any] = Field(default_factory=dict, description="JSON Schema of parsed_data")
    observation_rules: list[ObservationRule] = Field(default_factory=list)
    allowed_status_codes: list[int] = Field(default_factory=lambda: [200])
    required_fields: list[str] = Field(
        default_factory=list, description="JSON pointers that must be present and non-null in parsed_data"
    )
    blacklist: dict[str, list[Any]] = Field(
        default_factory=dict, description="JSON pointer -> values that make an observation invalid"
    )
    extract: dict[str, str] = Field(
        default_factory=dict, description="output name -> JSON pointer into parsed_data"
    )
    normalization: Normalization = Field(default_factory=Normalization)
    timeout_ms: int = Field(default=5000, gt=0)
    idempotent: bool = True
    permission: Permission = Permission.READ
    cost_level: CostLevel = CostLevel.LOW
    fallback_tool: str | None = None
    max_result_tokens: int = Field(default=2000, gt=0)
    retry_budget: int = Field(default=2, ge=0, le=5, description="max retries of transient failures")
    write_limit: int | None = Field(
        default=None, description="for write tools: max records per call that run without approval"
    )
    examples: list[dict[str, Any]] = Field(default_factory=list, description="example argument objects")
    domain: str = Field(default="general", description="grouping used by data generation and docs")

    @classmethod
    def from_models(
        cls, *, args_model: type[BaseModel], response_model: type[BaseModel] | None = None, **kw: Any
    ) -> ToolSpec:
        """Build a contract whose schemas come from pydantic models."""
        args = args_model.model_json_schema()
        resp = response_model.model_json_schema() if response_model is not None else {}
        return cls(args_schema=args, response_schema=resp, **kw)
