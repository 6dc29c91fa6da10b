"""Free-text values (subjects, bodies, titles) written without a colon or a classic cue word.

Perception's cue rule takes text after ``标题是``/``内容：``/``subject:``/``because``…; this module adds
the looser forms users write:

* Chinese verb cues: ``正文写周报已提交``, ``内容写上…``, ``标题叫…``, ``主题用…``, and right after an
  email ask, ``…发邮件说明天不开会`` (``邮件说`` + text; not ``说一声/说下/说明…``);
* English key words without a colon: ``subject Standup cancelled``, ``subject line is …``,
  ``title Team sync``, ``body see you there`` (not ``the subject of …``);
* the text after a **colon or dash that directly follows an email ask** (``给 bob@x.com
  发邮件：明天不开会``, ``email bob@x.com - lunch moved to 1pm``), only when no other free text was
  found (``colon_rule``); a colon between digits (``15:00``) is a time, not a separator, and a
  colon after anything else (``quick one:``, ``会议室：明天下午3点``) introduces no free text.

Quoted text (``"…"``, ``“…”``, ``「…」``, ``『…』``, ``‘…’``) is already taken by perception's quote rule.
Each function returns ``(start, end, value)`` spans; a value ends at clause punctuation, at the
next cue, or after :data:`~thought_model.perception.textend.MAX_CHARS` characters; a comma ends it only
before a clear next clause (:func:`~thought_model.perception.textend.cued_text_end`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from thought_model.perception.textend import MAX_CHARS as MAX_TEXT_CHARS
from thought_model.perception.textend import cued_text_end, inline_field_end

_STOP = re.compile(r"[，。,.;；!！?？\n<>\"“”（）()]")
_ZH_NEXT_CUE = re.compile(r"(?:正文|内容|标题|主题|抄送|发给|附件)")
_EN_NEXT_CUE = re.compile(
    r"\s+(?:and\s+)?(?:(?:with\s+)?(?:the\s+)?body|saying|that says|message|subject|title)(?![A-Za-z])", re.I
)

_ZH_CUES = re.compile(
    r"(?:邮件正文|邮件内容|正文|内容|备注|问题描述|描述|说明|事由|用途|原因|理由)(?:就|里|中|要|请)?(?:写上|写成|写着|写|填上|填|用)(?:[:：]\s*)?"
    r"|(?:标题|主题|题目)(?:就|要)?(?:叫做|叫|写成|写上|写|用|定为|设为)(?:[:：]\s*)?"
    r"|(?:发票)?抬头(?:就|要|请)?(?:写上(?![海饶虞])|写成(?!都)|写|开成(?!都)|开给|开|填上|填|用)(?:[:：]\s*)?"
    # a bare field word before its value: "主题 明天请假 内容 …", "，标题周会，"
    r"|(?:(?<=^)|(?<=[\s，,。；;]))(?:邮件)?(?:标题|主题|题目|内容|正文)(?:\s+|(?=[^\s是为叫写用就要:：，,。的里中和呢吗啥我还待稍先没]))"
    # an expense's bare 说明 / 备注 / 事由: "说明团建", "说明 去机场" (not 说明一下 / 说明书)
    r"|(?:(?<=^)|(?<=[\s，,。；;]))(?:说明|备注|事由|用途)(?:\s+|(?=[^\s是为:：，,。的一下书写填用就要]))"
    # a bare 抬头 / 原因 / 理由 after a comma: "，抬头上海蓝天公司", "，原因买错了"
    r"|(?<=[，,。；;\s])(?:发票)?(?:抬头|原因|理由)(?=[^\s是为:：，,。的呢吗啥我还待稍先没不就写填要叫用开都])"
)
_ZH_SAY = re.compile(
    r"(?:邮件|邮箱|信)[，,]?\s?(?:跟他们|跟他|跟她|告诉他们|告诉他|告诉她|通知他们|通知他|通知她)?(?:就|里|里面|里就)?说"
    r"(?!下|一下|一声|一句|实话|过|了|清楚|明(?!天)|[，,。:：\s]*(?:标题|主题|内容|正文))[:：，,\s]*"
)
_EMAIL_CTX = re.compile(r"邮件|邮箱|发信|写信|e-?mail|mail(?![a-z])|@[A-Za-z0-9.-]+\.[A-Za-z]{2,}", re.I)
_EMAIL_ASK_END = re.compile(
    r"(?:邮件|e-?mail|mail|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})\s*$",
    re.I,
)
_EN_HEADER = re.compile(
    r"(?<![A-Za-z])(?:made\s+out\s+to|addressed\s+to|in\s+the\s+name\s+of|billed\s+to|under\s+the\s+name)\s+",
    re.I,
)
"""An invoice's header: ``made out to Blue River Inc``."""
_EN_DESC = re.compile(
    r"(?<![A-Za-z])(?:description|desc|memo|note)(?:\s*[:=]|\s+(?:is|as))?\s+(?!of(?![A-Za-z]))", re.I
)
"""An expense's description without a colon: ``desc toner``, ``description to the client office``."""
_EN_CUES = re.compile(
    r"(?<![A-Za-z])(?:subject(?:\s+line)?|title|topic|body|header|description)(?:\s+(?:is|should be|reads|as|=))?\s+"
    r"(?!(?:of|for|to|the email|the mail|line|and|or|is|it|this|that|about)(?![A-Za-z]))",
    re.I,
)
_EN_EVENT_NAME = re.compile(
    r"(?<![A-Za-z])(?:calendar\s+)?(?:event|appointment|entry)\s+(?:called\s+|named\s+)?(?=[A-Z])"
    r"|(?<![A-Za-z])(?:meeting|event|appointment|session)\s+(?:called|named)\s+",
)
"""An event's title written right after its noun, without quotes: "put a calendar event Dentist on
<date>", "a calendar event called Vendor demo at the same time"."""
_CAL_ASK = re.compile(
    r"[，,]\s*(?:帮我|帮忙|请|麻烦|给我)?\s*(?:建|创建|新建|加|添加|放|记|安排|排)(?:个|一个|一下|到|进|在|上)?\s*(?:我的)?"
    r"(?:日程|日历|会议|行程|事件|提醒|calendar)"
)
_TIME_PREFIX = re.compile(
    r"(?:\s|[0-9]{4}[-/.][0-9]{1,2}[-/.][0-9]{1,2}|(?:[0-9]{4}年)?[0-9一二三四五六七八九十]{1,2}月[0-9一二三四五六七八九十]{1,3}[日号]"
    r"|今天|明天|后天|大后天|今晚|明晚|今早|明早|明晨|(?:下|这|本|下个|这个)?(?:周|星期|礼拜)[一二三四五六日天]|[0-9]{1,2}号"
    r"|上午|下午|晚上|早上|中午|傍晚|凌晨|[0-9零一二两三四五六七八九十]{1,3}\s?[点:：时](?:半|[0-9]{1,2}分?|[零一二三四五六七八九十]{1,3}分?)?"
    r"|到|至|[-~\uff5e])+"
)
_TITLE_VERB = re.compile(r"(?:要开|开个|开一个|开|有个|有一个|有)")
_TITLE_BAD = re.compile(r"[帮给订查找吗？?我你]")


