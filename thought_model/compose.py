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
list (:mod:`thought_model.fanout`). Before that, arguments the whole plan borrowed from another ask
are replaced by the clause plans' (:func:`~thought_model.clause_args.clause_grounded`), and when a clause failed the trailing
asks the whole plan dropped are appended (:meth:`ComposingEngine._with_trailing_asks`).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from tao.contracts import InsufficientContext, PlanStep, ThoughtPlan, ToolSpec
from tao.contracts.domain import Lexicon
from tao.contracts.plan import MAX_STEPS, REF_PATTERN
from thought_model.clause_args import clause_grounded
from thought_model.clauses import Clause, is_zh, renumber, split_request
from thought_model.engine.base import GenerationStats, PlanEngine, PlanRequest, PlanResult
from thought_model.entities import ME_SLOT, SLOT_TOKEN_RE, Perception, perceive
from thought_model.evidence import prune_unasked
from thought_model.fanout import fan_out
from thought_model.referents import third_person_user
from thought_model.status_words import fix_status
from thought_model.sufficiency import (
    Decision,
    SufficiencyCheck,
    SufficiencyConfig,
    reference_intent_steps,
)
from thought_model.updates import profile_updates

MULTI_INTENT = "multi_task"
_REF_MARK = "\x00ref:"  # value of a reference slot: \x00ref:<clause>:<step index>:<output>


# --------------------------------------------------------------------------- codec adapter
@dataclass
class ClauseRequest(PlanRequest):
    """A plan request whose perception is already done (a clause, or the whole request)."""

    perception: Perception | None = None
    plan_only: bool = False  # decode with the insufficient-context branch of the grammar masked


PLAN_ONLY_MARK = "\x00plan-only"
"""Added to a plan-only request's slot set by :class:`ClauseCodec` (the engines key their grammar
cache by (tools, slots) and pass the slots to ``codec.schema``): the schema then has no
insufficient-context branch."""


def plan_only_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its insufficient-context alternative (unchanged if it has no plan one)."""
    opts = schema.get("anyOf")
    if not isinstance(opts, list):
        return schema
    keep = [o for o in opts if "error" not in (o.get("properties") or {})]
    return {**schema, "anyOf": keep} if keep and len(keep) < len(opts) else schema


class ClauseCodec:
    """Wraps an engine codec: a :class:`ClauseRequest` is prompted from its own perception (masked
    text and slots as given); every other request goes to the wrapped codec unchanged."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def prepare(self, request: PlanRequest) -> tuple[str, Any]:
        p = getattr(request, "perception", None)
        if p is None:
            return self.inner.prepare(request)
        from thought_model.prompt import BOS_TOKEN, ME_MARK, NO_USER, PLAN_MARK

        user_known = bool(request.session is not None and request.session.user_id)
        return f"{BOS_TOKEN}{p.masked}{ME_MARK}{ME_SLOT if user_known else NO_USER}{PLAN_MARK}", p

    def schema(self, tools, slots=None):
        if slots is not None and PLAN_ONLY_MARK in slots:
            return plan_only_schema(self.inner.schema(tools, frozenset(slots - {PLAN_ONLY_MARK})))
        return self.inner.schema(tools, slots)

    def slots(self, request, ctx):
        slots = self.inner.slots(request, ctx)
        if getattr(request, "plan_only", False) and slots is not None:
            return frozenset(slots) | {PLAN_ONLY_MARK}
        return slots

    def parse(self, text, request, ctx=None):
        return self.inner.parse(text, request, ctx)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


# --------------------------------------------------------------------------- registry graph
def _nonnull(prop: dict[str, Any]) -> dict[str, Any]:
    for key in ("anyOf", "oneOf"):
        if key in prop:
            opts = [s for s in prop[key] if s.get("type") != "null"]
            if len(opts) == 1:
                return {**{k: v for k, v in prop.items() if k != key}, **opts[0]}
    return prop


def _base(pattern: str | None) -> str | None:
    if not pattern:
        return None
    base = pattern.replace(f"|({REF_PATTERN})", "")
    if base != pattern and base.startswith("(") and base.endswith(")"):
        base = base[1:-1]
    return base


