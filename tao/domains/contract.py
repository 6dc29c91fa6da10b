"""A domain from tool contracts alone: id kinds derived from argument patterns, a lexicon, examples.

A user's registry needs no perception code: :func:`contract_domain` turns its
:class:`~tao.contracts.tools.ToolSpec` list (plus optional example requests) into a
:class:`~tao.contracts.domain.Domain` whose :class:`~tao.contracts.domain.Lexicon` has one
:class:`~tao.contracts.domain.IdKind` per distinct id pattern (``^E[0-9]{6}$`` on ``employee_id``
-> slot ``EMPLOYEE``, found in requests by the same pattern between word boundaries) and whose
phrasing is left to the training generator (``training.derive`` builds it from the contracts and
the examples). :func:`tools_from_json` reads a JSON file of contracts (``ToolSpec`` dumps or the
short form of ``tao/domains/helpdesk/eval_sets/tools.json``).

An *id pattern* is a string pattern (step-reference / time-symbol alternatives stripped) with only
bounded repeats whose values contain a digit and that no generic kind (email, phone, date) fits.
Every other pattern is the training generator's to judge (``training.derive`` fails naming the tool
and field when no slot kind can produce it). Standard library only (this is the domain layer).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from re import _constants as sre_c  # pyright: ignore[reportAttributeAccessIssue]
from re import _parser as sre_parse  # pyright: ignore[reportAttributeAccessIssue]
from typing import Any

from tao.contracts.domain import Domain, IdKind, Lexicon, RequestExample, uses_time_slots
from tao.contracts.plan import REF_PATTERN, TIME_SYMBOL_PATTERN
from tao.contracts.tools import ToolSpec
from tao.domains.learned_words import with_learned

GENERIC_SAMPLES = ("a.b@example.com", "13812345678", "2026-03-05", "2026-03-05 15:00", "@today")
"""Values of the generic slot kinds (email, phone, date): a pattern fitting one is not an id kind
(the same samples as ``thought_model.grammar.GENERIC_SLOT_SAMPLES``)."""
_ID_SUFFIX = re.compile(r"_(?:id|tag|no|num|number|code|key)$")
_SLOT_OK = re.compile(r"^[A-Z][A-Z0-9]{1,15}$")
_B = r"(?<![0-9A-Za-z])"
_E = r"(?![0-9A-Za-z])"


class ContractError(ValueError):
    """A tool contract the runtime cannot derive a domain from (the message names tool and field)."""


def ref_or(pattern: str) -> str:
    """A field pattern that also accepts a step reference (``${t1.employee_id}``)."""
    return f"({pattern})|({REF_PATTERN})"


def base_pattern(pattern: str) -> tuple[str, bool]:
    """A field pattern without its step-reference and time-symbol alternatives; whether it had a
    step-reference one."""
    has_ref = False
    for alt, is_ref in ((f"|({REF_PATTERN})", True), (f"|({TIME_SYMBOL_PATTERN})", False)):
        if alt in pattern:
            pattern = pattern.replace(alt, "")
            has_ref = has_ref or is_ref
            if pattern.startswith("(") and pattern.endswith(")"):
                pattern = pattern[1:-1]
    return pattern, has_ref


def _strip_anchors(p: str) -> str:
    return p.removeprefix("^").removesuffix("$")


def _nonnull(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    for key in ("anyOf", "oneOf"):
        if key in prop:
            opts = [s for s in prop[key] if s.get("type") != "null"]
            if len(opts) == 1:
                return {**{k: v for k, v in prop.items() if k != key}, **opts[0]}
    return prop


def string_fields(tools: Sequence[ToolSpec]) -> list[tuple[ToolSpec, str, Mapping[str, Any]]]:
    """Every ``(tool, argument name, schema)`` of the registry, ``null`` alternatives removed."""
    return [(t, n, _nonnull(p)) for t in tools for n, p in t.args_schema.get("properties", {}).items()]


# ------------------------------------------------------------------ regex sampling (stdlib)
def _bounded(tree: Any) -> bool:
    for op, av in tree:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            _lo, hi, sub = av
            if hi == sre_c.MAXREPEAT or not _bounded(sub):
                return False
        elif op == sre_c.SUBPATTERN:
            if not _bounded(av[-1]):
                return False
        elif op == sre_c.BRANCH:
            if not all(_bounded(b) for b in av[1]):
                return False
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT, sre_c.GROUPREF, sre_c.GROUPREF_EXISTS):
            return False
    return True


_CATEGORY = {
    sre_c.CATEGORY_DIGIT: "0123456789",
    sre_c.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    sre_c.CATEGORY_SPACE: " ",
}


def _class_chars(items: Any) -> list[str]:
    chars: list[str] = []
    negate = False
    for op, av in items:
        if op == sre_c.NEGATE:
            negate = True
        elif op == sre_c.LITERAL:
            chars.append(chr(av))
        elif op == sre_c.RANGE:
            lo, hi = av
            chars.extend(chr(c) for c in range(lo, min(hi, lo + 200) + 1))
        elif op == sre_c.CATEGORY:
            chars.extend(_CATEGORY.get(av, ""))
    if negate:
        pool = [
            c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_" if c not in chars
        ]
        return pool
    return chars


def _gen(tree: Any, rng: random.Random, out: list[str], unbounded_max: int) -> None:
    for op, av in tree:
        if op == sre_c.LITERAL:
            out.append(chr(av))
        elif op == sre_c.NOT_LITERAL:
            out.append("x" if chr(av) != "x" else "y")
        elif op == sre_c.ANY:
            out.append(rng.choice("abcdefgh"))
        elif op == sre_c.IN:
            chars = _class_chars(av)
            if not chars:
                raise ContractError("empty character class")
            out.append(rng.choice(chars))
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, sub = av
            hi = lo + unbounded_max if hi == sre_c.MAXREPEAT else hi
            for _ in range(rng.randint(lo, max(lo, hi))):
                _gen(sub, rng, out, unbounded_max)
        elif op == sre_c.SUBPATTERN:
            _gen(av[-1], rng, out, unbounded_max)
        elif op == sre_c.BRANCH:
            _gen(rng.choice(av[1]), rng, out, unbounded_max)
        elif op == sre_c.AT:
            continue
        else:
            raise ContractError(f"regex construct {op} cannot be sampled")


def regex_sample(pattern: str, rng: random.Random | None = None, unbounded_max: int = 6) -> str:
    """One string matching ``pattern`` (anchors ignored); raises :class:`ContractError` on
    constructs that cannot be sampled (look-arounds, back-references)."""
    out: list[str] = []
    _gen(sre_parse.parse(pattern), rng or random.Random(0), out, unbounded_max)
    value = "".join(out)
    if not re.fullmatch(_strip_anchors(pattern), value):
        raise ContractError(f"cannot sample a value of pattern {pattern!r}")
    return value


def id_kind_of(pattern: str, slot: str) -> IdKind | None:
    """The id kind of a field ``pattern`` (None when it is no id pattern, see the module doc)."""
    base, _ = base_pattern(pattern)
    core = _strip_anchors(base)
    try:
        tree = sre_parse.parse(core)
        sample = regex_sample(core, random.Random(7))
    except (re.error, ContractError):
        return None
    if not _bounded(tree) or not any(c.isdigit() for c in sample):
        return None
    if any(re.search(base, s) for s in GENERIC_SAMPLES):
        return None
    letters = [c for c in sample if c.isalpha()]
    upper = bool(letters) and all(c.isupper() for c in letters) and not re.search(r"[a-z]", core)
    return IdKind(slot=slot, pattern=f"{_B}(?:{core}){_E}", sample=sample, ignore_case=upper, upper=upper)


def slot_name(field_name: str) -> str:
    """``employee_id`` -> ``EMPLOYEE``, ``asset_tag`` -> ``ASSET`` (at most 16 characters)."""
    s = re.sub(r"[^A-Z0-9]", "", _ID_SUFFIX.sub("", field_name).upper()) or "ID"
    if not s[0].isalpha():
        s = "K" + s
    return s[:16] if len(s) > 1 else s + "ID"


def derive_id_kinds(tools: Sequence[ToolSpec]) -> tuple[IdKind, ...]:
    """One id kind per distinct id pattern of the registry, named after its first field."""
    kinds: dict[str, IdKind] = {}
    names: set[str] = set()
    for _tool, name, prop in string_fields(tools):
        pattern = prop.get("pattern")
        if not isinstance(pattern, str):
            continue
        core = _strip_anchors(base_pattern(pattern)[0])
        if core in kinds:
            continue
        slot = slot_name(name)
        while slot in names:
            slot = (slot[:15] + "X") if len(slot) >= 15 else slot + "X"
        kind = id_kind_of(pattern, slot)
        if kind is not None and _SLOT_OK.match(slot):
            kinds[core] = kind
            names.add(slot)
    return tuple(kinds.values())


_CAP_WORD = re.compile(r"(?<![A-Za-z])[A-Z][a-z]+(?![A-Za-z])")


def contract_lexicon(
    tools: Sequence[ToolSpec],
    examples: Sequence[RequestExample] = (),
    *,
    me_field: str | None = None,
    cities_zh: Sequence[str] = (),
    cities_en: Sequence[str] = (),
    name_block_zh: Sequence[str] = (),
    name_stop_en: Sequence[str] = (),
    text_cues: Sequence[str] = (),
) -> Lexicon:
    """The lexicon of a contract-defined domain: derived id kinds; ``me_field`` (default
    ``user_id`` / ``employee_id`` when a tool has it) names the argument the session user fills;
    capitalized words of the descriptions and examples that are no name in an example never start
    an English name (``Reset``, ``Laptop``)."""
    kinds = derive_id_kinds(tools)
    me_kind = None
    fields = {n: p for _t, n, p in string_fields(tools)}
    me = me_field or next((f for f in ("user_id", "employee_id", "customer_id") if f in fields), None)
    if me and isinstance(fields.get(me, {}).get("pattern"), str):
        core = _strip_anchors(base_pattern(fields[me]["pattern"])[0])
        me_kind = next((k.slot for k in kinds if k.pattern == f"{_B}(?:{core}){_E}"), None)
    names = {str(v) for ex in examples for _tool, args in ex.steps for k, v in args.items() if k == "name"}
    name_words = {w for n in names for w in n.split()}
    caps = {w for t in tools for w in _CAP_WORD.findall(t.description)}
    caps |= {w for ex in examples for w in _CAP_WORD.findall(ex.text)}
    caps |= {str(v).capitalize() for _t, _n, p in string_fields(tools) for v in p.get("enum", ())}
    return Lexicon(
        id_kinds=kinds,
        me_kind=me_kind,
        cities_zh=tuple(cities_zh),
        cities_en=tuple(cities_en),
        name_block_zh=frozenset(name_block_zh),
        name_stop_en=frozenset((caps - name_words) | set(name_stop_en)),
        text_cues=tuple(text_cues),
        time_slots=uses_time_slots(tools),
    )


def contract_domain(
    name: str,
    tools: Sequence[ToolSpec],
    examples: Sequence[RequestExample] = (),
    *,
    value_words: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    lexicon: Lexicon | None = None,
    **kw: Any,
) -> Domain:
    """A domain from contracts and examples (``kw``: :class:`Domain` fields such as
    ``mock_handlers``, ``mock_data``, ``eval_sets``; ``lexicon`` default :func:`contract_lexicon`).
    ``value_words`` gains the words the examples teach for the enum arguments it leaves out
    (:func:`tao.domains.learned_words.with_learned`: ``手机号`` for ``field = phone``).
    The capitalized words of ``value_words`` never start an English name (``Wi-Fi`` is no person)."""
    value_words = with_learned(tools, examples, value_words)
    lex = lexicon or contract_lexicon(tools, examples)
    caps = {
        w
        for by in (value_words or {}).values()
        for ws in by.values()
        for s in ws
        for w in _CAP_WORD.findall(s)
    }
    if caps - lex.name_stop_en:
        lex = replace(lex, name_stop_en=lex.name_stop_en | caps)
    words = sorted({s for by in (value_words or {}).values() for ws in by.values() for s in ws if s.strip()})
    if words and not lex.field_words:  # a comma piece of enum words ends a cued free text
        lex = replace(lex, field_words=tuple(words))
    if not lex.keywords:  # misspelled domain words are fixed before perception reads a request
        lex = replace(lex, keywords=domain_keywords(tools, value_words))
    return Domain(
        name=name,
        tools=list(tools),
        lexicon=lex,
        examples=tuple(examples),
        value_words=dict(value_words or {}),
        **kw,
    )


_KEY_WORD = re.compile(r"[a-z]{5,}")


def domain_keywords(
    tools: Sequence[ToolSpec], value_words: Mapping[str, Mapping[str, Sequence[str]]] | None = None
) -> tuple[str, ...]:
    """A domain's key words for typo correction (``Lexicon.keywords``): the English words of five
    letters or more of its tool names, argument names, enum values and value words, each also with
    a plural ``s`` (``passwords``, ``tickets``)."""
    parts: list[str] = []
    for t in tools:
        props = t.args_schema.get("properties", {})
        parts += [t.name, *props]
        for prop in props.values():
            parts += [str(v) for v in prop.get("enum") or []]
    parts += [s for by in (value_words or {}).values() for ws in by.values() for s in ws]
    found = {w for p in parts for w in _KEY_WORD.findall(p.lower().replace("_", " "))}
    found |= {w + "s" for w in found if not w.endswith(("s", "ed", "y", "ing"))}
    return tuple(sorted(found))


# ------------------------------------------------------------------ contracts from JSON
def _short_tool(d: Mapping[str, Any]) -> ToolSpec:
    """A tool in the short form: ``arguments`` (``properties``/``required``, a property's
    ``also_accepts`` makes it take a step reference), ``outputs_for_references``, ``permission``."""
    args = dict(d.get("arguments") or {"properties": {}})
    props = {}
    for n, p in dict(args.get("properties", {})).items():
        p = dict(p)
        refs = p.pop("also_accepts", None)
        if refs and isinstance(p.get("pattern"), str):
            p["pattern"] = ref_or(p["pattern"])
        props[n] = p
    schema = {"type": "object", "properties": props, "required": list(args.get("required", []))}
    schema["additionalProperties"] = False
    outs = list(d.get("outputs_for_references", []))
    perm = d.get("permission", "read")
    return ToolSpec(
        name=d["name"],
        description=d.get("description", ""),
        args_schema=schema,
        response_schema={"type": "object", "properties": {o: {} for o in outs}},
        extract={o: f"/{o}" for o in outs},
        permission=perm,
        idempotent=perm == "read",
    )


def tools_from_json(source: str | Path | Sequence[Mapping[str, Any]]) -> list[ToolSpec]:
    """Tool contracts from a JSON file (or its parsed list): ``ToolSpec`` dumps (with
    ``args_schema``) or the short form of :func:`_short_tool`."""
    data = json.loads(Path(source).read_text(encoding="utf-8")) if isinstance(source, (str, Path)) else source
    if isinstance(data, Mapping):
        data = data.get("tools", [])
    tools = []
    for d in data:
        try:
            tools.append(ToolSpec.model_validate(d) if "args_schema" in d else _short_tool(d))
        except (KeyError, ValueError) as exc:
            raise ContractError(f"tool {d.get('name', '?')!r}: {exc}") from exc
    return tools


__all__ = [
    "ContractError",
    "base_pattern",
    "contract_domain",
    "contract_lexicon",
    "derive_id_kinds",
    "id_kind_of",
    "ref_or",
    "regex_sample",
    "slot_name",
    "tools_from_json",
]
