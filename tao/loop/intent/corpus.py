"""Intent examples for the router: labelled texts (text, language, tool set) built from a domain.

Two sources, both the domain's own data:

* **phrasing** (the reference domain): every intent's request templates expanded (``[a|b|]``
  alternatives picked, ``{kind}`` slots filled by the domain's value sampler), labelled with the
  intent's tools; pairs of composable intents joined by a connector make multi-intent rows;
* **examples** (contract-defined domains such as helpdesk or workplace): each example and derived
  phrasings of it (ids re-sampled from their argument patterns, politeness fillers, a question
  mark), labelled with its steps' tools;
* **contracts**: each tool's description (and its first sentence), labelled with the tool, and its
  card in both languages (:func:`.generated.card_rows`);
* **registry negatives**: requests no tool serves, generated from the registry
  (:func:`.generated.negative_rows`), labelled out of scope.

``split="train"`` never uses what ``split="heldout"`` uses: the last template of each language
list (and ``~``-marked ones) and the held-out value pools are held out of the phrasing rows; the
last example of each (tool, language) group is held out of the example rows. :data:`OUT_OF_SCOPE`
and framed general questions ("what is {topic}", "给我讲讲{topic}") are requests that fit no tool
(training negatives); :data:`OUT_OF_SCOPE_HELDOUT` are others, for evaluation only.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from tao.contracts.domain import Domain, IntentSpec, RequestExample
from tao.domains.contract import base_pattern, regex_sample


class Split(str, Enum):
    TRAIN = "train"
    HELDOUT = "heldout"


@dataclass(frozen=True)
class IntentRow:
    text: str
    lang: str
    tools: frozenset[str]
    """Empty for an out-of-scope request (the router's fallback branch)."""
    source: str = ""
    group: str = ""
    """What generated the row (a template, a base example): rows of one group stay on one side of
    the calibration split (:mod:`.calibrate`)."""


_ALT = re.compile(r"\[([^\[\]]*)\]")
_SLOT = re.compile(r"\{([a-z]+)([0-9]*)\}")
_TIME = {
    "zh": {
        "day": ["今天", "明天", "后天", "下周一", "周五", "2026-05-06", "3月12日"],
        "period": ["上个月", "这个月", "本周", "上周", "3月", "今年", "最近30天"],
        "when": ["明天下午3点", "周五上午10点", "2026-05-06 15:00", "今天14:30"],
        "wkend": ["这个周末", "下周末"],
        "span": ["最近7天", "过去两周", "未来3天"],
        "range": ["明天下午2点到4点", "周五10点到11点半"],
        "dur": ["1小时", "30分钟", "两个小时"],
    },
    "en": {
        "day": ["today", "tomorrow", "next Monday", "on Friday", "2026-05-06", "March 12"],
        "period": ["last month", "this month", "this week", "last week", "in March", "this year"],
        "when": ["tomorrow at 3pm", "Friday 10am", "2026-05-06 15:00", "today at 14:30"],
        "wkend": ["this weekend", "next weekend"],
        "span": ["the last 7 days", "the past two weeks", "the next 3 days"],
        "range": ["tomorrow from 2 to 4pm", "Friday 10 to 11:30"],
        "dur": ["1 hour", "30 minutes", "two hours"],
    },
}

OUT_OF_SCOPE: tuple[tuple[str, str], ...] = tuple(
    (t, "zh")
    for t in """给我讲个笑话|今天股市怎么样|帮我写一首关于春天的诗|推荐一部好看的电影|1加1等于几|把这句话翻译成英文|
    你是谁|你好|谢谢你|中国的首都是哪里|怎么做红烧肉|帮我写个Python脚本|最近有什么新闻|比特币现在多少钱|
    给我起个英文名|失眠怎么办|讲讲量子力学|帮我算一下房贷|周杰伦的新歌|世界杯谁赢了|猫为什么怕水|
    怎么学好英语|我心情不好|帮我写一封情书|地球到月球多远|推荐几本书|今天星期几|明天几点日落""".replace(
        "\n", ""
    )
    .replace(" ", "")
    .split("|")
) + tuple(
    (t.strip(), "en")
    for t in """tell me a joke|how is the stock market today|write a poem about spring|recommend a good movie|
    what is 1 plus 1|translate this sentence into French|who are you|hello there|thanks a lot|
    what is the capital of France|how do I cook pasta|write a python script for me|what's in the news|
    what's the bitcoin price|suggest a name for my dog|I can't sleep, any tips|explain quantum physics|
    calculate my mortgage|who won the world cup|why do cats hate water|how can I learn Spanish|
    I feel sad today|write a love letter|how far is the moon|recommend some books|what day is it|
    play some music|what's the meaning of life""".replace("\n", "").split("|")
)
"""Requests that fit no tool of the registry: training negatives (the fallback branch)."""

_OOS_FRAMES = {
    "zh": "什么是{t}|给我讲讲{t}|解释一下{t}|{t}是怎么回事|{t}是谁发明的|写一篇关于{t}的文章|{t}有什么有趣的知识|"
    "你怎么看{t}|总结一下{t}的历史|{t}对身体好吗|推荐一些{t}相关的东西|我想学{t}",
    "en": "what is {t}|tell me about {t}|explain {t} to me|how does {t} work|who invented {t}|"
    "write an essay about {t}|give me fun facts about {t}|what's your opinion on {t}|"
    "can you summarize the history of {t}|is {t} good for me|recommend something about {t}|I want to learn {t}",
}
_OOS_TOPICS = {
    "zh": "光合作用 罗马帝国 爵士乐 黑洞 机器学习 奥运会 咖啡 瑜伽 法国大革命 气候变化 恐龙 象棋 火山 折纸 古诗词".split(),
    "en": [
        "photosynthesis",
        "the roman empire",
        "jazz music",
        "black holes",
        "machine learning",
        "the olympics",
        "coffee",
        "yoga",
        "the french revolution",
        "climate change",
        "dinosaurs",
        "chess openings",
        "volcanoes",
        "origami",
        "the stock exchange",
    ],
}


def _framed_out_of_scope(n_per_lang: int = 120, seed: int = 5) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    for lang, frames in _OOS_FRAMES.items():
        fs = frames.split("|")
        for _ in range(n_per_lang):
            out.append((rng.choice(fs).format(t=rng.choice(_OOS_TOPICS[lang])), lang))
    return list(dict.fromkeys(out))


OUT_OF_SCOPE_HELDOUT: tuple[tuple[str, str], ...] = tuple(
    (t, "zh")
    for t in """帮我写一段自我介绍|火星上有生命吗|怎么减肥最快|给我背一首唐诗|围棋怎么下|
    推荐一家附近的餐厅|今晚吃什么好|狗狗能吃巧克力吗|帮我想个公司名字|什么是区块链|
    宇宙有多大|怎么修自行车|帮我检查这段代码的语法|篮球比赛比分多少|如何养多肉植物""".replace("\n", "")
    .replace(" ", "")
    .split("|")
) + tuple(
    (t.strip(), "en")
    for t in """write a short bio about me|is there life on Mars|what's the fastest way to lose weight|
    recite a famous poem|how do you play chess|recommend a restaurant nearby|what should I eat tonight|
    can dogs eat chocolate|brainstorm a company name|what is a blockchain|how big is the universe|
    how do I fix a bike chain|check the grammar of my essay|what's the score of the game|
    how to care for succulents""".replace("\n", "").split("|")
)
"""Other out-of-scope requests, for evaluation only (never training rows)."""

FILLERS = {
    "zh": (["", "", "请", "麻烦", "帮我", "能不能", "我想"], ["", "", "，谢谢", "。", "？", "，急"]),
    "en": (["", "", "please ", "hey, ", "can you ", "could you "], ["", "", " thanks", "?", " please", "."]),
}


def expand(template: str, lang: str, sampler: object | None, rng: random.Random) -> str:
    """One request from a template: alternatives picked, slots filled (a time kind from a small
    built-in pool; any other kind from ``sampler.sample(kind)``, else the kind's name)."""
    text = template.lstrip("~")
    while (m := _ALT.search(text)) is not None:
        text = text[: m.start()] + rng.choice(m.group(1).split("|")) + text[m.end() :]

    def fill(m: re.Match[str]) -> str:
        kind = m.group(1)
        if kind in _TIME[lang]:
            return rng.choice(_TIME[lang][kind])
        try:
            surface, _value = sampler.sample(kind)  # pyright: ignore[reportOptionalMemberAccess, reportAttributeAccessIssue]
        except Exception:  # a kind the sampler does not know
            return kind
        return str(surface)

    return _SLOT.sub(fill, text)


def _held(templates: Sequence[str], i: int, mark: str) -> bool:
    return i == len(templates) - 1 or templates[i].startswith(mark)


def phrasing_rows(domain: Domain, split: Split, n_per_template: int = 2, seed: int = 0) -> list[IntentRow]:
    """Rows from the domain's intents (none without phrasing); multi-intent pairs included."""
    p = domain.phrasing
    if p is None:
        return []
    rng = random.Random(seed)
    held = split is Split.HELDOUT
    rows: list[IntentRow] = []
    singles: dict[str, list[IntentRow]] = defaultdict(list)
    for spec in p.intents:
        tools = frozenset(s[0] for s in spec.steps)
        for lang in ("zh", "en"):
            sampler = p.value_sampler(lang=lang, heldout=held, rng=rng)
            temps = spec.zh if lang == "zh" else spec.en
            for i, t in enumerate(temps):
                if _held(temps, i, p.held_mark) != held:
                    continue
                pre, post = FILLERS[lang]
                for k in range(n_per_template):
                    text = expand(t, lang, sampler, rng)
                    if k and not held:  # the second rendering of a training template gets fillers
                        text = rng.choice(pre) + text + rng.choice(post)
                    row = IntentRow(text, lang, tools, f"intent:{spec.name}", f"{spec.name}:{lang}:{i}")
                    rows.append(row)
                    if spec.composable and len(spec.steps) == 1:
                        singles[lang].append(row)
    conns = p.connectors if held else p.train_connectors
    for lang, pool in singles.items():
        for _ in range(len(pool) // 6):
            a, b = rng.sample(pool, 2)
            if a.tools == b.tools:
                continue
            text = a.text.rstrip("？?。.") + rng.choice(list(conns.get(lang, [" and "]))) + b.text
            rows.append(IntentRow(text, lang, a.tools | b.tools, "pair", a.group))
    return rows


def _resample_ids(ex: RequestExample, domain: Domain, rng: random.Random) -> str:
    """The example's text with each id-pattern literal replaced by another value of its pattern."""
    reg = domain.registry()
    text = ex.text
    for tool, args in ex.steps:
        props = reg[tool].args_schema.get("properties", {}) if tool in reg else {}
        for name, value in args.items():
            pat = props.get(name, {}).get("pattern")
            if not isinstance(value, str) or not isinstance(pat, str) or value not in text:
                continue
            core = base_pattern(pat)[0]
            if not any(c.isdigit() for c in value):
                continue
            try:
                text = text.replace(value, regex_sample(core, rng))
            except Exception:  # a pattern that cannot be sampled keeps its literal
                continue
    return text


def example_rows(domain: Domain, split: Split, n_derived: int = 10, seed: int = 0) -> list[IntentRow]:
    """Rows from the domain's examples: per (first tool, language) group the last example is held
    out (a group of one example is not); each kept example yields itself and ``n_derived`` derived phrasings."""
    rng = random.Random(seed + 1)
    groups: dict[tuple[str, str, int], list[RequestExample]] = defaultdict(list)
    for ex in domain.examples:
        groups[(ex.steps[0][0], ex.lang, len(ex.steps))].append(ex)
    rows: list[IntentRow] = []
    for exs in groups.values():
        if len(exs) == 1:  # a lone example trains; nothing of its group is held out
            keep = exs if split is Split.TRAIN else []
        else:
            keep = exs[-1:] if split is Split.HELDOUT else exs[:-1]
        for ex in keep:
            tools = frozenset(t for t, _ in ex.steps)
            pre, post = FILLERS[ex.lang]
            n = n_derived if split is Split.TRAIN else 2
            texts = [ex.text] if split is Split.TRAIN else []
            for _ in range(n):
                t = _resample_ids(ex, domain, rng)
                texts.append(rng.choice(pre) + t + rng.choice(post))
            rows += [IntentRow(t, ex.lang, tools, "example", "ex:" + ex.text) for t in texts]
    return rows


def description_rows(domain: Domain) -> list[IntentRow]:
    """Each tool's description (whole, and its first sentence) as a training row of that tool."""
    rows = []
    for t in domain.tools:
        first = re.split(r"(?<=[.!?])\s", t.description.strip(), maxsplit=1)[0]
        rows += [
            IntentRow(x, "en", frozenset({t.name}), "description")
            for x in dict.fromkeys([t.description, first])
            if x
        ]
    return rows


def out_of_scope_rows(split: Split) -> list[IntentRow]:
    pool = OUT_OF_SCOPE + tuple(_framed_out_of_scope()) if split is Split.TRAIN else OUT_OF_SCOPE_HELDOUT
    return [IntentRow(t, lang, frozenset(), "out_of_scope") for t, lang in pool]


def domain_rows(domains: Iterable[Domain], split: Split, seed: int = 0) -> list[IntentRow]:
    """Rows of every domain (phrasing and examples) plus the out-of-scope rows of the split."""
    from tao.loop.intent.generated import card_rows, negative_rows

    domains = list(domains)
    rows: list[IntentRow] = []
    for d in domains:
        rows += phrasing_rows(d, split, seed=seed)
        rows += example_rows(d, split, seed=seed)
        if split is Split.TRAIN:
            rows += description_rows(d) + card_rows(d)
    if split is Split.TRAIN:
        rows += negative_rows(domains)
    return rows + out_of_scope_rows(split)


def intents_of(domain: Domain) -> Sequence[IntentSpec]:
    return domain.phrasing.intents if domain.phrasing is not None else ()