class RegistryGraph:
    """Which slot kinds fill an argument, and which earlier outputs may feed it (``extract``)."""

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        from thought_model.grammar import SLOT_SAMPLES

        self.tools = {t.name: t for t in tools}
        self.props: dict[str, dict[str, Any]] = {}
        for t in tools:
            for n, p in t.args_schema.get("properties", {}).items():
                self.props.setdefault(n, _nonnull(p))
        self._samples = SLOT_SAMPLES

    def slot_kinds(self, name: str) -> list[str]:
        """Slot kinds that can fill the argument ``name`` (best first)."""
        prop = self.props.get(name, {})
        pattern = prop.get("pattern")
        if pattern:
            kinds = [k for k, ss in self._samples.items() if any(re.search(pattern, s) for s in ss)]
            if kinds or f"|({REF_PATTERN})" not in pattern:
                return kinds
            # a free-text field that also takes a reference (get_weather.city): by name below
        typ = prop.get("type")
        if typ == "integer":
            return ["DUR"] if "dur" in name else ["NUM", "DUR"]
        if typ == "number":
            return ["AMOUNT"]
        if typ == "array":
            return ["NAME"]
        if "enum" in prop or typ == "boolean":
            return []
        by_name = {"city": "CITY", "name": "NAME", "value": "TEXT"}
        return [by_name.get(name, "TEXT")]

    def outputs_for(self, name: str) -> set[str]:
        """Output names (``extract`` keys) that may feed the argument ``name``: its own name, or
        arguments with the same base pattern (``to`` ← ``email``)."""
        base = _base(self.props.get(name, {}).get("pattern"))
        names = {name}
        if base:
            names |= {n for n, p in self.props.items() if _base(p.get("pattern")) == base}
        return names

    def provider(self, tool: str, name: str) -> str | None:
        """The output of ``tool`` that can feed argument ``name`` (None if it extracts none)."""
        spec = self.tools.get(tool)
        if spec is None:
            return None
        outs = self.outputs_for(name)
        for o in [name, *sorted(outs - {name})]:
            if o in spec.extract:
                return o
        return None


def _reference_tools() -> list[ToolSpec]:
    from tao.domains.reference.registry import reference_tools

    return reference_tools()


def reference_intent_shapes() -> dict[tuple, str]:
    """Plan shape (tools and dependency positions) → intent, for the multi-step intents of the
    reference domain (used to name a composed plan whose clauses reference each other)."""
    from tao.domains.reference.phrasing.intents import INTENTS

    shapes: dict[tuple, list[str]] = {}
    for spec in INTENTS:
        if len(spec.steps) < 2:
            continue
        key = tuple((tool, tuple(int(d[1:]) - 1 for d in deps)) for tool, _, deps in spec.steps)
        shapes.setdefault(key, []).append(spec.name)
    return {k: v[0] for k, v in shapes.items() if len(v) == 1}


def plan_shape(plan: ThoughtPlan) -> tuple:
    idx = {s.step_id: i for i, s in enumerate(plan.steps)}
    return tuple((s.tool, tuple(sorted(idx[d] for d in s.dependencies))) for s in plan.steps)


# --------------------------------------------------------------------------- filling
_ZH_PRONOUN = re.compile(r"那里|那边|那儿|该订单|这个订单|这单|该单|它的|他的|她的|它|他|她")
_THERE = re.compile(r"那里|那边|那儿|\bthere\b", re.I)
_EN_PRONOUN = re.compile(r"\b(?:it|there|that one|them|its|their|his|her)\b", re.I)


def _kind(tok: str) -> str:
    return re.sub(r"[0-9<>]", "", tok)


@dataclass
class _Fill:
    text_slots: dict[str, Any]  # token -> value added to the clause
    missing: list[str]  # fields nothing can provide


def _free_token(kind: str, used: set[str]) -> str:
    for i in range(9, 0, -1):
        tok = f"<{kind}{i}>"
        if tok not in used:
            return tok
    raise ValueError("no free slot token")


def _augment(clause: Clause, adds: list[tuple[str, Any, bool]]) -> Clause:
    """The clause with extra slots: (token, value, replace-a-pronoun)."""
    text = clause.masked
    zh = is_zh(text)
    slots = dict(clause.slots)
    for tok, value, pronoun in adds:
        rx = _THERE if _kind(tok) == "CITY" else _ZH_PRONOUN if zh else _EN_PRONOUN
        if pronoun and rx.search(text):
            text = rx.sub(tok, text, count=1)
        else:
            text = f"{text}，{tok}" if zh else f"{text} {tok}"
        slots[tok] = value
    return Clause(masked=text, slots=slots)


