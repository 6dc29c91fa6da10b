"""What a later turn and the session hold, as plan-model text (used by :mod:`tao.loop.candidates`
and :class:`tao.loop.carryover.CarryOver`).

* :func:`own_cues`: the tools a turn names (the routing lexicon's concepts that are parts of tool
  names), once its values are taken out; :func:`enum_deltas`: filter values ("refunded", "已取消")
  of the previous plan's optional enum arguments;
* :func:`render_value`: how one snapshot value is written into a request ("on 2026-06-11 at
  15:00", "for 60 minutes", "6个人", "订单2026…"; never free text, amounts or user ids);
* :func:`anchor_request` / :func:`anchor_delta`: "at the same time", "那天", "the day after" as the
  earlier turn's resolved time (an open question's own time first);
* :func:`labelled_answer`: a bare answer labelled with the field the open question asked.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from tao.contracts import SessionState
from tao.contracts.timeexpr import session_now
from tao.loop.carry_schema import _WORDS, _is_time, _props, _resolve
from tao.loop.followup import Delta, Followup, is_zh
from tao.loop.snapshot import Snapshot

_FREE_TEXT = ("description", "title", "reason", "body", "subject", "value", "name", "amount", "to")
_DAYTIME = re.compile(r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ENUM_ZH = {
    "refunded": ("已退款", "退款的", "退了款"),
    "cancelled": ("已取消", "取消的", "取消了的", "canceled"),
    "shipped": ("已发货", "发货的", "发了货"),
    "delivered": ("已签收", "已送达", "签收的"),
    "in_transit": ("运输中", "在路上", "in transit"),
    "pending": ("待处理", "待付款", "未付款", "pending"),
    "paid": ("已付款", "已支付", "付了款"),
    "issued": ("已开具", "已开", "开好的"),
    "void": ("作废", "已作废"),
    "submitted": ("已提交", "提交了的"),
    "approved": ("已批准", "已通过", "批了的", "通过的"),
    "rejected": ("驳回", "被拒", "没通过"),
}


# --------------------------------------------------------------------------- reading the turn
@lru_cache(maxsize=8)
def _tool_concepts(tools: tuple[str, ...]) -> frozenset[str]:
    """Concepts of the routing lexicon that name a tool (a part of some tool's name)."""
    from tao.loop.intent.lexicon import CONCEPTS

    parts = {p.removesuffix("s") for t in tools for p in t.split("_")} | {
        p for t in tools for p in t.split("_")
    }
    return frozenset(c for c in CONCEPTS if c in parts and c != "list")


def own_cues(text: str, deltas: list[Delta], tools: tuple[str, ...]) -> set[str]:
    """The tool-naming concepts of the turn once its values are taken out."""
    from tao.loop.intent.lexicon import concepts_of

    rest = text
    for d in sorted(deltas, key=lambda d: -len(d.text)):
        if d.text:
            rest = rest.replace(d.text, " ")
    return set(concepts_of(rest)) & _tool_concepts(tools)


def enum_deltas(text: str, snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> list[Delta]:
    """Filter values the turn names for the previous plan's optional enum arguments."""
    low = text.lower()
    out: list[Delta] = []
    for st in snap.steps:
        schema = schemas.get(st.tool, {})
        req = set(schema.get("required") or [])
        for name, prop in _props(schema).items():
            enum = next((p.get("enum") for p in [prop, *(prop.get("anyOf") or [])] if p.get("enum")), None)
            if name in req or not enum or any(d.type == f"ENUM:{name}" for d in out):
                continue
            for v in enum:
                words = [str(v), str(v).replace("_", " "), *_ENUM_ZH.get(str(v), ())]
                hit = next(
                    (w for w in words if re.search(rf"(?<![a-z]){re.escape(w.lower())}(?![a-z])", low)), None
                )
                if hit is not None:
                    out.append(Delta(f"ENUM:{name}", v, text[low.find(hit.lower()) :][: len(hit)]))
                    break
    return out


# --------------------------------------------------------------------------- rendering values
def render_value(name: str, value: Any, prop: dict[str, Any], zh: bool) -> str | None:
    """How one snapshot value is written into a request (None: never carried as text)."""
    if name in _FREE_TEXT or name == "user_id" or value is None or isinstance(value, (dict, list)):
        return None
    s = str(value)
    if _is_time(prop):
        if m := _DAYTIME.match(s):
            return f"{m.group(1)} {m.group(2)}" if zh else f"on {m.group(1)} at {m.group(2)}"
        if _DAY.match(s):
            return s if zh else f"on {s}"
        return None
    if "duration" in name or name.endswith("_min"):
        return f"{s}分钟" if zh else f"for {s} minutes"
    if name == "capacity":
        return f"{s}个人" if zh else f"for {s} people"
    if "city" in name:
        return s if zh else f"in {s}"
    if name.endswith("_id"):
        word = _WORDS.get(name, (name.removesuffix("_id"), name.removesuffix("_id")))
        return f"{word[0]}{s}" if zh else f"{word[1]} {s}"
    return None


def _asked_time(snap: Snapshot) -> tuple[str, str, int | None] | None:
    """The time an open question's request gave, resolved at that turn's clock ("帮我建个日程，明天
    下午4点" left open for its title): (``start`` or ``date``, value, duration or None)."""
    from datetime import datetime

    from tao.loop.followup import perceive_deltas

    if snap.pending is None or not snap.now:
        return None
    from tao.loop.turn_cues import anchor_of

    if anchor_of(snap.pending.request) is not None:  # "帮我在那天下午三点…": not resolvable at its clock
        return None
    then = SessionState(now=datetime.fromisoformat(snap.now))
    ds = perceive_deltas(snap.pending.request, session_now(then).date())
    day = next((d for d in ds if d.type == "DATE"), None)
    if day is None:
        return None
    v = _resolve(day.value, then, session_now(then))
    dur = next((d.value for d in ds if d.type == "DUR" and isinstance(d.value, int)), None)
    if isinstance(v, str) and _DAYTIME.match(v):
        return "start", v, dur
    return ("date", v, None) if isinstance(v, str) and _DAY.match(v) else None


def _time_keys(schemas: dict[str, dict[str, Any]]) -> set[str]:
    return {k for schema in schemas.values() for k, p in _props(schema).items() if _is_time(p)}


def _entity_time(
    snap: Snapshot, schemas: dict[str, dict[str, Any]], day: str | None = None
) -> tuple[str, str, int | None] | None:
    """The conversation's newest resolved time among the snapshot's entities (a day and clock
    time on ``day`` when given): the anchor of a turn whose previous turn used no time."""
    keys = _time_keys(schemas)
    dur = next((v for k, v in snap.entities.items() if "duration" in k and isinstance(v, int)), None)
    for k, v in reversed(list(snap.entities.items())):
        if k not in keys or not isinstance(v, str):
            continue
        if day is not None:
            if _DAYTIME.match(v) and v[:10] == day:
                return k, v, dur
        elif _DAYTIME.match(v) or _DAY.match(v):
            return k, v, dur
    return None


def _time_of(
    snap: Snapshot, schemas: dict[str, dict[str, Any]], kind: str = "day"
) -> tuple[str, str, int | None] | None:
    """The previous turn's first resolved time argument: (name, value, duration_min or None); an
    open question's own time first (its plan was never made); else the conversation's newest time
    (the snapshot's entities). For ``kind`` ``time`` a day without a clock time takes the clock
    time the conversation gave that day ("same time" after a weather turn on a booking's day)."""
    got = _asked_time(snap) or _step_time(snap, schemas) or _entity_time(snap, schemas)
    if got is not None and kind == "time" and _DAY.match(got[1]):
        return _entity_time(snap, schemas, got[1]) or got
    return got


def _step_time(snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> tuple[str, str, int | None] | None:
    for st in snap.steps:
        props = _props(schemas.get(st.tool, {}))
        for k, v in st.arguments.items():
            if (
                k in props
                and _is_time(props[k])
                and isinstance(v, str)
                and (_DAYTIME.match(v) or _DAY.match(v))
            ):
                dur = next(
                    (x for n, x in st.arguments.items() if "duration" in n and isinstance(x, int)), None
                )
                return k, v, dur
    return None


_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2})/(\d{4}-\d{2}-\d{2})$")


def period_of(snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> str | None:
    """The conversation's newest period (a month or a day range): the previous plan's first,
    else the snapshot's entities ("that same month" after other tools were used)."""
    keys = _time_keys(schemas)
    vals = [v for st in snap.steps for k, v in st.arguments.items() if k in keys]
    vals += [v for k, v in reversed(list(snap.entities.items())) if k in keys]
    return next((v for v in vals if isinstance(v, str) and (_MONTH.match(v) or _RANGE.match(v))), None)


def _period_text(value: str, zh: bool) -> str:
    if m := _MONTH.match(value):
        return f"{m.group(1)}年{int(m.group(2))}月" if zh else f"for {value}"
    m = _RANGE.match(value)
    assert m is not None
    return f"{m.group(1)}到{m.group(2)}" if zh else f"from {m.group(1)} to {m.group(2)}"


def anchor_value(fu: Followup, snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> str | None:
    """The value an anchored plan must use: the period, or the (shifted) day."""
    if fu.anchor is None:
        return None
    if fu.anchor[0] == "period":
        return period_of(snap, schemas)
    if fu.anchor[0] == "days":
        return None  # two values: the rewrite names both
    got = _time_of(snap, schemas, fu.anchor[0])
    return _shift_day(got[1][:10], fu.anchor[0]) if got else None


def anchor_request(text: str, fu: Followup, snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> str | None:
    """The turn with its anchor phrase replaced by the previous turn's time."""
    if fu.anchor is None:
        return None
    kind, phrase = fu.anchor
    zh = is_zh(text)
    if kind == "period":
        period = period_of(snap, schemas)
        if period is None:
            return None
        return text.replace(phrase, _period_text(period, zh), 1) if phrase in text else None
    if kind == "days":  # "那两天的日程" -> "2026-04-24和2026-04-27的日程": the last two days named
        if len(snap.days) < 2 or phrase not in text:
            return None
        a, b = sorted(snap.days[-2:])
        return text.replace(phrase, f"{a}和{b}" if zh else f"on {a} and {b}", 1)
    got = _time_of(snap, schemas, kind)
    if got is None:
        return None
    _, value, dur = got
    m = _DAYTIME.match(value)
    day = _shift_day(m.group(1) if m else value, kind)
    if kind == "time" and m:
        new = f"{day} {m.group(2)}" if zh else f"on {day} at {m.group(2)}"
        if dur is not None:
            new += f"，{dur}分钟" if zh else f" for {dur} minutes"
    else:
        new = day if zh else f"on {day}"
    return text.replace(phrase, new, 1) if phrase in text else None


def _shift_day(day: str, kind: str) -> str:
    from datetime import date, timedelta

    n = {"day+1": 1, "day-1": -1}.get(kind, 0)
    return (date.fromisoformat(day) + timedelta(days=n)).isoformat() if n and _DAY.match(day) else day


def anchor_delta(fu: Followup, snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> Delta | None:
    """ "the day after" / "第二天" as a DATE value: the earlier turn's day moved by one."""
    if fu.anchor is None or fu.anchor[0] not in ("day+1", "day-1"):
        return None
    got = _time_of(snap, schemas)
    if got is None:
        return None
    return Delta("DATE", _shift_day(got[1][:10], fu.anchor[0]), fu.anchor[1])


_LABEL = {  # how a bare free-text answer is labelled for the plan model (zh, en)
    "reason": ("原因是", "reason: "),
    "description": ("说明：", "description: "),
    "body": ("内容：", "body: "),
    "subject": ("主题：", "subject: "),
    "title": ("标题：", "title: "),
}
# the words that only say "the value is" before a bare answer: "就叫站会", "标题就叫X", "call it Sync"
_NAMING = re.compile(
    r"^(?:(?:标题|名字|名称|抬头|主题|说明|原因|内容|正文)\s*)?(?:就|那就|那)?(?:叫做|叫|命名为|名为|写成|写)\s*[:：]?\s*"
    r"|^(?:(?:let'?s|just)\s+)?(?:call it|name it|title it|it'?s called|called|named|titled)\s*[:：]?\s*",
    re.IGNORECASE,
)
_NAMED = re.compile(  # a title given by naming it inside an answer: "call it Budget check, 30 minutes"
    r"(?:\b(?:call it|name it|title it|it'?s called|called|named|titled)\b"
    r"|(?:(?:标题|名字|名称|会议名|题目)\s*)?(?:就叫做?|叫做|名叫|名字叫|叫)(?=\S))"
    r"\s*[:：]?\s*(?P<v>[^,，。.;；!！?？]+)",
    re.IGNORECASE,
)
_EN_NUMBERS = {
    w: i + 1
    for i, w in enumerate(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        " sixteen seventeen eighteen nineteen twenty".split()
    )
}
_EN_NUMBER = re.compile(r"\b(?:" + "|".join(_EN_NUMBERS) + r")\b", re.IGNORECASE)  # "we're five"
_ONE_NUMBER = re.compile(r"^\D{0,16}?(?<![\d.])(\d{1,3})(?![\d.])\D{0,16}$")
_ONE_AMOUNT = re.compile(r"^\D{0,16}?(?<![\d.])(\d{1,6}(?:\.\d{1,2})?)(?![\d.])\D{0,16}$")


def _labelled(field: str, text: str, zh: bool) -> bool:
    """The turn writes the field's label with a colon ("主题：周报", "subject: Lunch")."""
    word = _LABEL[field][0 if zh else 1].rstrip("：: 是")
    return re.search(rf"{re.escape(word)}\s*[:：]", text, re.IGNORECASE) is not None


def labelled_answer(
    schemas: dict[str, dict[str, Any]], text: str, fu: Followup, snap: Snapshot
) -> str | None:
    """A short turn that answers the open question without the words that say so: a bare number
    for the one integer field asked ("for 7", "we're 11" -> "for 7 people"), or a bare phrase for
    the one free-text field asked ("买重复了" -> "原因是买重复了"). None when the turn has values of
    its own, names a tool the open request does not, or the question asked for more than one such
    field."""
    pending = snap.pending
    tools = tuple(sorted(schemas))
    if pending is None:
        return None
    asked = [f for f in pending.required_fields if f in _LABEL]
    if (
        asked
        and len(asked) == len(pending.required_fields)
        and all(_labelled(f, text, is_zh(text)) for f in asked)
    ):
        return text.strip()  # "主题：周报，内容：…": every field asked, each with its label
    if own_cues(text, fu.deltas, tools) - own_cues(pending.request, [], tools):
        return None
    zh = is_zh(text)
    if "title" in pending.required_fields and (m := _NAMED.search(text)):  # "call it X, 30 minutes"
        named = _LABEL["title"][0 if zh else 1] + m.group("v").strip()
        return (text[: m.start()] + named + text[m.end() :]).strip().rstrip("。.！!")
    props = {k: p for schema in schemas.values() for k, p in _props(schema).items()}
    ints = [  # a number without a unit is no duration ("8个" while duration and head count are asked)
        f
        for f in pending.required_fields
        if f in props
        and '"integer"' in json.dumps(props[f])
        and "duration" not in f
        and not f.endswith("_min")
    ]
    m = _ONE_NUMBER.match(_EN_NUMBER.sub(lambda w: str(_EN_NUMBERS[w.group(0).lower()]), text.strip()))
    if m and len(ints) == 1 and not any(d.type in ("NUM", "DUR", "DATE", "AMOUNT") for d in fu.deltas):
        return render_value(ints[0], int(m.group(1)), props[ints[0]], zh)  # the value, labelled
    nums = [f for f in pending.required_fields if f in props and '"number"' in json.dumps(props[f])]
    m = _ONE_AMOUNT.match(text.strip())
    if m and len(nums) == 1 and len(pending.required_fields) == 1 and not fu.deltas:
        return f"金额{m.group(1)}" if zh else f"{nums[0]} {m.group(1)}"  # "the full 299"
    free = [f for f in pending.required_fields if f in _LABEL]
    if len(free) == 1 and len(pending.required_fields) == 1 and not fu.deltas and len(text.strip()) <= 60:
        label = _LABEL[free[0]][0 if zh else 1]
        value = _NAMING.sub("", text.strip(), count=1).strip() or text.strip()
        return label + value.rstrip("。.！!")
    return None
