"""Training phrasing derived from tool contracts plus a few examples (no hand-written templates).

:func:`derive_phrasing` turns a :class:`~tao.contracts.domain.Domain` whose ``phrasing`` is None into
the :class:`~tao.contracts.domain.Phrasing` the generator (:mod:`training.generate`) expands:

* **slot kinds** from each argument's JSON Schema: an id pattern -> the lexicon's id kind (values
  sampled from the pattern); an email / phone / date pattern -> the generic kinds; ``enum`` -> an
  enum kind whose surfaces are the literal and the domain's ``value_words``; numbers -> amounts or
  counts within ``minimum``/``maximum``; strings without a pattern -> names (Faker, zh_CN and
  en_US), or free text whose pools are the examples' values, the schema's ``examples`` and a few
  generic phrases. A pattern no slot kind can produce raises :class:`ContractError` naming the
  tool and the field (never a silent degradation).
* **intents** from the domain's examples (``Domain.examples``): each value is found in the example's
  text and becomes a slot (an enum value also by the words the examples teach for it,
  :mod:`tao.domains.learned_words`); an enum value the text does not write is a constant of that intent (and
  the free text of such an example is sampled from examples with the same constant, so a ticket's
  category keeps matching its summary). Tools (or languages) without examples get generic
  phrasings from the tool name and argument names.
* **chains** (:mod:`training.derive_chains`) from ``extract``: a tool whose output is another
  tool's argument (``find_employee`` -> ``employee_id``) feeds it: the later tool's phrasings with
  that argument's slot replaced by the first tool's inputs (``list the tickets of {name}``); a list
  tool of the session user's items feeds the tool its id is required by, said as the speaker's
  newest item (``show my latest invoice``). Chain examples are used as given, and teach more: a
  lookup path to a person's email / phone / id serves every phrasing of its last tool writing one
  (``send an email to {name}, …``), and a chain's second clause follows the other phrasings of its
  first tool (``看看我上个月的订单，然后查一下最新那单的物流``).
* **insufficient context** by dropping a required argument's slot from a phrasing (and by ``<ME>``
  phrasings when the session knows no user, as everywhere).
* **expansion** of the examples: a two-clause example also in the other clause order
  (:func:`swapped_template`); an example naming an id of the session user's kind also as the
  requester's own request (:func:`me_templates`: ``给{employee}`` -> ``给我``, ``for {employee}`` ->
  ``for me``); an optional enum argument with a ``default`` (``priority``) appended
  to every phrasing that does not write it (:func:`optional_enum_templates`: ``..., high priority``);
  the generator adds paraphrases, politeness, fillers, typos, traditional characters and
  connectors, and never adds an enum value's word (:attr:`Phrasing.reserved_words`).
* **response samples** (``Domain.response_samples``): their string values join the free-text and
  name pools of the argument with the same name (a ticket's ``summary``, an ``assignee`` name);
  each ``extract`` output is checked against them: a value that the argument it feeds refuses is a
  :class:`ContractError` naming the tool, the sample and the pointer, and an output no sample has
  feeds no derived chain.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import replace
from typing import Any

from tao.contracts.domain import Domain, IntentSpec, Phrasing, RequestExample
from tao.contracts.tools import ToolSpec
from tao.domains.contract import ContractError
from training.derive_chains import (
    _chain_templates,
    _path_templates,
    latest_templates,
    reattached_templates,
)
from training.derive_described import described_first_templates
from training.derive_kinds import (
    _MEASURED,
    _NAME_FIELDS,
    _PERCEIVED,
    _REF,
    EXAMPLE_NOW,
    GENERIC_TEXT,
    ME,
    DerivedSampler,
    SlotKind,
    _item_kind,
    _Kinds,
    _lang_of,
    _letters,
    _perceived_span,
    same_example_value,
)
from training.derive_template import _key, _Template

CONNECTORS = {
    "zh": ["，然后", "，再", "；另外", "。还有，", "，顺便", "，同时", "，并且", "。另外帮我"],
    "en": [" and then ", ", also ", ". Also, ", "; then ", " and ", ". After that, ", ", plus "],
}
TRAIN_CONNECTORS = {
    "zh": ["？另外", "，还有", "。然后", "，以及", "，接着", "；再帮我", "，另外再", "。顺便"],
    "en": [", and ", " then ", ". And ", "; also ", ", and also ", " & ", ". Plus, "],
}
GAP_SHARE_DENOM = 3
"""An intent's complete phrasings are at least this many times its insufficient (dropped-value)
phrasing: the gap is at most a quarter of its training templates."""
TRADITIONAL_PROB = 0.06
"""Share of Chinese training rows written in traditional characters."""


# ------------------------------------------------------------------ templates from examples
def _escape(text: str) -> str:
    """Template syntax characters of a user's text become their full-width forms."""
    return text.translate({ord(c): ord(c) + 0xFEE0 for c in "[]{}"})


