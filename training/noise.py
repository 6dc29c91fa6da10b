"""Surface noise for synthetic requests: politeness prefixes/suffixes, punctuation, casing, typos.

Noise is applied to the template text *before* slot values are filled in, so ids, amounts and
other values are never corrupted (``{kind}`` placeholders are protected), and cue words that
perception relies on (``原因是``, ``subject:``) are never typo'd.
"""

from __future__ import annotations

import random
import re

ZH_PREFIX = [
    "",
    "",
    "",
    "请",
    "麻烦",
    "你好，",
    "帮个忙，",
    "嗯，",
    "急！",
    "hi，",
    "您好，",
    "那个，",
    "请问",
]
ZH_SUFFIX = ["", "", "。", "？", "，谢谢", "，谢谢！", "！", "呀", "哈", "~", "，尽快", "，多谢", "吧"]
EN_PREFIX = [
    "",
    "",
    "",
    "hey, ",
    "hi ",
    "please ",
    "pls ",
    "can you ",
    "quick one: ",
    "hello, ",
    "ok so ",
    "yo ",
]
EN_SUFFIX = ["", "", "?", ".", "!", " thanks", " pls", " asap", ", thank you", " thx", " please"]
ZH_TYPOS = {
    "订单": "定单",
    "账户": "帐户",
    "物流": "物留",
    "会议室": "会意室",
    "天气": "天汽",
    "报销": "报消",
    "发票": "发飘",
    "邮件": "邮建",
    "查询": "查寻",
    "取消": "取销",
}
PROTECTED = {
    "because",
    "reason",
    "subject",
    "body",
    "title",
    "titled",
    "saying",
    "description",
    "header",
    "purpose",
    "order",
    "invoice",
    "expense",
    "room",
    "user",
    "email",
    "cancel",
    "refund",
    "book",
    "track",
    "weather",
    "calendar",
    "profile",
    "phone",
    "city",
    "meeting",
    "status",
}
PLACEHOLDER = re.compile(r"\{[a-z0-9]+\}")
FREE_TEXT_SLOTS = "reason|title|subject|body|desc|etitle|text[a-z]*"
"""Slot kinds perception takes as free text after a cue word, up to the next punctuation (``text…``:
the free-text kinds ``training.derive`` names after their field)."""
_FREE_END = re.compile(rf"\{{(?:{FREE_TEXT_SLOTS})[0-9]?\}}\s*$")


def append_suffix(text: str, suffix: str, lang: str) -> str:
    """``text`` + ``suffix``; a suffix that would glue onto trailing free text gets a comma first
    (free text runs to the next punctuation, so "because {reason} thx" would swallow the "thx")."""
    if suffix and suffix[0] not in "，,。.!！?？~" and _FREE_END.search(text):
        return text.rstrip() + ("，" if lang == "zh" else ", ") + suffix.lstrip()
    return text + suffix


def _split_protected(text: str) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in PLACEHOLDER.finditer(text):
        out.append((text[pos : m.start()], False))
        out.append((m.group(0), True))
        pos = m.end()
    out.append((text[pos:], False))
    return out


def _en_typo(word: str, rng: random.Random) -> str:
    if len(word) < 4 or not word.isalpha() or word.lower() in PROTECTED:
        return word
    i = rng.randrange(1, len(word) - 1)
    op = rng.random()
    if op < 0.4:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if op < 0.7:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def add_noise(template: str, lang: str, rng: random.Random, strength: float = 0.5) -> str:
    """Return ``template`` with random surface noise (placeholders untouched)."""
    parts = _split_protected(template)
    out: list[str] = []
    for seg, protected in parts:
        if protected or not seg:
            out.append(seg)
            continue
        if lang == "zh":
            if rng.random() < strength * 0.3:
                seg = seg.replace("，", rng.choice([",", " ", "，", ""]))
            if rng.random() < strength * 0.15:
                for good, bad in ZH_TYPOS.items():
                    if good in seg and rng.random() < 0.5:
                        seg = seg.replace(good, bad, 1)
                        break
            if rng.random() < strength * 0.2:
                seg = seg.replace("的", "", 1)
        else:
            words = seg.split(" ")
            if rng.random() < strength * 0.4:
                j = rng.randrange(len(words))
                words[j] = _en_typo(words[j], rng)
            seg = " ".join(words)
            if rng.random() < strength * 0.2:
                seg = seg.replace(",", "", 1)
        out.append(seg)
    text = "".join(out)
    if lang == "zh":
        if rng.random() < strength:
            text = rng.choice(ZH_PREFIX) + text
        if rng.random() < strength:
            text = append_suffix(text.rstrip("？?。"), rng.choice(ZH_SUFFIX), lang)
    else:
        if rng.random() < strength:
            text = rng.choice(EN_PREFIX) + text
        if rng.random() < strength:
            text = append_suffix(text.rstrip("?.!"), rng.choice(EN_SUFFIX), lang)
        r = rng.random()
        if r < 0.3:
            text = text[:1].upper() + text[1:]
        elif r < 0.3 + strength * 0.2:
            text = text.lower()  # placeholders are lowercase already
    if rng.random() < strength * 0.2:
        text = "  " + text if rng.random() < 0.5 else text + " "
    return text
