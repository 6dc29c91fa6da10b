"""Hybrid planning: split a request into clauses, plan each with the model, compose the plans.

:class:`ComposingEngine` wraps any :class:`~thought_model.engine.base.PlanEngine` (same
interface). For each request it runs perception once, splits the masked text into clauses
(:mod:`thought_model.clauses`) and sends the whole request *and* every clause to the inner engine
in one batched ``generate`` call. Then, per request:

1. a clause that came back ``insufficient_context`` is filled where it can be: a missing field is
   taken from a slot of another clause (``reserve it for an hour`` gets the ``<DATE1>`` of the
   clause before it), else from an earlier clause's step whose tool ``extract``\\ s a matching
   output (the registry's extract → argument graph the grammar's references use:
   ``get_user_profile.city`` → ``get_weather.city``, ``find_meeting_room.room_id`` →
   ``book_meeting_room.room_id``, ``submit_expense.expense_id`` → ``get_expense_status``). A
   reference is offered to the model as an extra slot of the field's kind (``reserve <ROOM1> for
   <DUR1> <DATE1>``) bound to the reference; all filled clauses are re-planned in one second
   batched call.
2. the clause plans are concatenated in clause order, renumbered ``t1..tN``, their dependencies and
   ``${tK.x}`` references rewritten; a reference slot becomes ``${tK.name}`` plus a dependency; a
   step that repeats an earlier one (same tool and arguments) is dropped.
3. acceptance: the composed plan replaces the whole-request plan only when every clause produced
   a plan (after filling), it has at most :data:`MAX_STEPS` steps and it has **more distinct tool
   calls** (or, at the same count, more distinct tools: "the profile twice, no weather") than the
   whole-request plan. When the whole-request output is itself
   ``insufficient_context`` and some clause misses a field no other clause or earlier step can
   provide, the result is ``insufficient_context`` with the union of the missing fields.

Otherwise the whole-request result (plan, insufficiency or typed error) is returned unchanged.

Two code checks sit around the model: after the first round, every ``insufficient_context`` (whole
request or clause) goes through :class:`~thought_model.sufficiency.SufficiencyCheck` — fields
corrected, or a re-decode with the insufficient branch masked (:attr:`ClauseRequest.plan_only`)
when the request grounds every required argument of the intent; and the whole-request plan is
cleaned by :func:`clean_plan` (repeated steps, a stray session-user chain) before acceptance.

The final plan then goes through deterministic passes (:meth:`ComposingEngine._finish`, round 10,
each switchable in :class:`ComposerConfig`): the named person instead of the speaker for "his /
她的" (:mod:`thought_model.referents`), one update per profile field (:mod:`thought_model.updates`),
status filters from the request's words (:mod:`thought_model.status_words`), steps the request
gives no word for dropped (:mod:`thought_model.evidence`) and one step per value of a coordinated
list (:mod:`thought_model.fanout`); on a user registry, the read the request asks of the last step's
result is appended (:mod:`thought_model.follow_on`). Before that, arguments the whole plan borrowed from another ask
are replaced by the clause plans' (:func:`~thought_model.clause_args.clause_grounded`), and when a clause failed the trailing
asks the whole plan dropped are appended (:meth:`ComposingEngine._with_trailing_asks`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, cast

from tao.contracts import InsufficientContext, ThoughtPlan, ToolSpec
from tao.contracts.domain import Lexicon, RequestExample
from thought_model.clause_args import clause_grounded
from thought_model.clause_codec import PLAN_ONLY_MARK, ClauseCodec, ClauseRequest, plan_only_schema
from thought_model.clause_fill import refills
from thought_model.clauses import Clause, split_request
from thought_model.compose_asks import _unfilled
from thought_model.compose_job import ComposeJob, ComposerConfig
from thought_model.compose_passes import ComposerPasses, _selection_only
from thought_model.engine.base import GenerationStats, PlanEngine, PlanRequest, PlanResult
from thought_model.entities import SLOT_TOKEN_RE, Perception, perceive
from thought_model.enum_required import must_write
from thought_model.enum_words import EnumWords
from thought_model.evidence import prune_unasked
from thought_model.item_lists import served_instead
from thought_model.linked_read import derive_links
from thought_model.perception.normalize import normalize_request
from thought_model.plan_clean import clean_plan
from thought_model.plan_concat import (
    MULTI_INTENT,
    concat,
    distinct_calls,
    distinct_tools,
    misread_ask,
    same_shape,
    with_trailing_asks,
)
from thought_model.reference_words import with_reference_zh
from thought_model.referents import person_lookup
from thought_model.registry_graph import (
    RegistryGraph,
    is_reference,
    is_reference_lexicon,
    plan_shape,
    reference_intent_shapes,
    reference_tools,
)
from thought_model.split_vocab import registry_split_vocab
from thought_model.sufficiency import SufficiencyCheck, reference_intent_steps
from thought_model.tool_cues import derive_cues, words

_reference_tools = reference_tools  # the name the tests and older callers import

__all__ = [
    "MULTI_INTENT",
    "PLAN_ONLY_MARK",
    "ClauseCodec",
    "ClauseRequest",
    "ComposerConfig",
    "ComposingEngine",
    "RegistryGraph",
    "clean_plan",
    "compose_enabled",
    "maybe_composing",
    "plan_only_schema",
    "plan_shape",
    "reference_intent_shapes",
]


class ComposingEngine(ComposerPasses, PlanEngine):
    """Clause split + per-clause planning + registry-graph composition around ``inner``."""

    name = "composing"

    def __init__(
        self,
        inner: PlanEngine,
        tools: Sequence[ToolSpec] | None = None,
        config: ComposerConfig | None = None,
        intent_shapes: dict[tuple, str] | None = None,
        splitter: Callable[[Perception], list[Clause]] = split_request,
        intent_steps: dict[str, list[tuple[str, dict[str, Any]]]] | None = None,
        value_words: dict[str, dict[str, list[str]]] | None = None,
        examples: Sequence[RequestExample] = (),
    ) -> None:
        self.inner = inner
        reference = tools is None
        if tools is None:
            tools = reference_tools()
        self.graph = RegistryGraph(tools)
        self.specs = list(tools)
        self.cfg = config or ComposerConfig()
        codec = getattr(inner, "codec", None)
        # a user registry: other tools, or the reference tools with a lexicon of their own (trained
        # from their contracts: its slot kinds are not the reference model's)
        own = not (reference or is_reference(tools)) or not is_reference_lexicon(
            getattr(codec, "lexicon", None)
        )
        if intent_steps is None:
            intent_steps = {} if own else reference_intent_steps()
        # a user registry's requests are perceived with its own lexicon (id kinds, name stop words,
        # text cues), as the inner codec does; the reference domain's with perception's default
        self.lexicon: Lexicon | None = getattr(codec, "lexicon", None) if own else None
        self.intent_tools = {name: {tool for tool, _ in steps} for name, steps in intent_steps.items()}
        self.sufficiency = SufficiencyCheck(
            tools,
            intent_steps,
            lexicon=self.lexicon,
            config=self.cfg.sufficiency,
            value_words=value_words,
            first_person_me=own,
        )
        self.intent_shapes = reference_intent_shapes() if intent_shapes is None else intent_shapes
        # a user registry: enum arguments from the request's words (its Domain.value_words), and
        # "his / her" is the person its lookup tool finds (find_user in the reference domain)
        self.enum_words = EnumWords(tools, value_words) if own and value_words else None
        # and a required enum argument every intent leaves to the request must be written in it
        self.must_write = must_write(tools, intent_steps) if self.enum_words is not None else {}
        self.person = person_lookup(tools, getattr(self.lexicon, "me_kind", None)) if own else None
        # and its tool words for the evidence rule, from its contracts, enum words and examples
        self.cues = derive_cues(tools, examples, value_words) if own else None
        # the dropped-ask rule's words, any registry (the reference one's also in Chinese)
        self.words = self.cues or (with_reference_zh(derive_cues(tools)) if not own else derive_cues(tools))
        # and its record -> record links (get_employee.manager_id -> get_employee.employee_id)
        self.links = derive_links(tools, examples, self.cues) if self.cues is not None else []
        if own and splitter is split_request:  # the registry's id kinds and tool-name words
            splitter = partial(split_request, vocab=registry_split_vocab(tools, self.lexicon))
        self.splitter = splitter
        if codec is not None and not isinstance(codec, ClauseCodec):
            cast(Any, inner).codec = ClauseCodec(codec)  # transparent for ordinary requests
        self.name = f"composing+{getattr(inner, 'name', 'engine')}"

    # -- interface -------------------------------------------------------------------------
    def generate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        rounds = self._rounds(requests)
        try:
            batch = next(rounds)
            while True:
                batch = rounds.send(self.inner.generate(batch))
        except StopIteration as done:
            return done.value

    async def agenerate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        """The same rounds with the inner engine's own ``agenerate``: each round's whole request and
        clauses go to the engine together (they join its running batch), no thread per request."""
        rounds = self._rounds(requests)
        try:
            batch = next(rounds)
            while True:
                batch = rounds.send(await self.inner.agenerate(batch))
        except StopIteration as done:
            return done.value

    def warm_up(self, *args: Any, **kwargs: Any) -> Any:
        """The inner engine's grammar warm-up (clause requests use the same grammars)."""
        warm = getattr(self.inner, "warm_up", None)
        return warm(*args, **kwargs) if callable(warm) else None

    def _rounds(
        self, requests: list[PlanRequest]
    ) -> Generator[list[PlanRequest], list[PlanResult], list[PlanResult]]:
        """The composer's engine rounds as a generator: it yields each batch of requests for the
        inner engine and is sent back their results (so sync and async callers share it)."""
        t0 = time.perf_counter()
        jobs = [self._job(r) for r in requests]
        batch: list[PlanRequest] = []
        where: list[tuple[int, int]] = []  # (job, -1 whole | clause index)
        for j, job in enumerate(jobs):
            batch.append(
                ClauseRequest(
                    job.req.text, job.req.session, job.req.tools, job.req.deadline_s, job.perception
                )
            )
            where.append((j, -1))
            for k, c in enumerate(job.clauses):
                batch.append(self._clause_request(job.req, c))
                where.append((j, k))
        results = yield batch
        for (j, k), res in zip(where, results, strict=True):
            job = jobs[j]
            _add_stats(job.stats, res.stats)
            if k < 0:
                job.whole = res
            else:
                job.parts[k] = _selection_only(job.clauses[k], res)
        # code-checked insufficiency: a model insufficient_context whose intent the request grounds
        # fully is re-decoded as a plan (one batched round); one naming the wrong fields is corrected
        batch, where = [], []
        for j, job in enumerate(jobs):
            for k in range(-1, len(job.clauses)):
                req = self._check_insufficient(job, k)
                if req is not None:
                    batch.append(req)
                    where.append((j, k))
        if batch:
            results = yield batch
            for (j, k), res in zip(where, results, strict=True):
                job = jobs[j]
                _add_stats(job.stats, res.stats)
                if res.ok and isinstance(res.output, ThoughtPlan):
                    if k < 0:
                        job.whole = res
                    else:
                        job.parts[k] = res
        # a user registry: a plan of tools the request has no word for, while it has words for
        # others, is re-decoded over those others ("請幫我重設VPN密碼" planned as an empty find)
        batch, where = [], []
        for j, job in enumerate(jobs):
            for k in range(-1, len(job.clauses)):
                req = self._check_evidence(job, k)
                if req is not None:
                    batch.append(req)
                    where.append((j, k))
        if batch:
            results = yield batch
            for (j, k), res in zip(where, results, strict=True):
                job = jobs[j]
                _add_stats(job.stats, res.stats)
                if res.ok:
                    if k < 0:
                        job.whole = res
                    else:
                        job.parts[k] = res
        # second round: clauses whose insufficiency other clauses / earlier steps can fill
        # (a second refill round lets a clause reference one that was itself filled in the first:
        # "look for a room for 5 … and reserve it for an hour")
        for _ in range(self.cfg.refill_rounds if self.cfg.refill else 0):
            batch, where = [], []
            for j, job in enumerate(jobs):
                for k, c in refills(job, self.graph):
                    job.clauses[k] = c
                    batch.append(self._clause_request(job.req, c))
                    where.append((j, k))
            if not batch:
                break
            results = yield batch
            for (j, k), res in zip(where, results, strict=True):
                _add_stats(jobs[j].stats, res.stats)
                jobs[j].parts[k] = res
        out = []
        ms = (time.perf_counter() - t0) * 1000.0
        for job in jobs:
            res = self._finish(job, self._compose(job))
            stats = GenerationStats(**{**job.stats.__dict__, "ms": ms})
            out.append(PlanResult(output=res.output, error=res.error, stats=stats, text=res.text))
        return out

    def close(self) -> None:
        self.inner.close()

    @property
    def ready(self) -> bool:
        return self.inner.ready

    @property
    def decode_process(self) -> Any:
        return self.inner.decode_process

    # -- steps -----------------------------------------------------------------------------
    def _better_worded(self, plan: ThoughtPlan, before: object, masked: str) -> bool:
        """Whether the clause plans, at the whole plan's size, swap the whole plan's tools for ones the
        request has words for ("pick my newest shipped order and cancel it": list + cancel, not list +
        logistics): each tool only the clause plans have has a word of its own in the request (a
        contract word no tool only the whole plan has shares), and no tool only the whole plan has
        does (``shipped`` is a word of both cancel and logistics: no evidence either way)."""
        ours, theirs = _tools(plan) - _tools(before), _tools(before) - _tools(plan)
        if not ours or not theirs:
            return False
        have = words(masked)
        cues = self.words.cues

        def own(t: str, others: set[str]) -> set[str]:
            return set(cues.get(t, ())) - set().union(*(cues.get(o, ()) for o in others))

        return all(own(t, theirs) & have for t in ours) and not any(own(t, ours) & have for t in theirs)

    def _served_instead(self, job: ComposeJob) -> None:
        """Clauses insufficient for a record id the registry serves otherwise: their list, or the read
        of the record another clause names (:mod:`thought_model.item_lists`)."""
        me = job.req.session.user_id if job.req.session is not None else None
        for k, p in enumerate(job.parts):
            if p is None or not isinstance(p.output, InsufficientContext):
                continue
            plan = served_instead(
                p.output, job.clauses[k], job.perception.slots, job.perception.masked, me, self.graph
            )
            if plan is not None:
                text = plan.model_dump_json(exclude={"thought_id", "created_at"})
                job.parts[k] = PlanResult(output=plan, stats=p.stats, text=text)

    def _asked_only(self, plan: object, job: ComposeJob) -> object:
        """``plan`` without the steps the evidence rule would drop (anything else unchanged)."""
        if not self.cfg.prune or not isinstance(plan, ThoughtPlan):
            return plan
        if self.cues is not None:
            return prune_unasked(
                plan, job.req.text, job.perception.slots, cues=self.cues, masked=job.perception.masked
            )
        return prune_unasked(plan, normalize_request(job.req.text), job.perception.slots)

    def _job(self, req: PlanRequest) -> ComposeJob:
        from thought_model.prompt import session_today

        user_known = bool(req.session is not None and req.session.user_id)
        p = perceive(
            req.text.strip(), today=session_today(req.session), user_known=user_known, lexicon=self.lexicon
        )
        job = ComposeJob(req=req, perception=p)
        if self.cfg.enabled:
            clauses = self.splitter(p)
            if len(clauses) > 1:
                job.clauses = clauses
                job.parts = [None] * len(clauses)
        return job

    def _compose(self, job: ComposeJob) -> PlanResult:
        if self.cfg.item_lists:
            self._served_instead(job)
        whole = job.whole or PlanResult()
        if self.cfg.clean_whole and whole.ok and isinstance(whole.output, ThoughtPlan):
            me = job.req.session.user_id if job.req.session is not None else None
            cleaned = clean_plan(whole.output, me, job.req.text, *(self.person or ()))
            if cleaned is not whole.output:
                text = cleaned.model_dump_json(exclude={"thought_id", "created_at"})
                whole = job.whole = replace(whole, output=cleaned, text=text)
        if not job.clauses:
            return whole
        if self.cfg.unservable_asks and any(
            p is not None and isinstance(p.output, InsufficientContext) for p in job.parts
        ):
            unservable = self._unservable_ask(job, whole)
            if unservable is not None:
                return unservable
        if any(p is None or not p.ok or isinstance(p.output, InsufficientContext) for p in job.parts):
            tail = with_trailing_asks(job, whole, self.cfg.max_steps) if self.cfg.trailing_asks else None
            if tail is not None:
                return tail
        if any(p is None or not p.ok for p in job.parts):
            return whole
        parts = [p for p in job.parts if p is not None]  # all of them (checked above)
        if any(isinstance(p.output, InsufficientContext) for p in parts):
            if self.cfg.union_insufficient and whole.ok and isinstance(whole.output, InsufficientContext):
                fields: list[str] = []
                for k, p in enumerate(parts):
                    if isinstance(p.output, InsufficientContext):
                        fields += _unfilled(job, self.graph, k, p.output.required_fields)
                fields = list(dict.fromkeys(fields))
                if fields:
                    job.how = "union"
                    ins = InsufficientContext(required_fields=fields, intent=whole.output.intent)
                    return PlanResult(output=ins, text=ins.model_dump_json(exclude_none=True))
            dropped = self._dropped_ask(job, whole) if self.cfg.dropped_asks else None
            return dropped if dropped is not None else whole
        plan = concat(job, [p.output for p in parts], self.cfg.max_steps, self.intent_shapes)  # type: ignore[misc]
        if plan is None:
            return whole
        before = whole.output if whole.ok else None
        borrowed = (
            self.cfg.misread_asks and isinstance(before, ThoughtPlan) and misread_ask(before, plan, job)
        )
        # compared as the final passes will leave them: steps the request never asks for do not count
        # ("email her …": a clause's stray list/track steps must not outnumber the whole plan's email)
        pruned, pruned_before = self._asked_only(plan, job), self._asked_only(before, job)
        if (
            not borrowed
            and distinct_calls(pruned) <= distinct_calls(pruned_before)
            and distinct_tools(pruned) <= distinct_tools(pruned_before)
            and not self._better_worded(plan, before, job.perception.masked)
        ):
            if self.cfg.prefer_clause_args and isinstance(before, ThoughtPlan) and same_shape(plan, before):
                merged = clause_grounded(before, plan, job.clauses, job.origin, job.req.text)
                if merged is not before:
                    job.how = "whole+clause-args"
                    return replace(
                        whole,
                        output=merged,
                        text=merged.model_dump_json(exclude={"thought_id", "created_at"}),
                    )
            return whole  # (more tools at the same call count: "the profile twice, no weather")
        job.how = "composed"
        return PlanResult(output=plan, text=plan.model_dump_json(exclude={"thought_id", "created_at"}))