_PLACED = re.compile(r"\{[^{}]*\}")


def _find(text: str, surfaces: Sequence[str], ignore_case: bool) -> tuple[int, int] | None:
    """The first span of the longest surface written in ``text``, never inside a placed
    ``{slot}`` (the enum value ``email`` is no word of ``{email}``)."""
    placed = [m.span() for m in _PLACED.finditer(text)]
    for s in sorted({s for s in surfaces if s}, key=lambda s: (-len(s), s)):  # not set order
        flags = re.I if ignore_case or s.isascii() else 0
        pre = r"(?<![A-Za-z0-9])" if s[:1].isascii() and s[:1].isalnum() else ""
        post = r"(?![A-Za-z0-9])" if s[-1:].isascii() and s[-1:].isalnum() else ""
        for m in re.finditer(pre + re.escape(s) + post, text, flags):
            if not any(a < m.end() and m.start() < b for a, b in placed):
                return m.start(), m.end()
    return None


def example_template(ex: RequestExample, kinds: _Kinds, registry: Mapping[str, ToolSpec]) -> _Template:
    """An example with its values turned into ``{kind}`` slots and its plan into argument templates.

    A value is found in the text as written; a date, time, amount, count, phone or city written in
    other words is found by perception (``tomorrow at 3pm`` for ``"2026-03-05 15:00"``, dates
    resolved against :data:`EXAMPLE_NOW`); each item of an array argument is its own slot.
    Raises :class:`ContractError` when a value is not in the text or a tool / argument is unknown."""
    text = _escape(ex.text)
    counts: dict[str, int] = {}
    seen: dict[tuple[str, str], str] = {}  # (kind, value) -> placeholder key
    steps = []
    entities: list[Any] = []

    def perceived(k: SlotKind, value: Any) -> tuple[int, int] | None:
        if k.source not in _PERCEIVED:
            return None
        if not entities:
            from thought_model.entities import perceive

            entities.extend(perceive(text, today=EXAMPLE_NOW.date(), lexicon=kinds.domain.lexicon).entities)
        return _perceived_span(text, k, value, entities)

    def place(tool: str, arg: str, k: SlotKind, value: Any) -> str | None:
        nonlocal text
        if (k.name, str(value)) in seen:
            return "{" + seen[(k.name, str(value))] + "}"
        surfaces = k.enum.get(str(value), [str(value)]) if k.source == "enum" else [str(value)]
        if k.source == "enum" and str(value) not in k.enum:
            raise ContractError(f"example {ex.text!r}: {value!r} is not an enum value of {tool}.{arg}")
        span = None
        if k.source in _MEASURED:  # "¥42" / "90 minutes": the whole surface, not the digits
            span = perceived(k, value)
        span = span or _find(text, surfaces, k.ignore_case or k.source == "enum")
        if span is None:
            span = perceived(k, value)
        if span is None:
            if k.source == "enum":
                return None  # implied by the request: a constant of this phrasing
            raise ContractError(
                f"example {ex.text!r}: value {value!r} of {tool}.{arg} is not written in the text"
            )
        counts[k.name] = counts.get(k.name, 0) + 1
        key = k.name + (str(counts[k.name]) if counts[k.name] > 1 else "")
        seen[(k.name, str(value))] = key
        text = text[: span[0]] + "{" + key + "}" + text[span[1] :]
        return "{" + key + "}"

    for tool, args in ex.steps:
        spec = registry.get(tool)
        if spec is None:
            raise ContractError(f"example {ex.text!r}: unknown tool {tool!r}")
        props = spec.args_schema.get("properties", {})
        out: dict[str, Any] = {}
        deps: list[str] = []
        order = sorted(args, key=lambda a: a in props and kinds.kind(tool, a).source == "enum")
        for arg in order:  # literal values first, then enums (an enum word may sit inside a text)
            value = args[arg]
            if arg not in props:
                raise ContractError(f"example {ex.text!r}: tool {tool!r} has no argument {arg!r}")
            items = list(value) if isinstance(value, (list, tuple)) else [value]
            placed: list[Any] = []
            for item in items:
                if item == ME or (isinstance(item, str) and _REF.match(item)):
                    placed.append(item)
                    m = _REF.match(item) if isinstance(item, str) else None
                    if m and f"t{m.group(1)}" not in deps:
                        deps.append(f"t{m.group(1)}")
                    continue
                got = place(tool, arg, _item_kind(kinds, tool, arg, item), item)
                placed.append(str(item) if got is None else got)
            out[arg] = placed if isinstance(value, (list, tuple)) else placed[0]
        steps.append((tool, {a: out[a] for a in args if a in out}, tuple(deps)))
    return _Template(ex.lang, text, tuple(steps))