# --------------------------------------------------------------------------- the engine
@dataclass
class ComposerConfig:
    enabled: bool = True
    max_steps: int = MAX_STEPS
    refill: bool = True  # re-plan insufficient clauses with slots from other clauses / references
    refill_rounds: int = 2  # at most this many extra batched engine calls per generate()
    union_insufficient: bool = False  # whole insufficient + unfillable clause -> union of fields
    # (off: on the hand-written set it fixed no row and broke one)
    sufficiency: SufficiencyConfig = field(default_factory=SufficiencyConfig)
    clean_whole: bool = True  # whole-request plan: drop repeated steps and a stray session-user chain
    fan_out: bool = True  # final plan: one step per value of a coordinated list (thought_model.fanout)
    prune: bool = True  # final plan: drop steps the request gives no word for (thought_model.evidence)
    profile_updates: bool = True  # final plan: one update_user_profile per field the request sets
    status_words: bool = True  # final plan: list steps' status from the request's words
    referents: bool = True  # final plan: "his / 她的" is the named person's id, not the speaker's
    trailing_asks: bool = True  # a clause failed: still add the last clauses' asks the whole plan lacks
    prefer_clause_args: bool = True  # same tools, order and links as the whole plan: the clauses' arguments
    # code checks the model's insufficient_context answers (thought_model.sufficiency)


@dataclass
class _Job:
    req: PlanRequest
    perception: Perception
    clauses: list[Clause] = field(default_factory=list)
    whole: PlanResult | None = None
    parts: list[PlanResult | None] = field(default_factory=list)
    stats: GenerationStats = field(default_factory=GenerationStats)
    how: str = "whole"
    borrowed: dict[int, set[int]] = field(default_factory=dict)  # clause -> clauses it took slots from
    located: set[int] = field(default_factory=set)  # clauses whose "there" was resolved once
    origin: dict[str, int] = field(default_factory=dict)  # composed step id -> the clause that planned it


