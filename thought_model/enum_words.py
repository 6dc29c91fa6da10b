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
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
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
        for arg in enums:  # an enum argument without words is written by its values themselves
            words = value_words.get(arg, {})
            pairs = []
            for value in enums[arg]:
                given = {value, value.replace("_", " "), *words.get(value, ())}
                given |= zh_regional(given)
                for w in given | zh_stems(given):
                    if w.strip():
                        pairs.append((value, w))
            pairs.sort(key=lambda vw: len(vw[1]), reverse=True)
            self._rx[arg] = [(v, self._compile(w)) for v, w in pairs]
            self._words[arg] = [(v, w.casefold()) for v, w in pairs if _TOKEN.fullmatch(w)]

    @staticmethod
    def _compile(word: str) -> re.Pattern[str]:
        if word.isascii():  # "in progress" also "in-progress" / "in_progress" / "inprogress"
            body = r"[\s_-]*".join(re.escape(p) for p in _PARTS.split(word.strip()))
            return re.compile(rf"(?<![A-Za-z]){body}(?![A-Za-z]){_VERB_NEXT}", re.I)
        return re.compile(re.escape(word))

    def spans(self, arg: str, text: str) -> list[tuple[int, int, str]]:
        """``(start, end, value)`` of each word of ``arg`` that ``text`` writes, in text order
        (longest words first, a found word blanked out so a shorter one inside it is not found)."""
        t = text
        out: list[tuple[int, int, str]] = []
        for value, rx in self._rx.get(arg, ()):
            for m in rx.finditer(t):
                out.append((m.start(), m.end(), value))
            t = rx.sub(lambda m: " " * len(m.group(0)), t)
        return sorted(out)

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


_PARTS = re.compile(r"[\s_-]+")
_ZH_HEAD = ("已经", "已", "正在", "还在")
_ZH_TAIL = ("了的", "的", "中", "了", "着")


def zh_regional(words: Iterable[str]) -> set[str]:
    """Taiwan's words for the Chinese ``words``, in simplified characters as perception writes
    them (OpenCC ``s2twp``, then ``t2s``): ``硬件`` -> ``硬体`` (``硬體``), ``网络`` -> ``网路``,
    ``软件`` -> ``软体``; a request in traditional Chinese writes a value in those."""
    out: set[str] = set()
    for w in words:
        if not w.isascii():
            tw = to_simplified(_s2twp().convert(w))
            if tw != w:
                out.add(tw)
    return out


@lru_cache(maxsize=1)
def _s2twp():  # type: ignore[no-untyped-def]
    import opencc

    return opencc.OpenCC("s2twp")


def zh_stems(words: Iterable[str]) -> set[str]:
    """Chinese value words without their aspect marks (``已解决`` -> ``解决``, ``等待中`` -> ``等待``,
    ``关闭的`` -> ``关闭``), stems of two characters or more: a request writes the same state as
    ``我已经解决的工单`` or ``处于等待状态``. A longer word of another value still wins where both
    match (``未解决`` is blanked before ``解决`` is looked for)."""
    out: set[str] = set()
    for w in words:
        if w.isascii():
            continue
        stem = w
        for _ in range(2):
            stem = next((stem[len(h) :] for h in _ZH_HEAD if stem.startswith(h)), stem)
            stem = next((stem[: -len(t)] for t in _ZH_TAIL if stem.endswith(t)), stem)
        if stem != w and len(stem) >= 2:
            out.add(stem)
    return out


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
