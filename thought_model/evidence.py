"""Evidence rule: a step the request gives no word for, and that no later step needs, is dropped.

The model sometimes adds a step of a familiar chain that nobody asked for: ``get_invoice`` after
``create_invoice``, ``get_order_status`` between ``list_orders`` and the act, ``get_logistics``
before a cancel, ``list_calendar_events`` before a weather ask that mentions a trip, a second
``list_orders`` next to orders given by id. Code can see that the request never speaks of it:

* each tool of :data:`CUES` has its words (zh after traditional -> simplified, en case-folded);
  a step of such a tool whose words the request lacks is **unevidenced** (tools not listed are
  always evidenced: their arguments come from the request's own slots);
* an unevidenced step that no later step needs is dropped;
* an unevidenced **pass-through** (a reader whose every later use is the very id it was given:
  ``get_order_status(order_id=${t1.order_id})`` used only as ``${t2.order_id}``) is dropped and
  its users take its input instead;
* a list step (``list_orders``) next to steps that act on ids of its kind given in the request,
  that nothing needs and that the request does not ask to list ("cancel orders <ORDER1> and
  <ORDER2>"), is dropped too.

A user registry has no hand-written words: its cues are derived from its contracts and examples
(:mod:`thought_model.tool_cues`) and matched against the masked request. A plan is never emptied; the result is rebuilt and renumbered (:mod:`thought_model.plan_edit`).
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.perception.normalize import to_simplified
from thought_model.plan_edit import Draft, build, drafts, points_to, ref_of
from thought_model.status_words import without_status_words
from thought_model.tool_cues import ToolCues

_INVOICE = r"invo|invi(?!t)|\bbill\b|receipt|票|发漂|发飘"
CUES: dict[str, re.Pattern[str]] = {
    name: re.compile(rx, re.I)
    for name, rx in {
        "get_invoice": (
            r"\b(?:show|see|view|display|read|open|pull|look|check|verify|review|details?|amount|total|status"
            r"|what'?s on|how much)\b|看|查|显示|核|瞧|瞅|详情|明细|金额|状态|内容|信息|多少"
        ),
        "get_order_invoice": _INVOICE,
        "list_orders": (
            r"order|ordr|purchas|bought|\bbuy|package|parcel|deliver|ship|transit|refund|cancel"
            r"|单|购|买|包裹|快递|货|物流|退款|取消"
        ),
        "list_invoices": _INVOICE,
        "get_logistics": (
            r"ship|deliver|track|logistic|carrier|courier|parcel|package|\beta\b|arriv|where|transit|dispatch"
            r"|sent out|on its way|物流|快递|配送|发货|寄|到哪|运输|包裹|送到|派送|签收|在路上|到了没|到没到|货"
        ),
        "list_expenses": r"expen|claim|reimburs|报(?!告)|费用|审批|到账",
        "get_expense_status": (
            r"expen|claim|reimburs|status|approv|stand|where|paid|报(?!告)|审批|状态|进度|到账|批|到哪|怎么样"
        ),
        "list_calendar_events": (
            r"calendar|schedule|agenda|event|meeting|busy|\bfree\b|plans|booked|appointment|diary|what'?s on"
            r"|日程|日历|安排|会议|开会|行程|忙|有空|空闲|活动|档期|会"
        ),
        "list_user_calendar_events": (
            r"calendar|schedule|agenda|event|meeting|busy|\bfree\b|plans|booked|appointment|diary|what'?s on"
            r"|日程|日历|安排|会议|开会|行程|忙|有空|空闲|活动|档期|会"
        ),
        "book_meeting_room": (
            r"\bbook|reserve|\bgrab|\bhold\b|secure|\btake\b|set aside|lock|claim|\bget\b|订(?!单)|定|占|锁|留|约|都要|要了|要个|弄个|搞个"
            r"|拿下"
        ),
        "get_user_profile": (
            r"profile|detail|info|account|e-?mail|phone|number|city|live|tier|member|contact|address|who\b"
            r"|\buser|资料|档案|信息|邮箱|电话|手机|城市|住|会员|等级|联系|是谁|账户|账号|哪位|谁|用户"
        ),
        "get_order_status": (
            r"status|state|stand|progress|where|how'?s|how is|going on|amount|total|price|cost|full"
            r"|状态|进度|情况|怎么样|咋样|如何|到哪|处理|金额|多少|全额|全款"
        ),
    }.items()
}
"""Words that evidence a step of the tool (any of them anywhere in the request)."""

PASS_ONLY = frozenset({"get_order_status"})
"""Tools whose unevidenced step is dropped only as a pass-through (a status read by a given id
is what many bare asks mean: "查下订单 <ORDER1>")."""

LIST_KIND = {"list_orders": "ORDER", "list_invoices": "INV", "list_expenses": "EXP"}
_ASK_TO_LIST = re.compile(
    r"\blist|\ball\b|history|which|what orders|my orders|recent|latest|newest|\blast\b|most recent|every"
    r"|列|所有|全部|哪些|历史|记录|最近|最新|上一|我的订单|我的发票|我的报销",
    re.I,
)


def evidenced(tool: str, text: str) -> bool:
    """Whether the request ``text`` has a word for ``tool`` (always, for a tool without cues)."""
    rx = CUES.get(tool)
    return rx is None or rx.search(to_simplified(text)) is not None


def _needers(steps: list[Draft], d: Draft) -> list[Draft]:
    return [o for o in steps if d.key in points_to(o)]


def _pass_through(steps: list[Draft], d: Draft) -> tuple[str, Any] | None:
    """(argument, input value) when every later use of ``d`` is ``${d.<argument>}`` of its own input."""
    users = _needers(steps, d)
    if len(d.arguments) != 1 or not users:
        return None
    ((arg, value),) = d.arguments.items()
    for o in users:
        for v in o.arguments.values():
            r = ref_of(v)
            if r is not None and r[0] == d.key and r[1] != arg:
                return None
    return arg, value


def _replace_uses(steps: list[Draft], d: Draft, arg: str, value: Any) -> None:
    dep = ref_of(value)
    for o in _needers(steps, d):
        o.arguments = {a: (value if ref_of(v) == (d.key, arg) else v) for a, v in o.arguments.items()}
        deps = [k for k in o.dependencies if k != d.key]
        o.dependencies = list(dict.fromkeys([*deps, *([dep[0]] if dep is not None else [])]))


_NAMELESS = frozenset({"@now"})
"""Slot values that are no step's own object (the evidence rule asks for a word then)."""


