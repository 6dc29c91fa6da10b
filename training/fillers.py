"""Intent-neutral filler words and clauses inserted into *training* requests.

A model trained from scratch only knows the words it was trained on; real requests carry words it
has never seen (small talk, context, slang). Inserting neutral material at word or clause
boundaries teaches the model that such words do not change the plan, so an unseen phrasing is
judged by the words it does know. Fillers never contain cue words of free-text slots (``because``,
``原因``…), names, numbers, dates, cities or domain nouns, so labels stay correct. Applied to the
training split only: the evaluation splits are generated exactly as before.
"""

from __future__ import annotations

import random
import re

from training.noise import FREE_TEXT_SLOTS, PLACEHOLDER

EN_WORDS = (
    "just really actually basically quickly again now kindly honestly um uh like so well ok okay alright hmm "
    "seriously maybe probably literally totally still already also anyway sorry yeah yep right sure "
    "urgently finally simply perhaps definitely certainly super very quite somehow"
).split()
EN_CLAUSES = (
    "real quick",
    "when you get a chance",
    "if you can",
    "by the way",
    "as soon as possible",
    "for me",
    "i'm in a rush",
    "sorry to bother you",
    "my manager asked me",
    "no rush",
    "i'm on my phone",
    "if that's ok",
    "i think",
    "i guess",
    "you know",
    "it's kind of urgent",
    "thanks in advance",
    "appreciate it",
    "hope you're well",
    "long story short",
    "one more thing",
    "i'm not sure how",
    "for the team",
    "as discussed",
    "if it's not too much trouble",
    "no idea how to do it myself",
    "i tried already",
    "the app isn't working",
    "quick favor",
    "just wondering",
    "good afternoon",
    "before lunch",
    "while i'm out",
    "coffee in hand",
    "from the airport lounge",
    "on behalf of my boss",
)
EN_NOISE = (
    "banana coffee laptop printer weekend holiday kids dog garden bike lunch dinner traffic project team "
    "office desk window music movie pizza rain sunshine gym doctor train ticket hotel bag shoes phonecase "
    "jacket keyboard screen chair paper pen notebook sandwich tea water"
).split()
ZH_WORDS = (
    "其实 就是 那个 赶紧 现在 马上 好像 真的 到底 麻烦你 辛苦 拜托 对了 嗯嗯 好的 那啥 话说 顺手 一下下 亲 "
    "哎 唉 呃 哦 嘛 啦 咯 立刻 尽量 稍微 大概 应该 可能 反正 总之 另外说一句 说实话 有空的话"
).split()
ZH_CLAUSES = (
    "我在外面",
    "领导在催",
    "有点急",
    "刚才忘了说",
    "不好意思",
    "打扰了",
    "我手机上操作不方便",
    "不着急",
    "辛苦啦",
    "我不太会弄",
    "老板让问的",
    "麻烦快点",
    "在线等",
    "先谢谢了",
    "我刚试了没成功",
    "我在开车",
    "我在机场",
    "方便的话",
    "我记不太清",
    "帮个小忙",
    "如题",
    "忙完了再说也行",
    "别忘了",
    "急用",
)
ZH_NOISE = (
    "苹果 周末 孩子 咖啡 电脑 打印机 同学 医生 公园 晚饭 午饭 地铁 堵车 下雨 加班 健身 音乐 电影 奶茶 "
    "键盘 椅子 桌子 钥匙 雨伞 手机壳 背包 鞋子 外套 眼镜 杯子"
).split()
_OPEN_END = re.compile(rf"\{{(?:{FREE_TEXT_SLOTS}|name)[0-9]?\}}")
"""Slots perception finds by the words around them (a cue before, a stop after): no filler next to them."""
_ZH_BOUNDARY = re.compile(r"[，,。；;？?！! ]")


def _filler(lang: str, rng: random.Random) -> str:
    r = rng.random()
    if lang == "zh":
        return rng.choice(ZH_WORDS if r < 0.45 else ZH_CLAUSES if r < 0.8 else ZH_NOISE)
    return rng.choice(EN_WORDS if r < 0.45 else EN_CLAUSES if r < 0.8 else EN_NOISE)


def _en_insert(text: str, filler: str, rng: random.Random) -> str:
    words = text.split(" ")
    cuts = [
        i
        for i in range(len(words) + 1)
        if (i == 0 or not _OPEN_END.search(words[i - 1]))
        and (i == len(words) or not _OPEN_END.search(words[i]))
    ]
    i = rng.choice(cuts) if cuts and rng.random() < 0.85 else len(words)  # "{name}" alone: no cut
    if i == 0:
        return f"{filler}, {text}" if rng.random() < 0.5 else f"{filler} {text}"
    if i == len(words):
        glue = rng.random() < 0.5 and not _OPEN_END.search(words[-1])
        return f"{text} {filler}" if glue else f"{text.rstrip('?.!')}, {filler}"
    return " ".join([*words[:i], filler, *words[i:]])


def _zh_insert(text: str, filler: str, rng: random.Random) -> str:
    cuts = {0, len(text)}
    cuts |= {m.end() for m in _ZH_BOUNDARY.finditer(text)}
    for m in PLACEHOLDER.finditer(text):
        if not _OPEN_END.fullmatch(m.group(0)):  # keep cue words and free text / names together
            cuts |= {m.start(), m.end()}
    i = rng.choice(sorted(cuts))
    sep = rng.choice(["，", "", " ", ","]) if i == 0 or i == len(text) else ""
    if i == len(text) and _OPEN_END.search(text[-10:]):
        sep = rng.choice(["，", ","])
    if i == 0:
        return filler + sep + text
    if i == len(text):
        return text + sep + filler
    return text[:i] + filler + text[i:]


def add_fillers(template: str, lang: str, rng: random.Random, prob: float = 0.4) -> str:
    """With probability ``prob`` insert one neutral filler (sometimes two) at a boundary."""
    if rng.random() >= prob:
        return template
    for _ in range(2 if rng.random() < 0.25 else 1):
        f = _filler(lang, rng)
        template = _zh_insert(template, f, rng) if lang == "zh" else _en_insert(template, f, rng)
    return template
