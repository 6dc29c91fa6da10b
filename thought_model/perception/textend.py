"""Where a cued free-text value ends (a body, a reason, a title after ``正文：`` / ``reason:``).

A value written after a field cue is no longer cut at its first comma: ``正文：王芳你好，材料已经发你了，
请查收。`` is one body, ``原因：尺码不对，想换个颜色`` one reason, ``body: Hi Tom, thanks for the notes,
see you Monday`` one body. It runs to the end of the sentence (``。！？；``, an English full stop
before a space or the end), a closing bracket or quote, or a comma that starts a **clear next
clause**: a connective or a new ask (``另外 / 然后 / 帮我 / also / and then / please …``), a time, a
day, a duration or a head count (``标题：周会，明天下午3点`` is a title and a time), or a trailing
sign-off (``辛苦啦😊``, ``thanks!!``), which is never part of the text.
"""

from __future__ import annotations

import re

MAX_CHARS = 200

_HARD_STOP = re.compile(r"[。;；!！?？\n<>\"“”（）()「」『』]|(?<!\bCo)(?<!\bInc)\.(?=\s|$)")
"""(A company's "Co., Ltd." does not end its sentence at "Co.".)"""
_COMMA = re.compile(r"[，,、]")

_SIGN_OFF = re.compile(
    r"^\s*(?:(?:辛苦|麻烦|谢谢|感谢|多谢|劳驾)(?:你|您|大家)?(?:了|啦|哈|喽|咯|哦|呀|啊)?(?:谢谢)?"
    r"|(?:many\s+)?thanks?(?:\s+(?:a lot|so much|in advance|you))?|thank\s+you(?:\s+so much)?|thx|ty|cheers|ta)"
    r"[\s!！~\uff5e。.,，\ufe0f\u2600-\u27bf\U0001F300-\U0001FAFF]*$",
    re.I,
)
"""A piece that is only a sign-off to the assistant (``辛苦啦😊``, ``thanks!!``)."""

_NEXT_ASK = re.compile(
    r"^\s*(?:另外|然后|接着|顺便|顺带|再|还有|还要|同时|并且|以及|对了|完了|帮我|帮忙|麻烦|请你|请帮|给我|"
    r"[帮给](?=\S{1,10}?(?:开个|开一个|提个|提一个|重置|申请))|"
    r"正文|内容|标题|主题|题目|抬头|说明|备注|原因|理由|附件|"
    r"请?(?:尽快|尽早|马上|赶紧|抓紧)|(?:开|弄|办|做|处理|建)好(?:了|后|之后|以后)?|"
    r"查|看看|看下|取消|退款|退|发个|发封|发给|订|预订|开个|开张|建个|加个|报销|提交|抄送|邀请|叫上|拉上|"
    r"and\s+(?:an?|another)\s+(?:[a-z]+\s+)?(?:expense|claim|invoice|event|email|meeting|room|one)(?![A-Za-z])|"
    r"(?:and\s+)?(?:then|also|plus|after that|please|pls|can you|could you|check|book|find|send|cancel|"
    r"refund|submit|list|show|get|create|schedule|invite|cc|subject|body|title|description|reason|header|"
    r"open|reset|track|raise|file|log|request|update|change|add|remove|delete|look|tell|give|email|reserve|"
    r"order|renew|assign|close|reopen|escalate|pull|fetch|move|unlock|"
    r"starting|starts|lasting|ending)(?![A-Za-z]))",
    re.I,
)
"""A comma piece that starts another ask, a connective or another field."""

_WHEN = re.compile(
    r"^\s*(?:(?:今天|明天|后天|大后天|昨天|前天|今晚|明晚|今早|明早|上午|下午|晚上|早上|中午|傍晚|凌晨|"
    r"(?:下|这|本|上)?个?(?:周|星期|礼拜)[一二三四五六日天1-7]|[0-9]{4}[-/.年]|[0-9一二三四五六七八九十]{1,2}月|"
    r"[0-9零一二两三四五六七八九十半]+\s?(?:个)?(?:点|小时|钟头|分钟|人|位|号)|时长|一共|总共)"
    r"|(?:today|tomorrow|tonight|tmrw)(?![A-Za-z])|(?:(?:next|this|on)\s+)?(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*day(?![A-Za-z])"
    r"|(?:on|at|from|by)\s+[0-9]|for\s+(?:[0-9]|an?\s+hour|half|one|two|three)"
    r"|[0-9]+\s?(?:am|pm|min|mins|minutes|hours?|h|people|persons|pax)(?![A-Za-z])"
    r"|[¥$€£]\s?[0-9]|[0-9]+(?:\.[0-9]+)?\s*(?:元|块|rmb|yuan|usd|dollars?|bucks|eur|euros?)?\s*$)",
    re.I,
)
"""A comma piece that starts with a time, a day, a duration or a count, or is an amount: another field."""


