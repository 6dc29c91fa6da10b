"""Typed configuration of the routing step and the planning decision point, and its YAML file.

``planner_config.yaml`` (default: the one beside this module) has three sections, every key
optional (a missing one keeps its default)::

    routing:  {enabled, threshold, min_similarity, none_threshold, none_lead, relative, min_score, widen_margin, widen_top, max_tools, clause_split, expand_producers,
               action_check, field_check, about_min, about_relative,
               fallback: clarify|general, general_tools: [..], dim, max_iter, l2, model_path}
    bypass:   {enabled, max_input_tokens, urgency_cues: [..], urgency_margin}
    fallback_planner: {enabled, after_failed_plans}
    max_steps: 8

An unknown key, a wrong type or an out-of-range value raises :class:`PlanningConfigError` naming
the key (``routing.threshold: expected a number in [0, 1], got 'high'``); so does a file that is not
YAML or not a mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(__file__).with_name("planner_config.yaml")


class PlanningConfigError(ValueError):
    """A planner_config.yaml that cannot be used; ``key`` is the dotted key at fault (or "")."""

    def __init__(self, key: str, message: str, path: Path | None = None) -> None:
        where = f"{path}: " if path else ""
        super().__init__(f"{where}{key + ': ' if key else ''}{message}")
        self.key = key
        self.path = path


class FallbackBranch(str, Enum):
    """What the router does below its threshold instead of forcing the nearest intent."""

    CLARIFY = "clarify"
    """Ask the user (needs_user, insufficient_context) naming the closest intents."""
    GENERAL = "general"
    """Plan with the general chain: ``general_tools`` (empty: the whole registry)."""


@dataclass(frozen=True)
class RouterConfig:
    enabled: bool = True
    threshold: float = 0.15
    """The best tool's probability below which the fallback branch is taken (calibrated,
    ``python -m tao.loop.intent.calibrate``; docs/routing.md)."""
    min_similarity: float = 0.0
    """The request's best cosine similarity to an in-scope training example below which the
    fallback branch is taken even when the classifier is confident (0: off — the "none" class
    supersedes it: 0.25 changed no decision on the held-out or dev sets, and featurizing the
    in-scope rows for it cost ~25 s of start-up on the loaded VM)."""
    none_threshold: float = 0.2
    """The "none of these" class's probability at or above which the fallback branch is taken
    (requests outside every tool: chit-chat, general knowledge, actions no tool offers) ..."""
    none_lead: float = -0.3
    """... provided "none" is at least this far above the best tool (negative: it may be that far
    below it; -1: the threshold alone decides). −0.4 was calibrated before the action check; with
    the check catching asks next to a tool, −0.3 keeps every set's out-of-scope rate within a point
    and sends fewer in-scope requests to the fallback ("how much annual leave do I still have?":
    none 0.20 against 0.55) — docs/routing.md, round 4."""
    relative: float = 0.2
    """A tool group joins the subset when its best tool's probability is >= relative x the best."""
    min_score: float = 0.1
    widen_margin: float = 0.15
    """Best minus second below this: the subset is widened with the groups of the top
    ``widen_top`` tools (an uncertain route keeps the candidates instead of cutting them)."""
    widen_top: int = 3
    max_tools: int = 16
    clause_split: bool = True
    """Also score each clause of an "X and then Y" request (the subset keeps both)."""
    action_check: bool = True
    """A request that explicitly asks for an action no tool of the groups it is about performs
    (void the invoice, approve the leave, close the ticket: :mod:`tao.loop.intent.actions`) takes
    the fallback branch."""
    about_min: float = 0.3
    about_relative: float = 0.5
    """The action check reads a request as *about* a tool group other than its best tool's when
    that group's best tool scores at least ``about_min`` and ``about_relative`` of the best."""
    field_check: bool = True
    """With ``action_check``: a change ask whose changing tools select the field by an enum
    (``update_user_profile.field``) and that names none of the listed fields ("change my
    birthday") takes the fallback branch (:mod:`tao.loop.intent.fields`)."""
    expand_producers: bool = True
    """Add the tools whose outputs a picked tool takes as references in the domain's chains."""
    fallback: FallbackBranch = FallbackBranch.CLARIFY
    general_tools: tuple[str, ...] = ()
    dim: int = 1 << 14
    max_iter: int = 80
    l2: float = 1e-4
    model_path: str | None = None
    """A fitted router (``.npz``) to load when its fingerprint matches the registry; else it is fit
    (and written there when no file exists: a file of another registry is never overwritten)."""