def _tools(plan: object) -> set[str]:
    return {s.tool for s in plan.steps} if isinstance(plan, ThoughtPlan) else set()


def _add_stats(acc: GenerationStats, s: GenerationStats) -> None:
    acc.prompt_tokens += s.prompt_tokens
    acc.generated_tokens += s.generated_tokens
    acc.forward_passes += s.forward_passes
    acc.jump_forward_tokens += s.jump_forward_tokens


def slot_tokens_in(text: str) -> list[str]:
    return [m.group(0) for m in SLOT_TOKEN_RE.finditer(text)]


# --------------------------------------------------------------------------- selection
COMPOSE_ENV = "TAO_COMPOSE"
COMPOSE_DEFAULT = True
"""Whether ``load_engine`` wraps the engine in a :class:`ComposingEngine` when neither the caller
(``compose=``, ``--compose/--no-compose``) nor ``TAO_COMPOSE`` says. On: with the round-7 default
checkpoint the hybrid is exact on 53.8% of the independent set against 51.7% end to end
(coordinated requests 32.3% vs 20.0%) and on 91.7% of the old hand-written set against 87.9%, for
~3% more P50 latency at batch 1 (docs/model.md)."""


def compose_enabled(flag: bool | None = None) -> bool:
    """Whether the hybrid is selected: an explicit ``flag`` wins, else ``TAO_COMPOSE``
    (``1``/``true``/``on`` or ``0``/``false``/``off``), else :data:`COMPOSE_DEFAULT`."""
    if flag is not None:
        return flag
    import os

    env = os.environ.get(COMPOSE_ENV, "").strip().lower()
    if env in ("1", "true", "on", "yes"):
        return True
    if env in ("0", "false", "off", "no"):
        return False
    return COMPOSE_DEFAULT


def maybe_composing(
    engine: PlanEngine,
    enabled: bool | None = None,
    tools: Sequence[ToolSpec] | None = None,
    intent_steps: dict[str, list[tuple[str, dict[str, Any]]]] | None = None,
    value_words: dict[str, dict[str, list[str]]] | None = None,
    examples: Sequence[RequestExample] = (),
) -> PlanEngine:
    """``engine`` wrapped in a :class:`ComposingEngine` when the hybrid is selected, else as is
    (the hook for ``load_engine`` / the planner: one call after the engine is built);
    ``intent_steps`` / ``value_words``: the trained intents' plans and the enum words of a user
    registry (from its checkpoint), for the sufficiency check; ``examples``: its example requests
    (the evidence rule's tool words)."""
    if not compose_enabled(enabled):
        return engine
    return ComposingEngine(
        engine, tools, intent_steps=intent_steps, value_words=value_words, examples=examples
    )
