"""Chains a contract-defined domain's phrasings are expanded into (:mod:`training.derive`).

* :func:`_chain_templates`: a lookup tool's output feeds the id of another tool's phrasing
  (``list the tickets of {employee}`` -> ``… of {name}``), from ``extract``;
* :func:`_path_templates`: a lookup path an example teaches to a person's email / phone / id
  (``find_user -> get_user_profile -> send_email(to=${t2.email})``) serves every phrasing of its
  last tool that writes one;
* :func:`reattached_templates`: a chain example's second clause after the other phrasings of its
  first tool;
* :func:`latest_templates`: the speaker's newest item of a list tool feeds the tool its id is
  required by (``show my latest invoice``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set

from tao.contracts.domain import Domain
from tao.contracts.tools import ToolSpec
from training.derive_kinds import ME, SlotKind, _Kinds
from training.derive_template import _key, _Template


def _chain_templates(
    templates: list[_Template],
    kinds: _Kinds,
    domain: Domain,
    absent: Set[tuple[str, str]] = frozenset(),
) -> list[_Template]:
    """Chains from ``extract``: a lookup tool (all inputs slots, output = an id argument of another
    tool) feeds every single-step phrasing that writes that id: ``{employee}`` -> ``{name}``;
    ``absent``: ``(tool, output)`` pairs no response sample holds (no chain from them)."""
    out: list[_Template] = []
    singles = [t for t in templates if len(t.steps) == 1]
    for lookup in domain.tools:
        for output in lookup.extract:
            if (lookup.name, output) in absent:
                continue
            looks = [  # a search: its inputs are names / emails / text, never ids
                t
                for t in singles
                if t.steps[0][0] == lookup.name
                and t.steps[0][1]
                and all(
                    isinstance(v, str) and v.startswith("{") and kinds.kind(lookup.name, a).source != "id"
                    for a, v in t.steps[0][1].items()
                )
            ]
            if not looks:
                continue
            for t in singles:
                tool, args, _ = t.steps[0]
                if tool == lookup.name:
                    continue
                hit = [
                    a
                    for a, v in args.items()
                    if a == output
                    and isinstance(v, str)
                    and v.startswith("{")
                    and kinds.kind(tool, a).source == "id"
                ]
                if not hit:
                    continue
                slot = args[hit[0]]
                if t.text.count(slot) != 1:
                    continue
                for lk in looks:
                    if lk.lang != t.lang:
                        continue
                    ((lt, largs, _),) = lk.steps
                    in_keys = [v for v in largs.values()]
                    if len(in_keys) != 1 or in_keys[0] in t.text:
                        continue
                    text = t.text.replace(slot, in_keys[0])
                    new_args = {**args, hit[0]: "${t1." + output + "}"}
                    out.append(_Template(t.lang, text, ((lt, dict(largs), ()), (tool, new_args, ("t1",)))))
    return out


def _person_kind(k: SlotKind, me_kind: str | None) -> bool:
    return k.source in ("email", "phone") or (k.source == "id" and me_kind is not None and k.slot == me_kind)


def _path_templates(templates: list[_Template], kinds: _Kinds, domain: Domain) -> list[_Template]:
    """Chains an example teaches: its steps before the last look a person up from one name
    (``find_user({name}) -> get_user_profile(${t1.user_id})``) and give the last step a person's
    email, phone or id (``send_email(to=${t2.email})``); every one-step phrasing of that last tool
    writing such a value (``send an email to {email}, ...``) is also said with the name in its place
    (``send an email to {name}, ...``), planned through the same lookups. A name stands for a person,
    so only a person's email / phone / id is replaced (an order id is no name)."""
    me_kind = domain.lexicon.me_kind
    paths: dict[str, tuple[tuple, str, str, str, tuple[str, ...]]] = {}
    for t in templates:
        if len(t.steps) < 3:  # one lookup hop: _chain_templates, from ``extract``
            continue
        *prefix, (tool, args, deps) = t.steps
        slots = [v for _, a, _ in prefix for v in a.values() if isinstance(v, str) and v.startswith("{")]
        if len(slots) != 1 or any(
            isinstance(v, str) and v.startswith("{") for _, a, _ in prefix[1:] for v in a.values()
        ):
            continue
        name_slot = slots[0]
        if kinds.kinds[name_slot[1:-1].rstrip("0123456789")].source != "name":
            continue
        last = f"${{t{len(prefix)}."
        refs = [(a, v) for a, v in args.items() if isinstance(v, str) and v.startswith(last)]
        if len(refs) != 1 or deps != (f"t{len(prefix)}",):
            continue
        arg, ref = refs[0]
        if not _person_kind(kinds.kind(tool, arg), me_kind):
            continue
        paths.setdefault(repr((prefix, tool, arg, ref)), (tuple(prefix), name_slot, tool, arg, (ref,)))
    out: list[_Template] = []
    for prefix, name_slot, tool, arg, (ref,) in paths.values():
        for s in templates:
            if len(s.steps) != 1 or s.steps[0][0] != tool:
                continue
            _, sargs, _ = s.steps[0]
            slot = sargs.get(arg)
            if not (isinstance(slot, str) and slot.startswith("{")) or s.text.count(slot) != 1:
                continue
            if name_slot in s.text or not _person_kind(kinds.kinds[slot[1:-1].rstrip("0123456789")], me_kind):
                continue
            steps = (*prefix, (tool, {**sargs, arg: ref}, (f"t{len(prefix)}",)))
            out.append(_Template(s.lang, s.text.replace(slot, name_slot), steps))
    return out


