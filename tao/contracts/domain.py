"""The tool-domain interface: what a domain plug-in hands the runtime, training and perception.

A domain (``tao.domains.<name>``, or any module named by ``MODULE:ATTR``) is its registry of
:class:`~tao.contracts.tools.ToolSpec` plus the data the other layers need about *this* domain:
the id kinds perception binds to slots, its cities and the words that must not be taken for
names (:class:`Lexicon`), the phrasing data the training generator expands (:class:`Phrasing`),
the mock service's handlers and hand-written evaluation sets. Generic language facts (digits,
number words, month names, relative-day words) are not domain data; they stay in thought_model.

Everything here is plain data (stdlib dataclasses); :meth:`Domain.snapshot` is the JSON a
checkpoint keeps beside its weights (tool contracts + lexicon), enough to serve and check plans
without importing the domain's module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from tao.contracts.tools import ToolSpec


@dataclass(frozen=True)
class IdKind:
    """One kind of identifier perception binds to a slot (``<ORDER1>``)."""

    slot: str
    """Slot type, upper case (``ORDER``); also the prefix of its slot tokens."""
    pattern: str
    """Python regex that finds it in a request (with its own boundary guards)."""
    sample: str
    """One literal value: an argument accepts this kind when the sample matches its pattern."""
    ignore_case: bool = False
    upper: bool = False
    """Normalize a match to upper case (``inv0000000001`` -> ``INV0000000001``)."""


@dataclass(frozen=True)
class Lexicon:
    """What perception and the output grammar know about one domain."""

    id_kinds: tuple[IdKind, ...] = ()
    me_kind: str | None = None
    """The id kind the session user fills (``<ME>`` is offered where this kind is)."""
    cities_zh: tuple[str, ...] = ()
    cities_en: tuple[str, ...] = ()
    name_block_zh: frozenset[str] = frozenset()
    """Domain words a surname-led Chinese name pattern would take for a name (``金额``, ``杭州``)."""
    name_stop_en: frozenset[str] = frozenset()
    """Capitalized domain words that never start an English name (``Order``, ``Invoice``)."""
    text_cues: tuple[str, ...] = ()
    """Domain cue regexes after which free text follows (``问题是``, ``issue:``); perception reads
    the text after one like after its built-in cues (``原因是``, ``because``)."""
    show_free_text: bool = False
    """Keep a free-text value visible after its slot token in the masked request
    (``<TEXT1>「VPN keeps dropping」``), for domains whose enum arguments follow from the text
    (a ticket's category from its summary). The plan still copies the slot token."""
    field_words: tuple[str, ...] = ()
    """Words of the domain's enum values (``Domain.value_words``: ``high priority``, ``优先级高``,
    ``ASAP``): a comma piece made only of them is another argument, so a cued free text ends
    before it (``问题是电脑坏了，优先级高`` -> ``电脑坏了``)."""
    time_slots: bool = True
    """Whether perception binds dates, times and durations to slots: False for a registry no
    argument of which takes one (:func:`uses_time_slots`), where ``现在`` / ``目前`` / ``for 2 hours``
    are words of the request, not ``<DATE1>`` / ``<DUR1>`` slots no field could take."""
    keywords: tuple[str, ...] = ()
    """The domain's own key words (lower-case, five letters or more: ``password``, ``closed``,
    ``ticket``) whose misspellings perception corrects before it reads a request (``emial`` ->
    ``email``, ``closd`` -> ``closed``), like the reference domain's built-in ones."""

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["name_block_zh"] = sorted(self.name_block_zh)
        d["name_stop_en"] = sorted(self.name_stop_en)
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Lexicon:
        return cls(
            id_kinds=tuple(IdKind(**k) for k in d.get("id_kinds", ())),
            me_kind=d.get("me_kind"),
            cities_zh=tuple(d.get("cities_zh", ())),
            cities_en=tuple(d.get("cities_en", ())),
            name_block_zh=frozenset(d.get("name_block_zh", ())),
            name_stop_en=frozenset(d.get("name_stop_en", ())),
            text_cues=tuple(d.get("text_cues", ())),
            show_free_text=bool(d.get("show_free_text", False)),
            field_words=tuple(d.get("field_words", ())),
            time_slots=bool(d.get("time_slots", True)),
            keywords=tuple(d.get("keywords", ())),
        )


@dataclass(frozen=True)
class IntentSpec:
    """One intent: the plan it needs (steps of tool, argument templates, dependencies) and its
    request templates per language (see the reference domain's ``phrasing`` for the syntax)."""

    name: str
    steps: tuple[tuple[str, dict, tuple[str, ...]], ...]
    zh: tuple[str, ...]
    en: tuple[str, ...]
    composable: bool = True  # may be combined with another intent in one request
    tags: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class RequestExample:
    """One example request a domain author writes for a tool (or a short chain), with real values.

    ``steps`` are ``(tool, args)`` pairs; an argument is the literal value as written in ``text``
    (``"E104233"``, ``"vpn"``), ``"<ME>"`` for the requester's own id, or a step reference
    (``"${t1.employee_id}"``). The training generator (``training.derive``) finds each literal in the
    text, turns it into a slot and expands the example (other values, fillers, noise, connectors).
    An enum value the text writes in other words (``邮箱`` for ``email``) is found through
    :attr:`Domain.value_words`.
    """

    text: str
    lang: str
    steps: tuple[tuple[str, Mapping[str, Any]], ...]

    @classmethod
    def of(cls, text: str, lang: str, tool: str, **args: Any) -> RequestExample:
        """A one-step example: ``RequestExample.of("重置我的VPN密码", "zh", "reset_password", ...)``."""
        return cls(text=text, lang=lang, steps=((tool, dict(args)),))


class SlotValues(Protocol):
    """Samples a template placeholder's value: ``sample("order") -> (surface text, value)``."""

    def sample(self, kind: str) -> tuple[str, Any]: ...


@dataclass(frozen=True)
class Phrasing:
    """The training generator's domain data: intents, connectors and slot-value sampling."""

    intents: Sequence[IntentSpec]
    connectors: Mapping[str, Sequence[str]]
    train_connectors: Mapping[str, Sequence[str]]
    slot_types: Mapping[str, str]
    """Template placeholder kind (``order``) -> perception slot type (``ORDER``)."""
    enum_kinds: frozenset[str]
    """Placeholder kinds whose value is an enum literal in the plan, not a slot."""
    value_sampler: Callable[..., SlotValues]
    """``value_sampler(lang=, heldout=, rng=)`` -> the :class:`SlotValues` of one row."""
    held_mark: str = "~"
    """A template starting with this is held out of training."""
    reserved_words: frozenset[str] = frozenset()
    """Words that set an argument (enum value surfaces: ``ASAP`` -> ``priority=urgent``): the
    generator's paraphrase, filler and noise operators never add one to a request."""
    traditional_prob: float = 0.0
    """Share of Chinese training rows written in traditional characters (perception folds them)."""
    label_free_text: bool = False
    """Free text the generator wrote is a ``TEXT`` slot of the row even where perception finds no
    cue for it (``Cancel order X, wrong address``), as the composer's uncued-description pass
    makes it at serving time. On for phrasings derived from a user's examples (written as people
    write); off for the reference templates, whose authors keep every free text cued
    (``python -m training.template_check`` flags the rest)."""


@dataclass
class Domain:
    """A tool domain plug-in (see the module docstring)."""

    name: str
    tools: list[ToolSpec]
    lexicon: Lexicon = field(default_factory=Lexicon)
    mock_handlers: Mapping[str, Callable[..., Any]] | None = None
    """Tool name -> ``handler(data, args) -> (status, body, side_effect)`` for the mock service."""
    mock_data: Callable[..., Any] | None = None
    """``mock_data(seed, today)`` -> the state the mock handlers read and write."""
    phrasing: Phrasing | None = None
    eval_sets: Mapping[str, Path] = field(default_factory=dict)
    ref: str | None = None
    """The ``MODULE:ATTR`` it was loaded from (set by ``tao.domains.load_domain``)."""
    examples: Sequence[RequestExample] = ()
    """Example requests (``<= ~10`` per tool and language) for a domain without :attr:`phrasing`:
    the training generator derives its phrasing from the contracts and these."""
    value_words: Mapping[str, Mapping[str, Sequence[str]]] = field(default_factory=dict)
    """Argument name -> enum value -> the words requests use for it (zh and en mixed:
    ``{"system": {"email": ["邮箱", "mailbox"]}}``); the enum literal itself is always one."""
    transport: str | None = None
    """How the runtime calls the tools: None = HTTP (``tools_url`` or the mock service); an
    ``mcp+stdio:…`` / ``mcp+http(s)://…`` ref = through that MCP server (``tao.action.mcp_tools``)."""
    response_samples: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    """Tool name -> samples of the tool's real response bodies (``parsed_data``). Loading the domain
    (``tao.domains.load_domain``) checks each against the tool's response schema and observation
    rules with the Rust checker and fails naming the sample and the JSON pointer where they disagree
    (``tao.domains.samples``)."""

    def registry(self) -> dict[str, ToolSpec]:
        return {t.name: t for t in self.tools}

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    def snapshot(self) -> dict[str, Any]:
        """The JSON a checkpoint keeps as ``domain.json``: name, ref, tool contracts, lexicon."""
        return {
            "name": self.name,
            "registry": self.ref,
            "tools": [t.model_dump(mode="json") for t in self.tools],
            "lexicon": self.lexicon.to_json(),
        }

    @classmethod
    def from_snapshot(cls, d: Mapping[str, Any]) -> Domain:
        """A domain rebuilt from ``domain.json`` (contracts and lexicon; no mock, no phrasing)."""
        tools = [ToolSpec.model_validate(t) for t in d.get("tools", [])]
        return cls(
            name=str(d.get("name") or "snapshot"),
            tools=tools,
            lexicon=_snapshot_lexicon(d.get("lexicon") or {}, tools),
            ref=d.get("registry"),
        )


_TIME_SAMPLES = ("2026-03-05", "2026-03-05 15:00", "2026-03-05T15:00:00+08:00", "@today", "@last_month")
_TIME_FORMATS = frozenset({"date", "date-time", "time", "duration"})


def uses_time_slots(tools: Sequence[ToolSpec]) -> bool:
    """Whether an argument of ``tools`` takes a date, time or duration: a ``format`` of one, a
    string pattern a date / time symbol fits, or a number named like a duration (``duration_min``)."""
    for t in tools:
        for name, prop in (t.args_schema.get("properties") or {}).items():
            alts = [prop, *prop.get("anyOf", [])] if isinstance(prop, dict) else []
            for p in alts:
                if not isinstance(p, dict):
                    continue
                if p.get("format") in _TIME_FORMATS:
                    return True
                pattern = p.get("pattern")
                if isinstance(pattern, str) and any(re.search(pattern, x) for x in _TIME_SAMPLES):
                    return True
                if p.get("type") in ("integer", "number") and re.search(r"dur|minute|hour", name):
                    return True
    return False


def _snapshot_lexicon(d: Mapping[str, Any], tools: Sequence[ToolSpec]) -> Lexicon:
    """A snapshot's lexicon; one written before :attr:`Lexicon.time_slots` existed gets it from
    its tools."""
    lex = Lexicon.from_json(d)
    if "time_slots" not in d and not uses_time_slots(tools):
        lex = replace(lex, time_slots=False)
    return lex
