"""An expense's category decided by the words of the request, not by the model's guess.

``submit_expense.category`` is an enum (travel / meal / hotel / transport / office / other). The
model defaults to ``other`` or ``travel`` when the word it sees is not one of its training words
("午饭", "高铁票", "lunch", "office supplies"). :func:`category_of` reads the request's own words
(outside its free-text slots, so a description "上海出差" never decides the category of a hotel
bill) and :func:`fix_category` sets it on every ``submit_expense`` step:

* an explicit category cue wins (``类别餐费``, ``category: hotel``, ``类型是交通``);
* else the words of exactly one specific category (hotel, transport, meal, office);
* else ``travel`` when only travel words are there (``差旅``, ``business trip``);
* else (no word, or words of two specific categories) the step is left as planned.
"""

from __future__ import annotations

import re

from tao.contracts import ThoughtPlan

TOOL = "submit_expense"
FIELD = "category"

CATEGORY_WORDS: dict[str, str] = {
    "hotel": r"住宿|酒店|宾馆|旅馆|民宿|房费|hotel|lodging|accommodation|airbnb|motel|hostel",
    "transport": (
        r"打车|出租车|的士|网约车|滴滴|车费|交通|地铁|公交|高铁|火车|动车|停车|油费|过路费|"
        r"\btaxi|\bcabs?\b|\buber\b|\blyft\b|\bmetro\b|subway|\bbus\b|\btrain\b|parking|\bfuel\b|\btolls?\b|transport"
    ),
    "meal": (
        r"午饭|午餐|晚饭|晚餐|早饭|早餐|聚餐|吃饭|请客|餐费|餐饮|撸串|火锅|外卖|宵夜|夜宵|饭钱|饭费|工作餐|"
        r"\blunch|\bdinner|breakfast|\bmeals?\b|\bfood\b|\bsnacks?\b|catering"
    ),
    "office": r"办公用品|办公|文具|打印纸|墨盒|硒鼓|office|stationery|printer|\btoner\b",
    "travel": r"差旅|出差|travel|business trip",
    "other": r"其他|杂项|\bmisc\b|\bother\b",
}
_RX = {k: re.compile(v, re.I) for k, v in CATEGORY_WORDS.items()}
_CUE = re.compile(r"(?:类别|类型|分类|科目|category|type)\s*(?:是|为|选|填|:|：|=|\bis\b)?\s*", re.I)
_SLOT = re.compile(r"<[A-Z]+[0-9]>")
_SPECIFIC = ("hotel", "transport", "meal", "office")


def category_of(masked: str) -> str | None:
    """The category the request's words name (module doc), or None."""
    text = _SLOT.sub(" ", masked)
    for m in _CUE.finditer(text):
        window = text[m.end() : m.end() + 12]
        for k, rx in _RX.items():
            hit = rx.match(window)
            if hit is not None:
                return k
    found = [k for k in _SPECIFIC if _RX[k].search(text)]
    if len(found) == 1:
        return found[0]
    if not found and _RX["travel"].search(text):
        return "travel"
    return None


def fix_category(plan: ThoughtPlan, masked: str) -> ThoughtPlan:
    """``plan`` with each ``submit_expense`` step's category set from the request's words."""
    if not any(s.tool == TOOL for s in plan.steps):
        return plan
    want = category_of(masked)
    if want is None:
        return plan
    steps = []
    changed = False
    for s in plan.steps:
        if s.tool == TOOL and s.arguments.get(FIELD) != want:
            s = s.model_copy(update={"arguments": {**s.arguments, FIELD: want}})
            changed = True
        steps.append(s)
    return plan.model_copy(update={"steps": steps}) if changed else plan
