"""Router training rows generated from the registry itself: tool cards and "none of these" rows.

* :func:`card_rows`: each tool's *card* — the concepts (:mod:`.lexicon`) of its name's parts, its
  description's first sentence and its argument names — rendered in English and in Chinese with the
  lexicon's surface words (``get_leave_balance`` -> "leave balance employee" / "年假 剩余 员工"),
  labelled with the tool: the contract's own words in both languages;
* :func:`negative_rows`: requests no tool of the registry serves, labelled out of scope (the
  router's explicit "none" class): (1) an action verb no tool offers on a registry noun (``delete``,
  ``unsubscribe``, ``share`` ... on the account, the order, the payslip), where the verb does not
  resemble one the noun's tools do (``delete my leave request`` resembles ``cancel_leave_request``
  and is *not* generated); (2) any verb on things no tool handles (a gym membership, a train ticket,
  a restaurant table); (3) general-knowledge questions about places and companies (a city is not by
  itself a weather request); chit-chat and framed topics stay in :mod:`.corpus`.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Sequence

from tao.contracts.domain import Domain
from tao.loop.intent.corpus import IntentRow
from tao.loop.intent.lexicon import concepts_of, surface

# the registry nouns a request can act on (concept -> en, zh)
_NOUNS: dict[str, tuple[str, str]] = {
    "user": ("account", "账号"),
    "profile": ("profile", "个人资料"),
    "order": ("order", "订单"),
    "invoice": ("invoice", "发票"),
    "expense": ("expense claim", "报销单"),
    "meeting": ("meeting", "会议"),
    "calendar": ("calendar", "日历"),
    "email": ("emails", "邮件"),
    "ticket": ("support ticket", "工单"),
    "device": ("laptop", "电脑"),
    "leave": ("leave request", "请假单"),
    "payslip": ("payslip", "工资条"),
    "flight": ("flight booking", "机票"),
    "hotel": ("hotel booking", "酒店订单"),
    "trip": ("trip", "出差行程"),
    "password": ("password", "密码"),
}
# verbs no tool name uses: (en, zh, the registry verb it resembles or "")
_OUTSIDE_VERBS: tuple[tuple[str, str, str], ...] = (
    ("delete", "删除", "cancel"),
    ("remove", "删掉", "cancel"),
    ("deactivate", "注销", "cancel"),
    ("close", "关闭", "cancel"),
    ("unsubscribe from", "退订", ""),
    ("export", "导出", "get"),
    ("print", "打印", "get"),
    ("download", "下载", "get"),
    ("share", "分享", ""),
    ("rename", "重命名", "update"),
    ("transfer", "转让", ""),
    ("rate", "评价", ""),
    ("upgrade", "升级", ""),
    ("renew", "续费", ""),
    ("archive", "归档", ""),
    ("merge", "合并", ""),
    ("back up", "备份", ""),
    ("translate", "翻译", ""),
    ("block", "拉黑", ""),
    ("sell", "卖掉", ""),
    ("lend", "借给别人", ""),
    ("post", "发朋友圈", ""),
    ("upload", "上传", ""),
    ("install", "安装", ""),
    ("uninstall", "卸载", ""),
    ("sync", "同步", ""),
    ("encrypt", "加密", ""),
    ("pay off", "还清", ""),
    ("insure", "投保", ""),
    ("donate", "捐掉", ""),
    ("mute", "静音", ""),
    ("pin", "置顶", ""),
    ("recycle", "回收", ""),
)
_GET_LIKE = {"get", "list", "search", "find"}
# things no tool handles (en, zh)
_OUTSIDE_NOUNS: tuple[tuple[str, str], ...] = (
    ("gym membership", "健身卡"),
    ("newsletter subscription", "新闻订阅"),
    ("restaurant table", "餐厅的位子"),
    ("train ticket", "火车票"),
    ("movie tickets", "电影票"),
    ("concert tickets", "演唱会门票"),
    ("pizza", "披萨"),
    ("song", "歌"),
    ("parking space", "停车位"),
    ("doctor's appointment", "医院挂号"),
    ("haircut", "理发预约"),
    ("car rental", "租车"),
    ("music subscription", "音乐会员"),
    ("phone contract", "手机套餐"),
    ("money to a friend", "钱给朋友"),
    ("credit card bill", "信用卡账单"),
    ("stock shares", "股票"),
    ("seat on the plane", "飞机上的座位"),
    ("food delivery", "外卖"),
    ("birthday cake", "生日蛋糕"),
    ("spotify playlist", "歌单"),
    ("wedding photos", "婚纱照"),
    ("social media post", "朋友圈"),
    ("video game", "游戏"),
    ("library book", "图书馆的书"),
    ("electricity bill", "电费"),
    ("lottery ticket", "彩票"),
    ("dog walker", "遛狗的人"),
)
_ANY_VERBS: tuple[tuple[str, str], ...] = (
    ("book", "预订"),
    ("cancel", "取消"),
    ("find", "找"),
    ("get", "买"),
    ("change", "修改"),
    ("check the status of", "查一下"),
    ("renew", "续"),
    ("order", "下单"),
    ("send", "发"),
    ("transfer", "转"),
    ("pay", "付"),
    ("request", "申请"),
)
_FRAMES = {
    "en": (
        "{v} my {n}",
        "please {v} the {n}",
        "can you {v} my {n}?",
        "I want to {v} my {n}",
        "how do I {v} my {n}",
        "{v} a {n} for me",
    ),
    "zh": ("帮我{v}{n}", "{v}我的{n}", "我想{v}一下{n}", "怎么{v}{n}", "能不能帮我{v}{n}"),
}
_PLACES = {
    "en": (
        ["Shanghai", "Beijing", "Tokyo", "Paris", "London", "Sydney", "New York", "Chengdu", "Berlin"],
        ["Japan", "France", "Brazil", "Canada", "Germany", "India", "Egypt", "Italy", "Mexico"],
        ["Tesla", "Microsoft", "Huawei", "Alibaba", "Toyota", "Google", "Samsung"],
    ),
    "zh": (
        ["上海", "北京", "东京", "巴黎", "伦敦", "悉尼", "纽约", "成都", "柏林"],
        ["日本", "法国", "巴西", "加拿大", "德国", "印度", "埃及", "意大利", "墨西哥"],
        ["特斯拉", "微软", "华为", "阿里巴巴", "丰田", "谷歌", "三星"],
    ),
}
_KNOWLEDGE = {
    "en": (
        "what is the capital of {country}",
        "how many people live in {city}",
        "tell me about the history of {city}",
        "what are the best sights in {city}",
        "what language do people speak in {country}",
        "what is {city} famous for",
        "what food should I try in {city}",
        "who founded {company}",
        "what is {company}'s stock price",
        "how big is {country}",
        "what time is it in {city} right now",
    ),
    "zh": (
        "{country}的首都是哪里",
        "{city}有多少人口",
        "讲讲{city}的历史",
        "{city}有什么好玩的景点",
        "{country}说什么语言",
        "{city}以什么出名",
        "{city}有什么特色美食",
        "{company}的创始人是谁",
        "{company}的股价是多少",
        "{country}有多大",
        "{city}现在几点",
    ),
}


def _card_concepts(domain: Domain) -> dict[str, list[str]]:
    """Tool -> the concepts of its name's parts and argument names, plus those of its description's
    first sentence that its tool group's names share (``Issue an invoice`` is no support ticket)."""
    named: dict[str, list[str]] = {}
    group: dict[str, set[str]] = defaultdict(set)
    for t in domain.tools:
        args = " ".join(str(a).replace("_", " ") for a in t.args_schema.get("properties", {}))
        named[t.name] = concepts_of(t.name.replace("_", " ") + " " + args)
        group[t.domain or t.name].update(named[t.name])
    out: dict[str, list[str]] = {}
    for t in domain.tools:
        first = re.split(r"(?<=[.!?])\s", t.description.strip(), maxsplit=1)[0]
        extra = [c for c in concepts_of(first) if c in group[t.domain or t.name]]
        out[t.name] = list(dict.fromkeys(named[t.name] + extra))
    return out