def _title_before_calendar_ask(text: str) -> list[tuple[int, int]]:
    """``2026-06-18 晚上7点部门聚餐，帮我建个日程`` → the span of ``部门聚餐``: a clause made of a
    time and a short name, followed by a calendar ask; the name is the event's title."""
    out: list[tuple[int, int]] = []
    for m in _CAL_ASK.finditer(text):
        start = max((text.rfind(c, 0, m.start()) for c in "，,。；;"), default=-1) + 1
        clause = text[start : m.start()]
        pre = _TIME_PREFIX.match(clause)
        if pre is None or pre.end() == 0:
            continue
        a = start + pre.end()
        v = _TITLE_VERB.match(text, a)
        if v is not None and m.start() - v.end() >= 2:
            a = v.end()
        title = text[a : m.start()]
        if 2 <= len(title) <= 20 and re.search("[\u4e00-\u9fff]", title) and not _TITLE_BAD.search(title):
            out.append((a, m.start()))
    return out


_ZH_PUT_INTO = re.compile(
    r"把\s*(?P<t>[^，,。；;把]{2,30}?)\s*(?:加到|加进|加入|放到|放进|记到|记在|记进|写进|添加到|安排进)(?:我的)?\s*(?:日程|日历|行程)"
)
_EN_ADD_IT = re.compile(
    r"(?:add|put|pop|stick|save|throw)\s+(?:it|this|that)\s+(?:to|on|in|into|onto)\s+(?:my\s+)?(?:calendar|schedule)",
    re.I,
)
_EN_WHEN = re.compile(r"\s+(?:on|at|tomorrow|today|tonight|next|this|from|for)(?![A-Za-z])|\s+[0-9]", re.I)


def _title_put_into_calendar(text: str) -> list[tuple[int, int]]:
    """``把明天上午10点的周会加到日程里`` → ``周会`` (what follows the time and 的); ``Team dinner on
    June 18 at 7pm, add it to my calendar`` → ``Team dinner`` (the clause's words before its time)."""
    out: list[tuple[int, int]] = []
    for m in _ZH_PUT_INTO.finditer(text):
        a, b = m.start("t"), m.end("t")
        pre = _TIME_PREFIX.match(text, a)
        if pre is not None and pre.end() > a:
            a = pre.end()
            if text.startswith("的", a):
                a += 1
        if 2 <= b - a <= 20 and not _TITLE_BAD.search(text, a, b):
            out.append((a, b))
    m = _EN_ADD_IT.search(text)
    if m is not None:
        cut = max(text.rfind(c, 0, m.start()) for c in ",.;!?")  # the comma before the ask
        start = max(text.rfind(c, 0, cut) for c in ",.;!?") + 1 if cut > 0 else 0  # its clause
        w = _EN_WHEN.search(text, start)
        if w is not None and w.start() < m.start():
            a, b = start, w.start()
            while a < b and text[a] == " ":
                a += 1
            words = text[a:b].split()
            if 1 <= len(words) <= 5 and words[0][:1].isupper():
                out.append((a, b))
    return out


