"""Free-text values the plan model copied with the verb that introduces them ("说明写去客户公司" ->
description "写去客户公司", "抬头改成李明" -> title "改成李明"): the verb is dropped when the
request writes a field label right before it (no model; zh only, English labels take a colon).
A title the model cut short ("called Design review" -> "Design") is the whole name the request
gives, and an attendee that is only a word of that name is dropped."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tao.contracts import ThoughtPlan

_TEXT_FIELDS = frozenset({"description", "title", "reason", "body", "subject"})
_LABELS = "说明|备注|描述|原因|理由|标题|主题|名称|名字|内容|正文|抬头|事由"
_VERB = re.compile(r"^(?:改成|改为|换成|写成|写的是|写上|写|填|是|为|叫做|叫)\s*[:：]?\s*(?=\S)")


_CALLED_EN = re.compile(
    r"\b(?:called|named|titled|call it|name it)\s+[\"']?(.+?)[\"']?(?=\s*(?:[,;.!?]|$|\s+(?:at|on|for|from"
    r"|tomorrow|today|next|this|with|invite|and)\b))",
    re.IGNORECASE,
)


_FIELD_OF_LABEL = {
    "抬头": "title", "标题": "title", "主题": "subject", "内容": "body", "正文": "body",
    "原因": "reason", "理由": "reason", "说明": "description", "备注": "description",
}  # fmt: skip
_LABELLED_ZH = re.compile(
    rf"({'|'.join(_FIELD_OF_LABEL)})\s*(?:就|也)?\s*(?:改成|改为|换成|写成|写|是|为|叫|填)?\s*[:：]?\s*"
    r"[“\"「]?([^，,。；;！!？?“”\"」\n]{1,60})"
)
_LABELLED_EN = re.compile(
    r"\b(title|subject|reason|description|body)\s*(?::|=|\bis\b|\bto\b)\s*[\"']?([^,;.!?\"'\n]{1,60})",
    re.IGNORECASE,
)


def labelled_fields(text: str) -> dict[str, str]:
    """The free-text fields a request writes with their label ("抬头是张三" -> title 张三,
    "subject: Lunch" -> subject Lunch)."""
    out: dict[str, str] = {}
    for m in _LABELLED_ZH.finditer(text):
        out.setdefault(_FIELD_OF_LABEL[m.group(1)], m.group(2).strip())
    for m in _LABELLED_EN.finditer(text):
        out.setdefault(m.group(1).lower(), m.group(2).strip())
    return {k: v for k, v in out.items() if v}


def _quoted_after(value: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(value)}\s*[:：]?\s*[“\"「『‘']([^”\"」』’']+)[”\"」』’']")


def _full_title(plan_title: str, texts: list[str]) -> str | None:
    for t in texts:
        for m in _CALLED_EN.finditer(t):
            name = m.group(1).strip()
            if name != plan_title and name.lower().startswith(plan_title.lower() + " "):
                return name
    return None


def clean_free_text(plan: ThoughtPlan, texts: Iterable[str]) -> tuple[ThoughtPlan, list[str]]:
    """``plan`` with such verbs dropped from its free-text arguments, and a note per change."""
    texts = [t for t in texts if t]
    notes: list[str] = []
    steps = []
    for s in plan.steps:
        args = dict(s.arguments)
        title = args.get("title")
        if isinstance(title, str) and (full := _full_title(title, texts)) is not None:
            args["title"] = full
            notes.append(f"label: {s.tool}.title = {full!r} (the model read {title!r})")
            people = args.get("attendees")
            if isinstance(people, list) and any(isinstance(a, str) and a in full.split() for a in people):
                kept = [a for a in people if not (isinstance(a, str) and a in full.split())]
                if kept:
                    args["attendees"] = kept
                else:
                    args.pop("attendees")
                notes.append(f"label: {s.tool}.attendees without the words of the title")
        for k, v in s.arguments.items():
            if k not in _TEXT_FIELDS or not isinstance(v, str):
                continue
            quoted = next((q.group(1) for t in texts if (q := _quoted_after(v).search(t))), None)
            if quoted:  # '原因就写“不想要了”' read as '原因就写': the quoted words are the value
                args[k] = quoted
                notes.append(f"label: {s.tool}.{k} = {quoted!r} (the quoted words after {v!r})")
                continue
            if not (m := _VERB.match(v)):
                continue
            rest = v[m.end() :]
            pat = re.compile(rf"(?:{_LABELS})\s*{re.escape(v)}")
            if rest and any(pat.search(t) for t in texts):
                args[k] = rest
                notes.append(f"label: {s.tool}.{k} = {rest!r} (without the verb {v[: m.end()].strip()!r})")
        steps.append(s.model_copy(update={"arguments": args}) if args != s.arguments else s)
    return (plan.model_copy(update={"steps": steps}) if notes else plan), notes
