"""The read the request asks of what the plan's last step makes or finds (a user registry).

"open a software ticket: X, then tell me who it got assigned to", "申请更换 AT-…，申请完查一下对应工单的
状态", "E…'s newest waiting ticket, and tell me the assignee": the model plans the write (or the list) and
drops the read of its result. The rule comes from the contracts only: a read tool ``R`` that is not in the
plan and whose one required argument the last step's ``extract`` feeds (``get_ticket.ticket_id`` <-
``create_ticket`` / ``list_tickets``) is appended, reading ``${tN.output}``, when the request has a
word of ``R`` that is not a word of the last step's tool (``assignee``, ``状态``; never ``ticket``).
Words inside the plan's own values (a summary, a reason: "not working") are no evidence. A read
producer (a list) feeds a read only when the request selects one item ("newest", "最近那个").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tao.contracts import ThoughtPlan, ToolSpec
from tao.contracts.tools import Permission
from thought_model.plan_edit import Draft, build, drafts
from thought_model.registry_graph import RegistryGraph
from thought_model.tool_cues import ToolCues, words

_ONE_ITEM = re.compile(
    r"\b(?:latest|newest|most\s+rec[ea]?nt|last|recent)\b|最新|最近|最后|最後|上一|刚才|剛才", re.I
)
"""Words that select one item of a list (any registry): "my newest ticket", "我最近那个工单"."""
_QUESTION = re.compile(
    r"\b(?:who|whom|what|how|where)\b|\?|？|谁|誰|哪|如何|怎么|怎麼|怎样|怎樣|什么|什麼", re.I
)
"""A question about the one item selected ("我最近那个工单现在谁在跟"): it asks the item's read."""


_DONE = re.compile(
    r"[，,；;]\s*(?:[\u4e00-\u9fff]{1,3}(?:完|好)(?:了)?(?=之后|以后|後|后|[，,。\s]|顺便|順便|帮|幫|再|就|告诉|告訴|看|查|$)|(?:提交|申请|申請|开|開)(?:之后|以后|後|后))"
)
"""A free text's trailing "申请完 / 开完 / 提交后 …" piece: the next ask (its read), not the text."""


def _trim(plan: ThoughtPlan, graph: RegistryGraph) -> ThoughtPlan:
    """The free-text arguments (no pattern, no enum) of a step another step reads, cut before an
    "after it's done" piece ("屏幕碎了，申请完" -> "屏幕碎了")."""
    read = {d for s in plan.steps for d in s.dependencies}
    steps = []
    for s in plan.steps:
        args = dict(s.arguments)
        if s.step_id in read:
            for a, v in args.items():
                prop = graph.props.get(a, {})
                if isinstance(v, str) and prop.get("type") == "string" and not prop.get("pattern"):
                    m = None if prop.get("enum") else _DONE.search(v)
                    if m is not None and m.start() > 0:
                        args[a] = v[: m.start()].rstrip()
        steps.append(s.model_copy(update={"arguments": args}))
    return plan.model_copy(update={"steps": steps})


def _before_done(value: str) -> str:
    """``value`` cut before its "after it's done" piece (:data:`_DONE`), if it has one."""
    m = _DONE.search(value)
    return value[: m.start()].rstrip() if m is not None and m.start() > 0 else value


def _values(plan: ThoughtPlan) -> list[str]:
    out: list[str] = []
    for s in plan.steps:
        for v in s.arguments.values():
            for x in v if isinstance(v, list) else [v]:
                if isinstance(x, str) and len(x) > 1 and not x.startswith("${"):
                    out.append(x)
    return out


def _without(text: str, values: Sequence[str]) -> str:
    for v in sorted(values, key=len, reverse=True):
        text = text.replace(v, " ")
    return text


def _stray(step: Any, spec: ToolSpec | None, have: set[str], known: frozenset[str], cues: ToolCues) -> bool:
    """A trailing independent read the request has no word of its own for: no arguments though its
    tool takes some (``find_employee({})``), or its words in the request are all ``known`` (the
    producer's and the added read's: list_devices for "who it got *assigned* to")."""
    if spec is None or spec.permission is not Permission.READ or step.dependencies:
        return False
    if not step.arguments:
        return bool(spec.args_schema.get("properties"))
    return not (cues.cues.get(step.tool, frozenset()) & have) - known