def _own_literal(steps: list[Draft], d: Draft, values: list[Any]) -> bool:
    """Whether ``d`` uses a value of the request (a slot's) that no other step uses: the request
    then names what this step is about, whatever words it uses for the tool."""

    def uses(o: Draft, x: Any) -> bool:
        return any(v == x or (isinstance(v, list) and x in v) for v in o.arguments.values())

    return any(uses(d, x) and not any(uses(o, x) for o in steps if o is not d) for x in values)


def _own_words(steps: list[Draft], d: Draft, text: str) -> str:
    """The request's words that may evidence ``d``: a tracking step beside a ``list_orders`` whose
    status filter the request names does not count the filter's words ("我运输途中的订单")."""
    if d.tool == "get_logistics" and any(
        o.tool == "list_orders" and o.arguments.get("status") for o in steps
    ):
        return without_status_words("list_orders", text)
    return text


_NOT_IDS = frozenset({"DATE", "TEXT", "NAME", "CITY", "EMAIL", "PHONE", "AMOUNT", "DUR", "NUM", "ME"})


def _id_windows(text: str, slots: dict[str, Any], masked: str | None) -> dict[Any, str]:
    """Each id value of the request -> the words around it: from the id before it to the id after
    it ("取消订单 <ORDER1>、查询订单 <ORDER2> 的物流、还有报销单 <EXP1> 的状态": ORDER2's window is
    "、查询订单 … 的物流、还有报销单"). In the masked request when there is one (a user registry's cues
    read it), else where each value is written in ``text``."""
    src = masked if masked is not None else text
    spots: list[tuple[int, int, Any]] = []
    for tok, v in slots.items():
        if re.sub(r"[0-9<>]", "", tok) in _NOT_IDS or not isinstance(v, str):
            continue
        needle = tok if masked is not None else v
        i = src.find(needle)
        if i >= 0:
            spots.append((i, i + len(needle), v))
    spots.sort(key=lambda x: x[0])
    out: dict[Any, str] = {}
    for n, (a, b, v) in enumerate(spots):
        lo = spots[n - 1][1] if n else 0
        hi = spots[n + 1][0] if n + 1 < len(spots) else len(src)
        out[v] = src[lo:a] + " " + src[b:hi]
    return out