def _words(name: str) -> str:
    return name.replace("_", " ")


def generic_templates(tool: ToolSpec, kinds: _Kinds, lang: str) -> list[_Template]:
    """Phrasings of a tool from its name and argument names (for tools / languages without
    examples): ``get employee with employee id {employee}``, ``帮我get employee，employee id是{employee}``."""
    props = tool.args_schema.get("properties", {})
    required = tool.args_schema.get("required", [])
    verb = _words(tool.name)
    parts, args = [], {}
    for arg in props:
        k = kinds.kind(tool.name, arg)
        if arg not in required and k.source != "enum":
            continue
        parts.append((arg, k.name))
        args[arg] = "{" + k.name + "}"
    if lang == "zh":
        body = "，".join(f"{_words(a)}是{{{k}}}" for a, k in parts)
        texts = [
            f"[帮我|请|麻烦]{verb}" + (f"，{body}" if body else ""),
            f"{verb}：" + " ".join(f"{{{k}}}" for _, k in parts),
        ]
    else:
        body = " and ".join(f"{_words(a)} {{{k}}}" for a, k in parts)
        texts = [
            f"[please |can you |]{verb}" + (f" with {body}" if body else ""),
            f"{verb} " + " ".join(f"{{{k}}}" for _, k in parts),
        ]
    return [_Template(lang, t.strip(), ((tool.name, dict(args), ()),)) for t in texts]


_DANGLING = re.compile(
    r"(?:原因是|理由是|因为|问题是|描述是|故障是|(?:描述|摘要|问题|原因|理由)?[:：]"
    r"|(?<![A-Za-z])(?:because|since|reason(?:\s+is)?:?|about|regarding|for|on|in|at|from|of|with|to|by))\s*$",
    re.I,
)
"""A cue left at the end of the text before a dropped slot ("问题是", "because", "agenda for")."""


