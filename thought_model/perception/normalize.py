"""Request normalization, the first step of perception.

1. **Full-width letters and digits → ASCII** (``１５号`` → ``15号``, ``ＵＳＥＲ`` → ``USER``, ``＠`` →
   ``@``). Only letters, digits and ``＠`` are folded (a targeted NFKC): CJK punctuation (``，：。``)
   and full-width brackets stay as written, so cue words and clause boundaries are unchanged.
2. **Traditional → simplified Chinese** with OpenCC ``tw2s`` (``t2s`` plus Taiwan's variant characters:
   ``還開著`` → ``还开着``; ``幫我看看訂單現在的狀態`` → ``帮我看看订单现在的状态``). Pure-ASCII requests skip it.
3. **Half-of-day typos** (Chinese) and key-word homophones (``下州四`` → ``下周四``, ``下周1`` →
   ``下周一``, ``时常`` before a duration → ``时长``, ``名子`` → ``名字``, ``邮相 / 由箱`` → ``邮箱``).
   **Half-of-day typos**: ``下吾/下五/下捂/下无`` → ``下午``, ``上五/上吾/上捂`` → ``上午``,
   ``晚尚`` → ``晚上``, ``早尚`` → ``早上``, only right before a clock time (``下吾2点``, ``上五10点``):
   a homophone typed for the half-of-day word made the time a morning one (``下吾2点`` = 02:00) or
   split the day from its time (``下周三上五10点`` = today 10:00).
4. **Key-word typos** (English only): tokens of five or more letters within a small edit distance
   of a key word the plan model knows (``wheather``, ``tomorow``, ``calender``) are replaced by it.
   Real words that are close to a key word (``whether``, ``leather``) are never touched.

Project decision: slot values are read on the *normalized* text — ids, enums, dates, cities and
names in simplified characters / ASCII — except **free text** (a subject, a body, a reason, a
summary), which is the user's own words and is bound as written (``主旨：會議改期`` → ``會議改期``,
:func:`thought_model.entities._as_written`). That needs a span of the normalized text to be the same
span of the request, so it holds when the normalization kept the length (OpenCC maps nearly every
phrase to one of the same length); otherwise the normalized value stays. Spans in a
:class:`~thought_model.entities.Perception` index the normalized text.
"""

# ruff: noqa: RUF002, RUF003 - full-width characters are this module's subject
from __future__ import annotations

import re
from functools import lru_cache

_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF10, 0xFF1A)}  # ０-９
_FULLWIDTH.update({c: c - 0xFEE0 for c in range(0xFF21, 0xFF3B)})  # Ａ-Ｚ
_FULLWIDTH.update({c: c - 0xFEE0 for c in range(0xFF41, 0xFF5B)})  # ａ-ｚ
_FULLWIDTH[0xFF20] = ord("@")  # ＠ (emails)
_HAS_FULLWIDTH = re.compile("[\uff10-\uff19\uff20-\uff3a\uff41-\uff5a]")
_HAS_CJK = re.compile("[\u3400-\u9fff\uf900-\ufaff]")

# Key words of the plan model's vocabulary that users misspell; a token is corrected only when
# it is >= 5 letters, starts with the same letter and is within Damerau-Levenshtein distance 1
# of one (distance 2 turned real words into key words: 'trading' -> 'tracking').
KEYWORDS = (
    "weather",
    "forecast",
    "tomorrow",
    "yesterday",
    "meeting",
    "calendar",
    "schedule",
    "invoice",
    "expense",
    "reimburse",
    "delivery",
    "shipping",
    "tracking",
    "package",
    "weekend",
    "refund",
    "cancel",
    "profile",
    "address",
    "status",
    "expenses",
    "invoices",
    "submit",
    "reimbursement",
    # list filters and selection words of the plan model's requests
    "pending",
    "delivered",
    "rejected",
    "approved",
    "shipped",
    "newest",
    "latest",
    "recent",
    "update",
    "orders",
    "order",
    "logistics",
    "description",
)
# real words (and inflections of key words) that are close to a key word: never "corrected"
_REAL_WORDS = frozenset(
    """whether weathered weathers heather leather feather feathers tether wealth wreath morrow
    sorrow borrow tomorrows together yesterdays meetings meeting's metering melting calendars
    scheduled schedules invoices invoiced expenses expensed reimbursed refunds refunded cancer
    canceled cancelled cancels camel profiles profiled addresses addressed statue states stats
    submits summit submitted expensed invoiced
    status's stratus forecasts forecaster packages packaged packing deliver delivers delivered
    shipping shippings shopping tracking trucking weekends weekender weekday weekly expense's
    refine refuse rebind rebound expanse expand expose express invoke invite involve schedule's
    passage passages profit profits proline wander wither either
    spending penning pending's delivers deliverer rejecter rejects approves approver shopped slipped
    whipped shipper shippers nearest neatest newer lately latent latter lattes decent repent resent
    regent recant rental upstate updated updates upside orderly ordered odders older skipped lasted
    """.split()
)
_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{5,}(?![A-Za-z0-9])")


