"""Parsing the plan model's output back into contracts.

:func:`parse_output` turns the model's constrained output (see :mod:`thought_model.grammar`) into
a :class:`ThoughtPlan` or an :class:`InsufficientContext`: slot tokens are substituted back with
the request's values, code-planned asks replace the model's answer
(:mod:`thought_model.direct_asks`), arguments are tidied against the tools' schemas
(:func:`tidy_arguments`) and the plan passes the Rust plan checks. Malformed output raises
:class:`~thought_model.grammar.PlanParseError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import orjson
from pydantic import ValidationError

from tao.contracts import InsufficientContext, PlanStep, SessionState, ThoughtPlan, ToolSpec
from tao.contracts.domain import Lexicon
from tao.contracts.plan import TIME_SYMBOL_PATTERN
from thought_model.direct_asks import direct_plan, unmasked
from thought_model.entities import ME_SLOT, SLOT_TOKEN_RE, Perception
from thought_model.expense_words import fix_category
from thought_model.grammar import PlanParseError, base_pattern, field_tokens, nonnull, request_slots
from thought_model.invitees import attach_invitees
from thought_model.recipients import unknown_recipient
from thought_model.step_ids import renumber_steps
from thought_model.unstated import unstated_fields, unstated_in_plan


def _substitute(value: Any, p: Perception, session: SessionState | None) -> Any:
    if isinstance(value, list):
        return [_substitute(v, p, session) for v in value]
    if not isinstance(value, str) or not SLOT_TOKEN_RE.search(value):
        return value
    if value == ME_SLOT:
        if session is None or not session.user_id:
            raise PlanParseError("output refers to <ME> but the session has no user_id")
        return session.user_id
    if SLOT_TOKEN_RE.fullmatch(value):
        if value not in p.slots:
            raise PlanParseError(f"output refers to slot {value} that the request does not contain")
        return p.slots[value]

    def repl(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok == ME_SLOT:
            return str(session.user_id) if session is not None and session.user_id else tok
        if tok not in p.slots:
            raise PlanParseError(f"output refers to slot {tok} that the request does not contain")
        v = p.slots[tok]
        return f"{v:g}" if isinstance(v, float) else str(v)

    return SLOT_TOKEN_RE.sub(repl, value)


@lru_cache(maxsize=16)
def _plan_checker(schemas_json: str) -> Any:
    from rust_validator import PlanChecker

    return PlanChecker(json.loads(schemas_json))


def _check_plan(plan: ThoughtPlan, tools: Sequence[ToolSpec] | None) -> None:
    """The plan checks of ``rust_validator.PlanChecker`` (the one implementation, also run by the
    loop and the server): step ids, dependencies on earlier steps only, references to listed
    dependencies, known tools. Argument values are the loop's check (the grammar constrains them);
    without ``tools`` only the structure is checked."""
    schemas = {t.name: t.args_schema for t in tools or ()}
    key = orjson.dumps(schemas, option=orjson.OPT_SORT_KEYS).decode()  # the checker's cache key
    out = _plan_checker(key).check(plan.model_dump(mode="json", exclude_none=True))
    skip = {"ARGUMENT_INVALID"} | (set() if tools else {"UNKNOWN_TOOL"})
    errors = [e for e in out["errors"] if e["code"] not in skip]
    if errors:
        e = errors[0]
        raise PlanParseError(f"plan check {e['code']} at {e['path']}: {e['message']}")


def parse_output(
    text: str,
    request: str | Perception,
    session: SessionState | None,
    tools: Sequence[ToolSpec] | None = None,
    lexicon: Lexicon | None = None,
) -> ThoughtPlan | InsufficientContext:
    """Turn the model's output into a plan or an insufficient-context error.

    ``request`` is the original request (perception is re-run deterministically) or the
    :class:`Perception` kept from :func:`thought_model.prompt.prepare_prompt`.
    Raises :class:`PlanParseError` on malformed output.
    """
    from thought_model.prompt import EOS_TOKEN, prepare_prompt  # local: prompt imports entities only

    if isinstance(request, Perception):
        perception = request
    else:
        perception = prepare_prompt(request, session, tools, lexicon).perception
    raw = text.replace(EOS_TOKEN, "").strip()
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise PlanParseError(f"output is not JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(obj, dict):
        raise PlanParseError("output is not a JSON object")
    try:
        if obj.get("error") == "insufficient_context":
            ic = InsufficientContext.model_validate(obj)
            direct = _direct(perception, session, tools, None)
            if direct is None:
                return unstated_fields(ic, perception.masked)
            try:
                _check_plan(direct, tools)
            except PlanParseError:
                return ic
            return direct
        obj = renumber_steps(obj)
        steps = obj.get("steps")
        if isinstance(steps, list):
            for s in steps:
                if isinstance(s, dict) and isinstance(s.get("arguments"), dict):
                    s["arguments"] = {
                        k: _substitute(v, perception, session) for k, v in s["arguments"].items()
                    }
        plan = ThoughtPlan.model_validate(obj)
        if tools:
            from thought_model.ref_repair import repair_references

            plan = repair_references(plan, tools, perception)
            plan = attach_invitees(plan, list(tools), perception)
            tidied = tidy_arguments(plan, tools)
            if isinstance(tidied, InsufficientContext):
                return tidied
            plan = _direct(perception, session, tools, tidied) or fix_category(
                tidied, perception.masked, perception.slots
            )
            unknown = (
                unknown_recipient(plan, perception.masked, session)
                or unstated_in_plan(plan, perception.masked)
                or _named_tool_unfilled(
                    plan,
                    tools,
                    request_slots(perception, session is not None and session.user_id is not None),
                )
            )
            if unknown is not None:
                return unknown
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(x) for x in first.get("loc", ()))
        raise PlanParseError(
            f"output does not match the plan contract at {loc or '<root>'}: {first['msg']}"
        ) from None
    _check_plan(plan, tools)
    return plan


def _direct(
    perception: Perception,
    session: SessionState | None,
    tools: Sequence[ToolSpec] | None,
    plan: ThoughtPlan | None,
) -> ThoughtPlan | None:
    """A request code plans directly instead of the model's answer (:mod:`thought_model.direct_asks`)."""
    if not tools or session is None:
        return None
    planned = {s.tool for s in plan.steps} if plan is not None else set()
    names = {t.name for t in tools}
    return direct_plan(
        unmasked(perception),
        perception.masked,
        perception.slots,
        session.user_id,
        names,
        plan is None,
        planned,
    )