def drop_slot(
    t: _Template,
    registry: Mapping[str, ToolSpec],
    rng: random.Random,
    keep: Set[str] = frozenset(),
    every: bool = False,
) -> _Template | None:
    """``t`` with one required argument's slot (``every``: all of them) removed from the text (an
    insufficient-context phrasing), or None when it has no such slot (or ``every`` and only one).
    Slots of the kinds in ``keep`` (the session user's id kind: a request without it reads as the
    speaker's own, "列出已关闭的工单") are never dropped; the <ME> phrasings with no session user
    give that kind's insufficient rows. A cue left dangling before a dropped slot goes with it
    ("帮我开个工单，问题是{summary}" -> "帮我开个工单")."""
    keys = []
    fan = {(tool, a) for i, (tool, args, _) in enumerate(t.steps) for a in args}
    fan = {ta for ta in fan if sum(ta[0] == tool and ta[1] in args for tool, args, _ in t.steps) > 1}
    for tool, args, _ in t.steps:
        req = registry[tool].args_schema.get("required", [])
        keys += [
            v[1:-1]
            for a, v in args.items()
            if a in req and isinstance(v, str) and v.startswith("{") and (tool, a) not in fan
        ]  # one of a fan-out's values ("weather in {city}, {city2}") dropped is a shorter list, not a gap
    keys = [k for k in dict.fromkeys(keys) if "{" + k + "}" in t.text and k.rstrip("0123456789") not in keep]
    if not keys or (every and len(keys) < 2):
        return None
    text = t.text
    for k in keys if every else [rng.choice(keys)]:
        before, _, after = text.partition("{" + k + "}")
        before = before.rstrip()
        if m := _DANGLING.search(before):
            before = before[: m.start()]
        text = before.rstrip(" ，,") + " " + after.lstrip(" ，,")
    text = re.sub(r"\s{2,}", " ", text).strip(" ，,")
    text = re.sub(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff，])", "", text)
    return _Template(t.lang, text, t.steps) if len(text) >= 2 else None


def _merged_steps(group: list[_Template], registry: Mapping[str, ToolSpec]) -> tuple:
    steps = []
    for i, (tool, _, deps) in enumerate(group[0].steps):
        args: dict[str, Any] = {}
        for t in group:
            for a, v in t.steps[i][1].items():
                args.setdefault(a, v)
        order = list(registry[tool].args_schema.get("properties", {}))
        steps.append((tool, {a: args[a] for a in order if a in args}, deps))
    return tuple(steps)


def _intent_name(steps: tuple, taken: set[str]) -> str:
    tools = [s[0] for s in steps]
    base = tools[0] if len(tools) == 1 else "_then_".join(dict.fromkeys(tools))
    base = re.sub(r"[^a-z0-9_]", "_", base.lower())[:56]
    if any(v == ME for _, a, _ in steps for v in a.values()):
        base += "_me"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def _couple_text(templates: list[_Template], kinds: _Kinds) -> None:
    """Free text of a phrasing whose enum value is implied gets its own pool: the values of the
    examples with the same constant (a hardware ticket's summary stays a hardware problem)."""
    for t in templates:
        for tool, args, _deps in t.steps:
            consts = sorted(
                (a, v) for a, v in args.items() if isinstance(v, str) and not v.startswith(("{", "$", "<"))
            )
            if not consts:
                continue
            for a, v in args.items():
                if not (isinstance(v, str) and v.startswith("{")):
                    continue
                k = kinds.kind(tool, a)
                if k.source != "text":
                    continue
                tag = "".join(_letters(c) for _, c in consts)
                name = k.name + tag
                if name not in kinds.kinds:
                    kinds.kinds[name] = SlotKind(name, "TEXT", "text", pool={"zh": [], "en": []})
                key = v[1:-1]
                t.text = t.text.replace("{" + key + "}", "{" + name + "}")
                args[a] = "{" + name + "}"


_SEP = {"zh": re.compile(r"[，,]"), "en": re.compile(r", ")}
_NO_SWAP = re.compile(r"^\s*(?:and|then|also|plus|然后|再|并且|还有|另外|接着)(?![A-Za-z])", re.I)


