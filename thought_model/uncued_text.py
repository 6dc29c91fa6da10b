"""A free-text value written without a cue: the problem a request describes beside its ask.

Perception takes free text after a cue (``原因是…``, ``because …``, ``问题描述：…``, quotes). People
reporting a problem rarely write one: ``AT-20931 这台笔记本电池鼓包了，赶紧给换一台``, ``my monitor
AT-62290 has a dead pixel line down the middle, swap it out?``, ``Excel keeps freezing when I open
pivot tables. Could you log a software ticket for it?``. When the model answers
``insufficient_context`` for a free-text field (a reason, a summary) and perception found no free
text, :func:`uncued_text` finds the description in the masked request and the composer re-decodes
with it as a ``<TEXTn>`` slot (:meth:`thought_model.compose_passes.ComposerPasses._check_insufficient`).

How the description is found (on the masked text, so ids, names and dates are slot tokens):

* the text is cut into sentences at strong marks (``。！？!?；;…``, a dash between spaces, an
  emoji, a parenthesis) and each sentence into comma pieces;
* a piece is the **ask** when it has a request word (``帮 / 麻烦 / 申请 / could you / please /
  swap …``) or a word of the asked tool; a greeting, a thank-you or an apology is **filler**;
  anything else is **content** (the words before a request word inside an ask piece are content
  too: ``my screen is cracked can you replace it``);
* the description is the run of content pieces right before the ask in its sentence, else the
  last content sentence before it, else the content right after it (``replace AT-1; the hinge is
  cracked``); in a run that has a problem word (``坏 / 不 / 裂 / won't / cracked / keeps …``), the
  leading pieces without one are context and dropped (``客户在会议室等着呢，我笔记本连不上网络``);
* a deferral (``具体啥问题我待会儿再补充``, ``I'll explain the details later``) means there is no
  description: the field stays missing;
* the subject that only names the device is trimmed (``AT-20931 这台笔记本``, ``my monitor
  AT-62290 has a``, ``Sofia's``), and a description that still holds a slot token is refused.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from thought_model.entities import SLOT_TOKEN_RE
from thought_model.perception.normalize import normalize_request

_STRONG = re.compile(r"[。！？!?；;…\n]+|\s[—–-]{1,2}\s|—+|(?<=[a-z0-9)>])\.(?=\s|$)|[()（）【】\[\]]", re.I)
_WEAK = re.compile(r"[，,、]")

_ZH_ASK = re.compile(
    r"帮我|帮忙|帮他|帮她|帮|麻烦(?![你您大])|请|查一下|查下|找一下|看看|列一下|申请|给我|能不能|能否|可不可以|可以|换一|换个|换台|换新|更换|换掉|开个|开一|开张"
    r"|提个|提一|建个|报修|走个|弄一下|处理一下|给换"
)
_EN_ASK = re.compile(
    r"(?<![a-z])(?:could you|can you|would you|will you|please|pls|plz|can i|i need|i'd like|i would like"
    r"|need a|need you|get me|gimme|swap|replace|replacement|log a|open a|raise a|put in|file a|request"
    r"|submit|create a|look up|look him up|look her up|find|list|show|check|tell me|reset)(?![a-z])",
    re.I,
)
_FILLER = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|morning|good (?:morning|afternoon|evening)|thanks?(?: a lot| so much| a million"
    r"| heaps)?|thank you|thx|ta|cheers|sorry|apologies|hope\b.*|much appreciated|appreciated"
    r"|你好|您好|早上好|早|晚上好|下午好|在吗|在么|谢谢|多谢|谢啦|辛苦了?|不好意思|抱歉|麻烦了)"
    r"(?:\W|[啊呀呢哈了吗你们啦]|team|all|there)*$",
    re.I,
)
_DEFER = re.compile(
    r"(?:待会|稍后|回头|晚点|之后|等会)[^，,。]{0,6}(?:补充|说明|再说|描述|告诉)|(?:later|afterwards)\b.*"
    r"|(?:explain|details?|describe)\b.{0,20}\blater",
    re.I,
)
_PROBLEM = re.compile(
    r"不|没|坏|断|碎|裂|卡|慢|闪|失灵|进水|鼓包|死机|报错|故障|异常|掉|漏|烫|黑屏|蓝屏|花屏|线|点|响"
    r"|n't|\bnot\b|\bno\b|broke|crack|dead|died|keeps|crash|freez|stuck|slow|flicker|error|fail|lost"
    r"|stopped|noise|loud|sounds like|black|swell|swollen|leak|overheat|won|cannot|unable|faulty|weird",
    re.I,
)
_NO_PROBLEM = re.compile(r"没问题|没事|no problem|works? (?:fine|now)|is fine", re.I)
_ZH_SUBJECT = re.compile(
    r"^(?:(?:<[A-Z][A-Z0-9]{1,15}[1-9]>|我|他|她|我们)\s*的?\s*)*"
    r"(?:(?:这|那)(?:台|个|部|块|只)(?:笔记本电脑|笔记本|台式电脑|台式机|电脑|显示器|屏幕|手机|平板|鼠标|键盘|打印机|耳机|主机)?)?"
    r"\s*(?:<[A-Z][A-Z0-9]{1,15}[1-9]>)?\s*"
)
_EN_SUBJECT = re.compile(
    r"^(?:(?:my|his|her|our|their|<NAME[1-9]>'s|<NAME[1-9]>’s)\s+)(?:(?:[a-z]+)(?:'s|’s)\s+)?",
    re.I,
)
_EN_DEVICE_HAS = re.compile(
    r"^(?:my|his|her|our|their|the|this|that)?\s*[a-z]+\s*<[A-Z][A-Z0-9]{1,15}[1-9]>\s+(?:has|have|has got)\s+(?:an?\s+)?",
    re.I,
)
_TAIL = re.compile(r"[\s吧啊呀呢哦啦~\uff5e]+$")
_ZH_CHAR = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    text: str
    kind: str  # "ask" | "filler" | "content"


def _is_emoji(c: str) -> bool:
    return unicodedata.category(c) == "So" or 0x1F000 <= ord(c) <= 0x1FAFF


def _sentences(masked: str) -> list[tuple[int, int, bool]]:
    """(start, end, aside) of each sentence; ``aside``: it follows an opening parenthesis."""
    marks = [(m.start(), m.end()) for m in _STRONG.finditer(masked)]
    marks += [(i, i + 1) for i, c in enumerate(masked) if _is_emoji(c) or c in "\u200d\ufe0f"]
    marks.sort()
    out: list[tuple[int, int, bool]] = []
    pos = 0
    for a, b in marks:
        if a > pos:
            out.append((pos, a, pos > 0 and masked[pos - 1] in "(（【["))
        pos = max(pos, b)
    if pos < len(masked):
        out.append((pos, len(masked), pos > 0 and masked[pos - 1] in "(（【["))
    return out


def _ask_at(piece: str, ask_words: Collection[str]) -> int | None:
    """Where the request word of ``piece`` starts (None: no ask)."""
    bare = SLOT_TOKEN_RE.sub(lambda m: " " * len(m.group()), piece)  # <ASSET1> is no "asset"
    hits = [m.start() for rx in (_ZH_ASK, _EN_ASK) for m in [rx.search(bare)] if m]
    low = bare.casefold()
    for w in ask_words:
        if len(w) < 2 or _PROBLEM.search(w):  # "slow", "broken": the problem, not the ask
            continue
        rx = rf"(?<![a-z]){re.escape(w.casefold())}(?![a-z])" if w.isascii() else re.escape(w)
        m = re.search(rx, low)
        if m:
            hits.append(m.start())
    return min(hits) if hits else None


def _has_word(piece: str, words: Collection[str]) -> bool:
    low = piece.casefold()
    for w in words:
        w = w.casefold().strip()
        if len(w) < 2:
            continue
        rx = rf"(?<![a-z]){re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w)
        if re.search(rx, low):
            return True
    return False


def _pieces(masked: str, a: int, b: int, ask_words: Collection[str]) -> list[_Piece]:
    out: list[_Piece] = []
    pos = a
    bounds = [m.start() for m in _WEAK.finditer(masked, a, b)] + [b]
    for end in bounds:
        raw = masked[pos:end]
        lead = len(raw) - len(raw.lstrip())
        s, t = pos + lead, raw.strip()
        pos = end + 1
        if not t:
            continue
        if _FILLER.match(t):
            out.append(_Piece(s, s + len(t), t, "filler"))
            continue
        at = _ask_at(t, ask_words)
        if at is None:
            # a piece of slot tokens only ("<DATE1>") is another argument's value
            out.append(_Piece(s, s + len(t), t, "content" if _substantial(t) else "value"))
            continue
        head = t[:at].rstrip()
        # (a head inside the ask's own piece only with a problem word: "我有几个工单…" is a question)
        if _substantial(head, 3) and not _FILLER.match(head) and _problem(_Piece(0, 0, head, "content")):
            out.append(_Piece(s, s + len(head), head, "content"))
        out.append(_Piece(s + at, s + len(t), t[at:], "ask"))
    return out


def _substantial(t: str, n: int = 2) -> bool:
    """At least ``n`` Chinese characters or English words (``赶紧`` before ``给换一台`` is no head)."""
    bare = SLOT_TOKEN_RE.sub(" ", t)
    return len(_ZH_CHAR.findall(bare)) >= n or len(re.findall(r"[A-Za-z']+", bare)) >= n


def _problem(p: _Piece) -> bool:
    bare = _NO_PROBLEM.sub(" ", SLOT_TOKEN_RE.sub(" ", p.text))
    return _PROBLEM.search(bare) is not None


def _trim_context(run: list[_Piece], aside: bool = False) -> list[_Piece]:
    """``run`` without its leading context pieces; an aside without a problem word is no
    description at all (``（别问怎么摔的）``), nor is the text after the ask without one."""
    problem = _problem
    if aside and not any(problem(p) for p in run):
        return []
    if any(problem(p) for p in run):
        while run and not problem(run[0]):
            run = run[1:]
    return run


def _clean(value: str) -> str:
    v = value.strip()
    if _ZH_CHAR.search(v):
        m = _ZH_SUBJECT.match(v)
        if m and m.end() < len(v) and _substantial(v[m.end() :]):
            v = v[m.end() :]
    else:
        m = _EN_DEVICE_HAS.match(v)
        if m and _substantial(v[m.end() :]):
            v = v[m.end() :]
        else:
            m = _EN_SUBJECT.match(v)
            if m and m.end() and _substantial(v[m.end() :]):
                v = v[m.end() :]
    return _TAIL.sub("", v).strip(" ,，")


def uncued_text(
    masked: str, ask_words: Collection[str] = (), max_chars: int = 120, field_words: Collection[str] = ()
) -> str | None:
    """The problem the masked request describes beside its ask, or None (see the module doc);
    ``ask_words``: words of the asked tools (:class:`thought_model.tool_cues.ToolCues`);
    ``field_words``: words of their enum values (after the ask, a piece with one is that value)."""
    if _DEFER.search(masked):
        return None
    spans = _sentences(masked)
    where = None
    for words in ((), ask_words):  # the tool's own words only where no request word is written
        sents = [_pieces(masked, a, b, words) for a, b, _ in spans]
        where = next(
            ((i, j) for i, ps in enumerate(sents) for j, p in enumerate(ps) if p.kind == "ask"), None
        )
        if where is not None:
            break
    if where is None:
        return None
    i, j = where

    def run_before(ps: list[_Piece], end: int) -> list[_Piece]:
        run: list[_Piece] = []
        for p in reversed(ps[:end]):
            if p.kind != "content":
                if run:
                    break
                continue
            run.insert(0, p)
        return run

    def run_after(ps: list[_Piece], start: int) -> list[_Piece]:
        # after the ask, a piece with a word of an argument's value is that argument ("…, category
        # transport"); before it, such words are the problem's own ("连不上公司网络")
        run: list[_Piece] = []
        for p in ps[start:]:
            if p.kind != "content" or _has_word(SLOT_TOKEN_RE.sub(" ", p.text), field_words):
                if run:
                    break
                continue
            run.append(p)
        return run

    # (in a later sentence, only a problem counts)
    candidates = [(run_before(sents[i], j), spans[i][2])]
    candidates += [(run_before(sents[k], len(sents[k])), spans[k][2]) for k in range(i - 1, -1, -1)]
    candidates += [(run_after(sents[i], j + 1), spans[i][2])]
    candidates += [(run_after(sents[k], 0), True) for k in range(i + 1, len(sents))]
    for found, aside in candidates:
        run = _trim_context(found, aside)
        if not run:
            continue
        value = _clean(masked[run[0].start : run[-1].end])
        if not _substantial(value) or SLOT_TOKEN_RE.search(value) or len(value) > max_chars:
            return None  # the nearest description holds an id or a name: not a free text to guess
        return value
    return None


def written_as(request: str, value: str) -> str:
    """``value`` (found on the normalized request) in the user's own characters (``螢幕有一條綠線``,
    not ``萤幕有一条绿线``) when normalization kept the request's length; else ``value``."""
    text = normalize_request(request)
    i = text.find(value)
    if i < 0 or len(text) != len(request):
        return value
    return request[i : i + len(value)]
