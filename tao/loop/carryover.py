"""The deterministic carry-over step of a conversation: before the plan model and after it.

``prepare`` reads the request against the previous turn's :class:`~tao.loop.snapshot.Snapshot`
(:func:`tao.loop.followup.read_followup`) and builds a :class:`Carry`:

* ``swap`` ("那3月呢", "那上海呢", "same for last week", "改成明天"): the previous plan with the
  turn's values put into the arguments that take them (``base_steps``); a clock time alone
  keeps the carried day, a day alone keeps the carried clock time; everything not changed keeps
  its resolved value (the time anchors of earlier turns are never re-resolved against a later
  clock). The request is rewritten from the previous complete request with the values replaced;
* ``refer`` ("and where is it now?", "book the first one", "取消它"): the entity the phrase points
  at (a list result's N-th id, else the most recent id of the named kind) replaces the phrase;
* ``answer`` (to a pending insufficient-context question): the pending request + the answer;
* ``new``: nothing is carried.

With :attr:`CarryStrategy.REWRITE` the plan model sees the rewritten request; with
:attr:`CarryStrategy.FILL` it sees the user's words. ``apply`` then completes the model's output
from the snapshot either way: arguments a plan leaves out are filled (required ones always,
optional ones when the previous plan used the same tool), an insufficient-context answer whose
fields the snapshot holds becomes a plan, and (``guard``) a ``swap`` whose plan uses other tools
than the previous plan is replaced by the edited previous plan. Each decision is recorded in
:attr:`Carry.notes` for the trajectory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.contracts.timeexpr import session_now
from tao.loop.carry_edit import _collapse_expanded, _drop_unfed, _referent, _refs, _rewrite_swap
from tao.loop.carry_schema import _WORDS, _is_time, _props, _resolve, _targets, _time_value, accepts
from tao.loop.carry_types import Carry, CarryConfig, CarryStrategy
from tao.loop.followup import CarryKind, Delta, is_zh, read_followup
from tao.loop.snapshot import Snapshot

__all__ = ["Carry", "CarryConfig", "CarryOver", "CarryStrategy", "accepts"]

_COARSE = re.compile(r"^(?:@(?:this|next|last)_(?:week|month)|[0-9]{4}-[0-9]{2})$")  # a week or month, no day


# --------------------------------------------------------------------------- prepare
class CarryOver:
    """``prepare`` before the planner, ``apply`` after it (see the module doc)."""

    def __init__(self, schemas: Mapping[str, dict[str, Any]], config: CarryConfig | None = None) -> None:
        self.schemas = dict(schemas)
        self.config = config or CarryConfig()

    def prepare(self, request: str, session: SessionState, snap: Snapshot | None) -> Carry:
        now = session_now(session)
        strategy = self.config.strategy
        fu = read_followup(
            request,
            now.date(),
            has_previous=snap is not None and strategy is not CarryStrategy.OFF,
            pending=snap is not None and snap.pending is not None,
            lexicon=self.config.lexicon,
            previous=(snap.effective_request or snap.request) if snap is not None else "",
        )
        carry = Carry(fu.kind, request, request, strategy, fu, session=session)
        if snap is None:
            return carry
        carry.slots = dict(snap.entities)
        carry.snap = snap
        carry.prev_tools = [s.tool for s in snap.steps]
        if snap.pending is not None and fu.kind in (CarryKind.NEW, CarryKind.REFER):
            from tao.loop.session_values import labelled_answer

            labelled = labelled_answer(self.schemas, request, fu, snap)
            if labelled is not None:  # "for 7" -> "for 7 people", "买重复了" -> "原因是买重复了"
                carry.kind, fu.kind = CarryKind.ANSWER, CarryKind.ANSWER
                fu.cues.append("pending: labelled answer")
                sep = "，" if is_zh(request) else ", "
                carry.request = snap.pending.request.rstrip("。.？?！! ") + sep + labelled
                carry.notes.append(
                    f"answer: the turn read as the open question's {snap.pending.required_fields}"
                )
                if strategy is CarryStrategy.FILL:
                    carry.request = request
                return carry
        if fu.kind is CarryKind.NEW:
            return carry
        zh = is_zh(request)
        if fu.kind is CarryKind.SWAP:
            self._swap(carry, snap, session, now, zh)
            types = [d.type for d in fu.deltas]
            if carry.base_steps is not None and len(set(types)) < len(types):  # "Milan and Venice"
                from tao.loop.candidates import swap_plan

                fanned = swap_plan(self, carry, list(fu.deltas))
                if fanned is not None:
                    carry.base_steps = [s.model_dump(mode="json", exclude_none=True) for s in fanned.steps]
                    carry.notes.append(f"swap: one copy of the plan per value ({len(fanned.steps)} steps)")
        elif fu.kind is CarryKind.REFER:
            self._refer(carry, snap, zh)
        elif fu.kind is CarryKind.ANSWER and snap.pending is not None:
            sep = "，" if zh else ", "
            answer = request
            for d in fu.deltas:  # "£24.99" -> "24.99": the amount as perception reads it
                if d.type == "AMOUNT" and d.text in answer and d.text != f"{d.value:g}":
                    answer = answer.replace(d.text, f"{d.value:g}", 1)
            carry.request = (
                self._without_coarse_day(snap.pending.request, fu, now).rstrip("。.？?！! ") + sep + answer
            )
        if strategy is CarryStrategy.FILL:
            carry.request = request
        return carry

    def _without_coarse_day(self, pending: str, fu: Any, now: datetime) -> str:
        """The open request without its week or month ("下周要个会议室") when the answer names the
        day ("下周二上午十点"): the day is the answer's, the coarser phrase would contradict it."""
        from tao.loop.followup import perceive_deltas

        if not any(d.type == "DATE" and not d.time_only for d in fu.deltas):
            return pending
        out = pending
        for d in perceive_deltas(pending, now.date(), self.config.lexicon):
            if d.type == "DATE" and _COARSE.match(str(d.value)) and d.text in out:
                out = out.replace(d.text, "", 1)
        return out.strip(" ，,") or pending

    def _swap(
        self, carry: Carry, snap: Snapshot, session: SessionState, now: datetime, zh: bool
    ) -> list[Delta]:
        """Edits the previous plan (``carry.base_steps``); returns the deltas no argument took."""
        if not snap.steps:
            carry.kind, carry.notes = CarryKind.NEW, ["swap: no previous plan"]
            return list(carry.followup.deltas)
        unplaced: list[Delta] = []
        steps = [
            {
                "step_id": s.step_id or f"t{i + 1}",
                "tool": s.tool,
                "arguments": dict(s.arguments),
                "dependencies": list(s.dependencies),
            }
            for i, s in enumerate(snap.steps)
        ]
        _collapse_expanded(steps, snap.steps)
        fed = _refs(steps)
        placed: list[tuple[Delta, Any]] = []
        for d in carry.followup.deltas:
            hit = False
            for st in steps:
                names = _targets(d, self.schemas.get(st["tool"], {}), st["arguments"])
                if names:
                    k = names[0]
                    v = _time_value(d, st["arguments"].get(k), session, now) if d.type == "DATE" else d.value
                    st["arguments"][k] = v
                    carry.slots[k] = v
                    placed.append((d, v))
                    hit = True
            if not hit:
                unplaced.append(d)
                carry.notes.append(f"swap: no argument of {carry.prev_tools} takes {d.type} {d.value!r}")
        if carry.followup.deltas and not placed:
            carry.kind = CarryKind.NEW
            return unplaced
        steps = _drop_unfed(steps, fed)
        seen, uniq = set(), []
        for st in steps:  # one step per day may collapse to one step for one day
            key = (st["tool"], json.dumps(st["arguments"], sort_keys=True, default=str))
            if key not in seen:
                seen.add(key)
                uniq.append(st)
        carry.base_steps = uniq
        carry.request = _rewrite_swap(snap.effective_request or snap.request, placed, zh, self.config.lexicon)
        return unplaced

    def _refer(self, carry: Carry, snap: Snapshot, zh: bool) -> None:
        fu = carry.followup
        key, value = _referent(snap, fu)
        if value is None:
            carry.notes.append("refer: nothing in the snapshot to point at")
            return
        carry.ref = {"text": fu.ref_text, "name": key, "value": value}
        carry.slots[key] = value
        word = _WORDS.get(key, (key.removesuffix("_id"), key.removesuffix("_id")))
        text = f"{word[0]}{value}" if zh else f"{word[1]} {value}"
        its = (
            None
            if zh or (fu.ref_text or "").lower() != "its"
            else re.search(r"\bits\s+([A-Za-z]+)", carry.original)
        )
        if its is not None:  # "and its invoice?" -> "and the invoice of order …?"
            o = carry.original
            carry.request = o[: its.start()] + f"the {its.group(1)} of {text}" + o[its.end() :]
        elif fu.ref_text and zh:
            carry.request = carry.original.replace(fu.ref_text, text, 1)
        elif fu.ref_text:  # a whole word: "it" is no part of "wait"
            pat = rf"(?<![A-Za-z]){re.escape(fu.ref_text)}(?![A-Za-z])"
            carry.request = re.sub(pat, lambda _: text, carry.original, count=1)

    # ----------------------------------------------------------------------- apply
    async def settle(
        self, carry: Carry | None, output: ThoughtPlan | InsufficientContext | None, replan: Any
    ) -> ThoughtPlan | InsufficientContext | None:
        """:meth:`apply`, then, for a later turn it left incomplete (or planned with no tool cue
        of its own), the session candidates of :mod:`tao.loop.candidates` (``replan(request)``
        plans one candidate request with the model)."""
        done = self.apply(carry, output)
        if carry is None or carry.settled:
            return done
        carry.settled = True
        from tao.loop.candidates import settle
        from tao.loop.label_values import clean_free_text

        done = await settle(self, carry, done, replan)
        if isinstance(done, ThoughtPlan):
            done, notes = clean_free_text(done, (carry.original, carry.request))
            carry.notes.extend(notes)
        return done

    def apply(
        self, carry: Carry | None, output: ThoughtPlan | InsufficientContext | None
    ) -> ThoughtPlan | InsufficientContext | None:
        """The model's output completed from the snapshot (see the module doc)."""
        if carry is None:
            return output
        if isinstance(output, ThoughtPlan):
            output = self._bare_month(carry, output)
        if carry.kind is CarryKind.NEW:
            # "物流到哪了" after an order: a request that only lacks ids the conversation holds
            if isinstance(output, InsufficientContext) and all(
                f.endswith("_id") and f in carry.slots for f in output.required_fields
            ):
                done = self._complete(carry, output, own_text=True)
                if isinstance(done, ThoughtPlan):
                    carry.notes.append("implicit reference: the missing ids are the conversation's")
                return done
            return output
        base = carry.base_steps
        if isinstance(output, ThoughtPlan):
            tools = [s.tool for s in output.steps]
            if base is not None and self.config.guard and tools != [s["tool"] for s in base]:
                carry.notes.append(
                    f"guard: plan tools {tools} differ from the snapshot's; edited snapshot plan used"
                )
                return self._plan_from(base, output.intent)
            if base is not None and tools == [
                s["tool"] for s in base
            ]:  # same tools: the carried values (time anchors) win over re-read ones
                return self._anchor(carry, output, base)
            return self._fill(carry, output)
        if base is not None:
            carry.notes.append("the model gave no plan; edited snapshot plan used")
            return self._plan_from(base, None)
        if isinstance(output, InsufficientContext):
            return self._complete(carry, output)
        return output

    def _bare_month(self, carry: Carry, plan: ThoughtPlan) -> ThoughtPlan:
        """A month the turn names alone ("我3月的报销", "invoices from April") put into the one
        unset argument that takes a month, on a step with no time argument set: perception binds
        months only with a year, so the model's plan leaves it out."""
        dates = [d for d in carry.followup.deltas if d.type == "DATE"]
        if len(dates) != 1 or not re.fullmatch(r"[0-9]{4}-[0-9]{2}", str(dates[0].value)):
            return plan
        month, steps, changed = dates[0].value, [], False
        for s in plan.steps:
            props = _props(self.schemas.get(s.tool, {}))
            args = dict(s.arguments)
            free = [k for k, p in props.items() if k not in args and accepts(p, month)]
            if len(free) == 1 and not any(k in props and _is_time(props[k]) for k in args):
                args[free[0]] = month
                carry.notes.append(f"month: {s.tool}.{free[0]} = {month!r} (the turn's bare month)")
                changed = True
            steps.append(s.model_copy(update={"arguments": args}))
        return plan.model_copy(update={"steps": steps}) if changed else plan

    def _anchor(self, carry: Carry, plan: ThoughtPlan, base: list[dict[str, Any]]) -> ThoughtPlan:
        """The model's plan of a swap with the edited snapshot's arguments: a relative phrase the
        rewrite kept ("明天") is not re-resolved against a later clock."""
        session = carry.session or SessionState()
        now = session_now(session)
        steps = []
        for s, b in zip(plan.steps, base):
            args = dict(s.arguments)
            for k, v in b["arguments"].items():
                if _resolve(args.get(k), session, now) != _resolve(v, session, now):
                    if k in args:
                        carry.notes.append(f"anchor: {s.tool}.{k} = {v!r} (the model read {args[k]!r})")
                    args[k] = v
            steps.append(s.model_copy(update={"arguments": args, "resolved_from": None}))
        return plan.model_copy(update={"steps": steps})

    def _plan_from(self, steps: list[dict[str, Any]], intent: str | None) -> ThoughtPlan:
        return ThoughtPlan.model_validate({"intent": intent or steps[0]["tool"], "steps": steps})

    def _slots_for(self, carry: Carry, tool: str) -> dict[str, Any]:
        schema = self.schemas.get(tool, {})
        props = _props(schema)
        out = {k: v for k, v in carry.slots.items() if k in props and accepts(props[k], v)}
        for d in carry.followup.deltas:
            names = _targets(d, schema, {})
            if names and d.type != "DATE":
                out[names[0]] = d.value
        return out

    def _fill(self, carry: Carry, plan: ThoughtPlan) -> ThoughtPlan:
        steps = []
        for s in plan.steps:
            schema = self.schemas.get(s.tool, {})
            req = set(schema.get("required") or [])
            slots = self._slots_for(carry, s.tool)
            args = dict(s.arguments)
            same_tool = s.tool in carry.prev_tools
            for k, v in slots.items():
                if k not in args and (k in req or same_tool):
                    args[k] = v
                    carry.notes.append(f"fill: {s.tool}.{k} from the snapshot")
            steps.append(s.model_copy(update={"arguments": args}))
        return plan.model_copy(update={"steps": steps})

    def _complete(
        self, carry: Carry, ins: InsufficientContext, own_text: bool = False
    ) -> ThoughtPlan | InsufficientContext:
        """The insufficient answer completed as the best tool whose required arguments the snapshot
        holds. ``own_text``: the turn is a request of its own (it only lacks ids), so free text the
        model did not ask for ("重新开一张，抬头改成李明": the title) is the turn's, never the
        snapshot's; the tool the model named cannot be swapped for another one then."""
        from tao.loop.label_values import labelled_fields

        best: tuple[tuple[int, int, int, int], str, dict[str, Any]] | None = None
        intent_words = set((ins.intent or "").split("_"))
        labelled = labelled_fields(carry.original) if own_text else {}
        for tool, schema in self.schemas.items():
            req = list(schema.get("required") or [])
            if not set(ins.required_fields) <= set(req) and ins.intent != tool:
                continue
            if own_text and ins.intent in self.schemas and tool != ins.intent:
                continue
            props = _props(schema)
            if own_text and any(k not in props for k in labelled):  # "抬头是张三": a tool with a title
                continue
            slots = self._slots_for(carry, tool)
            if own_text:
                slots = {
                    k: v
                    for k, v in slots.items()
                    if k in ins.required_fields
                    or k.endswith("_id")
                    or _is_time(props.get(k, {}))
                    or not isinstance(v, str)
                }
                slots.update(labelled)
            if not all(k in slots for k in req):
                continue
            ref_in = int(bool(carry.ref) and carry.ref["name"] in req) if carry.ref else 0
            own = sum(1 for d in carry.followup.deltas if d.type != "DATE" and _targets(d, schema, {}))
            score = (int(ins.intent == tool), ref_in, own, len(intent_words & set(tool.split("_"))))
            if best is None or score > best[0]:
                args = {k: v for k, v in slots.items() if k in req or tool in carry.prev_tools}
                best = (score, tool, args)
        if best is None or (best[0] == (0, 0, 0, 0)):
            carry.notes.append(f"insufficient {ins.required_fields}: the snapshot does not complete it")
            return ins
        _, tool, args = best
        carry.notes.append(f"insufficient {ins.required_fields}: completed from the snapshot as {tool}")
        return ThoughtPlan.model_validate(
            {"intent": ins.intent or tool, "steps": [{"step_id": "t1", "tool": tool, "arguments": args}]}
        )
