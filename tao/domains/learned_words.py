"""Words of enum values learned from a domain's examples (issue #15).

A user who writes examples in their own words (``把我的手机号改成13912345678`` for
``field = phone``, ``用户U10234567有哪些待付款的订单`` for ``status = pending``) need not also write a
table of value words: the words that every or most examples of one value share and that no
example of another value (or of the same tool without that value) writes are that value's words.

Per enum argument, language and value not written as itself in an example (the literal, with ``_``
as a space, or a word the user gave):

* **candidates**: the example's text with the other arguments' literal values cut out; Chinese:
  every 2-4 character run of Han characters not starting or ending with a particle (``了``,
  ``把`` ...) and without ``的`` (``处理中``, not ``理中的工``); English: single words and word pairs of three letters or more;
* **kept**: written in **every** one of the value's examples (at least :data:`MIN_SUPPORT` of
  them: a word two of three write may be a date, ``报销今天``, or the value may follow from a free
  text, ``打车去机场`` for ``transport``), and in **no** contrasting example: one of the same language whose plan calls a tool
  having this argument, never with this value (another value, or none);
* **the longest** of the kept words that share their examples (``手机号``, not ``手机`` and
  ``机号``), at most :data:`MAX_WORDS` per value and language.

A value written in one example only learns nothing (``名字`` / ``姓名`` for ``name``: two
examples, two words): the generator then keeps it as a constant of that phrasing, as before. An
argument whose words the user gave (``Domain.value_words``) is left to those words: the user has
said which words their requests use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from tao.contracts.domain import RequestExample
from tao.contracts.tools import ToolSpec

MIN_SUPPORT = 2
"""A word is learned from two examples of the value or more."""
MAX_WORDS = 3
"""Words kept per value and language."""
_HAN = re.compile(r"[\u4e00-\u9fff]+")
_EN = re.compile(r"[a-z][a-z'-]*")
_EDGE_ZH = set("的了吗呢吧啊把给我你他她它是在和与及或就都也还要请帮下一个这那些哪有")
_STOP_EN = frozenset(
    "the and for with from that this these those are was were has have had its it's my your their "
    "our his her you can could would will please pls any all of to in on at by".split()
)
ValueWords = dict[str, dict[str, list[str]]]


def _enums(tools: Sequence[ToolSpec]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for t in tools:
        for a, p in t.args_schema.get("properties", {}).items():
            if isinstance(p, dict) and isinstance(p.get("enum"), list):
                out.setdefault(a, set()).update(str(v) for v in p["enum"])
    return out


def _cleaned(ex: RequestExample, enum_args: Iterable[str]) -> str:
    """The example's text, lower-case, with the literal values of its non-enum arguments cut out."""
    text = ex.text.lower()
    skip = set(enum_args)
    for _tool, args in ex.steps:
        for a, v in args.items():
            if a in skip:
                continue
            for item in v if isinstance(v, (list, tuple)) else [v]:
                s = str(item).lower()
                if len(s) >= 2 and not s.startswith(("${", "<me>")):
                    text = text.replace(s, " | ")
    return text


def _candidates(text: str, lang: str) -> set[str]:
    out: set[str] = set()
    if lang == "zh":
        for run in _HAN.findall(text):
            for n in range(2, 5):
                for i in range(len(run) - n + 1):
                    g = run[i : i + n]
                    if g[0] not in _EDGE_ZH and g[-1] not in _EDGE_ZH and "的" not in g:
                        out.add(g)
        return out
    words = _EN.findall(text)
    for i, w in enumerate(words):
        if len(w) >= 3 and w not in _STOP_EN:
            out.add(w)
        if i + 1 < len(words) and words[i + 1] not in _STOP_EN and w not in _STOP_EN:
            out.add(f"{w} {words[i + 1]}")
    return out


def _written(text: str, words: Iterable[str]) -> bool:
    low = text.lower()
    return any(w and w.lower() in low for w in words)


def _pick(support: Mapping[str, frozenset[int]]) -> list[str]:
    """The longest words among those written in the same examples, most supported first."""
    maximal = [
        w for w, s in support.items() if not any(w != o and w in o and s == support[o] for o in support)
    ]
    maximal.sort(key=lambda w: (-len(support[w]), -len(w), w))
    out: list[str] = []
    for w in maximal:
        if any(w in o or o in w for o in out):
            continue
        out.append(w)
        if len(out) == MAX_WORDS:
            break
    return out


def learn_value_words(
    tools: Sequence[ToolSpec],
    examples: Sequence[RequestExample],
    given: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> ValueWords:
    """Words of enum values the examples write in other words; arguments in ``given`` are skipped.
    Returns ``{argument: {value: [word, ...]}}`` (only values that learned a word)."""
    given = given or {}
    enums = {a: vs for a, vs in _enums(tools).items() if a not in given}
    if not enums:
        return {}
    has_arg = {a: {t.name for t in tools if a in t.args_schema.get("properties", {})} for a in enums}
    # (arg, lang) -> per example: the value(s) it gives the argument (None: a tool of it, no value)
    seen: dict[tuple[str, str], list[tuple[int, set[str | None]]]] = {}
    texts: dict[int, str] = {}
    unwritten: dict[tuple[str, str, str], list[int]] = {}
    for i, ex in enumerate(examples):
        texts[i] = _cleaned(ex, enums)
        for a in enums:
            values: set[str | None] = set()
            for tool, args in ex.steps:
                if tool not in has_arg[a]:
                    continue
                v = args.get(a)
                values.add(str(v) if isinstance(v, str) and str(v) in enums[a] else None)
            if not values:
                continue
            seen.setdefault((a, ex.lang), []).append((i, values))
            if len(values) == 1:
                (v,) = values
                if v is not None and not _written(ex.text, [v, v.replace("_", " ")]):
                    unwritten.setdefault((a, ex.lang, v), []).append(i)
    out: ValueWords = {}
    for (a, lang, v), pos in sorted(unwritten.items()):
        if len(pos) < MIN_SUPPORT:
            continue
        against = [texts[i] for i, vals in seen[(a, lang)] if v not in vals]
        support: dict[str, set[int]] = {}
        for i in pos:
            for g in _candidates(texts[i], lang):
                support.setdefault(g, set()).add(i)
        kept = {
            g: frozenset(s)
            for g, s in support.items()
            if len(s) == len(pos) and not any(g in t for t in against)
        }
        words = _pick(kept)
        if words:
            out.setdefault(a, {}).setdefault(v, []).extend(words)
    return out


def with_learned(
    tools: Sequence[ToolSpec],
    examples: Sequence[RequestExample],
    given: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> dict[str, dict[str, list[str]]]:
    """``given`` plus the words learned for the enum arguments it leaves out."""
    out = {a: {v: list(ws) for v, ws in t.items()} for a, t in (given or {}).items()}
    for a, table in learn_value_words(tools, examples, given).items():
        out[a] = table
    return out
