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

import itertools
import re
from collections.abc import Mapping, Sequence

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
_CLASS = re.compile(r"(差旅|出差|住宿|交通|餐饮|餐费|办公|其他)类")
_SPECIFIC = ("hotel", "transport", "meal", "office")


def category_of(masked: str) -> str | None:
    """The category the request's words name (module doc), or None."""
    text = _SLOT.sub(" ", masked)
    for m in _CLASS.finditer(text):  # "差旅类", "住宿类": the category named as a class
        for k, rx in _RX.items():
            if rx.fullmatch(m.group(1)):
                return k
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


_ITEM_SEP = re.compile(
    r"[；;\n]|[，,。.]\s*(?:and\s+)?(?=(?:[0-9]+[.)、]|另一笔|第二笔|一笔|an?\s+\w+\s+expense|another))", re.I
)


def item_segments(
    masked: str, slots: Mapping[str, object] | None, amounts: Sequence[object]
) -> list[str] | None:
    """The part of the request about each of several expenses, found by its ``<AMOUNT>`` slot: the
    pieces between item separators (``；``, a line break, a numbered item) when each holds one
    amount, else the text between the midpoints of neighbouring amounts. None when an amount has no
    slot of its own."""
    if not slots:
        return None
    toks = []
    for a in amounts:
        tok = next(
            (t for t, v in slots.items() if t.startswith("<AMOUNT") and v == a and t not in toks), None
        )
        if tok is None or tok not in masked:
            return None
        toks.append(tok)
    pos = [masked.index(t) for t in toks]
    if pos != sorted(pos):
        return None
    cuts = [0, *(m.end() for m in _ITEM_SEP.finditer(masked)), len(masked)]
    pieces = [masked[a:b] for a, b in itertools.pairwise(cuts)]
    owned = [next((p for p in pieces if t in p), None) for t in toks]
    if all(p is not None and sum(t in p for t in toks) == 1 for p in owned):
        return [p for p in owned if p is not None]
    mids = [0, *((a + b) // 2 for a, b in itertools.pairwise(pos)), len(masked)]
    return [masked[a:b] for a, b in itertools.pairwise(mids)]


def fix_category(plan: ThoughtPlan, masked: str, slots: Mapping[str, object] | None = None) -> ThoughtPlan:
    """``plan`` with each ``submit_expense`` step's category set from the request's words; with
    several expenses of different amounts, each from the words of its own part of the request
    ("1月20日出租车费 45 元，交通类；2. 1月21日晚餐 210 元，餐费")."""
    exp = [s for s in plan.steps if s.tool == TOOL]
    if not exp:
        return plan
    amounts = [s.arguments.get("amount") for s in exp]
    segs = (
        item_segments(masked, slots, amounts)
        if len(exp) > 1 and len(set(map(str, amounts))) == len(exp)
        else None
    )
    wants = [category_of(seg) for seg in segs] if segs is not None else [category_of(masked)] * len(exp)
    if all(w is None for w in wants):
        return plan
    steps = []
    changed = False
    k = 0
    for s in plan.steps:
        if s.tool == TOOL:
            want = wants[k]
            k += 1
            if want is not None and s.arguments.get(FIELD) != want:
                s = s.model_copy(update={"arguments": {**s.arguments, FIELD: want}})
                changed = True
        steps.append(s)
    return plan.model_copy(update={"steps": steps}) if changed else plan
