"""One resolution step for plans: what ``/v1/plan``, ``tao plan``, the loop and the case scorer
run on a model's plan before the plan check.

:func:`resolve_plan` turns a plan with relative time symbols into one a caller can use directly:

1. optional arguments the plan omits get their JSON-Schema ``default`` when that default is a
   time symbol (``get_weather.date`` = ``@today``: "today" is the *session's* today, which only the
   runtime knows); ``fill_defaults="all"`` fills every non-null default (the scorer does this on both
   sides), ``"none"`` none;
2. multi-day symbols on arguments that take one date become one step per day
   (:func:`tao.loop.multiday.expand_multi_day_steps`: ``@this_weekend`` → Saturday and Sunday);
3. every remaining time symbol is resolved against the session clock and time zone
   (:mod:`tao.contracts.timeexpr`: ``@last_days:7`` → ``2026-11-26/2026-12-02``).

Each step keeps the symbols beside the values in ``resolved_from`` (``{"date": "@this_weekend"}``).
Step references (``${t1.user_id}``) are left for execution time. Resolving a resolved plan is a
no-op. A symbol that cannot be resolved (bad time zone, hour 24+) raises :class:`ResolveError`,
which carries a typed :class:`~tao.contracts.ErrorInfo` (``PLAN_INVALID``) and a JSON pointer.

:func:`user_id_checker` derives the domain's session-user-id rule from its registry and lexicon
(the id kind perception binds to ``<ME>``, and every ``user_id`` argument's pattern).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, SessionState, ThoughtPlan, ToolSpec
from tao.contracts.timeexpr import ANY_TIME_SYMBOL_PATTERN, TimeSymbolError, resolve_symbol, session_now
from tao.loop.multiday import expand_multi_day_steps, has_multi_day

ToolsLike = Mapping[str, ToolSpec] | Mapping[str, dict] | Sequence[ToolSpec]
_SYMBOL = re.compile(ANY_TIME_SYMBOL_PATTERN)


class ResolveError(ValueError):
    """A time symbol of the plan cannot be resolved for this session."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def error_info(self) -> ErrorInfo:
        return ErrorInfo(error_type=ErrorType.PLAN_INVALID, message=str(self), field=self.field)


def is_time_symbol(value: Any) -> bool:
    """A relative time symbol, the multi-day ones included."""
    return isinstance(value, str) and value.startswith("@") and _SYMBOL.match(value) is not None


def arg_schemas(tools: ToolsLike) -> dict[str, dict]:
    """Tool name -> arguments JSON Schema, from ToolSpecs (a list or a name map) or schemas."""
    if isinstance(tools, Mapping):  # schemas are read, never changed: no copy of each one
        # a plain dict first: isinstance against a pydantic model class goes through its
        # metaclass hook, ~1 µs a value (22 tools, twice per plan)
        return {
            k: (v if type(v) is dict else v.args_schema if isinstance(v, ToolSpec) else v)
            for k, v in tools.items()
        }
    return {t.name: t.args_schema for t in tools}