_THEN = {
    "zh": re.compile(r"[，,；;。]\s*"),
    "en": re.compile(r"(?:,\s*(?:and\s+|then\s+)?|;\s*|\.\s+|\s+(?:and|then)\s+)", re.I),
}
RECOMBINED_KEYS = 2
"""Other plans of a chain's first tool its second clause is attached to (:func:`reattached_templates`)."""


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{[a-z]+[0-9]*\}", text))


def _acts(clause: str, lang: str) -> bool:
    """Whether a clause says what to do before its first value (``申请更换，原因是{textreason}``,
    ``then tell me its status``), not only a cue for that value (``原因是{textreason}``)."""
    lead = re.split(r"\{[a-z]", clause, maxsplit=1)[0]
    if lang == "zh":
        return len(re.findall(r"[\u4e00-\u9fff]", lead)) >= 4
    return len(re.findall(r"[A-Za-z]+", lead)) >= 2


_THIRD = re.compile(r"[他她]|(?<![A-Za-z])(?:he|she|him|his|her|them|their)(?![A-Za-z])", re.I)
"""A clause about another person ("帮他申请更换") never follows the speaker's own first clause."""


def reattached_templates(templates: list[_Template], registry: Mapping[str, ToolSpec]) -> list[_Template]:
    """A two-step chain example's second clause after the other phrasings of its first tool:
    ``列出我已发货的订单，然后查一下最新那单的物流`` -> ``看看我上个月的订单，然后查一下最新那单的物流``
    (``list_orders`` as that phrasing plans it, then the same ``get_logistics(${t1.order_id})``).

    The clause is the text after the chain's first separator that writes none of the first step's
    own values, says what to do (:func:`_acts`: not ``原因是{textreason}`` alone) and that some
    phrasing takes (the longest clause: ``申请更换，原因是…``, not
    ``原因是…``); the phrasings taken are the first tool's one-step ones writing every value the
    second step shares with the first (``Find a room for {count} {when} for {dur}`` + ``and book
    it``): those of the chain's own first-step plan, and of :data:`RECOMBINED_KEYS` other plans of
    that tool (the most written ones), so a chain does not become dozens of intents."""
    singles: dict[tuple[str, str], dict[tuple, list[_Template]]] = {}
    for t in templates:
        if len(t.steps) == 1 and "[" not in t.text:  # the generic phrasings are no example's
            singles.setdefault((t.lang, t.steps[0][0]), {}).setdefault(_key(t.steps, registry), []).append(t)
    out: list[_Template] = []
    for t in templates:
        if len(t.steps) != 2 or t.steps[1][2] != ("t1",) or "[" in t.text:
            continue
        (tool_a, args_a, _), (_, args_b, _) = t.steps
        own_a = {v for v in args_a.values() if isinstance(v, str) and v.startswith("{")}
        need = {v for v in args_b.values() if isinstance(v, str) and v.startswith("{")}
        cuts = [
            m
            for m in _THEN[t.lang].finditer(t.text)
            if not (_placeholders(t.text[m.end() :]) & (own_a - need))
            and own_a <= _placeholders(t.text[: m.start()]) | need
            and _acts(t.text[m.end() :], t.lang)
        ]
        by_key = singles.get((t.lang, tool_a), {})
        own = _key(((tool_a, args_a, ()),), registry)
        keys = [own] if own in by_key else []
        keys += sorted((k for k in by_key if k != own), key=lambda k: -len(by_key[k]))[:RECOMBINED_KEYS]
        for cut in cuts:  # the first cut some phrasing takes: the longest clause
            sep, clause = t.text[cut.start() : cut.end()], t.text[cut.end() :]
            shared = need - _placeholders(clause)
            made = [
                _Template(t.lang, s.text.rstrip("。.!！?？ ") + sep + clause, (s.steps[0], t.steps[1]))
                for k in keys
                for s in by_key[k]
                if shared <= _placeholders(s.text)
                and not _placeholders(s.text) & _placeholders(clause)
                and not (ME in s.steps[0][1].values() and _THIRD.search(clause))
            ]
            if made:
                out += made
                break
    return out


