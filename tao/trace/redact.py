"""PII redaction applied to everything before it is written (trajectory events, spans, logs).

Matching runs on the NFKC form of the text (full-width digits and the full-width at sign match like ASCII);
each span found there is mapped back and masked in the original text, so the rest of the text is
written as it came. Each match becomes ``[REDACTED:KIND]``; overlapping matches become one mask
named after the strongest kind.

Kinds and rules (by category, never by sample):

* ``API_KEY``: JWTs, prefixed keys (``sk-…``, ``sk_live_…``, ``AKIA…``, ``ghp_…``,
  ``github_pat_…``, ``glpat-…``, ``xox…``, ``AIza…``, ``hf_…``, ``npm_…``, SendGrid ``SG.…``),
  ``Bearer …``, any ``*key*/*secret*/*token*/*password*`` assignment, and 40-character
  mixed-case base64 secrets (AWS secret access keys; lowercase hex such as commit ids stays).
* ``EMAIL``: ASCII, Latin-accented and CJK local parts and domains (``王五@例子.中国``), also
  URL-encoded (``%40``).
* ``CN_ID``: 18 characters (optionally grouped 6-8-4) with a real birth date and ISO 7064 check.
* ``BANK_CARD``: 12–19 digits (spaces or dashes) that pass Luhn *and* fall in a card network's
  issuer range with one of its lengths: Visa, Mastercard (51–55, 2221–2720), Amex, Diners,
  Discover, JCB, UnionPay, Maestro, Mir, RuPay, Troy, Verve.
* ``PHONE``: Chinese mobiles (±86/0086), Chinese landlines (``010-62345678``), international
  ``+CC`` numbers, North-American numbers (separated, or ten bare digits in NANP form), and any
  digit run after a phone cue (电话, 手机, Tel, mobile, …).
* ``ADDRESS``: Chinese addresses (admin units 省/市/区/县 + road 路/街/大道… + 号, then building,
  栋/单元/室 tails) and street addresses (number + name + St/Ave/Rd/Blvd…, apartment, city,
  state, postal code; ``Rue …``; German ``…straße 57``; P.O. boxes), and any value under an
  address key (``"address": …``).
* ``NAME``: Chinese surname + given name between name contexts (a cue such as 收件人/客户/是/和,
  brackets, quotes, or the start, and a following 的/说/先生/吗/punctuation), never a place
  (黄山, 常州仓) or a common word (马上, 温度); compound surnames anywhere before such an end;
  Western "First Last" pairs where a word is a known given name or surname (or a pinyin
  surname + syllable), after a title or label cue, and lowercase given names after cues
  (``hey mike``, ``jenny said``); any value under a name key (``"name": …``); and names the
  perception step found in the request (:func:`perceived_names`, fed in by the trajectory).

The checksums keep 18-digit order ids and similar business ids readable while real identifiers
are masked; :func:`redact` also masks dict keys (PII used as a JSON key) and reads a key as the
context of its value.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from tao.contracts.ids import luhn_ok, valid_cn_id
from tao.trace.pii_lexicon import (
    ADDRESS_KEYS,
    GIVEN_NAMES,
    NAME_KEYS,
    PINYIN_SURNAMES,
    PINYIN_SYLLABLES,
    STREET_TYPES,
    SURNAMES_EN,
    ZH_COMMON_WORDS,
    ZH_PLACE_SUFFIX,
    ZH_PROVINCES,
)

__all__ = ["find_pii", "luhn_ok", "perceived_names", "redact", "redact_text", "valid_cn_id"]

Span = tuple[int, int, str]
_PRIORITY = {"API_KEY": 0, "EMAIL": 1, "CN_ID": 2, "BANK_CARD": 3, "PHONE": 4, "ADDRESS": 5, "NAME": 6}

# ---------------------------------------------------------------- normalization


def _normalize(text: str) -> tuple[str, list[int] | None]:
    """The NFKC form of ``text`` and, when it differs, the original index of each of its chars."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text, None
    parts: list[str] = []
    index: list[int] = []
    for i, c in enumerate(text):
        n = c if c < "\u00a0" else unicodedata.normalize("NFKC", c)
        parts.append(n)
        index.extend([i] * len(n))
    index.append(len(text))
    return "".join(parts), index


# ---------------------------------------------------------------- cards


def _in(p: str, lo: int, hi: int) -> bool:
    return lo <= int(p) <= hi


