"""Two asks of the reference domain that act on what an earlier step found, when the model drops them.

"find a room for <NUM1> … and bok it / lock it in / 找到就定下来": the model plans the search and
stops; "what's the weather in the city on my profile / is it gonna rain where <NAME1> lives": it plans
the profile read and stops. Code sees the ask in the words and the provider in the plan:

* **book what was found**: a ``find_meeting_room`` step, no ``book_meeting_room`` step, and a
  booking verb whose object is the found room (``book it``, ``lock one in``, ``订下来``, ``直接订``) →
  ``book_meeting_room(room_id=${find.room_id}, start, duration_min)`` right after the search, with
  the search's own time and duration;
* **weather where they are**: a ``get_user_profile`` step, no ``get_weather`` step, no city in the
  request, and a weather word → ``get_weather(city=${profile.city})`` after it, on the request's one
  day (its ``<DATE>`` slot) when it names one.

The arguments come from the registry graph (the room id and the city are the providers' ``extract``
outputs); a registry without these tools is left alone.
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.perception.normalize import to_simplified
from thought_model.plan_edit import Draft, build, drafts

_BOOK_FOUND = re.compile(
    r"\b(?:book|bok|boook|reserve|lock|hold|secure|grab|nab)\s+(?:it|one|that(?:\s+one)?|the\s+room|them)\b"
    r"|\b(?:find|found|get)\s+one\s+and\s+(?:book|lock|grab|reserve|hold|secure)"
    r"|(?:找到|有的话|有空的话|合适的话|有合适的)[^，,。；;]{0,6}?(?:订|定)(?:上|下来|下|了|掉|一下)?"
    r"|直接(?:订|定|预订|预定)|(?:订|定)下来|(?<![订预])(?:订|定)上(?![午周个次])",
    re.I,
)
_WEATHER = re.compile(
    r"weather|wheather|weahter|forecast|\brain(?:ing|y)?\b|\bsnow|temperature|\bhot\b|\bcold\b|天气|下雨|下雪|气温|温度|冷不冷|热不热",
    re.I,
)


_ONE_ITEM = re.compile(
    r"\b(?:latest|newest|most\s+rec[ea]?nt)\b|\blast\b(?!\s+(?:week|month|year|quarter|[0-9]|few|couple|two|three|seven|ten|thirty))|最新|最近(?:一|的那|那|一笔|一张|一单|一个)|最后一|上一(?:笔|张|单|个)",
    re.I,
)
"""Words that select one item of a list ("my newest invoice", "最近一笔订单")."""
_ITEM_READS: dict[str, tuple[tuple[str, str, re.Pattern[str]], ...]] = {
    "list_orders": (
        (
            "get_logistics",
            "order_id",
            re.compile(
                r"到哪|物流|快递|在路上|\btrack|where\s+(?:is|'s)\s+it|where\s+it\s+is|delivery\s+status",
                re.I,
            ),
        ),
        ("get_order_invoice", "order_id", re.compile(r"发票|invoice", re.I)),
    ),
    "list_invoices": (
        (
            "get_invoice",
            "invoice_id",
            re.compile(r"\bopen\b|\bdetails?\b|详情|详细|打开|金额|\bamount\b", re.I),
        ),
    ),
    "list_expenses": (
        (
            "get_expense_status",
            "expense_id",
            re.compile(r"\bstatus\b|进度|状态|审批|到哪|批了没|approved\?", re.I),
        ),
    ),
}
"""A list step's one selected item read by the tool the request's words ask for."""


def _first(steps: list[Draft], tool: str) -> Draft | None:
    return next((d for d in steps if d.tool == tool), None)


_FILTER_WORDS = re.compile(r"已发货|已签收|在路上|运输中|\bin[\s_-]transit\b|\bshipped\b|\bdelivered\b", re.I)


def _without_filters(text: str) -> str:
    """The request without the list filters that share a reader's words ("in transit" is a status)."""
    return _FILTER_WORDS.sub(" ", text)


def linked_asks(plan: ThoughtPlan, text: str, slots: dict[str, Any]) -> ThoughtPlan:
    """``plan`` with the dropped book/weather ask appended (see the module doc); ``plan`` itself
    when nothing applies."""
    steps = drafts(plan)
    tools = {d.tool for d in steps}
    simple = to_simplified(text)
    changed = False
    find = _first(steps, "find_meeting_room")
    if find is not None and "book_meeting_room" not in tools and _BOOK_FOUND.search(simple):
        args: dict[str, Any] = {"room_id": f"${{{find.key}.room_id}}"}
        for a in ("start", "duration_min"):
            if a in find.arguments:
                args[a] = find.arguments[a]
        steps.insert(steps.index(find) + 1, Draft("book+", "book_meeting_room", args, [find.key]))
        changed = True
    profile = _first(steps, "get_user_profile")
    cities = [t for t in slots if t.startswith("<CITY")]
    if profile is not None and "get_weather" not in tools and not cities and _WEATHER.search(simple):
        days = sorted({v for t, v in slots.items() if t.startswith("<DATE") and isinstance(v, str)})
        wargs: dict[str, Any] = {"city": f"${{{profile.key}.city}}"}
        if len(days) == 1:
            wargs["date"] = days[0]
        steps.insert(steps.index(profile) + 1, Draft("weather+", "get_weather", wargs, [profile.key]))
        changed = True
    if _ONE_ITEM.search(simple):  # "my newest invoice … open it", "用户 <USER1> 最近一笔订单到哪了"
        for lst in [d for d in steps if d.tool in _ITEM_READS]:
            if any(lst.key in d.dependencies for d in steps):
                continue
            at = steps.index(lst) + 1
            for tool, arg, rx in _ITEM_READS[lst.tool]:
                # the words must be the reader's own: "invoices" of a planned list_invoices ask nothing of an order
                theirs = any(t != lst.tool and t.split("_")[-1].rstrip("s") in tool for t in tools)
                if tool not in tools and not theirs and rx.search(_without_filters(simple)):
                    out_name = arg  # the list extracts the id under the argument's own name
                    steps.insert(at, Draft(f"read{at}", tool, {arg: f"${{{lst.key}.{out_name}}}"}, [lst.key]))
                    at += 1
                    changed = True
    if not changed:
        return plan
    out = build(plan, steps)
    return out if out is not None else plan