def _drop_unworded_readers(
    steps: list[Draft], text: str, slots: dict[str, Any], cues: ToolCues | None, masked: str | None
) -> list[Draft]:
    """Two steps on the same given id, one with a word for it next to that id and one without
    (anywhere else in the request, maybe): the second is no ask of that id and nothing needs it, so
    it goes ("查询订单 <ORDER2> 的物流 … 报销单 <EXP1> 的状态": no status read of ORDER2)."""
    windows = _id_windows(text, slots, masked)

    def worded(d: Draft, near: str) -> bool:
        return cues.evidenced(d.tool, near) if cues is not None else evidenced(d.tool, near)

    def has_cues(d: Draft) -> bool:
        return bool(cues.cues.get(d.tool)) if cues is not None else d.tool in CUES

    drop: set[str] = set()
    for d in steps:
        if _needers(steps, d) or not has_cues(d):
            continue
        for v in d.arguments.values():
            near = windows.get(v) if isinstance(v, str) else None  # a list (attendees) is no id
            if near is None or worded(d, near):
                continue
            if any(
                o is not d and o.key not in drop and v in o.arguments.values() and worded(o, near)
                for o in steps
            ):
                drop.add(d.key)
                break
    return [d for d in steps if d.key not in drop]


def _drop_list_copies(steps: list[Draft], text: str, slots: dict[str, Any]) -> list[Draft]:
    """``steps`` without a list step and its one reader when another step of that reader's tool
    reads a given id of the list's kind and the request never asks to list or pick ("it's my
    birthday week … what's the status of order <ORDER1>": no ``list_orders`` → status chain beside
    the status of <ORDER1>)."""
    if _ASK_TO_LIST.search(to_simplified(text)):
        return steps
    for lst in steps:
        kind = LIST_KIND.get(lst.tool)
        users = _needers(steps, lst)
        if kind is None or len(users) != 1 or _needers(steps, users[0]):
            continue
        given = {v for t, v in slots.items() if t.startswith(f"<{kind}")}
        if any(
            o.tool == users[0].tool and given & {v for v in o.arguments.values() if isinstance(v, str)}
            for o in steps
            if o is not users[0]
        ):
            return [d for d in steps if d is not lst and d is not users[0]]
    return steps


def prune_unasked(
    plan: ThoughtPlan,
    text: str,
    slots: dict[str, Any],
    cues: ToolCues | None = None,
    masked: str | None = None,
) -> ThoughtPlan:
    """``plan`` without the steps the request never asks for (see the module doc); ``plan``
    itself when nothing is dropped. ``cues``: a user registry's derived tool words
    (:mod:`thought_model.tool_cues`), matched against the ``masked`` request instead of
    :data:`CUES`."""
    steps = drafts(plan)
    kept = _drop_list_copies(_drop_unworded_readers(steps, text, slots, cues, masked), text, slots)
    dropped = len(kept) < len(steps) and len(kept) > 0
    if dropped:
        steps = kept
    ids_given = {re.sub(r"[0-9<>]", "", t) for t in slots}
    # "now" names no object: "帮我查一下它现在到哪儿了" gives a calendar read on @now no claim of its own
    values = [v for t, v in slots.items() if t != "<ME>" and v not in _NAMELESS]
    changed = True
    while changed and len(steps) > 1:
        changed = False
        for d in reversed(steps):
            if _own_literal(steps, d, values):
                continue
            m = masked if masked is not None else text
            if (
                # a user registry: the words must be the step's own, not all of other planned tools
                cues.evidenced(d.tool, m)
                and not cues.explained(d.tool, m, {o.tool for o in steps} - {d.tool})
                if cues is not None
                else evidenced(d.tool, _own_words(steps, d, text))
            ):
                kind = LIST_KIND.get(d.tool)
                if not (
                    kind in ids_given
                    and not _needers(steps, d)
                    and not _ASK_TO_LIST.search(to_simplified(text))
                    and any(
                        o is not d
                        and any(
                            v == slots.get(t)
                            for t in slots
                            if t.startswith(f"<{kind}")
                            for v in o.arguments.values()
                        )
                        for o in steps
                    )
                ):
                    continue
            elif _needers(steps, d) or d.tool in PASS_ONLY:
                through = _pass_through(steps, d)
                if through is None:
                    continue
                _replace_uses(steps, d, *through)
            steps = [o for o in steps if o is not d]
            changed = dropped = True
            break
    if not dropped:
        return plan
    out = build(plan, steps)
    return out if out is not None else plan