def _has_symbol(v: Any) -> bool:
    if isinstance(v, str):
        return is_time_symbol(v)
    if isinstance(v, dict):
        return any(_has_symbol(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_symbol(x) for x in v)
    return False


def fill_defaults(
    tool_schema: Mapping[str, Any], args: Mapping[str, Any], which: Literal["time", "all", "none"] = "all"
) -> dict[str, Any]:
    """``args`` plus the schema ``default`` of each omitted optional argument (``None`` defaults
    are not filled; ``which="time"``: only defaults that are time symbols)."""
    out = dict(args)
    if which == "none":
        return out
    for name, prop in (tool_schema.get("properties") or {}).items():
        if name in out or not isinstance(prop, Mapping) or prop.get("default") is None:
            continue
        d = prop["default"]
        if which == "all" or is_time_symbol(d):
            out[name] = copy.deepcopy(d)
    return out


def _resolve_value(v: Any, session: SessionState | None, now: Any, where: str) -> Any:
    if is_time_symbol(v):
        try:
            return resolve_symbol(v, session, now=now)
        except TimeSymbolError as exc:
            raise ResolveError(f"cannot resolve {v!r}: {exc}", where) from None
    if isinstance(v, dict):
        return {k: _resolve_value(x, session, now, f"{where}/{k}") for k, x in v.items()}
    if isinstance(v, list):
        return [_resolve_value(x, session, now, f"{where}/{i}") for i, x in enumerate(v)]
    return v


def resolve_plan(
    plan: ThoughtPlan,
    session: SessionState | None,
    tools: ToolsLike,
    *,
    defaults: Literal["time", "all", "none"] = "time",
) -> ThoughtPlan:
    """The plan with defaults filled, multi-day steps expanded and time symbols resolved (see the
    module doc). Pure: the input plan is not modified."""
    schemas = arg_schemas(tools)
    session = session or SessionState()
    try:
        now = session_now(session)
    except TimeSymbolError as exc:
        raise ResolveError(str(exc), "/session/timezone") from None
    # step -> (its filled arguments, their resolved_from), or None: nothing filled, nothing to resolve
    filled: list[tuple[dict[str, Any], dict[str, Any] | None] | None] = []
    for s in plan.steps:
        args = fill_defaults(schemas.get(s.tool, {}), s.arguments, defaults)
        if len(args) == len(s.arguments) and not _has_symbol(args):
            filled.append(None)  # the step as it is
            continue
        frm = dict(s.resolved_from or {})
        frm.update({k: v for k, v in args.items() if is_time_symbol(v)})
        filled.append((args, frm or None))
    if not any(has_multi_day(f[0] if f else s.arguments) for s, f in zip(plan.steps, filled, strict=True)):
        # nothing to expand (the common case): each changed step is copied once, resolved
        out = [
            s
            if f is None
            else s.model_copy(
                update={"arguments": _resolve_args(f[0], session, now, i), "resolved_from": f[1]}
            )
            for i, (s, f) in enumerate(zip(plan.steps, filled, strict=True))
        ]
        same = all(f is None for f in filled)
        return plan.model_copy() if same else plan.model_copy(update={"steps": out})
    steps = [
        s if f is None else s.model_copy(update={"arguments": f[0], "resolved_from": f[1]})
        for s, f in zip(plan.steps, filled, strict=True)
    ]
    same = all(f is None for f in filled)
    expanded = expand_multi_day_steps(
        plan if same else plan.model_copy(update={"steps": steps}), schemas, now.date()
    )
    out = []
    for i, s in enumerate(expanded.steps):
        if not _has_symbol(s.arguments):
            out.append(s)
            continue
        out.append(s.model_copy(update={"arguments": _resolve_args(s.arguments, session, now, i)}))
    if all(a is b for a, b in zip(out, expanded.steps, strict=True)):
        # nothing changed: still a copy, as before (callers may update it); steps are shared
        return expanded.model_copy() if expanded is plan else expanded
    return expanded.model_copy(update={"steps": out})


def _resolve_args(args: dict[str, Any], session: SessionState, now: Any, i: int) -> dict[str, Any]:
    """Step ``i``'s arguments with every time symbol resolved (the others as they are)."""
    if not _has_symbol(args):
        return args
    return {k: _resolve_value(v, session, now, f"/steps/{i}/arguments/{k}") for k, v in args.items()}


def resolve_output(
    output: ThoughtPlan | InsufficientContext,
    session: SessionState | None,
    tools: ToolsLike,
    *,
    defaults: Literal["time", "all", "none"] = "time",
) -> ThoughtPlan | InsufficientContext:
    """:func:`resolve_plan` for a plan; an insufficient-context result is returned as is."""
    if isinstance(output, ThoughtPlan):
        return resolve_plan(output, session, tools, defaults=defaults)
    return output


def for_check(plan: ThoughtPlan) -> ThoughtPlan:
    """The plan without the ``resolved_from`` annotations, for a plan checker: a Rust extension
    built before the annotation existed rejects unknown step fields (its ThoughtPlan schema is
    compiled in). Same arguments, dependencies and stamps."""
    if not any(s.resolved_from for s in plan.steps):
        return plan
    return plan.model_copy(
        update={"steps": [s.model_copy(update={"resolved_from": None}) for s in plan.steps]}
    )


def check_doc(plan: ThoughtPlan) -> dict[str, Any]:
    """What a plan checker is given for ``plan``: its JSON (``exclude_none``) without the
    ``resolved_from`` annotations; the same document as ``for_check(plan).model_dump(mode="json",
    exclude_none=True)``, with no model copies."""
    d = plan.model_dump(mode="json", exclude_none=True)
    for s in d.get("steps", ()):
        s.pop("resolved_from", None)
    return d


def check_dump(plan: ThoughtPlan) -> dict[str, Any]:
    """The plan as the plan checkers take it: no runtime stamps, no ``resolved_from`` annotation
    (a checker built before the annotation existed rejects unknown step fields)."""
    d = plan.model_dump(mode="json", exclude_none=True, exclude={"thought_id", "created_at"})
    for s in d.get("steps", []):
        s.pop("resolved_from", None)
    return d


# --------------------------------------------------------------------------- session user id
@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    import json

    import jsonschema_rs

    return jsonschema_rs.validator_for(json.loads(schema_json))


def _accepts(prop: Mapping[str, Any], value: str) -> bool:
    import json

    try:
        return bool(_validator(json.dumps(prop, sort_keys=True)).is_valid(value))
    except Exception:
        return False


def user_id_checker(tools: ToolsLike, lexicon: Any = None) -> Callable[[str], str | None]:
    """``check(user_id) -> None`` when ``user_id`` is a valid session user id for the domain, else
    a message saying why. The rule: the id kind the lexicon binds to the session user
    (``lexicon.me_kind``, e.g. ``USER`` = ``U`` + 8 digits) must match the whole id, and so must
    the pattern of every ``user_id`` argument of the registry; a step reference or time symbol is
    never a user id. A domain with neither accepts any non-empty id."""
    kind = None
    if lexicon is not None and getattr(lexicon, "me_kind", None):
        kind = next((k for k in lexicon.id_kinds if k.slot == lexicon.me_kind), None)
    props = []
    for sch in arg_schemas(tools).values():
        for name, prop in (sch.get("properties") or {}).items():
            if name == "user_id" and isinstance(prop, Mapping) and ("pattern" in prop or "enum" in prop):
                props.append(dict(prop))
    kind_re = re.compile(kind.pattern, re.IGNORECASE if kind.ignore_case else 0) if kind else None
    expected = f"a user id like {kind.sample!r}" if kind else "a user id the registry's user_id accepts"

    def check(user_id: str) -> str | None:
        if not user_id or not user_id.strip():
            return "the session user id is empty"
        bad = user_id.startswith("${") or user_id.startswith("@")
        if not bad and kind_re is not None and kind_re.fullmatch(user_id) is None:
            bad = True
        if not bad and any(not _accepts(p, user_id) for p in props):
            bad = True
        return f"session user id {user_id!r} is not {expected}" if bad else None

    return check