class ComposingEngine(PlanEngine):
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
    ) -> None:
        self.inner = inner
        reference = tools is None
        if tools is None:
            tools = _reference_tools()
        self.graph = RegistryGraph(tools)
        self.cfg = config or ComposerConfig()
        own = not (reference or _is_reference(tools))  # a user registry
        if intent_steps is None:
            intent_steps = {} if own else reference_intent_steps()
        codec = getattr(inner, "codec", None)
        # a user registry's requests are perceived with its own lexicon (id kinds, name stop words,
        # text cues), as the inner codec does; the reference domain's with perception's default
        self.lexicon: Lexicon | None = getattr(codec, "lexicon", None) if own else None
        self.sufficiency = SufficiencyCheck(
            tools, intent_steps, lexicon=self.lexicon, config=self.cfg.sufficiency, value_words=value_words
        )
        self.intent_shapes = reference_intent_shapes() if intent_shapes is None else intent_shapes
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
                job.parts[k] = res
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
        # second round: clauses whose insufficiency other clauses / earlier steps can fill
        # (a second refill round lets a clause reference one that was itself filled in the first:
        # "look for a room for 5 … and reserve it for an hour")
        for _ in range(self.cfg.refill_rounds if self.cfg.refill else 0):
            batch, where = [], []
            for j, job in enumerate(jobs):
                for k, c in self._refills(job):
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

    # -- steps -----------------------------------------------------------------------------
    def _job(self, req: PlanRequest) -> _Job:
        from thought_model.prompt import session_today

        user_known = bool(req.session is not None and req.session.user_id)
        p = perceive(
            req.text.strip(), today=session_today(req.session), user_known=user_known, lexicon=self.lexicon
        )
        job = _Job(req=req, perception=p)
        if self.cfg.enabled:
            clauses = self.splitter(p)
            if len(clauses) > 1:
                job.clauses = clauses
                job.parts = [None] * len(clauses)
        return job

    def _check_insufficient(self, job: _Job, k: int) -> ClauseRequest | None:
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

    @staticmethod
    def _clause_request(req: PlanRequest, c: Clause) -> ClauseRequest:
        """A clause as a request; its slots renumbered from 1 per kind as in training prompts
        (values are literal after parsing, so the numbering never reaches the output)."""
        rc, _ = renumber(c)
        return ClauseRequest(req.text, req.session, req.tools, req.deadline_s, rc.perception())

    def _refills(self, job: _Job) -> list[tuple[int, Clause]]:
        """Clauses to re-plan with slots taken from other clauses or references to earlier steps."""
        if not job.clauses:
            return []
        out: list[tuple[int, Clause]] = []
        for k, res in enumerate(job.parts):
            if res is not None and isinstance(res.output, ThoughtPlan) and k not in job.located:
                # "顺便看看那里明天天气" / "weather there": the place is the city an earlier
                # clause names or a step of it extracts; the model cannot resolve "there" alone
                clause = job.clauses[k]
                if _THERE.search(clause.masked) and not any(_kind(t) == "CITY" for t in clause.slots):
                    add = self._fill_one(job, k, "city", set(clause.slots))
                    job.located.add(k)
                    if add is not None:
                        out.append((k, _augment(clause, [add])))
                continue
            if res is None or not isinstance(res.output, InsufficientContext):
                continue
            adds: list[tuple[str, Any, bool]] = []
            used = set(job.clauses[k].slots)
            fillable = True
            for f in res.output.required_fields:
                add = self._fill_one(job, k, f, used)
                if add is None:
                    fillable = False
                    break
                adds.append(add)
                used.add(add[0])
            if fillable and adds:
                out.append((k, _augment(job.clauses[k], adds)))
        return out

    def _fill_one(self, job: _Job, k: int, f: str, used: set[str]) -> tuple[str, Any, bool] | None:
        kinds = self.graph.slot_kinds(f)
        if f == "user_id" and job.req.session is not None and job.req.session.user_id:
            kinds = [x for x in kinds if x != "USER"] or kinds
        # nearest earlier clause first; a later clause only for a clause that has slots of its own
        # (an ask with one argument said later: "look for a room … and reserve it for an hour")
        order = list(range(k - 1, -1, -1))
        if job.clauses[k].slots:
            order += list(range(k + 1, len(job.clauses)))
        for j in order:  # a slot of the field's kind from another clause (nearest earlier first)
            for tok, v in job.clauses[j].slots.items():
                if _kind(tok) in kinds and tok not in used:
                    job.borrowed.setdefault(k, set()).add(j)
                    return tok, v, True
        for j in range(k - 1, -1, -1):  # a reference to an earlier clause's step that extracts it
            res = job.parts[j]
            if res is None or not isinstance(res.output, ThoughtPlan):
                continue
            for i in range(len(res.output.steps) - 1, -1, -1):
                o = self.graph.provider(res.output.steps[i].tool, f)
                if o and kinds:
                    return _free_token(kinds[0], used), f"{_REF_MARK}{j}:{i}:{o}", True
        return None

    def _finish(self, job: _Job, res: PlanResult) -> PlanResult:
        """The code passes on the final plan: the named person instead of the speaker for "his /
        她的", steps nobody asked for dropped, then fan-out over coordinated lists of values."""
        if not res.ok or not isinstance(res.output, ThoughtPlan):
            return res
        plan = res.output
        me = job.req.session.user_id if job.req.session is not None else None
        if self.cfg.referents:
            named = third_person_user(plan, job.req.text, me, job.perception.slots)
            if named is not plan:
                plan = clean_plan(named, None, job.req.text)  # the repeats it made (profile twice)
        if self.cfg.profile_updates:
            plan = profile_updates(plan, job.perception.masked, job.perception.slots, me)
        if self.cfg.status_words:
            plan = fix_status(plan, job.req.text)
        if self.cfg.prune:
            plan = prune_unasked(plan, job.req.text, job.perception.slots)
        if self.cfg.fan_out:
            plan = fan_out(plan, job.perception)
        if plan is res.output:
            return res
        return replace(res, output=plan, text=plan.model_dump_json(exclude={"thought_id", "created_at"}))

    def _compose(self, job: _Job) -> PlanResult:
        whole = job.whole or PlanResult()
        if self.cfg.clean_whole and whole.ok and isinstance(whole.output, ThoughtPlan):
            me = job.req.session.user_id if job.req.session is not None else None
            cleaned = clean_plan(whole.output, me, job.req.text)
            if cleaned is not whole.output:
                text = cleaned.model_dump_json(exclude={"thought_id", "created_at"})
                whole = job.whole = replace(whole, output=cleaned, text=text)
        if not job.clauses:
            return whole
        if any(p is None or not p.ok or isinstance(p.output, InsufficientContext) for p in job.parts):
            tail = self._with_trailing_asks(job, whole) if self.cfg.trailing_asks else None
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
                        used = set(job.clauses[k].slots)
                        fields += [
                            f for f in p.output.required_fields if self._fill_one(job, k, f, used) is None
                        ]
                fields = list(dict.fromkeys(fields))
                if fields:
                    job.how = "union"
                    ins = InsufficientContext(required_fields=fields, intent=whole.output.intent)
                    return PlanResult(output=ins, text=ins.model_dump_json(exclude_none=True))
            return whole
        plan = self._concat(job, [p.output for p in parts])  # type: ignore[misc]
        if plan is None:
            return whole
        before = whole.output if whole.ok else None
        if _distinct_calls(plan) <= _distinct_calls(before) and _distinct_tools(plan) <= _distinct_tools(
            before
        ):
            if self.cfg.prefer_clause_args and isinstance(before, ThoughtPlan) and _same_shape(plan, before):
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

    def _with_trailing_asks(self, job: _Job, whole: PlanResult) -> PlanResult | None:
        """The whole plan plus the last clauses' plans it lacks, when some clause failed (so no
        composition): a trailing clause that planned tools the whole plan has none of, without
        references, is an ask the whole plan dropped ("find a room …, book it, 再建个日程叫周会":
        "book it" came back insufficient alone, the whole plan had find + book only)."""
        if not whole.ok or not isinstance(whole.output, ThoughtPlan):
            return None
        have = {s.tool for s in whole.output.steps}
        tail: list[ThoughtPlan] = []
        for p in reversed(job.parts):
            out = p.output if p is not None and p.ok else None
            if not isinstance(out, ThoughtPlan) or {s.tool for s in out.steps} & have:
                break
            if any(s.dependencies or any(_has_ref(v) for v in s.arguments.values()) for s in out.steps):
                break
            tail.insert(0, out)
        if not tail:
            return None
        steps = list(whole.output.steps)
        for out in tail:
            for s in out.steps:
                steps.append(s.model_copy(update={"step_id": f"t{len(steps) + 1}"}))
        if len(steps) > self.cfg.max_steps:
            return None
        plan = whole.output.model_copy(update={"steps": steps, "intent": MULTI_INTENT})
        job.how = "whole+trailing"
        return PlanResult(output=plan, text=plan.model_dump_json(exclude={"thought_id", "created_at"}))

    @staticmethod
    def _about_someone_else(job: _Job, k: int, plan: ThoughtPlan) -> bool:
        """A clause with no slot of its own that says "him/her/their" but was planned for the
        session user (``给我他的资料`` after the person was named): a restatement, not a new ask."""
        clause = job.clauses[k]
        me = job.req.session.user_id if job.req.session is not None else None
        if clause.slots or not me:
            return False
        rx = re.compile(r"他|她|它|其|各自|\b(?:him|her|his|their|them|its?|each|both)\b", re.I)
        uses_me = any(v == me for s in plan.steps for v in s.arguments.values())
        return bool(rx.search(clause.masked)) and uses_me

    def _concat(self, job: _Job, plans: list[ThoughtPlan]) -> ThoughtPlan | None:
        steps: list[PlanStep] = []
        seen: dict[str, str] = {}  # canonical (tool, args) -> global id
        contributing: list[int] = []  # clauses that added at least one new step
        by_index: list[list[str]] = []
        cross = False
        for k, plan in enumerate(plans):
            ids: dict[str, str] = {}
            idx: list[str] = []
            lender_tools = {s.tool for j in job.borrowed.get(k, ()) for s in plans[j].steps}
            if lender_tools & {s.tool for s in plan.steps} or self._about_someone_else(job, k, plan):
                # a clause that took arguments from another clause and plans the same tool is a
                # fragment of that clause's ask ("…, invite Alice and Bob"): contributes nothing
                by_index.append([])
                continue
            for s in plan.steps:
                deps = [ids[d] for d in s.dependencies if d in ids]
                args: dict[str, Any] = {}
                for a, v in s.arguments.items():
                    try:
                        v, extra = _rewrite(v, ids, by_index)
                    except IndexError:  # a reference into a clause dropped as a fragment
                        return None
                    if extra:
                        cross = True
                    deps += [d for d in extra if d not in deps]
                    args[a] = v
                key = json.dumps([s.tool, args], sort_keys=True, ensure_ascii=False)
                same = seen.get(key) or _same_ask(s.tool, args, deps, steps)
                if same:  # a repeated ask (or a fragment of an earlier one): reuse that step
                    ids[s.step_id] = same
                    idx.append(same)
                    continue
                gid = f"t{len(steps) + 1}"
                if len(steps) >= self.cfg.max_steps:
                    return None
                if not contributing or contributing[-1] != k:
                    contributing.append(k)
                steps.append(PlanStep(step_id=gid, tool=s.tool, arguments=args, dependencies=deps))
                job.origin[gid] = k
                seen[key] = gid
                ids[s.step_id] = gid
                idx.append(gid)
            by_index.append(idx)
        if len(contributing) <= 1:
            intent = plans[contributing[0] if contributing else 0].intent
        else:
            intent = MULTI_INTENT
        try:
            plan = ThoughtPlan(intent=intent, steps=steps)
        except ValueError:
            return None
        if cross:
            named = self.intent_shapes.get(plan_shape(plan))
            if named:
                plan = plan.model_copy(update={"intent": named})
        return plan


