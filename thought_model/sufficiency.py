"""Insufficiency decided by code: does a request ground every required argument of an intent?

The model answers ``insufficient_context`` with an intent and the fields it thinks are missing.
Both parts are guesses; the second can be checked. :class:`SufficiencyCheck` takes the intent's
plan (its tools and how each argument is filled: a slot of the request, the session user
``<ME>``, a reference ``${tK.x}`` to an earlier step, or a literal such as an enum value) and the
slots perception found, and computes which *required* arguments (the tool's ``required``) have no
grounded value:

* no argument is missing → :attr:`Decision.REPLAN`: the caller re-decodes the request with the
  insufficient branch of the grammar masked and only the intent's tools offered (the composer does
  this in one batched round, :mod:`thought_model.compose`);
* other fields are missing than the model named → :attr:`Decision.FIELDS`: the answer names
  exactly those fields (same intent);
* the intent is unknown (a user registry without intent plans, ``multi_task``) or the model named
  the right fields → :attr:`Decision.KEEP`.

Which slot tokens can fill an argument is the plan grammar's own answer
(:func:`thought_model.grammar.field_tokens`), so the check and constrained decoding agree. Within
one step a slot fills at most one argument (``for an hour`` is the duration, not also the head
count); a step may reuse the slots of an earlier step (find a room, then book it).

A required enum argument the intent leaves to the request (``reset_password.system = {system}``)
is a choice the model makes, unless the check knows the words requests use for its values
(``value_words``: a user registry's ``Domain.value_words``, recorded in its checkpoint) and is given
the request's text: then it is grounded only when the text writes one of them (``reset my
password`` misses ``system``; ``reset my VPN password`` does not).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from tao.contracts import InsufficientContext, ToolSpec
from tao.contracts.domain import Lexicon
from tao.contracts.plan import REF_PATTERN
from thought_model.entities import ME_SLOT

IntentSteps = Mapping[str, Sequence[tuple[str, Mapping[str, Any]]]]
"""Intent name → its plan: (tool, argument templates) per step, as the phrasing's ``IntentSpec``
writes them (``"{order}"`` a slot, ``"<ME>"`` the session user, ``"${t1.email}"`` a reference,
anything else a literal)."""


class Decision(Enum):
    KEEP = "keep"
    FIELDS = "fields"
    REPLAN = "replan"


@dataclass(frozen=True)
class SufficiencyConfig:
    """What the code may overrule (the composer's ``sufficiency`` setting)."""

    enabled: bool = True
    replan: bool = True  # a model insufficiency whose intent is fully grounded -> re-decode as a plan
    fix_fields: bool = True  # a model insufficiency naming the wrong fields -> the unfilled fields
    restrict_tools: bool = True  # the re-decode offers only the intent's tools


@dataclass(frozen=True)
class Judgement:
    decision: Decision
    missing: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()  # the intent's tools (for the re-decode)


_DESCRIPTIVE = re.compile(
    r"reason|summary|descri|detail|comment|note|message|body|problem|issue|explan|cause|symptom", re.I
)
"""Words of an argument that holds a description in the user's words (:meth:`SufficiencyCheck.text_fields`)."""
_REF = re.compile(REF_PATTERN)
_PLACEHOLDER = re.compile(r"^\{[a-z_0-9]+\}$")


def reference_intent_steps() -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """The reference domain's intents and their plans (from its phrasing)."""
    from tao.domains.reference.phrasing.intents import INTENTS

    return {s.name: [(tool, dict(args)) for tool, args, _ in s.steps] for s in INTENTS}


_FIRST_PERSON = re.compile(r"我|咱|\b(?:i|me|my|mine|myself)\b", re.I)
_THIRD_PERSON = re.compile(r"他|她|\b(?:he|him|his|she|her|they|them|their)\b", re.I)
"""A user registry's request in the first person: a missing id of the session user's kind is the
speaker's (``first_person_me``); one about a third person is not."""
_FREE_KINDS = {"CITY", "NAME", "TEXT", "EMAIL", "PHONE"}
_BY_NAME = {"city": "CITY", "name": "NAME"}
_ANY_FREE = {"value"}  # a field whose free text may be any kind (update_user_profile.value)


def _kind(tok: str) -> str:
    return re.sub(r"[0-9<>]", "", tok)


def _semantic(arg: str, prop: Mapping[str, Any], toks: list[str]) -> list[str]:
    """The tokens that ground a free-text argument: the grammar lets any free-text slot kind into
    ``title`` or ``reason`` (the model decides), but a name slot is an attendee, not a title.
    A free-text field takes its own kind (``city`` a city, ``name`` a name), ``value`` any,
    every other one a text slot; an integer field named like a duration takes a duration, any
    other integer a count (``我们<NUM1>`` is the head count, not the meeting's length). Fields with
    a pattern (ids, emails) keep the grammar's tokens."""
    if prop.get("type") == "integer":
        want_int = "DUR" if ("dur" in arg or arg.endswith("_min")) else "NUM"
        return [t for t in toks if _kind(t) == want_int]
    patterned = "pattern" in prop or any("pattern" in o for o in prop.get("anyOf", []))
    if (
        arg in _ANY_FREE
        or (patterned and arg not in _BY_NAME)
        or not all(_kind(t) in _FREE_KINDS for t in toks)
    ):
        return toks
    want = _BY_NAME.get(arg, "TEXT")
    return [t for t in toks if _kind(t) == want]


class SufficiencyCheck:
    """Grounding of an intent's required arguments in one request (see the module doc)."""

    def __init__(
        self,
        tools: Sequence[ToolSpec],
        intent_steps: IntentSteps | None = None,
        lexicon: Lexicon | None = None,
        config: SufficiencyConfig | None = None,
        value_words: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
        first_person_me: bool = False,
    ) -> None:
        self.tools = list(tools)
        self.value_words = dict(value_words or {})
        self._enum_res: dict[str, re.Pattern[str]] = {}
        self.by_name = {t.name: t for t in self.tools}
        self.intents = dict(intent_steps or {})
        self.lexicon = lexicon
        self.cfg = config or SufficiencyConfig()
        self.first_person_me = first_person_me
        self._tokens_cache: dict[tuple[str, str, frozenset[str]], list[str] | None] = {}

    # -- grounding -------------------------------------------------------------------------
    def _tokens(self, tool: ToolSpec, arg: str, avail: frozenset[str]) -> list[str] | None:
        """Slot tokens of ``avail`` the grammar accepts for ``tool.arg``; None: not a slot field
        (an enum, a boolean, a constant: the model picks the value)."""
        from thought_model.grammar import field_tokens

        key = (tool.name, arg, avail)
        if key not in self._tokens_cache:
            prop = tool.args_schema.get("properties", {}).get(arg, {})
            self._tokens_cache[key] = field_tokens(arg, prop, self.tools, avail, self.lexicon)
        return self._tokens_cache[key]

    def _enum_written(self, arg: str, prop: Mapping[str, Any], text: str | None) -> bool:
        """Whether ``text`` writes a value of the enum argument ``arg`` (True when the check cannot
        tell: no text, or no words known for the argument)."""
        if text is None or arg not in self.value_words or "enum" not in prop:
            return True
        if arg not in self._enum_res:
            words = {str(v) for v in prop["enum"]} | {str(v).replace("_", " ") for v in prop["enum"]}
            words |= {w for ws in self.value_words[arg].values() for w in ws}
            alts = sorted((w for w in words if w.strip()), key=len, reverse=True)
            body = "|".join(
                rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])" if w.isascii() else re.escape(w) for w in alts
            )
            self._enum_res[arg] = re.compile(body or r"(?!)", re.I)
        return self._enum_res[arg].search(text) is not None

    def missing(
        self,
        intent: str,
        slots: Collection[str],
        user_known: bool,
        named: Collection[str] = (),
        text: str | None = None,
    ) -> list[str] | None:
        """The required arguments of ``intent``'s plan with no grounded value, in plan order
        (None when the intent has no known plan or names a tool outside the registry). When two
        arguments compete for one slot (one text slot, a subject and a body), the ones the model
        ``named`` as missing are the ones left without it; ``text``: the (masked) request, for the
        enum arguments whose words the check knows."""
        steps = self.intents.get(intent)
        if not steps or any(tool not in self.by_name for tool, _ in steps):
            return None
        avail = frozenset(t for t in slots if t != ME_SLOT)
        out: list[str] = []
        for tool_name, template in steps:
            tool = self.by_name[tool_name]
            required = list(tool.args_schema.get("required", []))
            needs: list[tuple[str, list[str]]] = []
            for arg in required:
                v = template.get(arg)
                if isinstance(v, str) and v == ME_SLOT:
                    if not user_known:
                        out.append(arg)
                    continue
                if isinstance(v, str) and _REF.match(v):
                    continue  # an earlier step of the intent's plan provides it
                toks = self._tokens(tool, arg, avail)
                if toks is None:  # enum / boolean / const: a choice, not a value to find ...
                    prop = tool.args_schema.get("properties", {}).get(arg, {})
                    placeholder = isinstance(v, str) and _PLACEHOLDER.match(v)
                    if placeholder and not self._enum_written(arg, prop, text):
                        out.append(arg)  # ... unless the request must write it and does not
                    continue
                if v is not None and not (isinstance(v, str) and _PLACEHOLDER.match(v)):
                    continue  # a literal of the intent's plan
                prop = tool.args_schema.get("properties", {}).get(arg, {})
                if (
                    self.first_person_me
                    and user_known
                    and text is not None
                    and _FIRST_PERSON.search(text)
                    and not _THIRD_PERSON.search(text)
                    and not _semantic(arg, prop, toks)
                    and ME_SLOT in (self._tokens(tool, arg, avail | {ME_SLOT}) or [])
                ):
                    continue  # "我有没有正在处理的工单": the speaker's own, the session user fills it
                needs.append((arg, _semantic(arg, prop, toks)))
            used: set[str] = set()
            # scarce arguments first; among equals, the ones the model did not name take the slot
            for arg, toks in sorted(needs, key=lambda x: (len(x[1]), x[0] in named)):
                tok = next((t for t in toks if t not in used), None)
                if tok is None:
                    out.append(arg)
                else:
                    used.add(tok)
        return list(dict.fromkeys(out))

    def text_fields(self, tools: Collection[str]) -> set[str]:
        """The required arguments of ``tools`` that describe something in the user's words (a
        reason, a summary, a description): a plain string (no enum, pattern or format) a free-text
        slot fills, whose name, title or description says so (``_DESCRIPTIVE``); a city, a name or
        a profile value is none."""
        out: set[str] = set()
        probe = frozenset({"<TEXT1>"})
        for name in tools:
            tool = self.by_name.get(name)
            if tool is None:
                continue
            props = tool.args_schema.get("properties", {})
            for arg in tool.args_schema.get("required", []):
                prop = props.get(arg, {})
                if prop.get("type") != "string" or any(
                    k in prop for k in ("enum", "pattern", "format", "const")
                ):
                    continue
                said = " ".join(str(x) for x in (arg, prop.get("title", ""), prop.get("description", "")))
                if _DESCRIPTIVE.search(said) and "<TEXT1>" in (self._tokens(tool, arg, probe) or []):
                    out.add(arg)
        return out

    def choice_words(self, tools: Collection[str]) -> set[str]:
        """The words of the enum values of ``tools``' arguments (the values and their known words)."""
        out: set[str] = set()
        for name in tools:
            tool = self.by_name.get(name)
            for arg, prop in (tool.args_schema.get("properties", {}) if tool else {}).items():
                for v in prop.get("enum") or []:
                    out |= {str(v), str(v).replace("_", " ")}
                    out |= set(self.value_words.get(arg, {}).get(str(v), ()))
        return out

    def with_unwritten_choices(self, out: InsufficientContext, text: str) -> InsufficientContext:
        """``out`` plus the required enum arguments of the tool whose description field it names
        that ``text`` does not write either ("Open a ticket for me.": no summary, and no category to
        read from one): only a tool that alone requires that field, only words the check knows."""
        fields = list(out.required_fields)
        for f in out.required_fields:
            owners = [t for t in self.tools if f in t.args_schema.get("required", ())]
            if len(owners) != 1 or f not in self.text_fields([owners[0].name]):
                continue
            props = owners[0].args_schema.get("properties", {})
            for arg in owners[0].args_schema.get("required", ()):
                prop = props.get(arg, {})
                if arg not in fields and arg in self.value_words and not self._enum_written(arg, prop, text):
                    fields.append(arg)
        if len(fields) == len(out.required_fields):
            return out
        return out.model_copy(update={"required_fields": fields})

    # -- decisions -------------------------------------------------------------------------
    def judge(
        self, out: InsufficientContext, slots: Collection[str], user_known: bool, text: str | None = None
    ) -> Judgement:
        """What to do with the model's insufficient-context answer for a request with ``slots``
        (and ``text``, the masked request)."""
        if not self.cfg.enabled or not out.intent:
            return Judgement(Decision.KEEP)
        missing = self.missing(out.intent, slots, user_known, out.required_fields, text)
        if missing is None:
            return Judgement(Decision.KEEP)
        tools = tuple(dict.fromkeys(t for t, _ in self.intents[out.intent]))
        if not missing:
            return Judgement(Decision.REPLAN, (), tools) if self.cfg.replan else Judgement(Decision.KEEP)
        if self.cfg.fix_fields and set(missing) != set(out.required_fields):
            return Judgement(Decision.FIELDS, tuple(missing), tools)
        return Judgement(Decision.KEEP, tuple(missing), tools)

    def chained_intents(self, intent: str, fields: Collection[str]) -> list[str]:
        """The two-step intents whose last step is ``intent``'s one tool and whose first step
        provides each of ``fields`` by reference (``request_device_replacement`` missing
        ``asset_tag`` -> ``list_devices(<ME>) -> request_device_replacement(${t1.asset_tag})``, an
        intent the domain's examples teach): the plan the request may mean when it names no id."""
        steps = self.intents.get(intent)
        if not steps or len(steps) != 1 or not fields:
            return []
        tool = steps[0][0]
        return [
            name
            for name, st in self.intents.items()
            if len(st) == 2
            and st[1][0] == tool
            and all(isinstance(v := st[1][1].get(f), str) and _REF.match(v) for f in fields)
        ]

    @staticmethod
    def corrected(out: InsufficientContext, j: Judgement) -> InsufficientContext:
        """The answer with the fields the check found missing."""
        return InsufficientContext(required_fields=list(j.missing), intent=out.intent)
