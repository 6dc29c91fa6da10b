"""A user registry's tool words, derived from its contracts and examples (the evidence rule's cues).

The reference domain's evidence rule (:mod:`thought_model.evidence`) has hand-written words per
tool. A user registry gets them from what it already declares: the words of each tool's name,
description, argument names and ``extract`` outputs, the words of its enum values
(``Domain.value_words``) and the words of its example requests (``Domain.examples`` of one step,
their own values taken out). A word is a cue of a tool only when it is *distinctive*: words that half or
more of the tools share (``employee``, ``the``, ``我的``) say nothing about which tool is asked.

Words: Latin words of three letters or more, case-folded, a plural ``s`` dropped
(``laptops`` -> ``laptop``); Chinese as the character bigrams of each Han run after traditional ->
simplified (``设备``, ``工单``). Function words (``the``, ``please``; bigrams with ``的 / 是 / 哪 / 查 ...``)
are never cues. Requests are matched masked (perception's slot tokens carry no
word, so a summary or an email address never evidences a tool).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tao.contracts import ToolSpec
from tao.contracts.domain import RequestExample
from thought_model.entities import SLOT_TOKEN_RE
from thought_model.perception.normalize import to_simplified

_QUOTED = re.compile(r"「[^」]*」")
_LATIN = re.compile(r"[a-z]{3,}")
_HAN = re.compile(r"[\u4e00-\u9fff]+")
_SPLIT = re.compile(r"[_\W\d]+")
_EN_STOP = frozenset(
    "the and for with from that this these those there their them they you your are was were has have had"
    " not but can could would should will any all one its his her our out about into onto when what which"
    " who whom whose where why how please pls thanks just also then than too very some such only use used"
    " get let make need want like does did doe before after over under via per new old".split()
)
"""Function words of English (and the generic verbs of any tool): never a cue."""
_ZH_FUNCTION = frozenset("的了是有我你他她它们这那个些哪么什吗呢吧啊一下在和都把给要帮请查看多少几")
"""Chinese function characters (and the generic ask verbs): a bigram with one is never a cue."""


def words(text: str) -> set[str]:
    """The cue words of ``text`` (see the module doc); slot tokens and the 「…」 text perception
    writes after a free-text slot are dropped first."""
    s = to_simplified(SLOT_TOKEN_RE.sub(" ", _QUOTED.sub(" ", text))).casefold()
    out = set()
    for w in _LATIN.findall(_SPLIT.sub(" ", s)):
        w = w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w
        if w not in _EN_STOP:
            out.add(w)
    for run in _HAN.findall(s):
        out.update(b for i in range(len(run) - 1) if not _ZH_FUNCTION & set(b := run[i : i + 2]))
    return out


def _without_values(text: str, args: Mapping[str, Any]) -> str:
    for v in args.values():
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, str) and x and not x.startswith(("<", "${")):
                text = text.replace(x, " ")
    return text


@dataclass(frozen=True)
class ToolCues:
    """Tool name -> its distinctive words; a tool without an entry is always evidenced."""

    cues: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def evidenced(self, tool: str, masked: str) -> bool:
        """Whether the masked request has a word of ``tool`` (always, for a tool without cues)."""
        cues = self.cues.get(tool)
        return not cues or bool(cues & words(masked))

    def explained(self, tool: str, masked: str, others: Iterable[str]) -> bool:
        """Whether every word of ``tool`` the masked request has (its cues and the words of its
        name) is a word of one of ``others`` too (the other tools of a plan): "find <NAME1> and list
        the devices assigned to him" has ``find`` and ``list`` for list_tickets, both words of
        find_employee and list_devices, and no ``ticket``. False when it has none (unevidenced)."""
        have = words(masked)
        own = (set(self.cues.get(tool, ())) | words(tool)) & have
        if not own:
            return False
        theirs: set[str] = set()
        for o in others:
            theirs |= set(self.cues.get(o, ())) | words(o)
        return own <= theirs

    def cued_tools(self, masked: str) -> list[str]:
        """The tools the masked request has words of, in registry order: those with at least half
        as many of their words as the best ("开一个软件工单": create_ticket, not list_tickets)."""
        have = words(masked)
        hits = {tool: len(cues & have) for tool, cues in self.cues.items()}
        best = max(hits.values(), default=0)
        return [tool for tool, n in hits.items() if n and 2 * n >= best]


def derive_cues(
    tools: Sequence[ToolSpec],
    examples: Iterable[RequestExample] = (),
    value_words: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> ToolCues:
    """The :class:`ToolCues` of a registry (see the module doc)."""
    found: dict[str, set[str]] = {t.name: set() for t in tools}
    for t in tools:
        props = t.args_schema.get("properties", {})
        parts = [t.name, t.description, *props, *t.extract]
        for arg, prop in props.items():
            for value in prop.get("enum") or []:
                parts.append(str(value))
                parts += list((value_words or {}).get(arg, {}).get(str(value), []))
        found[t.name] |= words(" ".join(parts))
    for ex in examples:  # one-step examples only: a chain's words are of its other steps too
        if len(ex.steps) == 1 and ex.steps[0][0] in found:
            tool, args = ex.steps[0]
            found[tool] |= words(_without_values(ex.text, args))
    share: dict[str, int] = {}
    for ws in found.values():
        for w in ws:
            share[w] = share.get(w, 0) + 1
    limit = max(2, len(found) // 2)
    return ToolCues({name: frozenset(w for w in ws if share[w] < limit) for name, ws in found.items()})
