"""Perception: deterministic extraction of the entities a plan must copy exactly.

Ids, emails, phones, amounts, dates and times, durations, head counts, cities, person names and
quoted/cued free text are found by rules (regexes and small lexicons), replaced in the request by
typed slot tokens (``<ORDER1>``, ``<DATE1>``, ...) and bound to their literal, normalized values.
The model sees and emits slot tokens; :func:`thought_model.output_parse.parse_output` substitutes the
values back. Relative time phrases become the canonical symbols of
:data:`tao.contracts.plan.TIME_SYMBOL_PATTERN` (``@last_month``, ``@tomorrow T15:00``), so the
model never computes dates.

The id kinds, cities and domain words come from the tool domain's
:class:`~tao.contracts.domain.Lexicon` (``perceive(..., lexicon=)``; default: the reference
domain's, via :mod:`tao.domains`); the language rules here are the same for every domain.

Before anything else the request is normalized (:mod:`thought_model.perception.normalize`):
traditional → simplified Chinese, full-width letters/digits → ASCII, misspelled key words fixed
(``wheather`` → ``weather``). **Slot values are taken from the normalized text** (project
decision): a value written in traditional characters is bound in simplified ones. Cities come
from the domain's list plus a world gazetteer (:mod:`thought_model.perception.gazetteer`: big
cities anywhere, smaller ones and English words that are cities only next to a cue, typos
near a cue); time ranges, compound durations, weekends, last/next N days and ``N号`` come from
:mod:`thought_model.perception.timespans`; free text without a colon or cue word from
:mod:`thought_model.perception.freetext`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from tao.contracts.domain import Lexicon
from thought_model.entities_lexicon import (
    MONTHS_EN,
    STATUS_WORDS_BLOCK,
    SURNAMES,
)
from thought_model.perception.datetimes import add_datetimes
from thought_model.perception.freetext import find_free_texts, opens_with_field_cue
from thought_model.perception.gazetteer import find_cities
from thought_model.perception.names_en import EN_STOP, company_spans, not_a_name
from thought_model.perception.normalize import KEYWORDS, normalize_request
from thought_model.perception.numbers import NUM as _NUM
from thought_model.perception.numbers import num as _num
from thought_model.perception.sameday import same_day_spans, same_day_times
from thought_model.perception.textend import cued_text_end, field_piece, inline_field_end, is_sign_off
from thought_model.perception.timespans import (
    find_durations,
    find_time_ranges,
)

GENERIC_SLOT_TYPES = (
    "EMAIL",
    "PHONE",
    "AMOUNT",
    "DATE",
    "DUR",
    "NUM",
    "CITY",
    "NAME",
    "TEXT",
)
"""Slot types every domain has; a domain's id kinds come first (:func:`slot_types`)."""
MAX_SLOTS_PER_TYPE = 4
ME_SLOT = "<ME>"
SLOT_TOKEN_RE = re.compile(r"<([A-Z][A-Z0-9]{1,15})([1-9])>|<ME>")
"""A slot token of any domain (requests never contain ``<``/``>``: perception escapes them)."""


def default_lexicon() -> Lexicon:
    """The reference domain's lexicon (the default of every perception call)."""
    from tao.domains.reference.lexicon import LEXICON

    return LEXICON


def slot_types(lexicon: Lexicon | None = None) -> tuple[str, ...]:
    """The slot types of a domain: its id kinds, then the generic ones."""
    lex = lexicon or default_lexicon()
    return tuple(k.slot for k in lex.id_kinds) + GENERIC_SLOT_TYPES


def slot_tokens(lexicon: Lexicon | None = None) -> list[str]:
    """Every slot token the tokenizer must keep whole, in a stable order."""
    types = slot_types(lexicon)
    return [f"<{t}{i}>" for t in types for i in range(1, MAX_SLOTS_PER_TYPE + 1)] + [ME_SLOT]


@dataclass(frozen=True)
class Entity:
    """One extracted entity: its type, literal span in the request and normalized value."""

    type: str
    start: int
    end: int
    text: str
    value: str | float | int