PERIOD_SYMBOL_RE = re.compile(
    r"^@(?:this_week|last_week|next_week|this_month|last_month|next_month|this_year|last_year"
    r"|last_days:[0-9]+|next_days:[0-9]+)$"
)
"""Time symbols that name a period, never one day: no value for a start time."""


def _day_field(prop: dict[str, Any]) -> bool:
    """A string field that takes a day (with an optional time) but not a month or a period."""
    pattern = nonnull(prop).get("pattern")
    if not pattern:
        return False
    return re.search(pattern, "2026-03-05") is not None and re.search(pattern, "2026-03") is None


def tidy_arguments(plan: ThoughtPlan, tools: Sequence[ToolSpec]) -> ThoughtPlan | InsufficientContext:
    """Argument rules after decoding (project decisions, issue #14):

    * an **optional** argument given ``@now`` is dropped: "现在北京天气" / "weather … right now"
      asks about today, which the tool's default already is (writers omit it), and ``@now`` is a
      clock time the date field resolved to;
    * a string list (attendees) keeps each value once, in order;
    * a **required** start-time field (a day field whose name is ``start``) holding a period
      symbol (``@next_week`` of "下周…具体哪天几点都还没定") has no value: the plan becomes
      ``insufficient_context`` for that field.
    """
    by_name = {t.name: t for t in tools}
    steps: list[PlanStep] = []
    missing: list[str] = []
    changed = False
    for st in plan.steps:
        spec = by_name.get(st.tool)
        if spec is None:
            steps.append(st)
            continue
        props: dict[str, Any] = spec.args_schema.get("properties", {})
        required = set(spec.args_schema.get("required", []))
        args: dict[str, Any] = {}
        for k, v in st.arguments.items():
            prop = props.get(k, {})
            if v == "@now" and k not in required:
                changed = True
                continue
            if isinstance(v, list) and all(isinstance(x, str) for x in v) and len(set(v)) < len(v):
                v = list(dict.fromkeys(v))
                changed = True
            if (
                k == "start"
                and k in required
                and isinstance(v, str)
                and PERIOD_SYMBOL_RE.match(v)
                and _day_field(prop)
            ):
                missing.append(k)
            args[k] = v
        steps.append(st.model_copy(update={"arguments": args}) if args != st.arguments else st)
    if missing:
        return InsufficientContext(required_fields=list(dict.fromkeys(missing)), intent=plan.intent)
    return plan.model_copy(update={"steps": steps}) if changed else plan


def _named_tool_unfilled(
    plan: ThoughtPlan, tools: Sequence[ToolSpec], avail: list[str]
) -> InsufficientContext | None:
    """The model named a tool as its intent (``create_calendar_event``) but planned other tools:
    the per-request grammar had dropped that tool because a required argument has no slot here
    ("明天下午3点建个会，一小时，邀请 a@x.cn": no title), and the model reached for an unrelated one
    (``list_orders``). The answer is that tool's missing arguments."""
    spec = next((t for t in tools if t.name == plan.intent), None)
    if spec is None or any(st.tool == spec.name for st in plan.steps):
        return None
    props: dict[str, Any] = spec.args_schema.get("properties", {})
    missing = [
        k
        for k in spec.args_schema.get("required", [])
        if field_tokens(k, props.get(k, {}), tools, avail) == [] and not _has_ref_alt(props.get(k, {}))
    ]
    return InsufficientContext(required_fields=missing, intent=plan.intent) if missing else None


def _has_ref_alt(prop: dict[str, Any]) -> bool:
    """A field an earlier step's output may fill (its pattern has the reference alternative)."""
    pattern = nonnull(prop).get("pattern")
    return bool(pattern) and base_pattern(pattern)[1]


def time_symbol_ok(value: str) -> bool:
    """True when ``value`` is a canonical relative time symbol."""
    return re.match(TIME_SYMBOL_PATTERN, value) is not None


# ------------------------------------------------------------------ xgrammar