def _card_network(d: str) -> bool:
    """True when the digit string has the issuer prefix and the length of some card network."""
    n = len(d)
    checks: tuple[tuple[Callable[[], bool], tuple[int, ...]], ...] = (
        (lambda: d[0] == "4", (13, 16, 19)),  # Visa
        (lambda: _in(d[:2], 51, 55) or _in(d[:4], 2221, 2720), (16,)),  # Mastercard
        (lambda: d[:2] in ("34", "37"), (15,)),  # Amex
        (
            lambda: _in(d[:3], 300, 305) or d[:4] == "3095" or d[:2] in ("36", "38", "39"),
            tuple(range(14, 20)),
        ),
        (lambda: d[:4] == "6011" or _in(d[:3], 644, 649) or d[:2] == "65", tuple(range(16, 20))),  # Discover
        (lambda: d[:2] == "35", tuple(range(16, 20))),  # JCB 3528-3589, RuPay 353/356, the rest of 35
        (lambda: d[:2] in ("62", "81"), tuple(range(16, 20))),  # UnionPay
        (lambda: d[:2] == "50" or _in(d[:2], 56, 69), tuple(range(12, 20))),  # Maestro (and RuPay 60)
        (lambda: _in(d[:4], 2200, 2204), tuple(range(16, 20))),  # Mir
        (lambda: d[:2] == "82" or d[:3] in ("508", "353", "356"), (16,)),  # RuPay
        (lambda: d[:4] == "9792", (16,)),  # Troy
        (lambda: _in(d[:6], 506099, 506198), (16, 18, 19)),  # Verve
    )
    return any(n in lengths and ok() for ok, lengths in checks)


def _card_ok(s: str) -> bool:
    d = re.sub(r"[ -]", "", s)
    return 12 <= len(d) <= 19 and _card_network(d) and luhn_ok(d)


_CARD_CUE = re.compile(
    r"(?i)卡|card|\bpan\b|\bcc\b|visa|master|amex|jcb|discover|diners|maestro|unionpay|银联|信用|借记|储蓄"
)
_ID_CUE = re.compile(
    r"(?i)(?:订单号?|单号|流水号?|编号|工单|运单|order(?:\s*(?:id|no\.?|number|#))?|tracking|track|txn|transaction"
    r"|ref(?:erence)?(?:\s*no\.?)?|batch(?:\s*id)?|trace(?:_id)?|request(?:_id)?|correlation(?:\s*key)?)"
    r"\W{0,3}$"
)


def _business_id(norm: str, start: int) -> bool:
    """A Luhn-valid number right after an order/transaction/trace label and no card word: an id."""
    before = norm[max(0, start - 24) : start]
    return bool(_ID_CUE.search(before)) and not _CARD_CUE.search(norm[max(0, start - 40) : start])


def _cn_id_ok(s: str) -> bool:
    return valid_cn_id(re.sub(r"[ -]", "", s))


# ---------------------------------------------------------------- patterns
_CJK = r"\u3400-\u9fff\uf900-\ufaff"
_LAT = r"A-Za-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"

_API_KEY_RES: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    (
        re.compile(
            r"(?<![A-Za-z0-9])(?:sk-[A-Za-z0-9_-]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
            r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}"
            r"|xox[abeprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,40}|(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{16,}"
            r"|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})"
        ),
        0,
    ),
    (re.compile(r"(?i)(\bbearer(?:\s+|%20|\+))([A-Za-z0-9._~+/=-]{12,})"), 2),
    (
        re.compile(
            r"(?i)((?:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key"
            r"|private[_-]?key|credentials?)(?:[_-]?[a-z0-9]+)*[\"']?\s*[:=]\s*[\"']?)(?!bearer\b)"
            r"([^\s\"',;}{&]{6,})"
        ),
        2,
    ),
    (re.compile(r"((?:密钥|秘钥|令牌|密码|口令|私钥)\s*(?:[:=是为])\s*)([A-Za-z0-9_\-+/=.~]{6,})"), 2),
)
_B64_40 = re.compile(r"(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])")
_B64_40_OK: Callable[[str], bool] = lambda s: (  # noqa: E731
    any(c.isupper() for c in s) and any(c.islower() for c in s) and any(c.isdigit() for c in s)
)