_FIRST_PERSON = re.compile(r"我|咱|\b(?:i|i'm|i've|me|my|mine|myself|we|us|our)\b", re.I)


def _mentions(v: Any, value: str) -> bool:
    if isinstance(v, list):
        return any(_mentions(x, value) for x in v)
    return v == value


def clean_plan(plan: ThoughtPlan, me: str | None, text: str) -> ThoughtPlan:
    """The whole-request plan without what the model repeated or strayed into (``plan`` itself
    when nothing is dropped):

    * a step with the same tool and arguments as an earlier one (``update phone, update city,
      update phone``): later references and dependencies point to the earlier step;
    * steps for the session user (``<ME>``), and the steps that depend on them, in a plan that
      also serves someone else (a ``find_user`` step, another user id) when the request never
      speaks of the speaker ("track down the account tied to <PHONE1> and run through its
      purchase history" planned a second ``list_orders`` for the caller)."""
    alias: dict[str, str] = {}
    seen: dict[str, str] = {}
    for s in plan.steps:
        key = json.dumps([s.tool, s.arguments], sort_keys=True, ensure_ascii=False)
        if key in seen:
            alias[s.step_id] = seen[key]
        else:
            seen[key] = s.step_id
    drop = set(alias)
    if me and not _FIRST_PERSON.search(text):
        mine = {s.step_id for s in plan.steps if any(_mentions(v, me) for v in s.arguments.values())}
        for s in plan.steps:  # and what depends on them
            if set(s.dependencies) & mine:
                mine.add(s.step_id)
        other = any(
            s.step_id not in mine
            and (
                s.tool == "find_user"
                or any(a == "user_id" and isinstance(v, str) and v != me for a, v in s.arguments.items())
            )
            for s in plan.steps
        )
        if mine and other:
            drop |= mine - set(alias.values())
    if not drop:
        return plan
    kept = [s for s in plan.steps if s.step_id not in drop]
    if not kept:
        return plan
    new_id = {s.step_id: f"t{i}" for i, s in enumerate(kept, 1)}
    for a, b in alias.items():
        if b in new_id:
            new_id[a] = new_id[b]

    def ref(v: Any) -> Any:
        if isinstance(v, list):
            return [ref(x) for x in v]
        m = re.fullmatch(REF_PATTERN, v) if isinstance(v, str) else None
        if m is None:
            return v
        if m.group(1) not in new_id:
            raise KeyError(m.group(1))
        return f"${{{new_id[m.group(1)]}.{m.group(2)}}}"

    steps = []
    try:
        for s in kept:
            deps = []
            for d in s.dependencies:
                if d not in new_id:
                    raise KeyError(d)
                if new_id[d] not in deps:
                    deps.append(new_id[d])
            args = {a: ref(v) for a, v in s.arguments.items()}
            steps.append(
                s.model_copy(update={"step_id": new_id[s.step_id], "arguments": args, "dependencies": deps})
            )
        return plan.model_copy(update={"steps": steps})
    except (KeyError, ValueError):  # a kept step needs a dropped one: keep the model's plan
        return plan


