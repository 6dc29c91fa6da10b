"""Session candidates for a later turn the carry-over step left incomplete.

The cue lists of :mod:`tao.loop.followup` miss many follow-ups ("sorry, I meant Sunday", "他的详细
资料呢", "also put it on my calendar at the same time"): planned alone, such a turn comes back
insufficient (no city, no date, no user id …) or as a plan of a tool the turn never named. When
that happens, :func:`settle` builds candidates from the session and keeps the first one that plans
completely:

1. ``referent`` — a pronoun for a person ("his", "她") and an earlier turn that found one
   (``find_user`` by phone, email or name) or named a user id: the model's plan with the session
   user's id replaced by that person (the finding step chained in front), or the turn rewritten
   with the person written in ("手机号138…的用户的详细资料呢");
2. ``anchor`` — "at the same time", "the same day", "那天": the phrase replaced by the previous
   turn's resolved time (and duration for a time), so the time anchor is the earlier turn's;
3. ``swap`` — the previous plan with the turn's values put in (one copy of the plan per value
   when the turn gives two of one kind: "Milan and Venice"); a value already in the previous plan
   is the one being corrected ("lanzhou not chengdu") and is dropped; filter values of optional
   enum arguments ("refunded", "已取消") are values too;
4. ``missing`` — the fields the model said are missing written in from the snapshot (times,
   durations, head counts, cities, ids; never free text or amounts);
5. ``previous`` — an open question's request (or a failed previous turn's) + this turn.

A candidate is kept when it gives a plan that checks against the tools' schemas, is not the
previous turn's plan again, and (``referent``) uses the person. A turn whose plan came back
complete is re-examined only when it has a referent or an anchor, or (a ``new`` turn) names no
tool of its own — then only the ``swap`` may replace it. Every decision goes into the notes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.contracts.timeexpr import session_now
from tao.loop.carryover import _WORDS, Carry, CarryStrategy, _is_time, _props, _resolve, accepts
from tao.loop.followup import CarryKind, Delta, Followup, is_zh
from tao.loop.referent import asked_person, person_referent, person_request, substitute_person
from tao.loop.snapshot import Snapshot

if TYPE_CHECKING:
    from tao.loop.carryover import CarryOver

Output = ThoughtPlan | InsufficientContext | None
Replan = Callable[[str], Awaitable[Output]]

_FREE_TEXT = ("description", "title", "reason", "body", "subject", "value", "name", "amount", "to")
_DAYTIME = re.compile(r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ENUM_ZH = {
    "refunded": ("已退款", "退款的", "退了款"),
    "cancelled": ("已取消", "取消的", "取消了的", "canceled"),
    "shipped": ("已发货", "发货的", "发了货"),
    "delivered": ("已签收", "已送达", "签收的"),
    "in_transit": ("运输中", "在路上", "in transit"),
    "pending": ("待处理", "待付款", "未付款", "pending"),
    "paid": ("已付款", "已支付", "付了款"),
    "issued": ("已开具", "已开", "开好的"),
    "void": ("作废", "已作废"),
    "submitted": ("已提交", "提交了的"),
    "approved": ("已批准", "已通过", "批了的", "通过的"),
    "rejected": ("驳回", "被拒", "没通过"),
}


# --------------------------------------------------------------------------- reading the turn
@lru_cache(maxsize=8)
def _tool_concepts(tools: tuple[str, ...]) -> frozenset[str]:
    """Concepts of the routing lexicon that name a tool (a part of some tool's name)."""
    from tao.loop.intent.lexicon import CONCEPTS

    parts = {p.removesuffix("s") for t in tools for p in t.split("_")} | {
        p for t in tools for p in t.split("_")
    }
    return frozenset(c for c in CONCEPTS if c in parts and c != "list")


def own_cues(text: str, deltas: list[Delta], tools: tuple[str, ...]) -> set[str]:
    """The tool-naming concepts of the turn once its values are taken out."""
    from tao.loop.intent.lexicon import concepts_of

    rest = text
    for d in sorted(deltas, key=lambda d: -len(d.text)):
        if d.text:
            rest = rest.replace(d.text, " ")
    return set(concepts_of(rest)) & _tool_concepts(tools)


def enum_deltas(text: str, snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> list[Delta]:
    """Filter values the turn names for the previous plan's optional enum arguments."""
    low = text.lower()
    out: list[Delta] = []
    for st in snap.steps:
        schema = schemas.get(st.tool, {})
        req = set(schema.get("required") or [])
        for name, prop in _props(schema).items():
            enum = next((p.get("enum") for p in [prop, *(prop.get("anyOf") or [])] if p.get("enum")), None)
            if name in req or not enum or any(d.type == f"ENUM:{name}" for d in out):
                continue
            for v in enum:
                words = [str(v), str(v).replace("_", " "), *_ENUM_ZH.get(str(v), ())]
                hit = next(
                    (w for w in words if re.search(rf"(?<![a-z]){re.escape(w.lower())}(?![a-z])", low)), None
                )
                if hit is not None:
                    out.append(Delta(f"ENUM:{name}", v, text[low.find(hit.lower()) :][: len(hit)]))
                    break
    return out


# --------------------------------------------------------------------------- rendering values
def render_value(name: str, value: Any, prop: dict[str, Any], zh: bool) -> str | None:
    """How one snapshot value is written into a request (None: never carried as text)."""
    if name in _FREE_TEXT or name == "user_id" or value is None or isinstance(value, (dict, list)):
        return None
    s = str(value)
    if _is_time(prop):
        if m := _DAYTIME.match(s):
            return f"{m.group(1)} {m.group(2)}" if zh else f"on {m.group(1)} at {m.group(2)}"
        if _DAY.match(s):
            return s if zh else f"on {s}"
        return None
    if "duration" in name or name.endswith("_min"):
        return f"{s}分钟" if zh else f"for {s} minutes"
    if name == "capacity":
        return f"{s}个人" if zh else f"for {s} people"
    if "city" in name:
        return s if zh else f"in {s}"
    if name.endswith("_id"):
        word = _WORDS.get(name, (name.removesuffix("_id"), name.removesuffix("_id")))
        return f"{word[0]}{s}" if zh else f"{word[1]} {s}"
    return None


def _asked_time(snap: Snapshot) -> tuple[str, str, int | None] | None:
    """The time an open question's request gave, resolved at that turn's clock ("帮我建个日程，明天
    下午4点" left open for its title): (``start`` or ``date``, value, duration or None)."""
    from datetime import datetime

    from tao.loop.followup import perceive_deltas

    if snap.pending is None or not snap.now:
        return None
    then = SessionState(now=datetime.fromisoformat(snap.now))
    ds = perceive_deltas(snap.pending.request, session_now(then).date())
    day = next((d for d in ds if d.type == "DATE"), None)
    if day is None:
        return None
    v = _resolve(day.value, then, session_now(then))
    dur = next((d.value for d in ds if d.type == "DUR" and isinstance(d.value, int)), None)
    if isinstance(v, str) and _DAYTIME.match(v):
        return "start", v, dur
    return ("date", v, None) if isinstance(v, str) and _DAY.match(v) else None


def _time_of(snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> tuple[str, str, int | None] | None:
    """The previous turn's first resolved time argument: (name, value, duration_min or None); an
    open question's own time first (its plan was never made)."""
    asked = _asked_time(snap)
    if asked is not None:
        return asked
    for st in snap.steps:
        props = _props(schemas.get(st.tool, {}))
        for k, v in st.arguments.items():
            if (
                k in props
                and _is_time(props[k])
                and isinstance(v, str)
                and (_DAYTIME.match(v) or _DAY.match(v))
            ):
                dur = next(
                    (x for n, x in st.arguments.items() if "duration" in n and isinstance(x, int)), None
                )
                return k, v, dur
    return None


def anchor_request(text: str, fu: Followup, snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> str | None:
    """The turn with its anchor phrase replaced by the previous turn's time."""
    if fu.anchor is None:
        return None
    got = _time_of(snap, schemas)
    if got is None:
        return None
    kind, phrase = fu.anchor
    _, value, dur = got
    zh = is_zh(text)
    m = _DAYTIME.match(value)
    day = _shift_day(m.group(1) if m else value, kind)
    if kind == "time" and m:
        new = f"{day} {m.group(2)}" if zh else f"on {day} at {m.group(2)}"
        if dur is not None:
            new += f"，{dur}分钟" if zh else f" for {dur} minutes"
    else:
        new = day if zh else f"on {day}"
    return text.replace(phrase, new, 1) if phrase in text else None


def _shift_day(day: str, kind: str) -> str:
    from datetime import date, timedelta

    n = {"day+1": 1, "day-1": -1}.get(kind, 0)
    return (date.fromisoformat(day) + timedelta(days=n)).isoformat() if n and _DAY.match(day) else day


def anchor_delta(fu: Followup, snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> Delta | None:
    """ "the day after" / "第二天" as a DATE value: the earlier turn's day moved by one."""
    if fu.anchor is None or fu.anchor[0] not in ("day+1", "day-1"):
        return None
    got = _time_of(snap, schemas)
    if got is None:
        return None
    return Delta("DATE", _shift_day(got[1][:10], fu.anchor[0]), fu.anchor[1])


_LABEL = {  # how a bare free-text answer is labelled for the plan model (zh, en)
    "reason": ("原因是", "reason: "),
    "description": ("说明：", "description: "),
    "body": ("内容：", "body: "),
    "subject": ("主题：", "subject: "),
}
_ONE_NUMBER = re.compile(r"^\D{0,16}?(?<![\d.])(\d{1,3})(?![\d.])\D{0,16}$")


def labelled_answer(
    schemas: dict[str, dict[str, Any]], text: str, fu: Followup, snap: Snapshot
) -> str | None:
    """A short turn that answers the open question without the words that say so: a bare number
    for the one integer field asked ("for 7", "we're 11" -> "for 7 people"), or a bare phrase for
    the one free-text field asked ("买重复了" -> "原因是买重复了"). None when the turn has values of
    its own, names a tool the open request does not, or the question asked for more than one such
    field."""
    pending = snap.pending
    tools = tuple(sorted(schemas))
    if pending is None or own_cues(text, fu.deltas, tools) - own_cues(pending.request, [], tools):
        return None
    props = {k: p for schema in schemas.values() for k, p in _props(schema).items()}
    ints = [  # a number without a unit is no duration ("8个" while duration and head count are asked)
        f
        for f in pending.required_fields
        if f in props
        and '"integer"' in json.dumps(props[f])
        and "duration" not in f
        and not f.endswith("_min")
    ]
    zh = is_zh(text)
    m = _ONE_NUMBER.match(text.strip())
    if m and len(ints) == 1 and not any(d.type in ("NUM", "DUR", "DATE", "AMOUNT") for d in fu.deltas):
        return render_value(ints[0], int(m.group(1)), props[ints[0]], zh)  # the value, labelled
    free = [f for f in pending.required_fields if f in _LABEL]
    if len(free) == 1 and len(pending.required_fields) == 1 and not fu.deltas and len(text.strip()) <= 60:
        label = _LABEL[free[0]][0 if zh else 1]
        return label + text.strip().rstrip("。.！!")
    return None


# --------------------------------------------------------------------------- checks
def _key(tool: str, args: dict[str, Any], session: SessionState) -> tuple[str, str]:
    now = session_now(session)
    return tool, json.dumps(
        {k: _resolve(v, session, now) for k, v in args.items()}, sort_keys=True, default=str
    )


def complete(co: CarryOver, got: Output, snap: Snapshot, session: SessionState) -> bool:
    """A plan whose steps check against their schemas and that is not the previous plan again."""
    if not isinstance(got, ThoughtPlan) or not got.steps:
        return False
    for s in got.steps:
        schema = co.schemas.get(s.tool)
        if schema is None or not accepts(schema, dict(s.arguments)):
            return False
    prev = [_key(s.tool, s.arguments, session) for s in snap.steps]
    return [_key(s.tool, dict(s.arguments), session) for s in got.steps] != prev


def _uses(plan: ThoughtPlan, value: Any) -> bool:
    text = json.dumps([s.arguments for s in plan.steps], ensure_ascii=False).lower()
    return str(value).lower() in text


# --------------------------------------------------------------------------- the candidates
def swap_plan(co: CarryOver, carry: Carry, deltas: list[Delta]) -> ThoughtPlan | None:
    """The previous plan with ``deltas`` put in (one copy per value of a repeated kind)."""
    snap, session = carry.snap, carry.session or SessionState()
    if snap is None or not snap.steps or not deltas:
        return None
    prev_vals = {str(v).lower() for s in snap.steps for v in s.arguments.values()}
    by_type: dict[str, list[Delta]] = {}
    for d in deltas:
        by_type.setdefault(d.type, []).append(d)
    for t, ds in by_type.items():  # "lanzhou not chengdu": the value already there is the old one
        if len(ds) > 1:
            by_type[t] = [d for d in ds if str(d.value).lower() not in prev_vals] or ds
    multi = next((t for t, ds in by_type.items() if len(ds) > 1), None)
    rest = [d for t, ds in by_type.items() if t != multi for d in ds]
    variants = [[d, *rest] for d in by_type[multi]] if multi else [rest]
    if multi and any(s.dependencies for s in snap.steps):
        return None
    rows: list[dict[str, Any]] = []
    now = session_now(session)
    for v in variants:
        tmp = Carry(
            CarryKind.SWAP, carry.original, carry.original, carry.strategy, Followup(CarryKind.SWAP, v)
        )
        tmp.session, tmp.slots, tmp.prev_tools = session, dict(snap.entities), [s.tool for s in snap.steps]
        if co._swap(tmp, snap, session, now, is_zh(carry.original)) or tmp.base_steps is None:
            return None
        rows.extend(tmp.base_steps)
    seen: set[str] = set()
    uniq = []
    for r in rows:
        k = json.dumps([r["tool"], r["arguments"]], sort_keys=True, default=str)
        if k not in seen:
            seen.add(k)
            uniq.append(r)
    if multi:
        for i, r in enumerate(uniq):
            r["step_id"] = f"t{i + 1}"
    return ThoughtPlan.model_validate({"intent": snap.intent or uniq[0]["tool"], "steps": uniq})


def missing_request(
    co: CarryOver, carry: Carry, text: str, ins: InsufficientContext, must: list[Any]
) -> str | None:
    """The turn with the fields the model found missing written in from the snapshot; a day the
    turn gives without a clock takes the previous turn's clock time. The values written in are
    appended to ``must`` (a kept plan uses them)."""
    snap = carry.snap
    if snap is None or not ins.required_fields:
        return None
    zh = is_zh(text)
    props: dict[str, dict[str, Any]] = {}
    for schema in co.schemas.values():
        for k, p in _props(schema).items():
            props.setdefault(k, p)
    added: list[str] = []
    out = text
    got = _time_of(snap, co.schemas)
    session = carry.session or SessionState()
    day = next((d for d in carry.followup.deltas if d.type == "DATE" and not d.time_only), None)
    merged_day = False
    if day is not None and got is not None and (m := _DAYTIME.match(got[1])) and day.text in out:
        resolved = _resolve(day.value, session, session_now(session))
        if isinstance(resolved, str) and _DAY.match(resolved):  # a day alone keeps the earlier clock
            merged = render_value(got[0], f"{resolved} {m.group(2)}", props.get(got[0], {}), zh)
            if merged:
                out, merged_day = out.replace(day.text, merged, 1), True
                must.append(f"{resolved} {m.group(2)}")
    for f in ins.required_fields:
        v = carry.slots.get(f)
        if f in props and _is_time(props[f]):
            if merged_day:
                continue
            v = got[1] if got is not None else v
        r = render_value(f, v, props.get(f, {}), zh) if f in props else None
        if r is None:
            return None
        added.append(r)
        must.append(v)
    if added:
        out = out.rstrip("。.？?！! ") + ("，" + "，".join(added) if zh else " " + " ".join(added))
    return out if out != text else None


async def settle(co: CarryOver, carry: Carry, out: Output, replan: Replan) -> Output:
    """See the module doc."""
    snap, session = carry.snap, carry.session or SessionState()
    if snap is None or carry.strategy is CarryStrategy.OFF:
        return out
    if carry.kind is CarryKind.SWAP and carry.base_steps is not None:
        return out
    fu, text = carry.followup, carry.original
    deltas = [*fu.deltas, *enum_deltas(text, snap, co.schemas)]
    if not any(d.type == "DATE" for d in deltas) and (shifted := anchor_delta(fu, snap, co.schemas)):
        deltas.append(shifted)
    tools = tuple(sorted(co.schemas))
    step, uid = person_referent(snap, session) if fu.person else (None, None)
    if fu.person and step is None and uid is None:
        step = asked_person(snap, co.schemas)
    person = fu.person is not None and (step is not None or uid is not None)
    planned = isinstance(out, ThoughtPlan)
    cues = own_cues(text, deltas, tools)
    prev_cues = own_cues(snap.effective_request or snap.request, [], tools)
    pending_cues = own_cues(snap.pending.request, [], tools) if snap.pending is not None else set()
    answer_off = carry.kind is CarryKind.ANSWER and bool(cues - pending_cues)  # its own task
    if planned and not (person or fu.anchor or answer_off) and (carry.kind is not CarryKind.NEW or cues):
        return out
    only_swap = planned and not (person or fu.anchor or answer_off)

    def candidates() -> Iterator[tuple[str, CarryKind, str | None, ThoughtPlan | None, list[Any]]]:
        new_words = bool(cues - prev_cues)
        swap_ok = bool(deltas) and not new_words
        if swap_ok and not cues:  # the turn names no tool: the previous task with its values
            yield "swap", CarryKind.SWAP, None, swap_plan(co, carry, deltas), []
        if person and not only_swap:
            who = uid if step is None else next(iter(step["arguments"].values()))
            if (
                isinstance(out, ThoughtPlan)
                and (sub := substitute_person(out, step, uid, session)) is not None
            ):
                yield "referent", CarryKind.REFER, None, sub, [who]
            yield "referent", CarryKind.REFER, person_request(text, fu.person or "", step, uid), None, [who]
        if fu.anchor is not None and not only_swap and (req := anchor_request(text, fu, snap, co.schemas)):
            got = _time_of(snap, co.schemas)
            yield "anchor", CarryKind.REFER, req, None, [got[1][:10]] if got else []
        if answer_off:
            yield "alone", CarryKind.NEW, text, None, []
        if swap_ok and cues:
            yield "swap", CarryKind.SWAP, None, swap_plan(co, carry, deltas), []
        if planned:
            return
        must: list[Any] = []
        if isinstance(out, InsufficientContext) and (req := missing_request(co, carry, text, out, must)):
            yield "missing", CarryKind.REFER, req, None, must
        prior = snap.pending.request if snap.pending is not None else None
        if prior is None and not snap.steps:
            prior = snap.effective_request or snap.request
        if prior:
            sep = "，" if is_zh(text) else ", "
            yield "previous", CarryKind.ANSWER, prior.rstrip("。.？?！! ") + sep + text, None, []

    for source, kind, req, plan, must in candidates():
        got: Output = plan
        if plan is None and req is not None:
            got = await replan(req)
            if isinstance(got, ThoughtPlan):
                got = co._fill(carry, got)
            elif isinstance(got, InsufficientContext) and source not in ("missing", "alone"):
                again = missing_request(co, carry, req, got, must)
                if again is not None:
                    got, req = await replan(again), again
        if isinstance(got, InsufficientContext) and _better_question(got, out, source, session, co):
            carry.notes.append(f"candidate {source} kept: still insufficient {got.required_fields}")
            carry.candidate, carry.kind = source, kind
            if req is not None:
                carry.request = req
            return got
        if not complete(co, got, snap, session):
            carry.notes.append(f"candidate {source}: {'no plan' if got is None else 'incomplete'}")
            continue
        assert isinstance(got, ThoughtPlan)
        if any(not _uses(got, v) for v in must):
            carry.notes.append(f"candidate {source}: the plan does not use {must}")
            continue
        before = "a plan" if planned else ("insufficient " + str(out.required_fields) if out else "no plan")
        carry.notes.append(f"candidate {source} kept (the turn planned alone gave {before})")
        carry.candidate, carry.kind = source, kind
        if req is not None:
            carry.request = req
        return got
    return out


def _better_question(
    got: InsufficientContext, out: Output, source: str, session: SessionState, co: CarryOver
) -> bool:
    """An anchored rewrite that is still insufficient beats the turn's own question
    when that asked for something the rewrite supplied ("还有一顿晚饭也要报，同一天": the date is
    the earlier turn's, the amount and description are still missing) and the fields it asks
    for are those of a task that needs a time; a question for the speaker's own user id, or for a
    time the anchor gave, is no better."""
    if source != "anchor" or not isinstance(out, InsufficientContext):
        return False
    missing = set(got.required_fields)
    if not missing or missing == set(out.required_fields):
        return False
    if session.user_id and "user_id" in missing:
        return False
    props = {k: p for schema in co.schemas.values() for k, p in _props(schema).items()}
    if any(k in props and _is_time(props[k]) for k in missing):
        return False
    # the task it asks about needs a time (the anchor's): "同一天还有一笔餐费" -> submit_expense
    return any(
        missing <= set(schema.get("required") or [])
        and any(_is_time(p) for k, p in _props(schema).items() if k in (schema.get("required") or []))
        for schema in co.schemas.values()
    )