_EMAIL = re.compile(
    rf"(?<![{_LAT}._%+-])(?:[{_LAT}._%+-]+|[{_CJK}]+)(?:@|%40)"
    rf"(?:(?:[{_LAT}-]+|[{_CJK}]+)\.)+(?:[A-Za-z\u00c0-\u024f]{{2,}}|[{_CJK}]{{2,}}|xn--[A-Za-z0-9-]+)"
)

_CN_ID = re.compile(
    r"(?<![0-9A-Za-z])[1-9][0-9]{5}[ -]?(?:18|19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])"
    r"[ -]?[0-9]{3}[0-9Xx](?![0-9A-Za-z])"
)
_CARD = re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){11,18}(?![0-9])")

_PHONE_RES: tuple[tuple[re.Pattern[str], Callable[[str], bool] | None], ...] = (
    (re.compile(r"(?<![0-9])(?:(?:\+|00)86[ -]?)?1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9])"), None),
    (re.compile(r"(?<![0-9])(?:\(0[1-9][0-9]{1,2}\)\s?|0[1-9][0-9]{1,2}-)[0-9]{7,8}(?![0-9])"), None),
    (
        re.compile(r"(?<![0-9A-Za-z])(?:\+|00)[1-9][0-9]{0,2}(?:[ .-]?\(?[0-9]{1,5}\)?){1,6}(?![0-9])"),
        lambda s: 8 <= sum(c.isdigit() for c in s) <= 15,
    ),
    (re.compile(r"(?<![0-9A-Za-z])\(?[2-9][0-9]{2}\)?[ .-]?[0-9]{3}[ .-][0-9]{4}(?![0-9A-Za-z])"), None),
    (
        re.compile(r"(?<![0-9A-Za-z])\([2-9][0-9]{2}\)[ .-]?[0-9]{3}[ .-]?[0-9]{4}(?![0-9A-Za-z])"),
        None,
    ),
    (re.compile(r"(?<![0-9A-Za-z+])[2-9][0-9]{2}[2-9][0-9]{6}(?![0-9A-Za-z])"), None),  # NANP, bare
)
_PHONE_PLAIN = re.compile("|".join(f"(?:{rx.pattern})" for rx, ok in _PHONE_RES if ok is None))
"""The phone patterns without an extra check, as one pass."""
_PHONE_CUE = re.compile(
    r"(?i)(?:电话|手机|座机|手机号|联系电话|tel|phone|mobile|cell|whatsapp|fax|传真)(?:\s*(?:号码|number|no\.?|#))?"
    r"\s*[:=是为]?\s*(\+?[0-9][0-9 ().-]{5,18}[0-9])(?![0-9])"
)

# Chinese addresses: admin units, a road with a house number (or a named compound), then the tail
_ZH_ADMIN = rf"(?:[{_CJK}](?:(?![省市区县旗镇乡])[{_CJK}]){{0,7}}(?:省|自治区|市|区|县|旗|镇|乡))"
"""One admin unit; only its first character may be a unit suffix (市南区), so a run of units splits
one way only (no backtracking blow-up on text such as 市区市区…)."""
_ZH_TAIL = (
    rf"(?:[0-9]+(?:-[0-9]+)*(?:号楼|栋|幢|座|单元|层|楼|室|户|号|F)?|[A-Za-z]座|[{_CJK}]{{2,10}}?"
    r"(?:广场|大厦|中心|公寓|花园|小区|国际|大楼|苑|园|城|府|汇|村|里|庭|阁|轩|公馆|家园|新村))"
)
_ZH_ADDRESS = re.compile(
    rf"{_ZH_ADMIN}{{0,5}}(?:[{_CJK}0-9]{{1,10}}?(?:路|街|大道|道|巷|弄|胡同)(?:[一二三四五六七八九十0-9]+段)?"
    rf"[0-9]+(?:-[0-9]+)*号|{_ZH_ADMIN}[{_CJK}]{{2,10}}?(?:小区|花园|公寓|大厦|新村|家园)){_ZH_TAIL}{{0,8}}"
)
_ZH_ADDRESS_START = re.compile(rf"(?:{ZH_PROVINCES})")

