"""Enum arguments of a user registry decided by the request's words, not guessed (issue #15).

A user registry says which words requests use for its enum values (``Domain.value_words``,
recorded in the checkpoint: ``system.vpn = VPN / 远程连接``, ``priority.high = 优先级高 / high
priority``). The model still picks a wrong value now and then (``我的VPN密码过期了`` ->
``system=email``) or drops an optional one the user wrote (``list the open tickets of Nina`` without
``status``). :func:`fix_enums`, per step and enum argument with known words:

* the words are searched in the request **outside its free text** (a ticket summary that says
  "VPN" names no system), longest first and blanked out, so ``优先级高`` is one ``high``;
* exactly one value written -> the argument is that value (set, or added when optional);
* no value written -> an optional argument the model set is dropped (a filter nobody said; the
  default of ``priority`` stays implied); a required one is left as the model chose it (a ticket's
  category follows from its summary);
* words of two values, or the argument on several steps of the plan (two tickets, one priority
  each): left as planned; a step a later step reads from is left alone (``status of my latest
  ticket``: the list finds the item asked about, its words are no filter).

An English enum word followed by an article (``open a ticket``) is a verb, not the value. When no
value's word is written, a typo of one English word still writes it (``emial`` -> ``email``:
:func:`near_typo`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tao.contracts import ThoughtPlan, ToolSpec
from thought_model.perception.normalize import to_simplified

ValueWords = Mapping[str, Mapping[str, Sequence[str]]]

_VERB_NEXT = r"(?!\s+(?:a|an|the|up|my|it|this|that)\b)"
_TOKEN = re.compile(r"[A-Za-z]{4,}")
_FREE = re.compile(r"<TEXT[0-9]>「[^」]*」|<[A-Z][A-Z0-9]{1,15}[0-9]>|「[^」]*」")


class EnumWords:
    """The compiled words of one registry's enum arguments."""

    def __init__(self, tools: Sequence[ToolSpec], value_words: ValueWords) -> None:
        self.tools = {t.name: t for t in tools}
        self._rx: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        self._words: dict[str, list[tuple[str, str]]] = {}  # one-token English words, for typos
        enums = {
            a: [str(v) for v in p["enum"]]
            for t in tools
            for a, p in t.args_schema.get("properties", {}).items()
            if isinstance(p, dict) and "enum" in p
        }
        for arg, words in value_words.items():
            if arg not in enums:
                continue
            pairs = []
            for value in enums[arg]:
                for w in {value, value.replace("_", " "), *words.get(value, ())}:
                    if w.strip():
                        pairs.append((value, w))
            pairs.sort(key=lambda vw: len(vw[1]), reverse=True)
            self._rx[arg] = [(v, self._compile(w)) for v, w in pairs]
            self._words[arg] = [(v, w.casefold()) for v, w in pairs if _TOKEN.fullmatch(w)]

    @staticmethod
    def _compile(word: str) -> re.Pattern[str]:
        if word.isascii():
            return re.compile(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z]){_VERB_NEXT}", re.I)
        return re.compile(re.escape(word))

    def written(self, arg: str, text: str) -> set[str] | None:
        """The values of ``arg`` whose words ``text`` writes (None: no words known for it)."""
        rules = self._rx.get(arg)
        if rules is None:
            return None
        t = text
        found: set[str] = set()
        for value, rx in rules:
            if rx.search(t):
                found.add(value)
                t = rx.sub(" ", t)
        if not found:  # a typo of one English value word: "reset my emial password"
            tokens = set(_TOKEN.findall(t.casefold()))
            found = {v for v, w in self._words.get(arg, ()) if any(near_typo(x, w) for x in tokens)}
        return found


def near_typo(token: str, word: str) -> bool:
    """Whether ``token`` is a typo of the (case-folded, one-token) English ``word``: two adjacent
    letters swapped (``emial``, words of 4+ letters) or one letter missing or extra (7+ letters:
    ``outlok``); never the word itself, never a substitution (``main`` is no ``mail``)."""
    if token == word or len(word) < 4:
        return False
    if len(token) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(token, word, strict=True)) if a != b]
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and token[diff[0]] == word[diff[1]]
            and token[diff[1]] == word[diff[0]]
        )
    if len(word) < 7 or abs(len(token) - len(word)) != 1:
        return False
    short, long_ = sorted((token, word), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def outside_free_text(masked: str) -> str:
    """The masked request without its slot tokens and the free text perception shows."""
    return to_simplified(_FREE.sub(" ", masked))


def fix_enums(plan: ThoughtPlan, masked: str, words: EnumWords) -> ThoughtPlan:
    """``plan`` with its enum arguments set from the request's words (module doc); ``masked`` is
    perception's masked request."""
    text = outside_free_text(masked)
    needed = {d for s in plan.steps for d in s.dependencies}
    count: dict[str, int] = {}
    for s in plan.steps:
        for a in words.tools[s.tool].args_schema.get("properties", {}) if s.tool in words.tools else ():
            count[a] = count.get(a, 0) + 1
    steps = []
    changed = False
    for s in plan.steps:
        tool = words.tools.get(s.tool)
        if tool is None or s.step_id in needed:
            steps.append(s)
            continue
        required = set(tool.args_schema.get("required", []))
        args: dict[str, Any] = dict(s.arguments)
        for arg, prop in tool.args_schema.get("properties", {}).items():
            if "enum" not in prop or count.get(arg, 0) != 1:
                continue
            found = words.written(arg, text)
            if found is None or len(found) > 1:
                continue
            if found:
                (value,) = found
                if args.get(arg) != value:
                    args[arg] = value
            elif arg not in required and arg in args:
                del args[arg]
        if args != s.arguments:
            s = s.model_copy(update={"arguments": args})
            changed = True
        steps.append(s)
    return plan.model_copy(update={"steps": steps}) if changed else plan