_SPACED_ASK = re.compile(r"\s+(?:再(?=帮|给|把|查|开|提|重置|订|发|看)|然后|另外|顺便|接着|并且)")
"""A Chinese connective after a space (``问题是电脑蓝屏 再帮我重置密码``): the next ask, even after a colon."""


def is_sign_off(piece: str) -> bool:
    return bool(_SIGN_OFF.match(piece)) and bool(piece.strip())


def field_piece(words: tuple[str, ...]) -> re.Pattern[str] | None:
    """A comma piece made only of the domain's enum words (``Lexicon.field_words``: ``low
    priority``, ``优先级高``, ``ASAP``), after at most one English word (the field's name: ``priority
    urgent``), or None without words."""
    if not words:
        return None
    alts = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    return re.compile(
        rf"^\s*(?:[A-Za-z]+\s*[:：]?\s*)?(?:{alts})(?:\s*(?:priority|please|pls|吧|哦|啊|的))?[\s!！.。~]*$",
        re.I,
    )


def cued_text_end(text: str, a: int, limit: int, fields: re.Pattern[str] | None = None) -> int:
    """The end of a cued free-text value starting at ``a`` (at most ``limit``, which already
    stops at the next cue and the next claimed entity): see the module doc. ``fields``
    (:func:`field_piece`): a comma piece of the domain's enum words is another argument."""
    limit = min(limit, a + MAX_CHARS, len(text))
    hard = _HARD_STOP.search(text, a, limit)
    end = hard.start() if hard else limit
    spaced = _SPACED_ASK.search(text, a, end)
    end = spaced.start() if spaced else end
    for c in _COMMA.finditer(text, a, end):
        nxt = _COMMA.search(text, c.end(), end)
        piece = text[c.end() : nxt.start() if nxt else end]
        if (
            c.start() == a
            or _NEXT_ASK.match(piece)
            or _WHEN.match(piece)
            or is_sign_off(piece)
            or (fields is not None and fields.match(piece))
        ):
            end = c.start()
            break
    # a sign-off glued on after a space ("请查收 辛苦啦")
    m = re.search(r"\s(\S+)$", text[a:end])
    if m and is_sign_off(m.group(1)):
        end = a + m.start()
    while end > a and text[end - 1] in " ，,、":
        end -= 1
    return end


_INLINE_FIELD_END = re.compile(
    r"\s+(?:on|at|from|by)\s+(?=[0-9]|today|tomorrow|tonight|tmrw|next\s|this\s|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b)"
    r"|\s+for\s+(?=[0-9]|an?\s+hour|half\s+an?\s+hour|one\s+hour|two\s+hours)"
    r"|\s+(?:next|this|coming)\s+(?:week|month|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?)(?![A-Za-z])"
    r"|\s+(?:today|tomorrow|tonight|tmrw)(?![A-Za-z])"
    r"|,?\s+with\s+(?:the\s+)?(?:title|subject|body|description|attendees?|invitees?)(?![A-Za-z])"
    r"|\s+(?:inviting|with\s+attendees?)\s|\s+(?:at\s+)?the\s+same\s+time(?![A-Za-z])"
    r"|,?\s+and\s+(?:then|also|another|an?\s+(?:[a-z]+\s+)?(?:expense|claim|invoice|event|email|meeting|room)"
    r"|(?:list|check|show|create|book|send|find|cancel|refund|submit|get|update|change|open|pull|track|what|where)\b)",
    re.I,
)
"""Inside a one-phrase English field (a title, a header, a description) written without quotes:
where the next field or the next ask starts ("titled Supplier call <on 2026-05-22 at 10:30am>",
"title Kestrel Analytics Ltd<, and another one for …>", "Brightwave Media Ltd< and then show me …>")."""


def inline_field_end(text: str, a: int, end: int) -> int:
    """The end of an English one-phrase field value in ``text[a:end]`` (see
    :data:`_INLINE_FIELD_END`); ``end`` when nothing starts there. Chinese text is left alone."""
    m = _INLINE_FIELD_END.search(text, a, min(len(text), end + 24))  # (a lookahead may read past ``end``)
    if m is None or m.start() <= a or m.start() >= end or not text[a : m.start()].isascii():
        return end
    return m.start()
