"""The composer's insufficiency rules for multi-part requests (:class:`ComposerAsks`, mixed into
:class:`thought_model.compose.ComposingEngine` through
:class:`thought_model.compose_passes.ComposerPasses`): a clause's ask the whole-request plan leaves
out while it lacks a value nothing else provides (:meth:`ComposerAsks._dropped_ask`), and a write ask
that cannot run without its value (:meth:`ComposerAsks._unservable_ask`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tao.contracts import InsufficientContext, ThoughtPlan
from tao.contracts.tools import Permission
from thought_model.clause_fill import fill_one
from thought_model.compose_job import ComposeJob, ComposerConfig
from thought_model.engine.base import PlanResult
from thought_model.evidence import CUES as EVIDENCE_CUES
from thought_model.evidence import evidenced
from thought_model.perception.normalize import to_simplified
from thought_model.plan_concat import MULTI_INTENT
from thought_model.reference_words import REFERENCE_ZH_WRITE_ASKS
from thought_model.registry_graph import RegistryGraph
from thought_model.tool_cues import ToolCues, words


class ComposerAsks:
    """Insufficiency of a multi-part request; state is the engine's."""

    cfg: ComposerConfig
    graph: RegistryGraph
    intent_tools: dict[str, set[str]]
    cues: ToolCues | None
    words: ToolCues

    def _worded(self, tool: str, masked: str) -> bool:
        """Whether ``masked`` has a word of ``tool`` (False for a tool without cue words)."""
        if tool in EVIDENCE_CUES and self.cues is None:  # the reference domain's hand-written words
            return evidenced(tool, masked)
        return bool(self.words.cues.get(tool)) and self.words.evidenced(tool, masked)

    def _unservable_ask(self, job: ComposeJob, whole: PlanResult) -> PlanResult | None:
        """``insufficient_context`` when a clause asks a write ("给订单 <ORDER1> 开个发票", "cancel my
        latest order") that lacks a required value nothing else provides and the whole-request plan
        has no step of that write tool: a write without its value cannot run, so the request as a
        whole is insufficient (BRIEF: a multi-part request missing a value for any part). Also a
        clause about the speaker's own records ("我最近的订单", "my orders") when the session has no
        user: ``user_id``."""
        if not whole.ok or not isinstance(whole.output, ThoughtPlan):
            return None  # an insufficient whole result is the sufficiency check's to correct
        planned = {s.tool for s in whole.output.steps}
        user_known = bool(job.req.session is not None and job.req.session.user_id)
        fields: list[str] = []
        for k, p in enumerate(job.parts):
            out = p.output if p is not None else None
            if not isinstance(out, InsufficientContext):
                continue
            masked = job.clauses[k].masked
            if not user_known and list(out.required_fields) == ["user_id"] and _FIRST_PERSON.search(masked):
                fields.append("user_id")
                continue
            writes = {
                t
                for t in self.intent_tools.get(out.intent or "", set())
                if (spec := self.graph.tools.get(t)) is not None and spec.permission is not Permission.READ
            }
            if not writes or writes & planned or not any(self._write_worded(t, masked) for t in writes):
                continue
            required = {f for t in writes for f in self.graph.tools[t].args_schema.get("required", [])}
            given = {_kind(t) for t in job.perception.slots}  # a value anywhere in the request
            fields += [
                f
                for f in _unfilled(job, self.graph, k, out.required_fields)
                if f in required and not given & set(self.graph.slot_kinds(f))
            ]
        if not fields:
            return None
        job.how = "unservable-ask"
        ins = InsufficientContext(required_fields=list(dict.fromkeys(fields)), intent=MULTI_INTENT)
        return PlanResult(output=ins, text=ins.model_dump_json(exclude_none=True))

    def _write_worded(self, tool: str, masked: str) -> bool:
        """Whether ``masked`` has a word of the write ``tool`` that no read tool of the registry has
        ("开票", "issue", "cancel"; not "发票" / "invoice", which a read of the invoice shares)."""
        reads = [
            ws
            for t, ws in self.words.cues.items()
            if (spec := self.graph.tools.get(t)) is not None and spec.permission is Permission.READ
        ]
        own = self.words.cues.get(tool, frozenset()).difference(*reads)
        if own & words(masked):
            return True
        zh = REFERENCE_ZH_WRITE_ASKS.get(tool) if self.cues is None else None  # the reference registry
        return zh is not None and zh.search(to_simplified(masked)) is not None

    def _dropped_ask(self, job: ComposeJob, whole: PlanResult) -> PlanResult | None:
        """``insufficient_context`` when the whole-request plan leaves out the ask of a clause that
        lacks a value nothing else provides ("reset my VPN password and then open a ticket": the
        ticket's content): the tools of the clause's intent, which its words evidence, have no step in
        the plan."""
        if not whole.ok or not isinstance(whole.output, ThoughtPlan):
            return None
        planned = {s.tool for s in whole.output.steps}
        fields: list[str] = []
        for k, p in enumerate(job.parts):
            out = p.output if p is not None else None
            if not isinstance(out, InsufficientContext):
                continue
            tools = self.intent_tools.get(out.intent or "", set())
            masked = job.clauses[k].masked
            asked = any(self._worded(t, masked) for t in tools)
            # the clause's words are of that ask ("what's the email" asks for no replacement)
            served = any(self._worded(t, masked) for t in planned - tools)
            # a planned step is of the clause's words: the clause model misread its intent
            if tools and asked and not tools & planned and not served:
                fields += _unfilled(job, self.graph, k, out.required_fields)
        if not fields:
            return None
        job.how = "dropped-ask"
        ins = InsufficientContext(required_fields=list(dict.fromkeys(fields)), intent=whole.output.intent)
        return PlanResult(output=ins, text=ins.model_dump_json(exclude_none=True))


_FIRST_PERSON = re.compile(r"我|\bmy\b|\bmine\b|\bI\b", re.I)


def _kind(tok: str) -> str:
    return re.sub(r"[0-9<>]", "", tok)


def _unfilled(job: ComposeJob, graph: RegistryGraph, k: int, fields: Sequence[str]) -> list[str]:
    used = set(job.clauses[k].slots)
    return [f for f in fields if fill_one(job, graph, k, f, used) is None]
