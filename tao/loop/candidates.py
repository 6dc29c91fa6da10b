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

import copy
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.contracts.timeexpr import session_now
from tao.loop.carry_schema import _is_time, _props, _resolve, _targets, accepts
from tao.loop.carry_types import Carry, CarryStrategy
from tao.loop.followup import CarryKind, Delta, Followup, is_zh
from tao.loop.referent import (
    address_request,
    asked_person,
    person_email,
    person_referent,
    person_request,
    substitute_person,
)
from tao.loop.session_values import (
    _DAY,
    _DAYTIME,
    _time_of,
    anchor_delta,
    anchor_request,
    anchor_value,
    enum_deltas,
    own_cues,
    render_value,
)
from tao.loop.snapshot import Snapshot
from tao.loop.turn_cues import repeat_of

if TYPE_CHECKING:
    from tao.loop.carryover import CarryOver

Output = ThoughtPlan | InsufficientContext | None
Replan = Callable[[str], Awaitable[Output]]


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
    from tao.loop.identity import identity_answer

    if (who := await identity_answer(co, carry, replan)) is not None:  # "我邮箱是 …" for user_id
        return who
    fu, text = carry.followup, carry.original
    deltas = [*fu.deltas, *enum_deltas(text, snap, co.schemas)]
    if (again := repeat_of(text)) and not fu.person and deltas and swap_takes_all(co, carry, deltas):
        plan = swap_plan(co, carry, deltas)  # "forward the same message to …": the last task, new values
        if plan is not None and complete(co, plan, snap, session):
            carry.notes.append(f"repeat: {again!r}: the previous plan with the turn's values")
            carry.candidate, carry.kind = "repeat", CarryKind.SWAP
            return plan
    if not any(d.type == "DATE" for d in deltas) and (shifted := anchor_delta(fu, snap, co.schemas)):
        deltas.append(shifted)
    tools = tuple(sorted(co.schemas))
    step, uid = person_referent(snap, session) if fu.person else (None, None)
    if fu.person and step is None and uid is None:
        step = asked_person(snap, co.schemas)
    person = fu.person is not None and (step is not None or uid is not None)
    planned = isinstance(out, ThoughtPlan)
    cues = own_cues(_without_swap_cue(text, fu), deltas, tools)
    prev_cues = own_cues(snap.effective_request or snap.request, [], tools)
    pending_cues = own_cues(snap.pending.request, [], tools) if snap.pending is not None else set()
    labelled = "pending: labelled answer" in fu.cues  # "主题：周报，内容：…": the asked fields, labelled
    answer_off = carry.kind is CarryKind.ANSWER and bool(cues - pending_cues) and not labelled  # its own task
    if planned and not (person or fu.anchor or answer_off) and (carry.kind is not CarryKind.NEW or cues):
        return out
    only_swap = planned and not (person or fu.anchor or answer_off)

    def candidates() -> Iterator[tuple[str, CarryKind, str | None, ThoughtPlan | None, list[Any]]]:
        new_words = bool(cues - prev_cues)
        if not planned and cues - prev_cues == {"update"}:  # "时长改成一个小时": a change of the last task
            new_words = not swap_takes_all(co, carry, deltas)
        swap_ok = bool(deltas) and not new_words
        if swap_ok and not cues:  # the turn names no tool: the previous task with its values
            yield "swap", CarryKind.SWAP, None, swap_plan(co, carry, deltas), []
            if snap.earlier_steps and not swap_takes_all(
                co, carry, deltas
            ):  # "苏州呢" after weather, calendar
                older = copy.copy(carry)
                older.snap = snap.model_copy(update={"steps": list(snap.earlier_steps)})
                if swap_takes_all(co, older, deltas):
                    yield "earlier swap", CarryKind.SWAP, None, swap_plan(co, older, deltas), []
        addr = person_email(step) if person and not only_swap else None
        if addr and isinstance(out, InsufficientContext) and _asks_address(co, out, addr):
            yield "address", CarryKind.REFER, address_request(text, fu.person or "", addr), None, []
        if person and not only_swap:
            who = uid if step is None else next(iter(step["arguments"].values()))
            if (
                isinstance(out, ThoughtPlan)
                and (sub := substitute_person(out, step, uid, session)) is not None
            ):
                yield "referent", CarryKind.REFER, None, sub, [who]
            yield "referent", CarryKind.REFER, person_request(text, fu.person or "", step, uid), None, [who]
        if addr and isinstance(out, InsufficientContext) and not _asks_address(co, out, addr):
            yield "address", CarryKind.REFER, address_request(text, fu.person or "", addr), None, []
        if fu.anchor is not None and not only_swap and (req := anchor_request(text, fu, snap, co.schemas)):
            value = anchor_value(fu, snap, co.schemas)
            yield "anchor", CarryKind.REFER, req, None, [value] if value else []
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


def _without_swap_cue(text: str, fu: Followup) -> str:
    """The turn without its swap cue ("换成", "change it to"): the cue says the last task changes,
    it names no tool (update_user_profile) of its own."""
    for c in fu.cues:
        if c.startswith("swap:") and (word := c.removeprefix("swap:")) and word in text:
            return text.replace(word, " ", 1)
    return text


def swap_takes_all(co: CarryOver, carry: Carry, deltas: list[Delta]) -> bool:
    """Every value of the turn has an argument in the previous plan to go to."""
    snap = carry.snap
    if snap is None or not snap.steps or not deltas:
        return False
    return all(any(_targets(d, co.schemas.get(s.tool, {}), s.arguments) for s in snap.steps) for d in deltas)


def _asks_address(co: CarryOver, out: InsufficientContext, addr: str) -> bool:
    """The question asks for a field an email fills (``send_email.to``)."""
    props = {k: p for schema in co.schemas.values() for k, p in _props(schema).items()}
    return any(f in props and "pattern" in props[f] and accepts(props[f], addr) for f in out.required_fields)


def _better_question(
    got: InsufficientContext, out: Output, source: str, session: SessionState, co: CarryOver
) -> bool:
    """An anchored rewrite that is still insufficient beats the turn's own question
    when that asked for something the rewrite supplied ("还有一顿晚饭也要报，同一天": the date is
    the earlier turn's, the amount and description are still missing) and the fields it asks
    for are those of a task that needs a time; a question for the speaker's own user id, or for a
    time the anchor gave, is no better."""
    if source == "address" and isinstance(out, InsufficientContext):  # the person's address written in
        return bool(got.required_fields) and set(got.required_fields) != set(out.required_fields)
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