@lru_cache(maxsize=1)
def _t2s():  # type: ignore[no-untyped-def]
    import opencc

    return opencc.OpenCC("tw2s")  # t2s plus Taiwan's variant characters (開著 -> 开着, not 开著)


def fold_width(text: str) -> str:
    """Full-width letters, digits and ``＠`` to ASCII; everything else unchanged."""
    return text.translate(_FULLWIDTH) if _HAS_FULLWIDTH.search(text) else text


def to_simplified(text: str) -> str:
    """Traditional Chinese characters to simplified (OpenCC ``t2s``); ASCII text is returned as is."""
    if not _HAS_CJK.search(text):
        return text
    return _t2s().convert(text)


@lru_cache(maxsize=8192)
def _fix_word(word: str, extra: tuple[str, ...] = ()) -> str:
    low = word.lower()
    keys = KEYWORDS + extra
    if low in keys or low in _REAL_WORDS:
        return word
    from rapidfuzz import process
    from rapidfuzz.distance import DamerauLevenshtein

    limit = 1
    choices = [k for k in keys if k[0] == low[0] and abs(len(k) - len(low)) <= limit]
    if not choices:
        return word
    hits = [
        h[0] for h in process.extract(low, choices, scorer=DamerauLevenshtein.distance, score_cutoff=limit)
    ]
    # a domain's own key word (no hand-kept list of the real words near it): only a dropped letter
    # or two swapped ones (closd, emial), never another letter (payroll "closes" is no "closed")
    hits = [k for k in hits if k in KEYWORDS or _dropped_or_swapped(low, k)]
    if not hits:
        return word
    # a tie: a missing letter is the likeliest typo (deliverd -> delivered, not delivery)
    fixed = next((k for k in hits if _is_subsequence(low, k)), hits[0])
    if word.isupper():
        return fixed.upper()
    if word[0].isupper():
        return fixed.capitalize()
    return fixed


def _dropped_or_swapped(word: str, key: str) -> bool:
    """Whether ``word`` is ``key`` with one letter dropped (not a base form of it: ``close`` of
    ``closed``, ``ticket`` of ``tickets``) or two neighbours swapped."""
    if len(word) == len(key):
        return sorted(word) == sorted(key)
    if len(word) + 1 != len(key) or not _is_subsequence(word, key):
        return False
    rest = key[len(word) :] if key.startswith(word) else ""
    base = (rest == "s" and not word.endswith("s")) or (rest == "d" and word.endswith("e"))
    return not base


def _is_subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(c in it for c in short)


_QUOTED = re.compile(r"[\"“「『‘'][^\"”」』’']*[\"”」』’']")


def correct_keywords(text: str, extra: tuple[str, ...] = ()) -> str:
    """Replace misspelled key words (``wheather`` → ``weather``); see :data:`KEYWORDS`, plus a
    domain's own (``extra``: ``Lexicon.keywords``, ``emial`` → ``email``). Quoted text is left as
    written."""
    if not re.search("[A-Za-z]{5}", text):
        return text
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(text)]

    def fix(m: re.Match[str]) -> str:
        if any(a <= m.start() < b for a, b in quoted):
            return m.group(0)
        return _fix_word(m.group(0), extra)

    return _WORD.sub(fix, text)


# spelled-out typos of 'tomorrow' too short or too far for the fuzzy rule
_SHORT_TYPOS = re.compile(
    r"(?<![A-Za-z])(?:tmrw|tmrow|tmorrow|tommorow|tommorrow|tomoro|tomorow|2morrow|2moro)(?![A-Za-z])", re.I
)


_ZH_CLOCK_AHEAD = r"(?=\s?(?:[0-9]{1,2}|[一二两三四五六七八九十]{1,3})\s?(?:点|:|：|时))"
_ZH_HALF_DAY_TYPOS = (
    (re.compile(r"下[吾五捂无]" + _ZH_CLOCK_AHEAD), "下午"),
    (re.compile(r"上[吾五捂]" + _ZH_CLOCK_AHEAD), "上午"),
    (re.compile(r"晚尚" + _ZH_CLOCK_AHEAD), "晚上"),
    (re.compile(r"早尚" + _ZH_CLOCK_AHEAD), "早上"),
)


def fix_half_day_typos(text: str) -> str:
    """``下吾2点`` → ``下午2点``, ``上五10点`` → ``上午10点`` (see the module doc, step 3)."""
    if "吾" not in text and "五" not in text and "捂" not in text and "无" not in text and "尚" not in text:
        return text
    for rx, word in _ZH_HALF_DAY_TYPOS:
        text = rx.sub(word, text)
    return text