LATEST = {
    "zh": ("我最新的{n}", "我最近的{n}", "我最新那个{n}", "我最近那个{n}"),
    "en": ("my latest {n}", "my most recent {n}", "my last {n}", "my newest {n}"),
}
"""How a request names the speaker's newest item of a list (:func:`latest_templates`)."""
_EN_STOP = frozenset("a an the of for to on in at is it my me and or with from by this that".split())


def _noun_before(texts: Sequence[str], slot: str, lang: str) -> str | None:
    """The word the phrasings of one tool most often write right before ``slot`` (``订单{order}``,
    ``order {order}``): two of them or more, else None."""
    counts: dict[str, int] = {}
    for text in texts:
        i = text.find(slot)
        if i <= 0:
            continue
        before = text[:i].rstrip(" ")
        if lang == "zh":
            run = re.search(r"[\u4e00-\u9fff]+$", before)
            found = {run.group(0)[-n:] for n in range(2, 5) if run and len(run.group(0)) >= n}
        else:
            m = re.search(r"([A-Za-z]+)$", before)
            found = {m.group(1).lower()} if m and m.group(1).lower() not in _EN_STOP else set()
        for w in found:
            counts[w] = counts.get(w, 0) + 1
    best = sorted(counts.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))
    return best[0][0] if best and best[0][1] >= 2 else None


def latest_templates(
    templates: list[_Template], kinds: _Kinds, domain: Domain, registry: Mapping[str, ToolSpec]
) -> list[_Template]:
    """Chains from ``extract`` for the speaker's newest item: a list tool whose only required
    argument is the session user's id and whose output is a required id of another tool
    (``list_invoices -> invoice_id -> get_invoice``) feeds it, said as that tool's phrasings with
    the id's noun and slot replaced by the newest one (``show invoice {invoice}`` -> ``show my
    latest invoice``; ``发票{invoice}的详情`` -> ``我最新的发票的详情``). The noun is the word its
    phrasings most often write before the id (:func:`_noun_before`; in English a word of the id's
    or the list's name: ``replace {asset}`` names no asset); a tool whose phrasings have none gets
    no such chain."""
    me_kind = domain.lexicon.me_kind
    out: list[_Template] = []
    singles = [t for t in templates if len(t.steps) == 1 and "[" not in t.text]
    for lister in domain.tools:
        req = lister.args_schema.get("required", [])
        if len(req) != 1 or not _person_kind(kinds.kind(lister.name, req[0]), me_kind):
            continue
        for output in lister.extract:
            if output == req[0]:
                continue
            for tool in domain.tools:
                if tool.name == lister.name or output not in tool.args_schema.get("required", []):
                    continue
                if kinds.kind(tool.name, output).source != "id":
                    continue
                named = {w.rstrip("s") for w in re.split(r"[_\W]+", f"{output} {lister.name}".lower()) if w}
                for lang in ("zh", "en"):
                    mine = [t for t in singles if t.lang == lang and t.steps[0][0] == tool.name]
                    slots = {t.steps[0][1].get(output) for t in mine}
                    for slot in sorted(s for s in slots if isinstance(s, str) and s.startswith("{")):
                        texts = [t.text for t in mine if t.steps[0][1].get(output) == slot]
                        noun = _noun_before(texts, slot, lang)
                        if noun is None or (lang == "en" and noun.rstrip("s") not in named):
                            continue  # an English noun names the id or the list ("replace" does not)
                        mine_ = r"(?:\bmy\s+)?" if lang == "en" else r"(?:我的|我)?"
                        said = re.compile(mine_ + re.escape(noun) + r" ?" + re.escape(slot), re.I)
                        for j, t in enumerate(t for t in mine if t.steps[0][1].get(output) == slot):
                            if t.text.count(slot) != 1 or not said.search(t.text):
                                continue
                            phrase = LATEST[lang][j % len(LATEST[lang])].format(n=noun)
                            text = said.sub(lambda _m, p=phrase: p, t.text, count=1)
                            _, args, _ = t.steps[0]
                            steps = (
                                (lister.name, {req[0]: ME}, ()),
                                (tool.name, {**args, output: "${t1." + output + "}"}, ("t1",)),
                            )
                            out.append(_Template(lang, text, steps))
    return out