_CAL_COLON = re.compile(r"(?:日程|日历|会议|会|行程|事件|提醒|event|meeting|calendar)\s*[:：]\s*", re.I)
"""``加个45分钟的日程：需求评审``: the title after a calendar noun's colon."""
_COLON = re.compile(r"(?<![0-9])[:：](?![0-9])|\s[-–—]\s|——")


def _cut(
    text: str,
    a: int,
    extra_stop: re.Pattern[str] | None,
    taken: Callable[[int, int], bool],
    one_phrase: bool = False,
) -> tuple[int, int] | None:
    b = min(len(text), a + MAX_TEXT_CHARS)
    if extra_stop is not None:
        nxt = extra_stop.search(text, a, b)
        if nxt is not None and nxt.start() > a:
            b = nxt.start()
    # stop before any entity already claimed inside the value
    for k in range(a, b):
        if not taken(k, k + 1):
            b = k
            break
    b = cued_text_end(text, a, b)  # the sentence, not only up to its first comma
    if one_phrase:  # a title, a header, a description: not the time or the ask written after it
        b = inline_field_end(text, a, b)
    while b > a and text[b - 1] in " ，,、":
        b -= 1
    while a < b and text[a] == " ":
        a += 1
    return (a, b) if b - a >= 2 or (b - a >= 1 and not text[a].isascii()) else None


def opens_with_field_cue(text: str, a: int) -> bool:
    """Whether ``text`` has a field word and its verb at ``a`` (``问题描述就写…``, ``说明写…``, a bare
    ``，原因买错了``): what another cue took as its value is that field's cue, and
    :func:`find_free_texts` reads its value."""
    m = _ZH_CUES.match(text, a)
    return m is not None and m.end() - a >= 2


def find_free_texts(
    text: str, free: Callable[[int, int], bool] | None = None, colon_rule: bool = True
) -> list[tuple[int, int, str]]:
    """Cue-less free-text spans in ``text``; ``free(a, b)`` says whether a span is unclaimed;
    ``colon_rule=False`` (another free text was already found) skips the after-the-colon rule."""
    ok = free or (lambda a, b: True)
    out: list[tuple[int, int, str]] = []

    def add(span: tuple[int, int] | None) -> None:
        if span is None:
            return
        a, b = span
        if all(b <= s or a >= e for s, e, _ in out) and ok(a, b):
            out.append((a, b, text[a:b]))

    for m in _ZH_CUES.finditer(text):
        add(_cut(text, m.end(), _ZH_NEXT_CUE, ok))
    if _EMAIL_CTX.search(text):  # cheap pre-check
        for m in _ZH_SAY.finditer(text):
            nxt = text[m.end() : m.end() + 1]
            if nxt and ("\u4e00" <= nxt <= "\u9fff" or nxt.isalnum()):
                add(_cut(text, m.end(), _ZH_NEXT_CUE, ok))
    for m in _EN_CUES.finditer(text):
        add(
            _cut(
                text,
                m.end(),
                _EN_NEXT_CUE,
                ok,
                one_phrase=m.group().lower().startswith(("title", "header", "description", "topic")),
            )
        )
    for m in _EN_EVENT_NAME.finditer(text):
        add(_cut(text, m.end(), _EN_NEXT_CUE, ok, one_phrase=True))
    for m in _EN_HEADER.finditer(text):
        add(_cut(text, m.end(), _EN_NEXT_CUE, ok, one_phrase=True))
    for m in _EN_DESC.finditer(text):
        add(_cut(text, m.end(), _EN_NEXT_CUE, ok, one_phrase=True))
    for m in _CAL_COLON.finditer(text):
        add(_cut(text, m.end(), _ZH_NEXT_CUE, ok))
    for span in _title_before_calendar_ask(text) + _title_put_into_calendar(text):
        add(span)
    if colon_rule and not out:
        colons = [c for c in _COLON.finditer(text) if _EMAIL_ASK_END.search(text, 0, c.start())]
        if colons:
            a = colons[-1].end()
            rest = text[a:]
            stop = _STOP.search(rest)
            end = a + (stop.start() if stop else len(rest))
            span = _cut(text, a, None, ok)
            if span is not None and span[1] >= end - 1:  # the whole rest of the clause
                add(span)
    return sorted(out)