_EN_WORD = r"[A-Z][A-Za-z'’.-]*"
_EN_CITY_TAIL = (
    r"(?:,?\s*(?:Apt|Apartment|Suite|Ste|Unit|Flat|Fl|Floor|Room|#)\.?\s*#?[A-Za-z0-9-]+)?"
    r"(?:,\s*[A-Z][A-Za-z'’.-]*(?:\s+[A-Z][A-Za-z'’.-]*){0,3})?"
    r"(?:,?\s*[A-Z]{2,3}\b)?"
    r"(?:,?\s*(?:[0-9]{5}(?:-[0-9]{4})?|[A-Z]{1,2}[0-9][A-Z0-9]?\s*[0-9][A-Z]{2}|[0-9]{4})\b)?"
)
_EN_ADDRESS = re.compile(
    r"(?:\b(?:Flat|Apt|Apartment|Unit|Suite)\s+[A-Za-z0-9-]+,\s*)?"
    rf"\b[0-9]{{1,6}}[A-Za-z]?\s+(?:[NSEW]\.?\s+)?(?:{_EN_WORD}\s+){{1,4}}?(?:{STREET_TYPES})\b\.?"
    + _EN_CITY_TAIL
    + r"|\b[0-9]{1,5}(?:bis|ter)?,?\s+(?:Rue|Avenue|Boulevard|Bd|Place|Chemin|Allée|Quai|Impasse|Calle|Via|Viale|Corso)"
    r"\s+[^,\n]{2,40}(?:,\s*[0-9]{4,5}\s+[A-Z][\w'-]+)?"
    r"|\b[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm)\s+[0-9]{1,4}[a-z]?"
    r"(?:,\s*[0-9]{5}\s+[A-ZÄÖÜ][\wäöüß-]+)?"
    r"|\bP\.?\s?O\.?\s+Box\s+[0-9]+" + _EN_CITY_TAIL
)

# names
_ZH_SURNAMES = (
    "欧阳|司马|上官|诸葛|东方|慕容|司徒|皇甫|端木|公孙|令狐|宇文|长孙|夏侯|尉迟|独孤|南宫|西门|百里|呼延"
)
_ZH_COMPOUND = frozenset(_ZH_SURNAMES.split("|"))
_ZH_NAME_LEFT = (
    r"(?:^|(?<=[\s,.:;!?、，。：；！？()\[\]{}<>「」『』“”\"'【】《》@/|])"
    r"|(?<=是|叫|给|找|问|和|与|跟|同|及|让|请|被|由|把|向|对|帮|替|或)"
    r"|(?<=交给|告诉|通知|联系|用户|客户|同事|员工|老板|经理|姓名|名字|刚才|今天|昨天)"
    r"|(?<=联系人|收件人|寄件人|收货人|经办人|负责人|申请人|持卡人|签收人))"
)
_ZH_NAME_RIGHT = (
    r"(?=的|说|先生|女士|小姐|老师|经理|总|同学|师傅|医生|吗|吧|呢|啊|已|来|用|在|是|也|都|和|与|跟|及|将|会|要|刚"
    r"|一起|发|打|给|想|今天|明天|昨天|需要|负责|签|确认|报名|投诉|处理|[\s,.:;!?、，。：；！？()\[\]{}<>「」『』“”\"'【】《》]|$)"
)


def _zh_name_re() -> re.Pattern[str]:
    from thought_model.entities_lexicon import SURNAMES

    names = set(SURNAMES.split("|")) | _ZH_COMPOUND
    multi = "|".join(sorted((n for n in names if len(n) > 1), key=len, reverse=True))
    single = "".join(sorted(n for n in names if len(n) == 1))
    return re.compile(rf"{_ZH_NAME_LEFT}(?P<n>(?:{multi}|[{single}])[{_CJK}]{{1,2}}){_ZH_NAME_RIGHT}")


def _zh_compound_re() -> re.Pattern[str]:
    return re.compile(rf"(?P<n>(?:{_ZH_SURNAMES})[{_CJK}]{{1,2}}){_ZH_NAME_RIGHT}")


