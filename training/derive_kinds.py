"""Slot kinds of a contract-defined domain and the values of its examples (the first half of
:mod:`training.derive`): which kind each argument's JSON Schema makes (an id, email, phone, date /
period / day with a time, enum, amount, count, name, city or free text; an array's items), how each
kind's values are sampled for the generator (:class:`DerivedSampler`), and how an example's value
is found in its text when it is written in other words (:func:`same_example_value`: dates resolved
against :data:`EXAMPLE_NOW`, amounts with their currency)."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from tao.contracts.domain import Domain
from tao.contracts.tools import ToolSpec
from tao.domains.contract import ContractError, base_pattern, regex_sample, string_fields
from thought_model.perception.gazetteer import big_cities

ME = "<ME>"
_REF = re.compile(r"^\$\{t([1-7])\.([A-Za-z_][A-Za-z0-9_]*)\}$")
_EMAIL_SAMPLE = "a.b@example.com"
_PHONE_SAMPLE = "13812345678"
_DATE_SAMPLES = ("2026-03-05", "@today")
_PERIOD_SAMPLES = ("2026-03-01/2026-03-31",)
"""A period field takes a range (a date field may take ``@last_month`` too, when its symbols do)."""
_TEXT_SAMPLES = ("Hangzhou", "abc def", "杭州", "电脑开不了机")
_NAME_FIELDS = re.compile(r"(^|_)(name|assignee|owner|person|contact)$")
_PEOPLE_FIELDS = re.compile(
    r"(^|_)(attendees|participants|invitees|members|people|recipients|guests|cc|bcc)$"
)
"""Array fields whose items are people (a name, or an email where the example writes one)."""
_WHEN_FIELDS = re.compile(r"(^|_)(start|begin|time|when|at|from|starts_at|start_time|datetime)$")
"""Date fields that take a time of day when the pattern allows one (``start``: tomorrow at 3pm)."""
_WHEN_SAMPLES = ("2026-03-05 15:00", "@tomorrow T15:00")
EXAMPLE_NOW = datetime(2026, 3, 4, 10, 0)
"""The moment an example's resolved dates are read against (a Wednesday): ``"tomorrow at 3pm"`` is
``"2026-03-05 15:00"``, ``"last month"`` ``"2026-02-01/2026-02-28"``; a time symbol
(``"@tomorrow T15:00"``) is accepted as well."""
_CITY_FIELDS = re.compile(r"(^|_)city$")
GENERIC_TEXT = {
    "zh": [
        "有点问题",
        "需要处理一下",
        "一直报错",
        "用不了了",
        "速度很慢",
        "无法登录",
        "显示异常",
        "突然坏了",
    ],
    "en": ["not working", "keeps failing", "very slow", "cannot log in", "shows an error", "broke suddenly"],
}
"""Fallback free-text values for a field no example or schema ``examples`` gives values for."""


@dataclass
class SlotKind:
    """One placeholder kind: its perception slot type and how to sample ``(surface, value)``."""

    name: str
    slot: str
    source: str  # "id" | "email" | "phone" | "enum" | "name" | "city" | "text" | "amount" | "count" | "day" | "period"
    pattern: str | None = None
    enum: dict[str, list[str]] = field(default_factory=dict)  # value -> surfaces
    pool: dict[str, list[str]] = field(default_factory=dict)  # lang -> values
    lo: float = 1
    hi: float = 1000
    ignore_case: bool = False


def _letters(s: str) -> str:
    return re.sub(r"[^a-z]", "", s.lower()) or "x"


class _Kinds:
    """Placeholder kinds of a registry (one per id pattern / enum set / free-text field)."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.kinds: dict[str, SlotKind] = {}
        self.by_field: dict[tuple[str, str], str] = {}
        fake = _faker_pools()
        lex = domain.lexicon
        ids = {k.pattern: k for k in lex.id_kinds}
        for tool, name, prop in string_fields(domain.tools):
            self.by_field[(tool.name, name)] = self._kind_of(tool, name, prop, ids, fake)

    def _new(self, base: str, kind: SlotKind) -> str:
        name = _letters(base)
        while name in self.kinds and self.kinds[name] != replace(kind, name=name):
            name += "x"
        kind.name = name
        self.kinds[name] = kind
        return name

    def _kind_of(self, tool: ToolSpec, name: str, prop: Mapping[str, Any], ids: dict, fake: dict) -> str:
        where = f"tool {tool.name!r} field {name!r}"
        if "enum" in prop:
            words = self.domain.value_words.get(name, {})
            table = {
                str(v): list(dict.fromkeys([*words.get(str(v), []), str(v), str(v).replace("_", " ")]))
                for v in prop["enum"]
            }
            for k in self.kinds.values():
                if k.source == "enum" and k.enum == table:
                    return k.name
            return self._new(name, SlotKind("", "ENUM", "enum", enum=table))
        typ = prop.get("type")
        if typ in ("number", "integer"):
            lo = float(
                prop.get("minimum", prop.get("exclusiveMinimum", 0) + (1 if typ == "integer" else 0.01))
            )
            hi = float(prop.get("maximum", prop.get("exclusiveMaximum", 10000)))
            if typ == "number":
                return self._new("amount", SlotKind("", "AMOUNT", "amount", lo=lo, hi=hi))
            if re.search(r"dur|minute", name):
                return self._new("dur", SlotKind("", "DUR", "count", lo=max(lo, 15), hi=min(hi, 480)))
            return self._new("count", SlotKind("", "NUM", "count", lo=max(lo, 1), hi=min(hi, 1000)))
        if typ == "array":  # a list of values of the items' kind (each item its own slot)
            raw = prop.get("items")
            items: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
            if items.get("type") not in (None, "string") or "enum" in items:
                raise ContractError(f"{where}: array items {items!r} have no slot kind (strings only)")
            if not items.get("pattern") and _PEOPLE_FIELDS.search(name):
                return self._new("name", SlotKind("", "NAME", "name", pool=fake["name"]))
            return self._kind_of(tool, name, {**items, "type": "string"}, ids, fake)
        if typ not in (None, "string"):
            raise ContractError(f"{where}: type {typ!r} has no slot kind")
        pattern = prop.get("pattern")
        if isinstance(pattern, str):
            base, _ = base_pattern(pattern)
            core = base.removeprefix("^").removesuffix("$")
            idk = next((k for p, k in ids.items() if p.endswith(f"(?:{core})(?![0-9A-Za-z])")), None)
            if idk is not None:
                for k in self.kinds.values():
                    if k.source == "id" and k.slot == idk.slot:
                        return k.name
                return self._new(
                    idk.slot, SlotKind("", idk.slot, "id", pattern=core, ignore_case=idk.ignore_case)
                )
            if re.search(pattern, _EMAIL_SAMPLE):
                return self._new("email", SlotKind("", "EMAIL", "email", pool=fake["email"]))
            if re.search(pattern, _PHONE_SAMPLE):
                return self._new("phone", SlotKind("", "PHONE", "phone"))
            if any(re.search(pattern, s) for s in _PERIOD_SAMPLES):
                return self._new("period", SlotKind("", "DATE", "period"))
            if any(re.search(pattern, s) for s in _DATE_SAMPLES):
                if _WHEN_FIELDS.search(name) and any(re.search(pattern, s) for s in _WHEN_SAMPLES):
                    return self._new("when", SlotKind("", "DATE", "when"))
                return self._new("day", SlotKind("", "DATE", "day"))
            if not any(re.search(pattern, s) for s in _TEXT_SAMPLES):
                raise ContractError(
                    f"{where}: pattern {pattern!r} fits no slot kind (no id kind: values need a digit and "
                    "bounded repeats; not an email, phone, date or free text) - give the field an enum, "
                    "a simpler pattern, or the domain an IdKind for it"
                )
        if _NAME_FIELDS.search(name):
            return self._new("name", SlotKind("", "NAME", "name", pool=fake["name"]))
        if _CITY_FIELDS.search(name):
            lex = self.domain.lexicon
            pool = {  # the domain's cities, else the world's biggest (perception's gazetteer)
                "zh": list(lex.cities_zh) or big_cities("zh"),
                "en": list(lex.cities_en) or big_cities("en"),
            }
            return self._new("city", SlotKind("", "CITY", "city", pool=pool))
        pool = {"zh": [], "en": []}
        for ex in prop.get("examples", []) or []:
            if isinstance(ex, str):
                pool[_lang_of(ex)].append(ex)
        return self._new("text" + name, SlotKind("", "TEXT", "text", pool=pool))

    def kind(self, tool: str, arg: str) -> SlotKind:
        return self.kinds[self.by_field[(tool, arg)]]


