"""The composer's checks and final passes (:class:`ComposerPasses`, mixed into
:class:`thought_model.compose.ComposingEngine`): the sufficiency and evidence re-decodes of a result,
the dropped-ask rule, and the deterministic passes on the final plan (see the module doc of
:mod:`thought_model.compose` for where each runs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tao.contracts import InsufficientContext, PlanStep, ThoughtPlan, ToolSpec
from tao.contracts.domain import Lexicon
from thought_model.clause_codec import ClauseRequest
from thought_model.clauses import Clause, renumber
from thought_model.compose_asks import ComposerAsks
from thought_model.compose_job import ComposeJob, ComposerConfig
from thought_model.engine.base import PlanRequest, PlanResult
from thought_model.entities import Perception
from thought_model.enum_align import align_enums
from thought_model.enum_fanout import drop_unwritten_twins, enum_fan_out
from thought_model.enum_required import MustWrite, unwritten_required
from thought_model.enum_words import EnumWords, fix_enums
from thought_model.evidence import prune_unasked
from thought_model.expense_words import TOOL as EXPENSE_TOOL
from thought_model.expense_words import fix_category
from thought_model.fanout import fan_out
from thought_model.field_cues import swap_cued
from thought_model.follow_on import follow_on_read
from thought_model.invitees import attach_invitees
from thought_model.linked_asks import linked_asks
from thought_model.linked_read import Link, linked_read
from thought_model.paired import paired_fan_out
from thought_model.perception.normalize import normalize_request
from thought_model.periods import fix_periods
from thought_model.person_calendar import person_calendar
from thought_model.plan_clean import clean_plan
from thought_model.referents import third_person_user
from thought_model.registry_graph import (
    RegistryGraph,
)
from thought_model.same_value import same_values
from thought_model.selection import is_selection
from thought_model.status_question import status_not_tracking
from thought_model.status_words import fix_status
from thought_model.step_order import clause_order
from thought_model.sufficiency import Decision, Judgement, SufficiencyCheck
from thought_model.tool_cues import ToolCues
from thought_model.uncued_text import uncued_text, written_as
from thought_model.unnamed_person import unnamed_other
from thought_model.updates import profile_updates


class ComposerPasses(ComposerAsks):
    """The composer's per-result checks and final-plan passes; state is the engine's (set in
    :meth:`thought_model.compose.ComposingEngine.__init__`)."""

    cfg: ComposerConfig
    graph: RegistryGraph
    specs: list[ToolSpec]
    sufficiency: SufficiencyCheck
    intent_tools: dict[str, set[str]]
    enum_words: EnumWords | None
    must_write: MustWrite
    person: tuple[str, str] | None
    cues: ToolCues | None
    words: ToolCues
    links: list[Link]
    lexicon: Lexicon | None

    def _check_insufficient(self, job: ComposeJob, k: int) -> ClauseRequest | None:
        """Apply :class:`~thought_model.sufficiency.SufficiencyCheck` to the whole result
        (``k = -1``) or clause ``k``: correct the named fields in place, or return the plan-only
        request to re-decode."""
        res = job.whole if k < 0 else job.parts[k]
        if res is None or not res.ok or not isinstance(res.output, InsufficientContext):
            return None
        user_known = bool(job.req.session is not None and job.req.session.user_id)
        req = (
            ClauseRequest(job.req.text, job.req.session, job.req.tools, job.req.deadline_s, job.perception)
            if k < 0
            else self._clause_request(job.req, job.clauses[k])
        )
        slots = list(req.perception.slots) if req.perception is not None else []
        masked = req.perception.masked if req.perception is not None else None
        verdict = self.sufficiency.judge(res.output, slots, user_known, masked)
        if verdict.decision is not Decision.REPLAN and req.perception is not None:
            described = self._with_uncued_text(job, req, res.output, verdict, user_known)
            if described is not None:
                job.described.add(k)
                return described
            own = self._chain_fields(res.output, verdict, slots, user_known, masked)
            if own is not None:  # "replace my laptop please": the device is the speaker's; the reason
                fixed = replace(res, output=own, text=own.model_dump_json(exclude_none=True))  # is missing
                if k < 0:
                    job.whole = fixed
                else:
                    job.parts[k] = fixed
                return None
        if verdict.decision is Decision.FIELDS:
            ins = self.sufficiency.corrected(res.output, verdict)
            fixed = replace(res, output=ins, text=ins.model_dump_json(exclude_none=True))
            if k < 0:
                job.whole = fixed
            else:
                job.parts[k] = fixed
            return None
        if verdict.decision is not Decision.REPLAN:
            return None
        tools = list(verdict.tools) if self.cfg.sufficiency.restrict_tools else req.tools
        if tools is not None and job.req.tools is not None:
            tools = [t for t in tools if t in job.req.tools]
            if not tools:
                return None
        return replace(req, tools=tools, plan_only=True)

    def _chain_fields(
        self,
        out: InsufficientContext,
        verdict: Judgement,
        slots: list[str],
        user_known: bool,
        masked: str | None,
    ) -> InsufficientContext | None:
        """The answer without the ids that the chain the examples teach for its tool provides
        (:meth:`~thought_model.sufficiency.SufficiencyCheck.chained_intents`) when that chain is
        grounded and only free text is left missing: "request a replacement device for me" misses
        the reason, not the asset tag (``list_devices(<ME>)`` finds it); None otherwise."""
        fields = set(verdict.missing or out.required_fields)
        texts = self.sufficiency.text_fields(verdict.tools)
        ids = fields - texts
        if self.cues is None or not user_known or not ids or not fields & texts:
            return None  # (a user registry's: the reference intents name their own fields)
        for name in self.sufficiency.chained_intents(out.intent or "", ids):
            o = InsufficientContext(required_fields=sorted(fields & texts), intent=name)
            j = self.sufficiency.judge(o, slots, user_known, masked)
            if j.missing and set(j.missing) <= texts:
                return InsufficientContext(required_fields=list(j.missing), intent=name)
        return None

    def _with_uncued_text(
        self,
        job: ComposeJob,
        req: ClauseRequest,
        out: InsufficientContext,
        verdict: Judgement,
        user_known: bool,
    ) -> ClauseRequest | None:
        """The plan-only re-decode of a request whose only missing fields are free text (a reason, a
        summary) and that describes its problem without a cue (:mod:`thought_model.uncued_text`):
        the description becomes a ``<TEXTn>`` slot."""
        p = req.perception
        if p is None or not verdict.tools:
            return None
        fields = set(verdict.missing or out.required_fields)
        texts = self.sufficiency.text_fields(verdict.tools)
        if not fields or not fields & texts:
            return None
        # an id it also misses may come from the chain the examples teach for the tool ("屏幕碎了，帮我
        # 申请换一台": list_devices(<ME>) -> request_device_replacement(${t1.asset_tag}, <TEXT1>))
        outs = (
            [out]
            if fields <= texts
            else [
                InsufficientContext(required_fields=sorted(fields & texts), intent=name)
                for name in self.sufficiency.chained_intents(out.intent or "", fields - texts)
            ]
        )
        if not outs:
            return None
        described = self._described(job, p, verdict.tools)
        if described is None:
            return None
        # (judged on the text as written: "公司网络" inside the description still writes the category)
        again = next(
            (
                j
                for o in outs
                if (j := self.sufficiency.judge(o, list(described.slots), user_known, p.masked)).decision
                is Decision.REPLAN
            ),
            None,
        )
        if again is None:
            return None
        tools = list(again.tools) if self.cfg.sufficiency.restrict_tools else req.tools
        if tools is not None and job.req.tools is not None:
            tools = [t for t in tools if t in job.req.tools] or None
            if tools is None:
                return None
        job.descriptions.append(str(described.slots["<TEXT1>"]))
        return replace(req, perception=described, tools=tools, plan_only=True)

    def _described(self, job: ComposeJob, p: Perception, tools: Sequence[str]) -> Perception | None:
        """``p`` (the whole request's or a clause's perception) with the request's uncued description
        as a ``<TEXT1>`` slot, when it has no free text, ``tools`` take one and the description is
        written in ``p``'s text; else None. The description is found on the whole request (a clause
        may be the description alone: "my monitor <ASSET1> has a dead pixel line", its ask "swap it
        out?" the next clause)."""
        if any(s.startswith("<TEXT") for s in p.slots) or not self.sufficiency.text_fields(tools):
            return None
        ask_words = set().union(*(self.words.cues.get(t, frozenset()) for t in tools))
        value = uncued_text(
            job.perception.masked, ask_words, field_words=self.sufficiency.choice_words(tools)
        )
        if value is None or value not in p.masked:
            return None
        slots = {**p.slots, "<TEXT1>": written_as(job.req.text, value)}
        # as perception masks a free text it finds (the lexicon's show_free_text: "<TEXT1>「…」"),
        # so the re-decode reads like the training rows whose free text the generator labelled
        shown = (
            f"<TEXT1>「{value}」" if self.lexicon is not None and self.lexicon.show_free_text else "<TEXT1>"
        )
        return replace(p, masked=p.masked.replace(value, shown, 1), slots=slots)

    def _described_literal(self, plan: ThoughtPlan, job: ComposeJob) -> ThoughtPlan:
        """The one free-text argument of ``plan`` the model wrote as a piece of the request (a
        truncated ``笔记本连不上公司``, a city ``Singapore`` as the reason) replaced by the request's
        uncued description (:mod:`thought_model.uncued_text`), when perception found no free text."""
        p = job.perception
        if any(t.startswith("<TEXT") for t in p.slots):
            return plan
        request = normalize_request(job.req.text).casefold()
        spots = [
            (i, arg)
            for i, st in enumerate(plan.steps)
            for arg in sorted(self.sufficiency.text_fields([st.tool]))
            if isinstance(v := st.arguments.get(arg), str) and v.strip() and v.casefold() in request
        ]
        if len(spots) != 1:
            return plan
        i, arg = spots[0]
        step = plan.steps[i]
        value = uncued_text(
            p.masked,
            self.words.cues.get(step.tool, frozenset()),
            field_words=self.sufficiency.choice_words([step.tool]),
        )
        if value is None or value == step.arguments[arg]:
            return plan
        steps = list(plan.steps)
        steps[i] = step.model_copy(
            update={"arguments": {**step.arguments, arg: written_as(job.req.text, value)}}
        )
        return plan.model_copy(update={"steps": steps})

    def _check_evidence(self, job: ComposeJob, k: int) -> ClauseRequest | None:
        """The request (whole ``k = -1`` or clause ``k``) re-decoded over the tools its words
        evidence, when its plan has none of them (a user registry's derived cues only)."""
        res = job.whole if k < 0 else job.parts[k]
        if self.cues is None or not self.cfg.reroute or res is None or not res.ok or k in job.described:
            return None  # (a plan re-decoded with its uncued description is the intent's own)
        if not isinstance(res.output, ThoughtPlan) or not res.output.steps:
            return None
        req = (
            ClauseRequest(job.req.text, job.req.session, job.req.tools, job.req.deadline_s, job.perception)
            if k < 0
            else self._clause_request(job.req, job.clauses[k])
        )
        masked = req.perception.masked if req.perception is not None else req.text
        cued = self.cues.cued_tools(masked)
        if job.req.tools is not None:
            cued = [t for t in cued if t in job.req.tools]
        if not cued or any(s.tool in cued for s in res.output.steps):
            return None
        described = self._described(job, req.perception, cued) if req.perception is not None else None
        if described is not None:  # "Excel keeps freezing …. Could you log a software ticket?"
            return replace(req, tools=cued, perception=described)
        return replace(req, tools=cued)

    @staticmethod
    def _clause_request(req: PlanRequest, c: Clause) -> ClauseRequest:
        """A clause as a request; its slots renumbered from 1 per kind as in training prompts
        (values are literal after parsing, so the numbering never reaches the output)."""
        rc, _ = renumber(c)
        return ClauseRequest(req.text, req.session, req.tools, req.deadline_s, rc.perception())

    def _finish(self, job: ComposeJob, res: PlanResult) -> PlanResult:
        """The code passes on the final plan: the named person instead of the speaker for "his /
        她的", steps nobody asked for dropped, then fan-out over coordinated lists of values; last, a step
        that repeats an earlier one (same tool and arguments) is dropped, its references moved."""
        if res.ok and isinstance(res.output, InsufficientContext):
            ins = self.sufficiency.with_unwritten_choices(res.output, job.perception.masked)
            return (
                res
                if ins is res.output
                else replace(res, output=ins, text=ins.model_dump_json(exclude_none=True))
            )
        if not res.ok or not isinstance(res.output, ThoughtPlan):
            return res
        plan = attach_invitees(res.output, self.specs, job.perception)  # "… and invite X": a split ask
        plan = self._described_literal(plan, job)  # a reason the model copied in part: the description
        me = job.req.session.user_id if job.req.session is not None else None
        if self.cfg.referents:
            if self.person is not None:
                me_field, finder = self.person
                named = third_person_user(
                    plan, job.req.text, me, job.perception.slots, me_field, finder, self.specs
                )
            else:
                named = third_person_user(plan, job.req.text, me, job.perception.slots, tools=self.specs)
            if named is not plan:
                plan = clean_plan(named, None, job.req.text)  # the repeats it made (profile twice)
        if self.cfg.profile_updates:
            plan = profile_updates(plan, job.perception.masked, job.perception.slots, me)
        if self.person is not None and self.cfg.clean_whole:  # a composed plan strays to the speaker too
            plan = clean_plan(plan, me, job.req.text, *self.person)
            other = (
                unnamed_other(plan, job.req.text, job.perception.slots, me, self.person[0])
                if self.cfg.unnamed_others
                else None
            )
            if other is not None:  # "reset my teammate's password": whose?
                return replace(res, output=other, text=other.model_dump_json(exclude_none=True))
        if self.cfg.prune and self.cues is not None:  # before the enum check: no system for an unasked reset
            # an uncued description the composer found is a value of the request as a slot is: the
            # step that holds it is asked for ("屏幕碎了，帮我申请换一台" has no word of the replacement's)
            slots = {**job.perception.slots, **{f"<TEXT{90 + i}>": d for i, d in enumerate(job.descriptions)}}
            plan = prune_unasked(plan, job.req.text, slots, cues=self.cues, masked=job.perception.masked)
        if self.cfg.status_words:
            plan = fix_status(plan, job.perception.masked)  # normalized: typos of status words fixed
            plan = status_not_tracking(plan, normalize_request(job.req.text))
            if self.enum_words is not None:
                plan = fix_enums(plan, job.perception.masked, self.enum_words)
                plan = align_enums(plan, job.perception, self.enum_words)  # E1's vpn and E2's email
                plan = drop_unwritten_twins(plan, job.perception.masked, self.enum_words)
                if self.cfg.fan_out:  # "reset my email and wifi passwords": one reset per system
                    plan = enum_fan_out(plan, job.perception.masked, self.enum_words)
                ins = unwritten_required(plan, job.perception.masked, self.enum_words, self.must_write)
                if ins is not None:
                    return replace(res, output=ins, text=ins.model_dump_json(exclude_none=True))
        if self.cfg.prune and self.cues is None:
            plan = prune_unasked(plan, normalize_request(job.req.text), job.perception.slots)  # typos fixed
        if self.cfg.fan_out:
            plan = fan_out(plan, job.perception)
        if self.cfg.paired:
            plan = paired_fan_out(plan, job.perception)
        if self.cues is None and sum(st.tool == EXPENSE_TOOL for st in plan.steps) > 1:
            # several expenses: each its own category
            plan = fix_category(plan, job.perception.masked, job.perception.slots)
        if self.cfg.periods:
            plan = fix_periods(plan, job.perception)
        plan = clean_plan(plan, None, job.req.text)  # any registry: a step never repeats an earlier one
        # "Subject: <TEXT1>. Body: <TEXT2>.": each text in the field it follows
        plan = swap_cued(plan, job.perception.masked, job.perception.slots)
        plan = same_values(plan, self.graph.tools)  # "抬头一样", "the same title"; no empty lookups
        if self.cfg.linked_asks:  # (keyed on the reference tools: other registries are left alone;
            # a model of those tools trained from their contracts gets them too)
            # "find a room … and book it", "weather where she lives", "<NAME1>明天有啥会"
            plan = linked_asks(plan, job.req.text, job.perception.slots)
            plan = person_calendar(plan, job.perception.masked, job.perception.slots)
        if self.cfg.follow_on and self.cues is not None:  # "…, then tell me who it got assigned to"
            plan = follow_on_read(
                plan, job.req.text, job.perception.masked, self.specs, self.graph, self.cues
            )
        if self.cfg.linked_read and self.cues is not None and self.links:  # "my manager's email"
            plan = linked_read(plan, job.req.text, self.links, self.cues)
        if self.cfg.clause_order:  # independent asks in the request's order
            plan = clause_order(plan, [_steps_of(p) for p in job.parts])
        if plan is res.output:
            return res
        return replace(res, output=plan, text=plan.model_dump_json(exclude={"thought_id", "created_at"}))


def _selection_only(clause: Clause, res: PlanResult) -> PlanResult:
    """A selection clause ("my latest delivered order") finds the item: its plan is the list step
    only (the model often adds a reader of the item the rest of the request does not ask for)."""
    plan = res.output
    if not res.ok or not isinstance(plan, ThoughtPlan) or len(plan.steps) < 2:
        return res
    if plan.steps[0].dependencies or not is_selection(clause.masked):
        return res
    kept = plan.model_copy(update={"steps": plan.steps[:1]})
    return replace(res, output=kept, text=kept.model_dump_json(exclude={"thought_id", "created_at"}))


def _steps_of(part: PlanResult | None) -> list[PlanStep] | None:
    """A clause result's plan steps (None: no plan)."""
    return list(part.output.steps) if part is not None and isinstance(part.output, ThoughtPlan) else None