_W = r"(?:O['’][A-Z][a-zà-öø-ÿ]+|Ma?c[A-Z][a-zà-öø-ÿ]+|[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+(?:-[A-ZÀ-ÖØ-Þ]?[a-zà-öø-ÿ]+)?)"
_EN_NAME_SEQ = re.compile(rf"(?<![\w'’-]){_W}(?:[ \t]+{_W}){{1,2}}(?![\w-])")
_EN_TITLE = re.compile(
    rf"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Dame)\.?\s+(?P<n>{_W}(?:\s+{_W}){{0,2}})"
    rf"|(?i:\b(?:name|customer|client|patient|guest|passenger|attendee|contact|signed|cc|from|to|by|attn)\s*:\s*)"
    rf"(?P<m>{_W}(?:\s+{_W}){{1,2}})"
)
_LW = r"[a-zà-öø-ÿ]+(?:['’-][a-zà-öø-ÿ]+)?"
_EN_CUED_LOWER = re.compile(
    rf"(?i:\b(?:hey|hi|hello|dear|thanks|thank you|thx|ty|cc|ask|tell|ping|call|email|text|message|dm|@)\s*,?\s+)"
    rf"(?P<n>{_LW}|{_W})(?:[ \t]+(?P<l>{_LW}|{_W}))?"
    rf"|(?<![\w'’-])(?P<s>{_LW}|{_W})[ \t]+(?=(?:said|says|told|asked|replied|wrote|wants|thinks|called)\b)"
)

_KEY_VALUE = re.compile(r"([\"']?)([\w\u4e00-\u9fff]{2,24})\1\s*[:=：]\s*([\"'])([^\"'\n]{1,120})\3")

_NAME_VALUE = re.compile(rf"[\s\w'’.-]{{1,64}}|[{_CJK}·]{{2,8}}")


def _name_like(v: str) -> bool:
    v = v.strip()
    return bool(v) and not any(c.isdigit() or c == "_" for c in v) and bool(_NAME_VALUE.fullmatch(v))


# ---------------------------------------------------------------- finders


_SECRET_WORDS = (
    "key",
    "secret",
    "token",
    "passw",
    "pwd",
    "credential",
    "bearer",
    "密钥",
    "秘钥",
    "令牌",
    "密码",
    "口令",
    "私钥",
)
_KEY_PREFIXES = (
    "eyJ",
    "sk-",
    "sk_",
    "rk_",
    "pk_",
    "AKIA",
    "ASIA",
    "gh",
    "github_pat_",
    "glpat-",
    "xox",
    "AIza",
    "hf_",
    "npm_",
    "SG.",
)


_SECRET_HINT = re.compile(
    "|".join(re.escape(w) for w in _KEY_PREFIXES)
    + "|(?i:"
    + "|".join(re.escape(w) for w in _SECRET_WORDS)
    + ")"
)


def _regex_spans(norm: str, digits: int) -> Iterator[Span]:
    if _SECRET_HINT.search(norm):
        for rx, group in _API_KEY_RES:
            for m in rx.finditer(norm):
                yield m.start(group), m.end(group), "API_KEY"
    if len(norm) >= 40:
        for m in _B64_40.finditer(norm):
            if _B64_40_OK(m.group(0)):
                yield m.start(), m.end(), "API_KEY"
    if "@" in norm or "%40" in norm:
        for m in _EMAIL.finditer(norm):
            yield m.start(), m.end(), "EMAIL"
    if digits < 7:
        return
    if digits >= 17:
        for m in _CN_ID.finditer(norm):
            if _cn_id_ok(m.group(0)):
                yield m.start(), m.end(), "CN_ID"
    if digits >= 12:
        for m in _CARD.finditer(norm):
            if _card_ok(m.group(0)) and not _business_id(norm, m.start()):
                yield m.start(), m.end(), "BANK_CARD"
    for m in _PHONE_PLAIN.finditer(norm):
        yield m.start(), m.end(), "PHONE"
    for rx, ok in _PHONE_RES:
        if ok is not None:
            for m in rx.finditer(norm):
                if ok(m.group(0)):
                    yield m.start(), m.end(), "PHONE"
    for m in _PHONE_CUE.finditer(norm):
        if sum(c.isdigit() for c in m.group(1)) >= 7:
            yield m.start(1), m.end(1), "PHONE"


_ZH_ROAD_CHARS = frozenset("路街道巷弄同")
_ZH_COMPOUND_CHARS = frozenset("区花园寓厦村")
_EN_ADDRESS_HINT = re.compile(
    rf"\b(?:{STREET_TYPES}|Rue|Avenue|Boulevard|Bd|Place|Chemin|Allée|Quai|Impasse|Calle|Via|Viale|Corso|Box)\b"
    r"|straße|strasse|str\.|weg\s|gasse|platz|allee|ring\s|damm"
)


