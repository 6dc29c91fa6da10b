"""Deterministic clause step: split a *masked* request into the asks it contains.

Runs after perception (:func:`thought_model.entities.perceive`), so slot tokens (``<ORDER1>``,
``<TEXT1>``) are atomic: free text such as an email body is already one slot and can never be
split. The splitter knows the connectives of both languages and three shapes:

* **connectives** between asks: zh ``然后 再 顺便 另外 还有 同时 并且 以及 接着 ； 。``, en
  ``and then / then / also / and also / plus / as well as / after that / ; / . / and``;
  lists ``A, B and C`` (a comma splits only when the next piece starts with a verb);
* **shared objects** (``<ORDER1> 的状态和物流`` → ``<ORDER1> 的状态`` + ``<ORDER1> 的物流``;
  ``status and tracking for order <ORDER1>``): two aspect nouns joined by 和/跟/and are
  distributed over the rest of the sentence;
* **coordinated typed objects** (``look up invoice <INV1> and expense <EXP1>``): a piece without a
  verb of its own that is an object with an id slot takes the verb of the piece before it.

It never splits coordinated arguments of one ask: a piece must carry its own predicate (a verb,
a question word or an aspect noun) or be a typed id object, and a conjunction between two slots
of the same kind (``<NAME1> 和 <NAME2>``, ``with <NAME1> and <NAME2>``) is never a split point.
The composer (:mod:`thought_model.compose`) still lets the model confirm each split.

Each :class:`Clause` keeps the slot bindings it uses (same slot numbering as the whole request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial

from thought_model.entities import SLOT_TOKEN_RE, Perception
from thought_model.enum_pair import enum_pair
from thought_model.selection import split_selection

MAX_CLAUSES = 4

# --------------------------------------------------------------------------- lexicons
_ZH_VERBS = (
    "查询 查一下 查下 查查 查 看看 看一下 看下 看 瞅瞅 瞅 瞧 了解 告诉 说下 取消 撤销 撤单 退掉 退款 退钱 退 "
    "开发票 开票 开张 开个 开一张 开具 报销 报一下 报 提交 提一下 订 预订 预定 约 建 新建 创建 安排 加个 加到 "
    "发个 发邮件 发一封 发送 发给 发 改成 改为 改 更新 修改 换成 换 找 搜 列 列出 列一下 跟踪 追踪 确认 拉 "
    "告知 通知"
).split()
"""Predicates. Politeness words (帮我, 麻烦, 请) are not: "麻烦你了" between asks is a filler."""
_ZH_QUESTION = "吗 么 怎么样 怎样 咋样 如何 多少 哪里 哪儿 哪 什么 几 没 啥 呢 ？ ?".split()
_ZH_ASPECTS = (
    "物流信息 快递信息 物流状态 配送信息 发货情况 审批进度 审批状态 物流 快递 配送 状态 进度 天气 日程 安排 "
    "资料 档案 个人信息 订单 发票 报销记录 报销单 报销 城市 邮箱 手机号 电话 行程"
).split()
_EN_VERBS = set(
    (
        "check look find show list cancel refund issue book reserve send email mail update change set tell "
        "track get submit claim file create add schedule see pull fetch give make put open search grab void "
        "kill scrap move invite notify ping write arrange organize organise plan confirm verify display "
        "trace monitor amend fix edit modify replace raise request pay bill charge log record note block "
        "shoot drop remind contact message reach return expense report locate hunt dig bring let lookup "
        "swap switch run peek fish round read review reschedule "
        "what where how when which who"
    ).split()
)
_EN_ASPECTS = (
    "tracking info|tracking information|tracking|shipping status|shipping|delivery status|delivery|"
    "logistics|status|weather forecast|weather|forecast|profile|calendar|schedule|agenda|events|orders|"
    "invoices|invoice|expense claims|expenses|claims|claim status|expense status|progress"
)
_ID_KINDS = ("ORDER", "INV", "EXP", "USER", "ROOM")
_NO_SPLIT_SAME_KIND = ("NAME", "TEXT", "EMAIL", "PHONE", "CITY", "DATE", "DUR", "NUM", "AMOUNT", *_ID_KINDS)
"""Kinds whose two slots joined by a weak connective are one ask's list (``<ORDER1> 和 <ORDER2> 的物流``:
one tool for both, fanned out by :mod:`thought_model.fanout`), never two asks."""


@dataclass(frozen=True)
class SplitVocab:
    """What the splitter knows about one tool registry besides the built-in lexicons: its id slot
    kinds (typed objects, never split between two of the same kind), extra English verbs and
    object nouns (a user registry's tool names: ``reset_password`` -> ``reset``, ``password``) and
    extra Chinese verbs. The default is the reference domain's."""

    id_kinds: tuple[str, ...] = _ID_KINDS
    en_verbs: frozenset[str] = frozenset()
    en_nouns: frozenset[str] = frozenset()
    zh_verbs: tuple[str, ...] = ()
    enum_values: tuple[frozenset[str], ...] = ()
    """The values of each enum argument, lower case, ``_`` as a space (``in progress``): "my open
    and waiting tickets" is one ask over two values, no split between them."""


REFERENCE_VOCAB = SplitVocab()

_SLOT = r"(?:<[A-Z]+[1-9]>|<ME>)"
# strong connectives: always a candidate boundary (the connective itself is dropped)
_ZH_STRONG = re.compile(
    r"(?:[，,。；;！!？?\s]*(?:然后再|然后|完了再|接着|再帮我|再帮忙|另外再|另外帮我|另外|还有个事|还有|顺便再|顺便|顺带|顺手|捎带|同时|并且|以及|外加|第二件事)[，,：:]?)"
    r"|(?:[；;]+)"
    r"|(?:[。！!？?]+(?=\S))"
    r"|(?:[，,、]\s*再(?=[\u4e00-\u9fff<]))"
    r"|(?:(?<=[\u4e00-\u9fff>])\s*再(?=(?:帮|给|把|看|查|瞅|告诉|列|订|约|发|改|开|取消|退|提交|报)))"
)
_ZH_WEAK = re.compile(r"\s*(?:和|跟|与|及)\s*")
_EN_STRONG = re.compile(
    r"(?:\s*[,;.?!]?\s*\b(?:and then|and also|and after that|after that|as well as|and while you're at it"
    r"|second thing:?|then|also|plus|alongside|along with|together with)\b[,:]?\s*)"
    r"|(?:\s*;\s*)"
    r"|(?:(?<=[a-z0-9>)])\s*[.?!]+\s+(?=[A-Za-z<]))",
    re.I,
)
_EN_WEAK = re.compile(r"\s*,?\s*\b(?:and|&)\b\s*", re.I)
_EN_COMMA = re.compile(r"\s*,\s*")

_LEAD_ZH = re.compile(
    r"^[\s，,。；;：:、！!？?]*(?:然后|再|另外|还有|顺便|顺带|顺手|捎带|同时|并且|以及|接着|完了|也)?[\s，,：:]*"
)
_LEAD_EN = re.compile(
    r"^[\s,;.:!?]*(?:(?:and then|and also|and|then|also|plus|after that|as well as|both)\b[\s,:]*)*", re.I
)
_TRAIL = re.compile(r"[\s，,。；;、]+$|\s+(?:too|as well)[.?!]*$", re.I)


@dataclass(frozen=True)
class Clause:
    """One ask of a request: masked text and the slot bindings it uses."""

    masked: str
    slots: dict[str, str | float | int] = field(default_factory=dict)

    def perception(self) -> Perception:
        return Perception(masked=self.masked, slots=dict(self.slots))


def is_zh(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", SLOT_TOKEN_RE.sub("", text)) is not None


def _strip_slots(text: str) -> str:
    return SLOT_TOKEN_RE.sub(" ", text)


def has_ask(piece: str, zh: bool, vocab: SplitVocab = REFERENCE_VOCAB) -> bool:
    """True when ``piece`` carries its own predicate: a verb, a question form or an aspect noun
    (for a user registry also a noun of its tool names: ``my devices``)."""
    bare = _strip_slots(piece)
    if zh:
        return any(w in bare for w in _ZH_VERBS + list(vocab.zh_verbs) + _ZH_QUESTION + _ZH_ASPECTS)
    words = re.findall(r"[a-z']+", bare.lower())
    verbs = _EN_VERBS | vocab.en_verbs
    if any(w in verbs or w.rstrip("s") in verbs for w in words):
        return True
    if any(w in vocab.en_nouns or w.rstrip("s") in vocab.en_nouns for w in words):
        return True
    return re.search(rf"\b(?:{_EN_ASPECTS})\b", bare, re.I) is not None or "?" in bare


_ZH_ASK_OPENER = re.compile(r"^(?:(?:请|麻烦你?|帮我|帮忙|帮|给我|先|再|也|就|那就)\s*)+")
"""Politeness and sequence words before a zh predicate (``，先帮我看看…``, ``，麻烦查下…``)."""


def _starts_with_verb(piece: str, zh: bool, vocab: SplitVocab = REFERENCE_VOCAB) -> bool:
    p = piece.strip()
    if zh:
        p = _ZH_ASK_OPENER.sub("", p)
        if p.startswith("订单"):
            return False
        return any(p.startswith(w) for w in _ZH_VERBS + list(vocab.zh_verbs) if w not in ("请",))
    m = re.match(r"(?:please\s+|pls\s+|kindly\s+)?([a-z]+)", p, re.I)
    return bool(m and m.group(1).lower() in _EN_VERBS | vocab.en_verbs)


def _aspect_question(piece: str, leading: bool = False) -> bool:
    """A zh question about an aspect (``快递又跑到哪儿了``, ``卡在哪个环节了``): a question form
    and, with ``leading``, an aspect noun other than 订单 opening the piece. Two of them joined by
    a comma are two asks about the same object."""
    p = _strip_slots(piece).strip()
    if not any(q in p for q in _ZH_QUESTION):
        return False
    if not leading:
        return True
    return any(p.startswith(a) for a in _ZH_ASPECTS if a != "订单")


def _slot_kind(tok: str) -> str:
    return "ME" if tok == "<ME>" else re.sub(r"[0-9<>]", "", tok)


_EN_OBJECT_WORDS = set(
    "the my an a of for and order orders invoice invoices expense expenses claim claims user users room rooms "
    "report reimbursement number no id ids # ticket bill also".split()
)
_ZH_OBJECT_WORDS = re.compile(
    r"订单号|订单|单号|发票|报销单|报销|用户|会议室|编号|号|的|还有|也|这个|那个|张|笔|个|[\s：:，,、]"
)


def _typed_object(piece: str, zh: bool, vocab: SplitVocab = REFERENCE_VOCAB) -> str | None:
    """The id-slot kind when ``piece`` is only an object with an id (``expense <EXP1>``), else None."""
    slots = [m.group(0) for m in SLOT_TOKEN_RE.finditer(piece)]
    if len(slots) != 1 or _slot_kind(slots[0]) not in vocab.id_kinds:
        return None
    rest = _strip_slots(piece)
    if zh:
        return _slot_kind(slots[0]) if not _ZH_OBJECT_WORDS.sub("", rest).strip("?？。.") else None
    words = re.findall(r"[a-z#']+", rest.lower())
    objects = _EN_OBJECT_WORDS | vocab.en_nouns
    return _slot_kind(slots[0]) if all(w in objects or w.rstrip("s") in objects for w in words) else None


def _verb_prefix(piece: str, vocab: SplitVocab = REFERENCE_VOCAB) -> str:
    """The left piece up to its object (first id slot, backed up over the noun in front of it)."""
    m = re.search(r"<(?:" + "|".join(vocab.id_kinds) + r")[1-9]>", piece)
    if not m:
        return ""
    head = piece[: m.start()]
    # back up over the object noun ("invoice ", "订单", "order number ")
    head = re.sub(
        r"(?:(?:the|my|an?|order|invoice|expense|claim|user|room|report|number|no\.|id|#)\s*)+$",
        "",
        head,
        flags=re.I,
    )
    head = re.sub(r"(?:订单号?|发票|报销单?|用户|会议室|单号|编号|号)\s*$", "", head)
    return head


def _clean(piece: str, zh: bool) -> str:
    p = (_LEAD_ZH if zh else _LEAD_EN).sub("", piece)
    p = _TRAIL.sub("", p).strip()
    return p


def _prev_slot(text: str, pos: int) -> str | None:
    m = re.search(rf"({_SLOT})\s*$", text[:pos])
    return m.group(1) if m else None


def _next_slot(text: str, pos: int) -> str | None:
    m = re.match(rf"\s*(?:the\s+|my\s+)?({_SLOT})", text[pos:], re.I)
    return m.group(1) if m else None


def _aspect_rx(zh: bool) -> re.Pattern[str]:
    if zh:
        alts = "|".join(sorted(map(re.escape, _ZH_ASPECTS), key=len, reverse=True))
        return re.compile(
            rf"(?P<a>{alts})(?:信息)?\s*(?:和|跟|与|以及|及|还有|、)\s*(?P<b>(?:{alts})(?:信息)?)"
        )
    return re.compile(
        rf"\b(?:the\s+|its\s+|my\s+)?(?P<a>{_EN_ASPECTS})\s*(?:,\s*)?(?:and|&|plus|as well as)\s+"
        rf"(?:the\s+|its\s+|my\s+|also\s+)?(?P<b>{_EN_ASPECTS})\b",
        re.I,
    )


def _distribute_aspects(text: str, zh: bool) -> list[str] | None:
    """``X 的状态和物流`` → [``X 的状态``, ``X 的物流``]; None when no shared-object shape."""
    rx = _aspect_rx(zh)
    m = rx.search(text)
    if not m:
        return None
    a, b = m.group("a"), m.group("b")
    if a == b:
        return None
    out = []
    for word in (a, b):
        t = text[: m.start("a")] + word + text[m.end("b") :]
        t = re.sub(r"一起|都" if zh else r"\s*\b(?:both|together)\b", "", t, flags=0 if zh else re.I)
        out.append(t.strip())
    return out


_ENUM = re.compile(
    r"[\s,，;；:：]*(?:(?<![0-9A-Za-z.])\(?[1-9][.)](?=\s)|\([1-9]\)|[①②③④⑤⑥]"
    r"|(?<![\u4e00-\u9fff])[一二三四五六][、\uff0e]|第[一二三四五六](?:件事|点|个|项)?[，,、：:]|(?:首先|其次|最后)[，,、：:])\s*"
)
"""Enumeration markers of a list of asks: ``1) … 2) …``, ``(1)``, ``①``, ``一、… 二、…``, ``第一，… 第二，…``."""


_ASK_COUNT = re.compile(r"(?:[两二三四五六几2-6]|好几)\s*(?:件事|个事|个问题|项|点)[^：:，,。]{0,6}[：:]")
"""A count of asks before a colon ("三件事哈：", "几个问题:"): the list after it is a list of asks."""


def _split_points(text: str, zh: bool) -> list[tuple[int, int, str]]:
    """Candidate boundaries (start, end, strength) in ``text``, left to right, non-overlapping."""
    cands: list[tuple[int, int, str]] = []
    for m in _ENUM.finditer(text):
        if m.end() > m.start() and 0 < m.start() and m.end() < len(text):
            cands.append((m.start(), m.end(), "strong"))
    for rx, strength in (
        ((_ZH_STRONG, "strong"), (_ZH_WEAK, "weak"))
        if zh
        else ((_EN_STRONG, "strong"), (_EN_WEAK, "weak"), (_EN_COMMA, "comma"))
    ):
        for m in rx.finditer(text):
            if m.end() > m.start() and 0 < m.start() and m.end() < len(text):
                cands.append((m.start(), m.end(), strength))
    if zh:
        count = _ASK_COUNT.search(text)  # "帮我整三件事：A、B、C": after the colon every 、，； ends an ask
        for m in re.finditer(r"[，,、；;]" if count else r"[，,、]", text):
            # a zh comma splits only before a verb (checked later)
            strong = count is not None and m.start() > count.end() and 0 < m.start() and m.end() < len(text)
            cands.append((m.start(), m.end(), "strong" if strong else "comma"))
    shared = [m.span() for m in _aspect_rx(zh).finditer(text)]
    cands = [c for c in cands if c[2] not in ("weak", "strong") or not any(a < c[0] < b for a, b in shared)]
    cands.sort(key=lambda c: (c[0], -(c[1] - c[0])))
    out: list[tuple[int, int, str]] = []
    for c in cands:
        if out and c[0] < out[-1][1]:
            continue
        if SLOT_TOKEN_RE.search(text[c[0] : c[1]]):
            continue
        out.append(c)
    return out


_MY_OBJECT = re.compile(
    r"(?:and\s+)?(?:also\s+)?(?:all\s+)?(?:my|our)\s+(?:[a-z_\-]+\s+){0,2}?"
    r"(?:orders?|invoices?|expenses?|expense claims?|claims?|reimbursements?|calendar|schedule|profile)\b",
    re.I,
)
"""A list item "my <noun phrase>" after a comma: the next object of the opening verb ("list my
shipped orders, my void invoices and my rejected expenses")."""


def _list_item(piece: str, zh: bool) -> bool:
    return not zh and _MY_OBJECT.fullmatch(_clean(piece, zh)) is not None


def split_masked(masked: str, vocab: SplitVocab = REFERENCE_VOCAB) -> list[str]:
    """The asks of one masked request (one element: no split); ``vocab``: the registry's words."""
    text = masked.strip()
    lead = _ENUM.match(text)  # "一、…；二、…": the first marker is no ask's text
    if lead is not None and lead.end() < len(text):
        text = text[lead.end() :]
    zh = is_zh(text)
    points = _split_points(text, zh)
    same_kind = (*_NO_SPLIT_SAME_KIND, *vocab.id_kinds)
    pieces: list[str] = []
    pos = 0
    for a, b, strength in points:
        left, right = text[pos:a], text[b:]
        if strength == "weak":
            pl, nr = _prev_slot(text, a), _next_slot(text, b)
            if pl and nr and _slot_kind(pl) == _slot_kind(nr) and _slot_kind(pl) in same_kind:
                continue  # "<NAME1> 和 <NAME2>": coordinated arguments of one ask
            if enum_pair(left, right, vocab.enum_values):
                continue  # "my open and waiting tickets": two values of one argument
        if strength == "comma" and not (
            _starts_with_verb(right, zh, vocab)
            or (not zh and _MY_OBJECT.match(right) is not None and _starts_with_verb(text, zh, vocab))
            or (zh and _aspect_question(left) and _aspect_question(right, True))
        ):
            continue
        if not left.strip():
            continue
        pieces.append(left)
        pos = b
    pieces.append(text[pos:])
    # merge pieces that carry no ask of their own back into the previous one (or distribute a verb)
    merged: list[str] = []
    carry = ""  # a leading piece with slots but no ask of its own joins the next piece
    for piece in pieces:
        own_ask = (has_ask(piece, zh, vocab) or _list_item(piece, zh)) and _clean(piece, zh)
        if (
            not own_ask
            and not SLOT_TOKEN_RE.search(piece)
            and not _typed_object(_clean(piece, zh), zh, vocab)
        ):
            continue  # a filler between asks ("你好", "thanks", "帮个忙"): no ask, no slot
        if not merged:
            if own_ask:
                merged.append(_rejoin(text, carry, piece) if carry else piece)
                carry = ""
            else:
                carry = _rejoin(text, carry, piece) if carry else piece
            continue
        kind = _typed_object(_clean(piece, zh), zh, vocab)
        if kind:
            prefix = _verb_prefix(_clean(merged[-1], zh), vocab)
            if prefix.strip():
                merged.append(prefix + _clean(piece, zh))
                continue
        if (has_ask(piece, zh, vocab) or _list_item(piece, zh)) and _clean(piece, zh):
            merged.append(piece)
            continue
        # glue back with the original text between them
        merged[-1] = _rejoin(text, merged[-1], piece)
    if carry:
        return [text]
    clauses: list[str] = []
    for piece in merged:
        c = _clean(piece, zh)
        if not c:
            continue
        dist = _distribute_aspects(c, zh)
        clauses.extend(dist if dist else [c])
    clauses = [c for c in clauses if c]
    if len(clauses) < 2 or len(clauses) > MAX_CLAUSES:
        return [text]
    return clauses


def _rejoin(text: str, left: str, right: str) -> str:
    """``left`` + the original connective text + ``right`` (both are substrings of ``text``)."""
    i = text.find(left)
    j = text.find(right, i + len(left) if i >= 0 else 0)
    if i >= 0 and j >= 0:
        return text[i : j + len(right)]
    return left + " " + right


def _has_verb(text: str, zh: bool, vocab: SplitVocab = REFERENCE_VOCAB) -> bool:
    if zh:
        return any(v in text for v in (*_ZH_VERBS, *vocab.zh_verbs) if len(v) > 1 or v in "退订查改发开")
    words = re.findall(r"[a-z]+", text.lower())
    verbs = _EN_VERBS | vocab.en_verbs
    return any(w in verbs and w not in ("what", "where", "how", "when", "which", "who") for w in words)


def split_request(p: Perception, vocab: SplitVocab = REFERENCE_VOCAB) -> list[Clause]:
    """Split a perceived request into clauses with their own slot bindings (one: no split)."""
    parts = split_masked(p.masked, vocab)
    if len(parts) < MAX_CLAUSES:
        verb = partial(_has_verb, vocab=vocab)
        parts = [x for part in parts for x in split_selection(part, verb)][:MAX_CLAUSES]
    out: list[Clause] = []
    for part in parts:
        used = {m.group(0) for m in SLOT_TOKEN_RE.finditer(part)}
        out.append(Clause(masked=part, slots={k: v for k, v in p.slots.items() if k in used}))
    return out


def renumber(clause: Clause) -> tuple[Clause, dict[str, str]]:
    """The clause with its slots renumbered from 1 per kind in order of appearance (as training
    prompts are), and the map new token → original token."""
    mapping: dict[str, str] = {}
    back: dict[str, str] = {}
    counters: dict[str, int] = {}

    def repl(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok == "<ME>":
            return tok
        if tok not in mapping:
            kind = _slot_kind(tok)
            counters[kind] = counters.get(kind, 0) + 1
            mapping[tok] = f"<{kind}{counters[kind]}>"
            back[mapping[tok]] = tok
        return mapping[tok]

    masked = SLOT_TOKEN_RE.sub(repl, clause.masked)
    slots = {mapping[k]: v for k, v in clause.slots.items() if k in mapping}
    return Clause(masked=masked, slots=slots), back