_ZH_DIGIT_WEEKDAY = dict(zip("1234567", "一二三四五六日", strict=True))
_ZH_WORD_TYPOS = (
    # 下州四 -> 下周四 (州 typed for 周 before a weekday), 下周1 -> 下周一
    (re.compile(r"(?<=[下这本上])州(?=[一二三四五六日天1-7])"), lambda m: "周"),
    (re.compile(r"(?<=周|期|拜)([1-7])(?![0-9.:：点号日])"), lambda m: _ZH_DIGIT_WEEKDAY[m.group(1)]),
    # 时常2小时 -> 时长2小时 (时常 "often" before a duration)
    (
        re.compile(
            r"时常(?=\s?(?:为|是|[:：])?\s?[0-9一二两三四五六七八九十半.]+\s?个?半?\s?(?:小时|分钟|钟头|hours?|h|mins?|minutes?))"
        ),
        lambda m: "时长",
    ),
    # profile field words: 名子 -> 名字, 邮相 / 由箱 / 邮厢 -> 邮箱
    (re.compile(r"名子"), lambda m: "名字"),
    (re.compile(r"邮相|由箱|邮厢|邮想"), lambda m: "邮箱"),
    # status / weather words: 壮态 / 状太 -> 状态, 天器 / 天汽 -> 天气
    (re.compile(r"壮态|状太|壮太"), lambda m: "状态"),
    (re.compile(r"天器|天汽"), lambda m: "天气"),
    # object and ask words: 发漂 -> 发票, 物留 -> 物流, 日层 -> 日程, 会意室 -> 会议室, 定单 -> 订单,
    # 报消 -> 报销, 取销 -> 取消, 元因 -> 原因, 抬投 -> 抬头, 一比 -> 一笔 (of an order), 下不下鱼 -> 下不下雨,
    # 一个小试 -> 一个小时
    (re.compile(r"发漂|发飘|发镖"), lambda m: "发票"),
    (re.compile(r"物留|物刘|勿流"), lambda m: "物流"),
    (re.compile(r"日层|日成(?=[^功])"), lambda m: "日程"),
    (re.compile(r"会意室|会义室|汇议室|会仪室"), lambda m: "会议室"),
    (re.compile(r"定单"), lambda m: "订单"),
    (re.compile(r"报消|抱销"), lambda m: "报销"),
    (re.compile(r"取销|取晓"), lambda m: "取消"),
    (re.compile(r"元因|原音(?=[是:：])"), lambda m: "原因"),
    (re.compile(r"抬投"), lambda m: "抬头"),
    (re.compile(r"(?<=[最近新后])一比(?=[^0-9一二三四五六七八九十])"), lambda m: "一笔"),
    (re.compile(r"(?<=下不下)鱼|(?<=会不会下)鱼|(?<=下)鱼(?=吗|没|了吗)"), lambda m: "雨"),
    (
        re.compile(r"(?<=[0-9一二两三四五六七八九十半]个)小试|(?<=[0-9一二两三四五六七八九十半])小试"),
        lambda m: "小时",
    ),
)


def fix_zh_word_typos(text: str) -> str:
    """``下州四`` → ``下周四``, ``下周1`` → ``下周一``, ``时常2小时`` → ``时长2小时``, ``名子`` → ``名字``,
    ``邮相 / 由箱`` → ``邮箱``, ``壮态`` → ``状态``, ``天器`` → ``天气`` (homophone typos of key words, step 3b)."""
    if not _HAS_CJK.search(text):
        return text
    for rx, fix in _ZH_WORD_TYPOS:
        text = rx.sub(fix, text)
    return text


# short key words users misspell: too short for the fuzzy rule (a 3-4 letter token is one edit from
# many real words), so only these spellings, none of which is an English word
_SHORT_KEY_TYPOS = {
    "chek": "check",
    "chk": "check",
    "chck": "check",
    "trak": "track",
    "trck": "track",
    "shw": "show",
    "shwo": "show",
    "lst": "list",
    "ordr": "order",
    "oder": "order",
    "ordrs": "orders",
    "oders": "orders",
    "aslo": "also",
    "alos": "also",
}
_SHORT_KEY_RX = re.compile(r"(?<![A-Za-z'])(?:" + "|".join(_SHORT_KEY_TYPOS) + r")(?![A-Za-z'])", re.I)


def _short_key(m: re.Match[str]) -> str:
    fixed = _SHORT_KEY_TYPOS[m.group(0).lower()]
    return fixed.capitalize() if m.group(0)[0].isupper() else fixed


def normalize_request(text: str, keywords: tuple[str, ...] = ()) -> str:
    """The text perception works on: width-folded, simplified, half-of-day and key-word typos fixed
    (``keywords``: a domain's own key words, ``Lexicon.keywords``)."""
    text = fix_zh_word_typos(fix_half_day_typos(to_simplified(fold_width(text))))
    text = _SHORT_TYPOS.sub(lambda m: "Tomorrow" if m.group(0)[0].isupper() else "tomorrow", text)
    text = _SHORT_KEY_RX.sub(_short_key, text)
    return correct_keywords(text, keywords)