def follow_on_read(
    plan: ThoughtPlan,
    text: str,
    masked: str,
    specs: Sequence[ToolSpec],
    graph: RegistryGraph,
    cues: ToolCues,
) -> ThoughtPlan:
    """:func:`_follow_on`, then :func:`_trim` of the free text of a step that a later step reads."""
    out = _follow_on(plan, text, masked, specs, graph, cues)
    trimmed = _trim(out, graph)
    return out if trimmed == out else trimmed


def _follow_on(
    plan: ThoughtPlan,
    text: str,
    masked: str,
    specs: Sequence[ToolSpec],
    graph: RegistryGraph,
    cues: ToolCues,
) -> ThoughtPlan:
    """``plan`` with the read of its last step's result appended (see the module doc); a stray
    trailing read after that step (:func:`_stray`) gives way to it."""
    planned = {s.tool for s in plan.steps}
    # a free text that swallowed the next ask ("需要共享盘的写权限，开完帮我看看状态") is evidence up to
    # its "开完" piece only: the words after it are the request's own
    values = [_before_done(v) for v in _values(plan)]
    plain = _without(text, values)
    have = words(_without(masked, values)) | words(plain)
    one_item = _ONE_ITEM.search(text) is not None
    rewired = _rewire(plan, have, graph, cues)
    if rewired is not None:
        return rewired
    for back in (1, 2):
        if len(plan.steps) < back:
            return plan
        last = plan.steps[-back]
        producer = graph.tools.get(last.tool)
        if producer is None or not producer.extract:
            continue
        if producer.permission is Permission.READ and not one_item:
            continue
        asked = producer.permission is Permission.READ and _QUESTION.search(plain) is not None
        mine = cues.cues.get(last.tool, frozenset())
        # a word another planned tool has too is that tool's ("look up <NAME1>'s devices" is no
        # "look at the ticket"): only the reader's own words ask for it
        kept_tools = {s.tool for s in plan.steps[: len(plan.steps) - back + 1]}  # (a stray tail gives way)
        theirs = frozenset().union(*(cues.cues.get(t, frozenset()) for t in kept_tools))
        for spec in specs:
            required: list[str] = list(spec.args_schema.get("required", []))
            if spec.name in planned or spec.permission is not Permission.READ or len(required) != 1:
                continue
            out = graph.provider(last.tool, required[0])
            reader = cues.cues.get(spec.name, frozenset())
            if out is None or not (asked or (reader - mine - theirs) & have):
                continue
            tail = plan.steps[len(plan.steps) - back + 1 :]
            if any(not _stray(t, graph.tools.get(t.tool), have, reader | mine, cues) for t in tail):
                continue
            args: dict[str, Any] = {required[0]: f"${{{last.step_id}.{out}}}"}
            kept = drafts(plan)[: len(plan.steps) - back + 1]
            return build(plan, [*kept, Draft("_read", spec.name, args, [last.step_id])]) or plan
    return plan


def _rewire(plan: ThoughtPlan, have: set[str], graph: RegistryGraph, cues: ToolCues) -> ThoughtPlan | None:
    """``[…, P, L, R(${L.x})]`` with ``L`` a stray read (:func:`_stray`) and ``P`` a write that also
    extracts ``x``: ``R`` reads what ``P`` made ("replace AT-…, then check the status of the ticket that
    opens": no list_tickets between). None when the plan is not of that shape."""
    if len(plan.steps) < 3:
        return None
    p, lst, r = plan.steps[-3:]
    producer = graph.tools.get(p.tool)
    if producer is None or producer.permission is Permission.READ or r.dependencies != [lst.step_id]:
        return None
    refs = [
        (a, v) for a, v in r.arguments.items() if isinstance(v, str) and v.startswith(f"${{{lst.step_id}.")
    ]
    if len(refs) != 1 or len(r.arguments) != 1:
        return None
    arg = refs[0][0]
    out = graph.provider(p.tool, arg)
    known = cues.cues.get(p.tool, frozenset()) | cues.cues.get(r.tool, frozenset())
    if out is None or not _stray(lst, graph.tools.get(lst.tool), have, known, cues):
        return None
    kept = drafts(plan)[:-2]
    return build(plan, [*kept, Draft("_read", r.tool, {arg: f"${{{p.step_id}.{out}}}"}, [p.step_id])])