def _is_reference(tools: Sequence[ToolSpec]) -> bool:
    """Whether ``tools`` are the reference domain's (its intent plans then apply)."""
    names = {t.name for t in tools}
    return bool(names) and names <= {t.name for t in _reference_tools()}


def _same_ask(tool: str, args: dict[str, Any], deps: list[str], steps: list[PlanStep]) -> str | None:
    """The id of an earlier step this one only repeats, merging arguments in place:

    * same tool and no conflicting argument values (``get_weather(city)`` after
      ``get_weather(city, date)``; ``create_calendar_event`` with the attendees added): the
      earlier step takes the union of both argument sets;
    * a step that re-reads what it references (``get_user_profile(user_id=${t2.user_id})`` where
      t2 is ``get_user_profile``): the referenced step."""
    by_id = {s.step_id: s for s in steps}
    refs = [re.fullmatch(REF_PATTERN, v) if isinstance(v, str) else None for v in args.values()]
    if args and all(m is not None for m in refs):
        targets = {m.group(1) for m in refs if m}
        if len(targets) == 1:
            t = by_id.get(next(iter(targets)))
            if (
                t is not None
                and t.tool == tool
                and all(m is not None and m.group(2) == a for a, m in zip(args, refs, strict=True))
            ):
                return t.step_id
    for s in reversed(steps):
        if s.tool != tool:
            continue
        shared = set(s.arguments) & set(args)
        if all(s.arguments[a] == args[a] for a in shared):
            s.arguments.update({a: v for a, v in args.items() if a not in s.arguments})
            s.dependencies.extend(d for d in deps if d not in s.dependencies and d < s.step_id)
            return s.step_id
        return None
    return None