def _free_kinds(kinds: _Kinds) -> set[str]:
    return {n for n, k in kinds.kinds.items() if k.source in ("text", "name")}


def swapped_template(t: _Template, kinds: _Kinds) -> _Template | None:
    """A one-step phrasing of two clauses in the other order (``I forgot my email password, please
    reset it`` -> ``please reset it, I forgot my email password``), or None: more or fewer than two
    clauses, a clause that needs the one before it (``then``, ``然后``), or a free-text / name slot
    that would start the request (perception finds those by the words before them)."""
    if len(t.steps) != 1 or "[" in t.text:
        return None
    seps = list(_SEP[t.lang].finditer(t.text))
    if len(seps) != 1:
        return None
    a, b = t.text[: seps[0].start()].strip(), t.text[seps[0].end() :].strip().rstrip("。.!！?？")
    if len(a) < 2 or len(b) < 2 or _NO_SWAP.match(b):
        return None
    free = _free_kinds(kinds)
    m = re.match(r"\{([a-z]+)[0-9]?\}", b)
    if m and m.group(1) in free:
        return None
    sep = "，" if t.lang == "zh" else ", "
    return _Template(t.lang, b + sep + a, t.steps)


def optional_enum_templates(
    t: _Template, kinds: _Kinds, registry: Mapping[str, ToolSpec], cue: re.Pattern[str] | None = None
) -> list[_Template]:
    """``t`` with each optional enum argument that has a ``default`` and that ``t`` does not write
    appended as a clause (``..., {priority}`` -> ``..., high priority`` / ``，优先级高``); only for the
    last step (a later clause would belong to another step)."""
    tool, args, deps = t.steps[-1]
    schema = registry[tool].args_schema
    required = set(schema.get("required", []))
    out = []
    for arg, prop in schema.get("properties", {}).items():
        if arg in required or arg in args or "default" not in prop or "enum" not in prop:
            continue
        k = kinds.kind(tool, arg)
        head = t.text.rstrip("。.!！?？ ") + ("，" if t.lang == "zh" else ", ")
        if "{" + k.name + "}" in t.text or "[" in t.text or (cue is not None and cue.search(head)):
            continue  # after a free-text cue (``工单，``) the word would be read as free text
        text = head + "{" + k.name + "}"
        new_args = dict(args)
        new_args[arg] = "{" + k.name + "}"
        out.append(_Template(t.lang, text, (*t.steps[:-1], (tool, new_args, deps))))
    return out


_ME_SUBS = {
    "zh": [("给{}", "给我"), ("帮{}", "帮我"), ("为{}", "为我"), ("员工{}的", "我的"), ("{}的", "我的")],
    "en": [("for {}", "for me"), ("{}'s", "my")],
}
"""How a request names its requester where an example names an id of the session user's kind."""


def me_templates(t: _Template, kinds: _Kinds, me_slot: str | None) -> list[_Template]:
    """A one-step phrasing that names an id of the session user's kind (``给{employee}重置…``,
    ``reset … for {employee}``) also as the requester's own request (``给我重置…``, ``… for me``):
    the argument becomes ``<ME>``."""
    if me_slot is None or len(t.steps) != 1:
        return []
    tool, args, deps = t.steps[0]
    for arg, v in args.items():
        if not (isinstance(v, str) and v.startswith("{") and t.text.count(v) == 1):
            continue
        k = kinds.kinds.get(v[1:-1].rstrip("0123456789"))
        if k is None or k.source != "id" or k.slot != me_slot:
            continue
        for pat, rep in _ME_SUBS[t.lang]:
            if pat.format(v) in t.text:
                text = t.text.replace(pat.format(v), rep, 1)
                return [_Template(t.lang, text, ((tool, {**args, arg: ME}, deps),))]
    return []