def _address_spans(norm: str, has_cjk: bool) -> Iterator[Span]:
    chars = set(norm)
    if has_cjk and (("号" in chars and chars & _ZH_ROAD_CHARS) or chars & _ZH_COMPOUND_CHARS):
        for m in _ZH_ADDRESS.finditer(norm):
            a = m.start()
            s = _ZH_ADDRESS_START.search(norm, a, m.end())
            if s is not None and s.start() - a <= 8:  # 寄到上海市… : the address starts at the province
                a = s.start()
            yield a, m.end(), "ADDRESS"
    if _EN_ADDRESS_HINT.search(norm):
        for m in _EN_ADDRESS.finditer(norm):
            yield m.start(), m.end(), "ADDRESS"


@lru_cache(maxsize=1)
def _zh_res() -> tuple[re.Pattern[str], re.Pattern[str], frozenset[str]]:
    from thought_model.entities_lexicon import STATUS_WORDS_BLOCK

    block = ZH_COMMON_WORDS | frozenset(STATUS_WORDS_BLOCK)
    try:
        from tao.domains.reference.lexicon import LEXICON

        block = block | frozenset(LEXICON.name_block_zh) | frozenset(LEXICON.cities_zh)
    except ImportError:  # pragma: no cover - the reference domain ships with the runtime
        pass
    return _zh_name_re(), _zh_compound_re(), block


def _zh_name_ok(n: str, block: frozenset[str]) -> bool:
    if n[-1] in ZH_PLACE_SUFFIX or n in block or n[:2] in block or n[1:] in block:
        return False
    return not (len(n) == 3 and n[1:] in block)


def _zh_name_spans(norm: str) -> Iterator[Span]:
    rx, compound, block = _zh_res()
    for r in (rx, compound):
        for m in r.finditer(norm):
            n, a = m.group("n"), m.start("n")
            if _zh_name_ok(n, block) and norm[max(0, a - 1) : a + 1] not in block:  # 对方返回
                yield m.start("n"), m.end("n"), "NAME"


def _en_is_name(words: list[str]) -> bool:
    low = [w.lower().replace("’", "'") for w in words]
    if len(low) < 2:
        return False
    first, last = low[0], low[-1]
    return (
        first in GIVEN_NAMES
        or first.split("-")[0] in GIVEN_NAMES
        or last in SURNAMES_EN
        or last.startswith(("o'", "mc"))
        or (first in PINYIN_SURNAMES and all(w in PINYIN_SYLLABLES for w in low[1:]))
    )


_EN_PAIR_HINT = re.compile(r"[A-ZÀ-Þ][a-zà-ÿ'’-]+[ \t]+(?:O['’])?[A-ZÀ-Þ]")
_EN_TITLE_HINT = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Dame)\b|:")


def _en_name_spans(norm: str, lower_cue: bool) -> Iterator[Span]:
    if _EN_PAIR_HINT.search(norm):
        yield from _en_pairs(norm)
    if _EN_TITLE_HINT.search(norm):
        for m in _EN_TITLE.finditer(norm):
            g = "n" if m.group("n") else "m"
            yield m.start(g), m.end(g), "NAME"
    if lower_cue:
        yield from _en_cued(norm)


def _en_pairs(norm: str) -> Iterator[Span]:
    for m in _EN_NAME_SEQ.finditer(norm):
        words = m.group(0).split()
        starts = [m.start() + i for i in _word_offsets(m.group(0))]
        for i in range(len(words) - 1):  # each adjacent pair; "Customer John Smith" -> John Smith
            if _en_is_name(words[i : i + 2]):
                yield starts[i], starts[i + 1] + len(words[i + 1]), "NAME"


def _en_cued(norm: str) -> Iterator[Span]:
    for m in _EN_CUED_LOWER.finditer(norm):
        if m.group("s") is not None:
            if m.group("s").lower() in GIVEN_NAMES:
                yield m.start("s"), m.end("s"), "NAME"
            continue
        n, last = m.group("n").lower(), (m.group("l") or "").lower().replace("’", "'")
        if n in GIVEN_NAMES:
            end = m.end("n")
            if last and (last in SURNAMES_EN or last.startswith(("o'", "mc")) or m.group("l")[0].isupper()):
                end = m.end("l")
            yield m.start("n"), end, "NAME"
        elif n in PINYIN_SURNAMES and last in PINYIN_SYLLABLES:
            yield m.start("n"), m.end("l"), "NAME"


def _word_offsets(s: str) -> list[int]:
    return [m.start() for m in re.finditer(r"\S+", s)]