def _lang_of(s: str) -> str:
    return "zh" if re.search(r"[\u4e00-\u9fff]", s) else "en"


def _faker_pools(n: int = 160) -> dict[str, dict[str, list[str]]]:
    from faker import Faker

    zh, en = Faker("zh_CN"), Faker("en_US")
    zh.seed_instance(11)
    en.seed_instance(11)
    names_en = list(dict.fromkeys(f"{en.first_name()} {en.last_name()}" for _ in range(n)))
    names_zh = list(dict.fromkeys(zh.last_name() + zh.first_name() for _ in range(n)))
    emails = list(dict.fromkeys(en.user_name() + "@" + en.free_email_domain() for _ in range(n)))
    emails += list(dict.fromkeys(zh.user_name() + "@" + zh.free_email_domain() for _ in range(n // 2)))
    return {"name": {"zh": names_zh, "en": names_en}, "email": {"zh": emails, "en": emails}}


# ------------------------------------------------------------------ value sampling
def _held(pool: list[str], heldout: bool, frac: float = 0.2) -> list[str]:
    if len(pool) < 5:
        return pool
    cut = max(1, int(len(pool) * frac))
    return pool[-cut:] if heldout else pool[:-cut]


@dataclass
class DerivedSampler:
    """``sample(kind) -> (surface, value)`` for the kinds of one derived phrasing."""

    kinds: Mapping[str, SlotKind]
    me_pattern: str | None
    lang: str
    heldout: bool
    rng: random.Random
    enum_values: list[str] = field(default_factory=list)
    """The enum values this row wrote so far: a free text after one is drawn from the texts the
    examples wrote with that value (``把我的{field}改成{textvalue}``: a phone number after
    ``手机号``; a hardware ticket's summary after ``硬件``), where they wrote any."""

    def me_id(self) -> str | None:
        return regex_sample(self.me_pattern, self.rng) if self.me_pattern else None

    def sample(self, kind: str) -> tuple[str, Any]:
        k = self.kinds[kind.rstrip("0123456789")]
        r, lang = self.rng, self.lang
        if k.source == "id":
            v = regex_sample(k.pattern or "", r)
            return (v.lower() if k.ignore_case and r.random() < 0.1 else v), v
        if k.source == "enum":  # a value with words of this language, where some have them
            mine_values = [v for v, ws in sorted(k.enum.items()) if any(_lang_of(w) == lang for w in ws)]
            value = r.choice(mine_values if len(mine_values) >= 2 else sorted(k.enum))
            self.enum_values.append(value)
            words = k.enum[value]
            mine = [w for w in words if _lang_of(w) == lang] or words
            return r.choice(mine), value
        if k.source == "phone":
            v = "1" + str(r.choice([3, 5, 7, 8, 9])) + "".join(str(r.randint(0, 9)) for _ in range(9))
            return v, v
        if k.source == "amount":
            amt = round(r.uniform(max(k.lo, 1), min(k.hi, 5000)), r.choice([0, 2]))
            s = f"{amt:g}"
            surf = r.choice(
                [f"{s}元", f"{s}块", f"¥{s}"] if lang == "zh" else [f"${s}", f"{s} yuan", f"{s} RMB"]
            )
            return surf, float(s)
        if k.source == "count":
            n = r.randint(int(k.lo), int(min(k.hi, k.lo + 30)))
            if k.slot == "DUR":
                n = max(15, n - n % 15)
                return (f"{n}分钟" if lang == "zh" else f"{n} minutes"), n
            return (r.choice([f"{n}人", f"{n}个人"]) if lang == "zh" else f"{n} people"), n
        if k.source == "text":
            for v in reversed(self.enum_values):
                coupled = self.kinds.get(k.name + _letters(v))
                if (
                    coupled is not None
                    and coupled.source == "text"
                    and len(coupled.pool.get(lang) or ()) >= 2
                ):
                    k = coupled
                    break
        pool = _held(list(k.pool.get(lang) or k.pool.get("en") or k.pool.get("zh") or []), self.heldout)
        if not pool:
            pool = list(GENERIC_TEXT[lang])
        v = r.choice(pool)
        if k.source == "name" and lang == "en" and r.random() < 0.2:
            v = v.split()[0]
        if k.source == "text" and r.random() < 0.25:
            q = r.choice(['"{}"', "“{}”", "「{}」"] if lang == "zh" else ['"{}"', "'{}'"])
            return q.format(v), v
        return v, v


def _month_period(v: str) -> str:
    """``2026-02`` -> ``2026-02-01/2026-02-28`` (a whole month written as its period)."""
    import calendar

    if re.fullmatch(r"[0-9]{4}-[0-9]{2}", v):
        y, m = int(v[:4]), int(v[5:])
        return f"{v}-01/{v}-{calendar.monthrange(y, m)[1]:02d}"
    return v


def same_example_value(found: Any, value: Any) -> bool:
    """Whether perception's ``found`` value (a time symbol, a date, a number) is the example's
    ``value`` (a resolved date against :data:`EXAMPLE_NOW`, the symbol itself, a number)."""
    from tao.contracts.timeexpr import TimeSymbolError, resolve_symbol

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return abs(float(found) - float(value)) < 1e-9
        except (TypeError, ValueError):
            return False
    if not isinstance(found, str) or not isinstance(value, str):
        return False
    if found == value:
        return True
    resolved = found
    if found.startswith("@"):
        try:
            resolved = resolve_symbol(found, now=EXAMPLE_NOW)
        except TimeSymbolError:
            return False
    return _month_period(resolved) == _month_period(value)


_PERCEIVED = frozenset({"day", "period", "when", "amount", "count", "phone", "city"})
"""Kinds whose example values may be written in other words than the value (``tomorrow at 3pm``,
``¥42``, ``an hour and a half``): found by perception."""


_MEASURED = frozenset({"day", "period", "when", "amount", "count"})
"""Kinds whose written surface is more than the value (a currency, a unit, a date word)."""


def _perceived_span(text: str, k: SlotKind, value: Any, entities: Sequence[Any]) -> tuple[int, int] | None:
    """Where ``text`` writes ``value`` by one of ``entities`` (perception of the example's whole
    text, so a range's duration is read before its start became a slot), or a number of the same
    value (``45.20`` for 45.2)."""
    if k.source not in _PERCEIVED:
        return None
    for e in entities:
        if e.type == k.slot and same_example_value(e.value, value):
            i = text.find(e.text)
            if i >= 0:
                return i, i + len(e.text)
    if k.source in ("amount", "count") and isinstance(value, (int, float)):
        for m in re.finditer(r"(?<![0-9.])[0-9]+(?:\.[0-9]+)?(?![0-9])", text):
            if abs(float(m.group(0)) - float(value)) < 1e-9:
                return m.start(), m.end()
    return None


def _item_kind(kinds: _Kinds, tool: str, arg: str, item: Any) -> SlotKind:
    """The kind of one item of an array argument: an email where the item is one (attendees written
    as addresses), else the field's kind."""
    k = kinds.kind(tool, arg)
    if isinstance(item, str) and k.source != "email" and re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", item):
        for kk in kinds.kinds.values():
            if kk.source == "email":
                return kk
        return kinds.kinds[kinds._new("email", SlotKind("", "EMAIL", "email", pool=_faker_pools()["email"]))]
    return k