@dataclass
class Perception:
    """A request with its entities replaced by slot tokens, and the slot -> value bindings."""

    masked: str
    slots: dict[str, str | float | int] = field(default_factory=dict)
    entities: list[Entity] = field(default_factory=list)

    def slot_for(self, type_: str, value: str | float | int) -> str | None:
        """The slot token bound to ``value`` of ``type_`` (None if perception did not find it)."""
        for name, v in self.slots.items():
            if name.startswith(f"<{type_}") and _same(v, value):
                return name
        return None


def _same(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(float(a) - float(b)) < 1e-9
    return a == b


# ---------------------------------------------------------------- patterns
_D = r"(?<![0-9A-Za-z])"
_E = r"(?![0-9A-Za-z])"

_EMAIL_RULE = ("EMAIL", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"), False)
_PHONE_RULE = (
    "PHONE",
    # a mainland mobile, or an international number written with its country code
    # ("+44 7700 900123", "+55 21 98765-4321", "+1 (415) 555-0199")
    re.compile(
        r"(?<![0-9])1[3-9][0-9]{9}(?![0-9])|(?<![0-9A-Za-z+])\+[1-9][0-9]{0,2}(?:[ \-]?\(?[0-9]{2,5}\)?){2,4}(?![0-9])"
    ),
    False,
)

_AMOUNT = re.compile(
    r"(?:[¥￥$]\s?(?P<a1>[0-9]+(?:\.[0-9]+)?))"
    r"|(?:(?P<a2>[0-9]+(?:\.[0-9]+)?)\s?(?:元|块钱|块|rmb|RMB|yuan|CNY|dollars?|usd|USD)(?![A-Za-z]))"
    r"|(?:(?:退款|退|金额|amount(?: of)?|refund(?: of)?|报销|花了|花费|花掉|用了|消费了?|付了"
    r"|(?:expense|claim|reimbursement)(?: of|:)?|submit|costing|cost|spent)"
    r"\s?(?:为|是|:|：)?\s?(?P<a3>[0-9]+(?:\.[0-9]+)?)(?![0-9.\-/])(?!\s?(?:expen|claim|reimburs|笔|项|张))(?:\s?(?:元|块钱|块|rmb|yuan|cny|dollars?|usd)(?![A-Za-z])(?![\u4e00-\u9fff]*[0-9]))?)"
    # "a 45.5 meal expense": a bare number before an expense noun (one optional category word)
    r"|(?:\b(?:an?|the)\s(?P<a4>[0-9]+(?:\.[0-9]+)?)(?=\s(?:[a-z]+\s)?(?:expense|claim|reimbursement)))"
    # "22 transport on <DATE>", "86.40 for lunch": a bare number before an expense category's word
    r"|(?:(?<![0-9.\-/:A-Za-z])(?P<a5>[0-9]+(?:\.[0-9]+)?)(?=\s(?:for\s)?(?:transport|travel|hotel|meal|taxi|cab|uber"
    r"|lunch|dinner|breakfast|office|train|flight|parking|fuel|metro)\b))",
    re.I,
)
_DUR = re.compile(
    rf"(?<![0-9.A-Za-z])(?P<n>{_NUM}|半|an?|one|two|three|half an?)(?:\s|-)?(?:个)?(?P<half>半)?\s?"
    r"(?P<u>小时|钟头|分钟|hours?|hrs?|h(?![a-z])|minutes?|mins?)",
    re.I,
)
_COUNT = re.compile(
    rf"(?P<n>{_NUM}|[a-z]+)\s?(?:个)?\s?(?:人|位|people|persons|attendees|participants|seats|pax)(?![a-z])",
    re.I,
)
_QUOTED = re.compile(
    r"[\"“「『‘](?P<t>[^\"”」』’<>]{1,80})[\"”」』’]"
    r"|(?<![A-Za-z])'(?P<t2>[^'\"<>\n]{1,80})'(?![A-Za-z])"
)
"""Quoted free text; an ASCII apostrophe quotes only at word edges (so "I'm ... what's" is no quote)."""
_CUE = re.compile(
    r"(?:原因都是|理由都是|原因是|原因[:：]|理由是|理由[:：]|因为|抬头是|抬头为|抬头[:：]|标题是|标题为|标题[:：]|主题是|主题为|主题[:：]|主旨是|主旨为|主旨[:：]"
    r"|内容是|内容为|内容[:：]|正文是|正文[:：]|说明是|说明[:：]|备注[:：]|用途是|事由是|事由[:：]"
    r"|(?<![A-Za-z])(?:(?:same\s+)?reason(?:\s+for\s+(?:both|all|each|them|all of them))?(?:\s+(?:is|was|being))?:?|because|titled|title:|subject:|saying|that says|body:|header:|description:"
    r"|for the purpose of)(?![A-Za-z]))\s*",
    re.I,
)
_SHORT_CUE = re.compile(r"抬头|标题|主题|主旨|题目|名称|title|subject|header|heading", re.I)
"""Cues of short one-phrase fields: their value ends at the first comma (bodies, reasons and
descriptions run on to the sentence's end, :func:`~thought_model.perception.textend.cued_text_end`)."""

_ONE_PHRASE_CUE = re.compile(r"titled|title|header|description|reason|because", re.I)
"""English cues of a one-phrase value that a time, a day or the next ask may follow without a comma."""
_CONNECTOR = re.compile(r"\s(?:and then|then|and also|also|after that)\s|然后|接着|另外|顺便")
"""Where free text after a word cue ends, besides :func:`~thought_model.perception.textend.cued_text_end`:
a connector that starts the next ask ("open a ticket about X and then check it", "问题是X然后查一下").
After a colon cue ("内容：", "body:") the writer has marked the field itself, so a connector inside
it is text ("内容：请先查物流然后再取消订单" is one body)."""
_ASK_LEAD = re.compile(r"(?:and|then|also|plus)\b|然后|接着|另外|顺便|并且", re.I)
"""A connector at the start of what follows a word cue: that is the next ask, not free text."""
_ZH_NAME_CUE = re.compile(
    rf"(?:^|[\s，,。：:、]|(?<=[\u4e00-\u9fff])(?:部|组|科|中心)的?|(?<![A-Za-z])(?:he|and)(?![A-Za-z])|知道|问一下|问问|用户|客户|同事|员工|联系人|给|帮|找|找到|找出|找一下|找下|找找|搜一下|搜下|查找|查看|调出|叫|通知|告诉|邀请|约|和|跟|与|查|查询|查一下|查下|看看|看下|看一下|拉上|把|列出|实习生|经理|主管|老板|领导|同学|朋友|名字改成|名字改为|姓名改成|姓名改为|名字换成)(?P<n>(?:{SURNAMES})[\u4e00-\u9fff]{{1,2}})"
    r"(?=的|先生|女士|老师|经理|总|，|,|。|、|\s|$|发|和|跟|一起|开|参加|吧|吗|在|是|最近|最新|最后|上|下|这|今|明|昨|去|本|有|买|下|说|那|后天|前天|大后天|周[一二三四五六日天末]|星期|礼拜|提交|报销"
    r"|重置|提一|提个|领了|领用|申请|换|都|处理|已|待|等待|未|现在|目前|当前|手上|手头|聊|对一下|商量|沟通|见面|(?:de|he|and)(?![A-Za-z]))"
)
_ROOM_ASK = re.compile(r"(?<![A-Za-z])(?:room|space)s?(?![A-Za-z])", re.I)
_BARE_FOR_N = re.compile(
    r"(?<![A-Za-z])for\s(?P<n>[1-9][0-9]?)(?![0-9.:/])(?!\s?(?:min|mins|minutes?|hours?|hrs?|h|am|pm|a\.m|p\.m|o'?clock)(?![A-Za-z]))",
    re.I,
)
_EN_LOWER_NAME = re.compile(
    r"(?<![A-Za-z])(?:find|look\s+up|lookup|search\s+for|search)\s+(?:the\s+)?(?:user|person|colleague|employee|member)"
    r"(?:\s+(?:named|called))?\s+(?P<n>[a-z][a-z'\-]+(?:\s[a-z][a-z'\-]+)?)(?=\s*$|\s*[,.?!;]|\s+(?:and|then|please|pls)(?![a-z]))"
)
"""A person's name written in lower case after a user-lookup verb."""
_EN_LOWER_FOUND = re.compile(
    r"(?<![A-Za-z])(?:find|look\s+up|lookup|search\s+for)\s+(?P<n>[a-z][a-z'\-]+\s[a-z][a-z'\-]+)\s+and\s"
    r"(?=.*\b(?:his|her|their|him|them|he|she)\b)"
)
"""A lower-case two-word object of a lookup verb that a later pronoun refers to: a person ("find
carlos ruiz and update his city")."""
_EN_LOWER_NOT_NAME = frozenset(
    """my me the a an all any some his her their our your this that it its out up me latest newest last
    recent first next order orders invoice invoices expense expenses claim claims room rooms user users
    someone somebody anyone everyone people person weather calendar profile email phone
    """.split()
)
_EN_LOWER_STOP = frozenset("by with whose who that named called in from for".split())
_ZH_PARTICLES = frozenset("吧呢哈呀啊嘛啦哦")
_NAME_VERB_END = frozenset("改换查订退删加")
"""A third character that is the verb after a two-character name: 孙悦改下城市 -> 孙悦."""
_EN_WORD = r"(?:[A-Z]['’]|Ma?c)?[A-Z][a-z]+(?:-[A-Z][a-z]{2,})?"
"""A capitalised name word, with the Irish / Scottish / double forms (O'Neill, McDonald, Jean-Luc)."""
_EN_NAME = re.compile(rf"(?<![A-Za-z'’])(?P<n>{_EN_WORD}(?:\s{_EN_WORD}){{0,2}})(?![A-Za-z])")


class _Spans:
    """Non-overlapping accepted spans, first come first served."""

    def __init__(self) -> None:
        self.items: list[Entity] = []

    def free(self, a: int, b: int) -> bool:
        return all(b <= e.start or a >= e.end for e in self.items)

    def add(self, type_: str, a: int, b: int, text: str, value: str | float | int) -> bool:
        if a >= b or not self.free(a, b):
            return False
        self.items.append(Entity(type_, a, b, text[a:b], value))
        return True


@dataclass(frozen=True)
class _DomainRules:
    """A lexicon compiled for perception (once per lexicon object)."""

    id_rules: list[tuple[str, re.Pattern[str], bool]]
    cities: dict[str, str]
    city_order: list[tuple[str, str]]
    name_block_zh: frozenset[str]
    name_stop_en: frozenset[str]
    cue: re.Pattern[str] = _CUE
    """The free-text cues: the built-in ones plus the domain's ``Lexicon.text_cues``."""
    show_free_text: bool = False
    field_piece: re.Pattern[str] | None = None
    """A comma piece of the domain's enum words (``Lexicon.field_words``): cued free text ends."""
    time_slots: bool = True
    """Dates, times and durations become slots (``Lexicon.time_slots``)."""
    keywords: tuple[str, ...] = ()
    """The domain's key words whose typos are fixed first (``Lexicon.keywords``)."""
    enum_words: frozenset[str] = frozenset()
    """The domain's enum words, case-folded (``Lexicon.field_words``): quoted, one is a value."""


_COMPILED: dict[int, tuple[Lexicon, _DomainRules]] = {}


def _rules(lexicon: Lexicon | None) -> _DomainRules:
    lex = lexicon or default_lexicon()
    hit = _COMPILED.get(id(lex))
    if hit is not None and hit[0] is lex:
        return hit[1]
    ids = [(k.slot, re.compile(k.pattern, re.I if k.ignore_case else 0), k.upper) for k in lex.id_kinds]
    cities = {c: c for c in lex.cities_zh}
    cities.update({c.lower(): c for c in lex.cities_en})
    rules = _DomainRules(
        id_rules=[_EMAIL_RULE, *ids, _PHONE_RULE],
        cities=cities,
        city_order=sorted(cities.items(), key=lambda kv: len(kv[0]), reverse=True),
        name_block_zh=frozenset(STATUS_WORDS_BLOCK) | lex.name_block_zh,
        name_stop_en=EN_STOP | lex.name_stop_en,
        cue=re.compile("(?:" + "|".join([_CUE.pattern.removesuffix(r"\s*"), *lex.text_cues]) + r")\s*", re.I)
        if lex.text_cues
        else _CUE,
        show_free_text=lex.show_free_text,
        field_piece=field_piece(lex.field_words),
        time_slots=lex.time_slots,
        keywords=tuple(k for k in lex.keywords if k not in KEYWORDS),
        enum_words=frozenset(w.casefold() for w in lex.field_words),
    )
    _COMPILED[id(lex)] = (lex, rules)
    return rules


_LABEL_END = re.compile(r"(?:是|为|號|号|[:：]|\bis|\bnumber|#)\s*$", re.I)


def _labels_next(t: str, end: int, spans: _Spans) -> bool:
    """Whether the text ``t`` ending at ``end`` only labels the entity right after it (``订单号是`` before
    an order id): no free text."""
    return bool(_LABEL_END.search(t)) and any(e.start == end or e.start == end + 1 for e in spans.items)


def perceive(
    request: str,
    today: date | None = None,
    user_known: bool = False,
    lexicon: Lexicon | None = None,
    known_text: Sequence[str] = (),
) -> Perception:
    """Extract entities from ``request`` and return the masked text plus slot bindings.

    ``today`` supplies the year of dates written without one (default: the machine's date);
    ``lexicon`` is the tool domain's (default: the reference domain's). ``known_text`` (training
    rows only): free-text values the generator wrote into the request; one that perception did
    not find (no cue: "Cancel order X, wrong address") is a ``TEXT`` slot all the same, as the
    composer's uncued-description pass makes it at serving time.
    """
    today = today or date.today()
    rules = _rules(lexicon)
    text = normalize_request(request, rules.keywords).replace("<", "＜").replace(">", "＞")
    spans = _Spans()
    for type_, rx, upper in rules.id_rules:
        for m in rx.finditer(text):
            v = m.group(0)
            v = v.upper() if upper else v
            spans.add(type_, m.start(), m.end(), text, v)
    for m in _QUOTED.finditer(text):
        quoted = (m.group("t") or m.group("t2")).strip()
        if quoted.casefold() in rules.enum_words:  # "under the 'other' category": a value, not a text
            continue
        spans.add("TEXT", m.start(), m.end(), text, quoted)
    ranges = [r for r in find_time_ranges(text) if spans.free(r.start, r.end)] if rules.time_slots else []
    for r in ranges:  # 下午1点到3点: "到3点" is the duration, the start joins the dates below
        spans.add("DUR", r.dur_start, r.end, text, r.minutes)
    for a, b, minutes in find_durations(text) if rules.time_slots else ():  # 1小时30分钟
        spans.add("DUR", a, b, text, minutes)
    for m in _DUR.finditer(text) if rules.time_slots else ():
        n = m.group("n").lower()
        val = 0.5 if n in ("半", "half a", "half an") else _num(n)
        if val is None:
            continue
        unit = m.group("u").lower()
        minutes = val * 60 if unit.startswith(("小", "钟", "h")) else val
        if m.group("half"):
            minutes += 30
        if 1 <= minutes <= 1440 and float(minutes).is_integer():
            spans.add("DUR", m.start(), m.end(), text, int(minutes))
    cues = list(rules.cue.finditer(text))
    for j, m in enumerate(cues):
        a = m.end()
        colon = m.group().rstrip().endswith((":", "："))
        stop = None if colon else _CONNECTOR.search(text, a)
        stops = (
            [stop.start() if stop else len(text)]
            + [e.start for e in spans.items if e.start >= a]
            + [c.start() for c in cues[j + 1 :]]
        )
        end = cued_text_end(text, a, min(stops), rules.field_piece)
        if _SHORT_CUE.search(m.group()):  # a title / subject / invoice header ends at its first comma
            comma = re.search(r"[，,、]", text[a:end])
            end = a + comma.start() if comma else end
        if not colon and _ONE_PHRASE_CUE.search(m.group()):  # "titled X on <date> for <dur>"
            end = inline_field_end(text, a, end)
        t = text[a:end]
        if not colon and _ASK_LEAD.match(t):  # "my newest ticket, and who's handling it": a next ask
            continue
        if opens_with_field_cue(text, a):  # "工单，问题描述就写“…”": the field's own cue follows
            continue
        if is_sign_off(t) or _labels_next(t, a + len(t), spans):  # "取消了吧，谢谢" / "，订单号是<ORDER>"
            continue
        if t and spans.free(a, a + len(t)) and t.strip().casefold() not in rules.enum_words:
            spans.add("TEXT", a, a + len(t), text, t)  # (", high priority" is a value, not a text)
    has_text = any(e.type == "TEXT" for e in spans.items)
    for a, b, t in find_free_texts(text, spans.free, colon_rule=not has_text):  # 正文写…, subject X
        if t.strip().casefold() not in rules.enum_words:
            spans.add("TEXT", a, b, text, t)
    if rules.time_slots:
        add_datetimes(text, spans, today, ranges)
        for a, b, day in same_day_spans(text, spans.items):  # "…friday, and the weather there that day"
            spans.add("DATE", a, b, text, day)
        for i, value in same_day_times(text, spans.items):  # "tomorrow at 9am and at 6pm"
            spans.items[i] = replace(spans.items[i], value=value)
    for m in _AMOUNT.finditer(text):
        g = next(k for k in ("a1", "a2", "a3", "a4", "a5") if m.group(k))
        a = m.start() if g in ("a1", "a2") else m.start(g)
        spans.add("AMOUNT", a, m.end(), text, float(m.group(g)))
    _add_parallel_amounts(text, spans)
    for m in _COUNT.finditer(text):
        n = _num(m.group("n"))
        if n is not None and n.is_integer() and 1 <= n <= 1000:
            spans.add("NUM", m.start(), m.end(), text, int(n))
    if _ROOM_ASK.search(text):  # "a room for 4 tomorrow at 11": a bare "for N" is the head count
        for m in _BARE_FOR_N.finditer(text):
            spans.add("NUM", m.start("n"), m.end("n"), text, int(m.group("n")))
    for c in find_cities(text, rules.cities, spans.free):
        spans.add("CITY", c.start, c.end, text, c.value)
    for m in _ZH_NAME_CUE.finditer(text):
        n = m.group("n")
        if n[-1] in _ZH_PARTICLES:  # "优先级高吧": 高 + a particle is no name; 高明哈 -> 高明
            if len(n) < 3:
                continue
            n = n[:-1]
        if (
            len(n) == 3
            and n[-1] in _NAME_VERB_END
            and text.startswith(("下", "一下", "成", "为"), m.start("n") + 3)
        ):
            n = n[:-1]
        if len(n) == 3 and text.startswith(("现在", "目前", "当前"), m.start("n") + 2):  # 何磊现在
            n = n[:-1]
        if len(n) == 3 and n.endswith("的"):  # "查一下陈伟的发票": 的 ends the name
            n = n[:-1]
        if len(n) == 3 and n.endswith("名") and text.startswith("下", m.start("n") + 3):  # 刘芳名下的设备
            n = n[:-1]
        if len(n) >= 3 and n.endswith("都"):  # 欧阳涛都有什么设备
            n = n[:-1]
        if len(n) == 3 and n[-1] in "聊看问谈说试找" and text.startswith(n[-1], m.start("n") + 3):  # 赵敏聊聊
            n = n[:-1]
        if n not in rules.name_block_zh and not n.startswith(("谢谢", "谢啦", "谢了")):  # 谢: a surname
            a = m.start("n")
            if not spans.add("NAME", a, a + len(n), text, n) and len(n) == 3 and spans.free(a, a + 2):
                spans.add("NAME", a, a + 2, text, n[:2])  # 赵磊下周一: the third character starts a date
    for m in _EN_LOWER_FOUND.finditer(text):  # "find carlos ruiz and update his city"
        n = m.group("n")
        if not set(n.split()) & (_EN_LOWER_NOT_NAME | _EN_LOWER_STOP) and n.split()[0] not in rules.cities:
            spans.add("NAME", m.start("n"), m.end("n"), text, " ".join(w.capitalize() for w in n.split()))
    for m in _EN_LOWER_NAME.finditer(text):  # "find user anna schmidt" -> Anna Schmidt
        n = m.group("n")
        if n.split()[0] not in rules.cities and n.split()[0] not in _EN_LOWER_STOP:
            spans.add("NAME", m.start("n"), m.end("n"), text, " ".join(w.capitalize() for w in n.split()))
    companies = company_spans(text)
    for m in _EN_NAME.finditer(text):
        words = m.group("n").split()
        while words and words[0] in rules.name_stop_en:
            words = words[1:]
        if not words or words[0].lower() in rules.cities or words[0] in MONTHS_EN_CAP:
            continue
        name = " ".join(words)
        a = m.end() - len(name)
        if not_a_name(text, a, m.end(), words, companies):
            continue
        spans.add("NAME", a, m.end(), text, name)
    for v in known_text:
        _add_known_text(spans, text, v)
    out = _mask(text, spans.items, rules.show_free_text)
    return _as_written(out, request, text)


def _add_known_text(spans: _Spans, text: str, value: str) -> None:
    """``value`` as a TEXT span of ``text`` unless an entity already holds it or it is not written
    verbatim. Entities inside it (a city in "去成都出差的机票") and free text perception cut
    elsewhere ("打印机卡纸，帮") go; another entity it cuts through keeps it out."""
    if not value or any(e.value == value for e in spans.items):
        return
    a = text.find(value)
    if a < 0:
        return
    b = a + len(value)

    def hit(e: Entity) -> bool:
        return e.start < b and a < e.end

    if any(hit(e) and e.type != "TEXT" and not (a <= e.start and e.end <= b) for e in spans.items):
        return
    spans.items = [e for e in spans.items if not hit(e)]
    spans.add("TEXT", a, b, text, value)


def _as_written(p: Perception, request: str, text: str) -> Perception:
    """``p`` with each free-text value in the user's own characters (``主旨：會議改期`` binds
    ``會議改期``, not ``会议改期``): ids, enums, dates and names are read on the normalized text, but
    a subject, a body or a reason is the user's words and is passed on as written. Only when the
    normalization kept the length (OpenCC maps nearly every phrase to one of the same length), so a
    span of the normalized text is the same span of the request; else the normalized value stays."""
    if request == text or len(request) != len(text):
        return p
    written = {
        e.value: request[e.start : e.end]
        for e in p.entities
        if e.type == "TEXT" and isinstance(e.value, str) and text[e.start : e.end] == e.value
    }
    if all(k == v for k, v in written.items()):
        return p
    slots = {
        k: written.get(v, v) if k.startswith("<TEXT") and isinstance(v, str) else v
        for k, v in p.slots.items()
    }
    return replace(p, slots=slots)


MONTHS_EN_CAP = {k.capitalize() for k in MONTHS_EN}

_AMOUNT_PREP = re.compile(r"\s(on|for)\b", re.I)


def _add_parallel_amounts(text: str, spans: _Spans) -> None:
    """A bare number after a cued amount, followed by the same preposition as that amount, is the
    next object's amount ("refund 88 on <order> and 12.5 on <order>")."""
    for e in [e for e in spans.items if e.type == "AMOUNT"]:
        prep = _AMOUNT_PREP.match(text, e.end)
        if prep is None:
            continue
        rx = re.compile(rf"(?<![0-9.\-/:A-Za-z])([0-9]+(?:\.[0-9]+)?)(?=\s{prep.group(1)}\b)", re.I)
        for m in rx.finditer(text, e.end):
            spans.add("AMOUNT", m.start(1), m.end(1), text, float(m.group(1)))


def _mask(text: str, entities: list[Entity], show_free_text: bool = False) -> Perception:
    ents = sorted(entities, key=lambda e: e.start)
    counters: dict[str, int] = {}
    slots: dict[str, str | float | int] = {}
    pieces: list[str] = []
    pos = 0
    kept: list[Entity] = []
    for e in ents:
        existing = next(
            (k for k, v in slots.items() if k.startswith(f"<{e.type}") and _same(v, e.value)), None
        )
        if existing is None:
            counters[e.type] = counters.get(e.type, 0) + 1
            if counters[e.type] > MAX_SLOTS_PER_TYPE:
                continue  # too many of one kind: leave the literal text in place
            existing = f"<{e.type}{counters[e.type]}>"
            slots[existing] = e.value
        pieces.append(text[pos : e.start])
        pieces.append(existing)
        if show_free_text and e.type == "TEXT":
            pieces.append(f"「{e.value}」")
        pos = e.end
        kept.append(e)
    pieces.append(text[pos:])
    return Perception(masked="".join(pieces), slots=slots, entities=kept)