@dataclass(frozen=True)
class BypassConfig:
    enabled: bool = True
    max_input_tokens: int = 400
    """Inputs beyond this many tokens skip planning: a typed answer (failed, input_too_large)."""
    urgency_cues: tuple[str, ...] = (
        "马上",
        "立刻",
        "立即",
        "赶紧",
        "别想太多",
        "直接",
        "right now",
        "asap",
        "immediately",
        "urgent",
    )
    urgency_margin: float = 0.3
    """Urgency takes the direct single-step path only when the best tool clears the threshold and
    leads the second by at least this margin (one tool clearly above)."""


@dataclass(frozen=True)
class FallbackPlannerConfig:
    enabled: bool = True
    after_failed_plans: int = 2
    """Failed plans (malformed or invalid) before the rule-based planner takes over."""


@dataclass(frozen=True)
class PlanningConfig:
    routing: RouterConfig = field(default_factory=RouterConfig)
    bypass: BypassConfig = field(default_factory=BypassConfig)
    fallback_planner: FallbackPlannerConfig = field(default_factory=FallbackPlannerConfig)
    max_steps: int = 8


_RANGES: dict[str, tuple[float, float]] = {
    "threshold": (0.0, 1.0),
    "relative": (0.0, 1.0),
    "min_score": (0.0, 1.0),
    "widen_margin": (0.0, 1.0),
    "widen_top": (1, 100),
    "min_similarity": (0.0, 1.0),
    "none_threshold": (0.0, 1.0),
    "none_lead": (-1.0, 1.0),
    "urgency_margin": (0.0, 1.0),
    "l2": (0.0, 1.0),
    "max_tools": (1, 1000),
    "dim": (256, 1 << 22),
    "max_iter": (1, 10000),
    "max_input_tokens": (1, 1_000_000),
    "after_failed_plans": (1, 10),
    "max_steps": (1, 64),
}


def _coerce(key: str, name: str, default: Any, value: Any) -> Any:
    def bad(what: str) -> PlanningConfigError:
        return PlanningConfigError(key, f"expected {what}, got {value!r}")

    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(default, Enum):
        try:
            return type(default)(value)
        except ValueError:
            raise bad("one of " + ", ".join(e.value for e in type(default))) from None
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise bad("a list of non-empty strings")
        return tuple(value)
    if default is None or isinstance(default, str):
        if value is not None and not isinstance(value, str):
            raise bad("a string")
        return value
    lo, hi = _RANGES.get(name, (float("-inf"), float("inf")))
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise bad(f"an integer in [{lo}, {hi}]")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise bad(f"a number in [{lo}, {hi}]")
    return float(value)


def _section(obj: Any, data: Any, prefix: str) -> Any:
    if not isinstance(data, Mapping):
        raise PlanningConfigError(prefix, f"expected a mapping, got {type(data).__name__}")
    known = {f.name: f for f in fields(obj)}
    updates: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if k not in known:
            raise PlanningConfigError(key, "unknown key (known: " + ", ".join(sorted(known)) + ")")
        default = getattr(obj, k)
        if hasattr(default, "__dataclass_fields__"):
            updates[k] = _section(default, v, key)
        else:
            updates[k] = _coerce(key, str(k), default, v)
    return replace(obj, **updates)


def planning_config_from(data: Any) -> PlanningConfig:
    """A config from parsed YAML/JSON (``None``: the defaults)."""
    return PlanningConfig() if data is None else _section(PlanningConfig(), data, "")


def load_planning_config(path: str | Path | None = None) -> PlanningConfig:
    """Read ``planner_config.yaml`` (default :data:`DEFAULT_PATH`); typed errors, see the module doc."""
    import yaml

    p = Path(path) if path is not None else DEFAULT_PATH
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanningConfigError("", f"cannot read: {exc.strerror or exc}", p) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PlanningConfigError("", f"not valid YAML: {str(exc).splitlines()[0]}", p) from exc
    try:
        return planning_config_from(data)
    except PlanningConfigError as exc:
        raise PlanningConfigError(exc.key, str(exc).removeprefix(f"{exc.key}: "), p) from None