def card_rows(domain: Domain, n_per_lang: int = 8, seed: int = 11) -> list[IntentRow]:
    """Each tool's card concepts rendered with the lexicon's words, both languages."""
    rng = random.Random(seed)
    rows: list[IntentRow] = []
    for tool, cs in _card_concepts(domain).items():
        cs = [c for c in cs if c not in ("date", "list", "search")] or cs
        if not cs:
            continue
        for lang in ("en", "zh"):
            for _ in range(n_per_lang):
                pick = rng.sample(cs, min(len(cs), rng.randint(2, 4)))
                words = [rng.choice(surface(c, lang) or (c,)) for c in pick]
                text = (" " if lang == "en" else "").join(words)
                rows.append(IntentRow(text, lang, frozenset({tool}), "card"))
    return rows


def _noun_verbs(domains: Sequence[Domain]) -> dict[str, set[str]]:
    """Registry noun concept -> the verbs (first name part) of the tools whose name mentions it."""
    out: dict[str, set[str]] = defaultdict(set)
    for t in (t for d in domains for t in d.tools):
        verb = t.name.split("_", 1)[0]
        for c in concepts_of(t.name.replace("_", " ")):
            out[c].add(verb)
    return out


def negative_rows(domains: Sequence[Domain], seed: int = 13, per_noun: int = 3) -> list[IntentRow]:
    """Out-of-scope rows derived from the registry: ``domains`` are all its parts (a verb one part
    lacks may be another part's tool), see the module doc."""
    rng = random.Random(seed)
    verbs_of = _noun_verbs(domains)
    tool_verbs = {t.name.split("_", 1)[0] for d in domains for t in d.tools}
    texts: list[tuple[str, str]] = []
    for concept, nouns in _NOUNS.items():
        have = verbs_of.get(concept, set())
        eligible = [
            (en_v, zh_v, like)
            for en_v, zh_v, like in _OUTSIDE_VERBS
            if en_v.split()[0] not in tool_verbs
            # a verb resembling what a tool of the noun does is not out of scope
            and not (like and (like in have or (like in _GET_LIKE and have & _GET_LIKE)))
        ]
        # the destructive verbs no tool offers always; a few others per noun: the noun alone
        # (``我三月的工资条``) must stay evidence of its tools
        always = [(e, z) for e, z, like in eligible if like == "cancel" or e.startswith("unsubscribe")]
        rest = [(e, z) for e, z, like in eligible if (e, z) not in always]
        for en_v, zh_v in always[:2] + rng.sample(rest, min(per_noun, len(rest))):
            for lang, v, n in (("en", en_v, nouns[0]), ("zh", zh_v, nouns[1])):
                texts.append((rng.choice(_FRAMES[lang]).format(v=v, n=n), lang))
    for en_n, zh_n in _OUTSIDE_NOUNS:
        for en_v, zh_v in rng.sample(_ANY_VERBS, 3) + [(v[0], v[1]) for v in rng.sample(_OUTSIDE_VERBS, 2)]:
            for lang, v, n in (("en", en_v, en_n), ("zh", zh_v, zh_n)):
                texts.append((rng.choice(_FRAMES[lang]).format(v=v, n=n), lang))
    for lang, frames in _KNOWLEDGE.items():
        cities, countries, companies = _PLACES[lang]
        for f in frames:
            for _ in range(3):
                texts.append(
                    (
                        f.format(
                            city=rng.choice(cities),
                            country=rng.choice(countries),
                            company=rng.choice(companies),
                        ),
                        lang,
                    )
                )
    return [IntentRow(t, lang, frozenset(), "negative") for t, lang in dict.fromkeys(texts)]