def _key_value_spans(norm: str) -> Iterator[Span]:
    """``"name": "刘洋"`` / ``address='…'`` inside a text (JSON or logs written as a string)."""
    if ('"' not in norm and "'" not in norm) or (":" not in norm and "=" not in norm):
        return
    for m in _KEY_VALUE.finditer(norm):
        key, value = m.group(2).lower(), m.group(4)
        kind = _key_kind(key, value)
        if kind:
            yield m.start(4), m.end(4), kind


_TITLE_WORDS = re.compile(rf"{_W}(?:[ \t]+{_W}){{0,3}}")


def _person_name_like(v: str) -> bool:
    """A value under a name key that is shaped like a person's name (刘洋, Emily Zhang, mike),
    not a field or class name (``"name": "age"``, ``"name": "AxiosError"``)."""
    v = v.strip()
    if _HAS_CJK.search(v):
        _, _, block = _zh_res()
        return 2 <= len(v) <= 8 and v not in block
    return bool(_TITLE_WORDS.fullmatch(v)) or v.lower() in GIVEN_NAMES


def _key_kind(key: str, value: str) -> str | None:
    k = key.strip().lower()
    if k in NAME_KEYS and _name_like(value) and _person_name_like(value):
        return "NAME"
    if k in ADDRESS_KEYS and len(value.strip()) >= 4:
        return "ADDRESS"
    return None


_HAS_CJK = re.compile(rf"[{_CJK}]")
_DIGITS = re.compile(r"[0-9]")
_HAS_UPPER_WORD = re.compile(r"[A-ZÀ-Þ][a-zà-ÿ]")
_HAS_LOWER_CUE = re.compile(
    r"(?i)\b(?:hey|hi|hello|dear|thanks|thank|thx|ty|cc|ask|tell|ping|call|email|text|message|dm|said|says"
    r"|told|asked|replied|wrote|wants|thinks|called)\b|@"
)


def _merge(spans: Iterable[Span]) -> list[Span]:
    out: list[Span] = []
    for a, b, kind in sorted(spans):
        if a >= b:
            continue
        if out and a < out[-1][1]:
            pa, pb, pk = out[-1]
            out[-1] = (pa, max(pb, b), pk if _PRIORITY[pk] <= _PRIORITY[kind] else kind)
        else:
            out.append((a, b, kind))
    return out


def find_pii(text: str, *, key: str | None = None, known: Iterable[str] = ()) -> list[Span]:
    """PII spans ``(start, end, kind)`` in ``text`` (original offsets, merged, in order).

    ``key`` is the JSON key the text is the value of (``"name"``, ``"address"`` mask the whole
    value); ``known`` are literal strings already known to be names (e.g. from perception).
    """
    if len(text) < 2:
        return []
    if (
        key is None
        and len(text) <= 64
        and _PLAIN_ID.fullmatch(text)
        and len(_DIGITS.findall(text)) < 7
        and not _maybe_key(text)
    ):
        return []  # status words, tool names, dates, short ids: no rule can match
    known = tuple(known)
    if len(text) <= 512:
        return _find_cached(text, key, known)
    return _find(text, key, known)


_PLAIN_ID = re.compile(r"[a-z0-9_./:-]*")


def _maybe_key(text: str) -> bool:
    return bool(_SECRET_HINT.search(text))


@lru_cache(maxsize=8192)
def _find_cached(text: str, key: str | None, known: tuple[str, ...]) -> list[Span]:
    return _find(text, key, known)


_UUID = re.compile(
    r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])"
)
_NUMERIC_KINDS = frozenset({"BANK_CARD", "CN_ID", "PHONE"})


def _outside_uuids(norm: str, spans: Iterable[Span]) -> Iterator[Span]:
    """``spans`` less the digit matches that lie inside a UUID: a random id such as
    ``59531844-0012-4098-96b5-…`` starts with 18 digits in dash groups, which can pass Luhn and a
    card network's range (it did: a task id redacted as a card in a trajectory)."""
    ids = [(m.start(), m.end()) for m in _UUID.finditer(norm)] if norm.count("-") >= 4 else []
    for a, b, kind in spans:
        if kind in _NUMERIC_KINDS and any(lo <= a and b <= hi for lo, hi in ids):
            continue
        yield a, b, kind