def _leaves(obj: Any, key: str = "") -> list[tuple[str, Any]]:
    if isinstance(obj, dict):
        return [x for k, v in obj.items() for x in _leaves(v, str(k))]
    if isinstance(obj, list):
        return [x for v in obj for x in _leaves(v, key)]
    return [(key, obj)]


def _pointer(obj: Any, ptr: str) -> tuple[bool, Any]:
    for part in [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]]:
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        else:
            return False, None
    return True, obj


def sample_values(domain: Domain, kinds: _Kinds) -> int:
    """Add the string values of the response samples to the pools of the free-text / name kinds of
    the arguments with the same name (a name field such as ``assignee`` feeds the name kinds);
    returns how many values were added."""
    by_arg: dict[str, list[SlotKind]] = {}
    for (_tool, arg), name in kinds.by_field.items():
        k = kinds.kinds[name]
        if k.source in ("text", "name") and k not in by_arg.setdefault(arg, []):
            by_arg[arg].append(k)
    names = [k for k in kinds.kinds.values() if k.source == "name"]
    added = 0
    for _tool, bodies in sorted(domain.response_samples.items()):
        for body in bodies:
            for key, v in _leaves(body):
                if not isinstance(v, str) or not v.strip() or len(v) > 80:
                    continue
                targets = list(by_arg.get(key, []))
                if _NAME_FIELDS.search(key):
                    targets += [k for k in names if k not in targets]
                for k in targets:
                    if k.source == "name" and re.search(r"[0-9@_]", v):
                        continue
                    pool = k.pool.setdefault(_lang_of(v), [])
                    if v not in pool:
                        pool.insert(0, v)  # before the held-out tail of the pool
                        added += 1
    return added


def check_sample_outputs(domain: Domain) -> set[tuple[str, str]]:
    """The ``(tool, output)`` pairs of ``extract`` that no response sample of the tool holds (they
    feed no derived chain). Raises :class:`ContractError` when a sample's extracted value does not
    fit an argument of the same name of another tool (the contract and its real responses disagree)."""
    missing: set[tuple[str, str]] = set()
    for tool in domain.tools:
        bodies = list(domain.response_samples.get(tool.name, ()))
        if not bodies:
            continue
        for out, ptr in tool.extract.items():
            found = [(i, v) for i, b in enumerate(bodies) for ok, v in [_pointer(b, ptr)] if ok]
            if not found:
                missing.add((tool.name, out))
                continue
            for other in domain.tools:
                prop = other.args_schema.get("properties", {}).get(out)
                if other.name == tool.name or not isinstance(prop, dict):
                    continue
                pattern = prop.get("pattern")
                for i, v in found:
                    if isinstance(pattern, str) and not (isinstance(v, str) and re.search(pattern, v)):
                        raise ContractError(
                            f"tool {tool.name!r} response sample {i}: extract {out!r} ({ptr}) = {v!r} "
                            f"does not fit {other.name}.{out} (pattern {pattern!r})"
                        )
                    if "enum" in prop and v not in prop["enum"]:
                        raise ContractError(
                            f"tool {tool.name!r} response sample {i}: extract {out!r} ({ptr}) = {v!r} "
                            f"is not an enum value of {other.name}.{out}"
                        )
    return missing


