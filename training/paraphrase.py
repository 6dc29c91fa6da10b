"""Compositional phrasing diversity for the generator: synonym substitution and politeness
prefixes/suffixes, applied to an expanded template *before* its slots are filled.

Every list is split into a training part and a held-out part (the last entries): the held-out
fillers and synonyms appear only in the ``heldout_templates`` split, so that split keeps measuring
phrasings never seen in training (on top of its held-out templates).
"""

from __future__ import annotations

import random
import re

from training.noise import append_suffix

# (word or phrase, alternatives used in training, alternatives held out of training)
SYNONYMS: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "zh": [
        ("查询", ["查询", "查一下", "查查", "查", "看看", "帮我看下", "了解一下"], ["核实一下"]),
        ("查一下", ["查一下", "查询", "瞅瞅", "查下", "帮忙看看"], ["核对一下"]),
        ("看看", ["看看", "瞧瞧", "查查", "看一眼"], ["翻翻"]),
        ("帮我", ["帮我", "给我", "麻烦你", "请帮我", "帮忙", "劳驾"], ["替我"]),
        ("取消", ["取消", "撤销", "撤掉", "退掉"], ["作废"]),
        ("物流", ["物流", "快递", "运输", "配送", "运单"], ["邮寄"]),
        ("快递", ["快递", "包裹", "物流", "货"], ["件"]),
        ("日程", ["日程", "行程", "安排", "日程安排"], ["档期"]),
        ("资料", ["资料", "信息", "详情"], ["档案信息"]),
        ("天气", ["天气", "天气情况", "天儿"], ["气象"]),
        ("状态", ["状态", "进度", "情况", "处理状态"], ["进展"]),
        ("预订", ["预订", "预定", "订", "约"], ["占"]),
        ("找", ["找", "搜", "寻"], ["物色"]),
        ("发邮件", ["发邮件", "发个邮件", "发封信", "写邮件"], ["发个email"]),
        ("报销", ["报销", "报账"], ["报销一下"]),
        ("会议室", ["会议室", "会议间", "会议厅"], ["会客室"]),
        ("申请更换", ["申请更换", "申请换一台", "申请换个新的", "申请换新"], ["申请换台新的"]),
        ("更换", ["更换", "换一台", "换掉", "换个新的"], ["换台新的"]),
    ],
    "en": [
        ("check", ["check", "look up", "see", "find out", "verify"], ["dig up"]),
        ("show", ["show", "display", "give me", "list", "pull up"], ["bring up"]),
        ("find", ["find", "search for", "look for", "locate"], ["hunt down"]),
        ("cancel", ["cancel", "call off", "void", "drop", "kill"], ["scrap"]),
        ("book", ["book", "reserve", "grab", "get"], ["secure"]),
        ("meeting room", ["meeting room", "conference room", "room"], ["boardroom"]),
        ("track", ["track", "trace", "follow"], ["monitor"]),
        ("where is", ["where is", "where's", "what's the location of"], ["whereabouts of"]),
        ("what's", ["what's", "what is", "tell me"], ["what'll be"]),
        ("send", ["send", "shoot", "write", "drop"], ["fire off"]),
        ("email", ["email", "mail", "e-mail"], ["message"]),
        ("update", ["update", "change", "set", "fix"], ["amend"]),
        ("calendar", ["calendar", "agenda", "schedule"], ["diary"]),
        ("weather", ["weather", "forecast"], ["conditions"]),
        ("profile", ["profile", "account details", "details"], ["record"]),
        ("status", ["status", "progress", "state"], ["standing"]),
        ("refund", ["refund", "pay back", "return"], ["reimburse"]),
        (
            "request a replacement",
            ["request a replacement", "get me a replacement", "get me a new one", "I need a replacement"],
            ["sort out a replacement"],
        ),
        ("replace", ["replace", "swap out", "swap"], ["exchange"]),
    ],
}

PREFIXES: dict[str, tuple[list[str], list[str]]] = {
    "zh": (
        [
            "你好，",
            "您好，",
            "请问",
            "麻烦",
            "那个，",
            "嗯，",
            "我想问下，",
            "能不能",
            "请",
            "在吗，",
            "急！",
            "你好呀，",
            "帮个忙，",
            "老板让我",
        ],
        ["打扰一下，", "请教一下，"],
    ),
    "en": (
        [
            "hi, ",
            "hey, ",
            "hello, ",
            "please ",
            "could you ",
            "can you ",
            "um, ",
            "quick question: ",
            "I'd like you to ",
            "hey there, ",
            "would you ",
            "pls ",
            "ok so ",
            "good morning, ",
        ],
        ["yo, ", "if possible, "],
    ),
}
SUFFIXES: dict[str, tuple[list[str], list[str]]] = {
    "zh": (
        ["，谢谢", "，谢谢！", "吧", "呢", "？", "，多谢", "，急", "，尽快", "哈", "，辛苦了", "，麻烦了"],
        ["，感谢", "，劳烦了"],
    ),
    "en": (
        [" please", ", thanks", " thx", "?", "!", ", thank you", " asap", " for me", ", cheers"],
        [", much appreciated", ", ta"],
    ),
}


def _pick(train: list[str], held: list[str], heldout: bool, rng: random.Random) -> str:
    """Training alternatives only, or (held-out split) a held-out one half of the time."""
    return rng.choice(held if heldout and held and rng.random() < 0.5 else train)


def _word_re(word: str, lang: str) -> re.Pattern[str]:
    if lang == "en":
        return re.compile(r"(?<![{\w])" + re.escape(word) + r"(?![}\w])", re.IGNORECASE)
    return re.compile(re.escape(word))


_RES = {lang: [(_word_re(w, lang), a, h) for w, a, h in lst] for lang, lst in SYNONYMS.items()}


def paraphrase(text: str, lang: str, rng: random.Random, heldout: bool = False, prob: float = 0.6) -> str:
    """Randomly swap synonyms and add a prefix/suffix. ``text`` still holds ``{slot}`` placeholders."""
    if rng.random() < prob:
        for pat, alts, held in _RES[lang]:
            if pat.search(text) and rng.random() < 0.5:
                choice = _pick(alts, held, heldout, rng)
                text = pat.sub(choice, text, count=1)
                if rng.random() < 0.5:
                    break
    if rng.random() < prob * 0.6:
        pre = _pick(*PREFIXES[lang], heldout, rng)
        text = pre + (text[0].lower() + text[1:] if lang == "en" and text[:1].isupper() else text)
    if rng.random() < prob * 0.5:
        suf = _pick(*SUFFIXES[lang], heldout, rng)
        text = append_suffix(text.rstrip("。.!！?？ "), suf, lang)
    return text