def _find(text: str, key: str | None, known: tuple[str, ...]) -> list[Span]:
    norm, index = _normalize(text)
    spans: list[Span] = []
    if key is not None:
        kind = _key_kind(_normalize(key)[0], norm)
        if kind:
            spans.append((0, len(norm), kind))
    digits = len(_DIGITS.findall(norm))
    spans.extend(_outside_uuids(norm, _regex_spans(norm, digits)))
    has_cjk = not norm.isascii() and bool(_HAS_CJK.search(norm))
    if has_cjk or digits:
        spans.extend(_address_spans(norm, has_cjk))
    if has_cjk:
        spans.extend(_zh_name_spans(norm))
    lower_cue = bool(_HAS_LOWER_CUE.search(norm))
    if lower_cue or _HAS_UPPER_WORD.search(norm):
        spans.extend(_en_name_spans(norm, lower_cue))
    spans.extend(_key_value_spans(norm))
    for lit in known:
        start = norm.find(lit)
        while start >= 0:
            spans.append((start, start + len(lit), "NAME"))
            start = norm.find(lit, start + len(lit))
    merged = _merge(spans)
    if index is None:
        return merged
    return [(index[a], index[b - 1] + 1, k) for a, b, k in merged]


def redact_text(text: str, *, key: str | None = None, known: Iterable[str] = ()) -> str:
    """Mask every PII match in a string (see the module docstring for the rules)."""
    spans = find_pii(text, key=key, known=known)
    if not spans:
        return text
    out, pos = [], 0
    for a, b, kind in spans:
        out.append(text[pos:a])
        out.append(f"[REDACTED:{kind}]")
        pos = b
    out.append(text[pos:])
    return "".join(out)


def redact(value: Any, *, known: Iterable[str] = (), _key: str | None = None) -> Any:
    """Redact a JSON-like value: strings masked, dicts (keys too) and lists walked, other scalars
    kept. A dict key is the context of its value (``{"name": "mike"}`` masks the value)."""
    if isinstance(value, str):
        return redact_text(value, key=_key, known=known)
    if isinstance(value, dict):
        known = tuple(known)
        out: dict[Any, Any] = {}
        for k, v in value.items():
            nk = redact_text(k, known=known) if isinstance(k, str) else k
            if nk in out:  # two keys masked to the same text: keep both entries
                n = 2
                while f"{nk}#{n}" in out:
                    n += 1
                nk = f"{nk}#{n}"
            out[nk] = redact(v, known=known, _key=k if isinstance(k, str) else None)
        return out
    if isinstance(value, (list, tuple)):
        known = tuple(known)
        return [redact(v, known=known, _key=_key) for v in value]
    return value


def _name_candidate(text: str) -> bool:
    norm = _normalize(text)[0]
    return bool(_EN_PAIR_HINT.search(norm) or _HAS_LOWER_CUE.search(norm) or _ZH_SURNAME_HINT().search(norm))


@lru_cache(maxsize=1)
def _ZH_SURNAME_HINT() -> re.Pattern[str]:
    from thought_model.entities_lexicon import SURNAMES

    names = set(SURNAMES.split("|")) | _ZH_COMPOUND
    single = "".join(sorted(n for n in names if len(n) == 1))
    return re.compile(rf"(?:{_ZH_SURNAMES}|[{single}])[{_CJK}]")


@lru_cache(maxsize=1024)
def perceived_names(text: str) -> tuple[str, ...]:
    """The NAME entities the perception step (:func:`thought_model.entities.perceive`) finds in a
    request, kept when they pass the name checks above (perception also tags capitalized words
    such as "Ticket"); the trajectory masks these literals wherever they reappear in its events."""
    if len(text) > 2000 or not _name_candidate(text):
        return ()  # perception (cold: ~3 s for its gazetteer) only where a name can be
    from thought_model.entities import perceive

    try:
        entities = perceive(text).entities
    except Exception:  # perception must never break redaction
        return ()
    _, _, block = _zh_res()
    out = []
    for e in entities:
        if e.type != "NAME" or not isinstance(e.value, str):
            continue
        v = unicodedata.normalize("NFKC", e.value).strip()
        if _HAS_CJK.search(v):
            if 2 <= len(v) <= 4 and _zh_name_ok(v, block):
                out.append(v)
        elif _en_is_name(v.split()) or any(
            _en_is_name(v.split()[i : i + 2]) for i in range(len(v.split()) - 1)
        ):
            out.append(v)
    return tuple(dict.fromkeys(out))