def derive_phrasing(domain: Domain, seed: int = 0) -> Phrasing:
    """The training phrasing of a contract-defined domain (see the module docstring)."""
    registry = domain.registry()
    kinds = _Kinds(domain)
    templates: list[_Template] = []
    for ex in domain.examples:
        if ex.lang not in ("zh", "en"):
            raise ContractError(f"example {ex.text!r}: lang must be 'zh' or 'en', not {ex.lang!r}")
        t = example_template(ex, kinds, registry)
        templates.append(t)
        # the example's literal values seed the free-text and name pools
        for (tool, args), (_, targs, _) in zip(ex.steps, t.steps, strict=True):
            for a, v in args.items():
                tv = targs.get(a)
                if isinstance(tv, str) and tv.startswith("{") and isinstance(v, str):
                    k = kinds.kind(tool, a)
                    if k.source in ("text", "name", "city") and v not in k.pool.setdefault(ex.lang, []):
                        k.pool[ex.lang].append(v)
    sample_values(domain, kinds)
    _couple_text(templates, kinds)
    templates += [w for t in templates if (w := swapped_template(t, kinds)) is not None]
    templates += [m for t in templates for m in me_templates(t, kinds, domain.lexicon.me_kind)]
    by_value: set[str] = set()  # pools of one value's texts, in the languages the examples wrote
    for t, ex in zip(list(templates), domain.examples, strict=False):
        for (tool, args), (_, targs, _) in zip(ex.steps, t.steps, strict=True):
            for a, v in args.items():
                tv = targs.get(a)
                if isinstance(tv, str) and tv.startswith("{") and isinstance(v, str):
                    k = kinds.kinds[tv[1:-1].rstrip("0123456789")]
                    if k.source != "text":
                        continue
                    base = kinds.kind(tool, a).name
                    names = {k.name} | {  # an explicit enum value lends its texts to the coupled pool
                        base + _letters(str(ev))
                        for ea, ev in args.items()
                        if ea != a and kinds.kind(tool, ea).source == "enum"
                    }
                    for n in names:
                        kk = kinds.kinds.get(n)
                        if kk is None:  # the pool a free text is drawn from after that enum word
                            kk = kinds.kinds[n] = SlotKind(n, "TEXT", "text", pool={"zh": [], "en": []})
                            by_value.add(n)
                        if v not in kk.pool.setdefault(ex.lang, []):
                            kk.pool[ex.lang].append(v)
    for k in kinds.kinds.values():  # a free-text pool of one language lends to the other
        if k.source == "text" and k.name not in by_value:
            for lang, other in (("zh", "en"), ("en", "zh")):
                if not k.pool.get(lang):
                    k.pool[lang] = list(k.pool.get(other) or GENERIC_TEXT[lang])
    for tool in domain.tools:
        for lang in ("zh", "en"):
            if not any(t.lang == lang and t.steps[0][0] == tool.name for t in templates):
                templates += generic_templates(tool, kinds, lang)
    templates += _chain_templates(templates, kinds, domain, check_sample_outputs(domain))
    templates += _path_templates(templates, kinds, domain)
    templates += reattached_templates(templates, registry)
    templates += latest_templates(templates, kinds, domain, registry)
    described = described_first_templates(
        templates, {n for n, k in kinds.kinds.items() if k.source == "text"}
    )
    templates += described
    no_drop = {(t.lang, t.text) for t in described}  # a gap is drawn from the examples' own orders
    cues = domain.lexicon.text_cues
    cue = re.compile("(?:" + "|".join(cues) + r")\s*$", re.I) if cues else None
    templates += [v for t in templates for v in optional_enum_templates(t, kinds, registry, cue)]
    me_keys = {n for n, k in kinds.kinds.items() if k.source == "id" and k.slot == domain.lexicon.me_kind}
    by_plan: dict[tuple, list[_Template]] = {}
    for t in templates:
        by_plan.setdefault(_key(t.steps, registry), []).append(t)
    intents: list[IntentSpec] = []
    taken: set[str] = set()
    for plan_key, group in by_plan.items():
        steps = _merged_steps(group, registry)
        tool0 = steps[0][0]
        per_lang: dict[str, list[str]] = {}
        # an intent's gap is drawn from its own stream: a chain derived for another tool does not
        # change which value this one drops
        rng = random.Random(f"{seed}:{plan_key!r}")
        for lang in ("zh", "en"):
            ts = list(dict.fromkeys(t.text for t in group if t.lang == lang))
            if not ts:  # the other language: generic phrasings of the same plan when it is one step
                if len(steps) == 1:
                    ts = [
                        g.text
                        for g in generic_templates(registry[tool0], kinds, lang)
                        if _fits(g, steps, registry)
                    ]
                if not ts:  # the examples write this plan in the other language only: no rows in
                    per_lang[lang] = []  # this one (its phrasings filled with this language's
                    continue  # values were half-Chinese English rows, or dropped)
            mine = [t for t in group if t.lang == lang and (lang, t.text) not in no_drop]
            dropped = [d.text for t in mine if (d := drop_slot(t, registry, rng, me_keys))]
            dropped = [d for d in dict.fromkeys(dropped) if d not in ts]
            rng.shuffle(dropped)
            bare = [d.text for t in mine if (d := drop_slot(t, registry, rng, me_keys, every=True))]
            bare = [d for d in dict.fromkeys(bare) if d not in ts and d not in dropped[:1]]
            held = [
                g.text for g in generic_templates(registry[tool0], kinds, lang) if _fits(g, steps, registry)
            ]
            # the last phrasing is the held-out one (training.generate.template_ids): a generic one
            # one insufficient phrasing: a required value dropped, or all of them ("帮我开个工单")
            gap = rng.choice([dropped[:1], bare[:1]]) if dropped and bare else dropped[:1] or bare[:1]
            if len(ts) < 3 and len(steps) == 1:  # not half of an intent's rows (the hand-written sets: 15%)
                gap = []
            # a chain given once per language ("我的笔记本坏了，申请更换，原因是…") would otherwise train
            # as often insufficient as complete (77% of its rows with the no-user ones): its phrasings
            # are repeated so that the gap is at most a quarter of the intent's training phrasings
            full = ts * max(1, -(-GAP_SHARE_DENOM * len(gap) // len(ts))) if gap else ts
            per_lang[lang] = full + gap + (held[-1:] or ts[:1])
        intents.append(
            IntentSpec(
                _intent_name(steps, taken),
                steps,
                zh=tuple(per_lang["zh"]),
                en=tuple(per_lang["en"]),
                composable=len(steps) == 1,
            )
        )
    me_kind = domain.lexicon.me_kind
    me_pattern = next(
        (k.pattern for k in kinds.kinds.values() if k.source == "id" and k.slot == me_kind), None
    )
    slot_types = {name: k.slot for name, k in kinds.kinds.items() if k.source != "enum"}
    frozen = dict(kinds.kinds)

    def sampler(lang: str, heldout: bool, rng: random.Random) -> DerivedSampler:
        return DerivedSampler(frozen, me_pattern, lang, heldout, rng)

    return Phrasing(
        intents=intents,
        connectors=CONNECTORS,
        train_connectors=TRAIN_CONNECTORS,
        slot_types=slot_types,
        enum_kinds=frozenset(n for n, k in kinds.kinds.items() if k.source == "enum"),
        value_sampler=sampler,
        reserved_words=frozenset(
            w for k in kinds.kinds.values() if k.source == "enum" for ws in k.enum.values() for w in ws
        ),
        traditional_prob=TRADITIONAL_PROB,
        label_free_text=True,
    )


def _fits(t: _Template, steps: tuple, registry: Mapping[str, ToolSpec]) -> bool:
    return _key(t.steps, registry) == _key(steps, registry)


def with_phrasing(domain: Domain, seed: int = 0) -> Domain:
    """``domain`` itself when it has a phrasing, else a copy with :func:`derive_phrasing`'s."""
    if domain.phrasing is not None:
        return domain

    return replace(domain, phrasing=derive_phrasing(domain, seed))


__all__ = [
    "EXAMPLE_NOW",
    "ContractError",
    "DerivedSampler",
    "SlotKind",
    "check_sample_outputs",
    "derive_phrasing",
    "example_template",
    "latest_templates",
    "me_templates",
    "optional_enum_templates",
    "reattached_templates",
    "same_example_value",
    "sample_values",
    "swapped_template",
    "with_phrasing",
]