def _rewrite(v: Any, ids: dict[str, str], by_index: list[list[str]]) -> tuple[Any, list[str]]:
    """Rewrite local references and reference slots; returns (value, extra dependencies)."""
    if isinstance(v, list):
        out, extra = [], []
        for x in v:
            y, e = _rewrite(x, ids, by_index)
            out.append(y)
            extra += e
        return out, extra
    if not isinstance(v, str):
        return v, []
    if v.startswith(_REF_MARK):
        j, i, o = v[len(_REF_MARK) :].split(":", 2)
        gid = by_index[int(j)][int(i)]
        return f"${{{gid}.{o}}}", [gid]
    m = re.fullmatch(REF_PATTERN, v)
    if m and m.group(1) in ids:
        return f"${{{ids[m.group(1)]}.{m.group(2)}}}", []
    return v, []


def _has_ref(v: Any) -> bool:
    if isinstance(v, list):
        return any(_has_ref(x) for x in v)
    return isinstance(v, str) and (v.startswith(_REF_MARK) or re.fullmatch(REF_PATTERN, v) is not None)


def _same_shape(plan: ThoughtPlan, other: Any) -> bool:
    """Same tools in the same order with the same dependency positions (arguments aside)."""
    return isinstance(other, ThoughtPlan) and plan_shape(plan) == plan_shape(other)


def _distinct_calls(out: Any) -> int:
    if not isinstance(out, ThoughtPlan):
        return 0
    return len({json.dumps([s.tool, s.arguments], sort_keys=True, ensure_ascii=False) for s in out.steps})


def _distinct_tools(out: Any) -> int:
    return len({s.tool for s in out.steps}) if isinstance(out, ThoughtPlan) else 0


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
) -> PlanEngine:
    """``engine`` wrapped in a :class:`ComposingEngine` when the hybrid is selected, else as is
    (the hook for ``load_engine`` / the planner: one call after the engine is built);
    ``intent_steps`` / ``value_words``: the trained intents' plans and the enum words of a user
    registry (from its checkpoint), for the sufficiency check."""
    if not compose_enabled(enabled):
        return engine
    return ComposingEngine(engine, tools, intent_steps=intent_steps, value_words=value_words)
