"""The problem said first, the ask after it, with no cue: a phrasing operator of
:mod:`training.derive`.

People who report a problem rarely write "because": ``屏幕有一条竖线，帮我申请更换``, ``screen cracked
when I dropped it, request a replacement``, ``Excel keeps freezing, open a ticket``. The examples a
user writes usually give the value after a cue (``…申请更换，原因是{textreason}``, ``… because
{textreason}``). :func:`described_first_templates` writes each such phrasing also with the free text
first and the cue gone (``{textreason}，申请更换``). The generator labels the free text of its rows
(``Phrasing.label_free_text``); at serving, the composer's uncued-description pass
(:mod:`thought_model.uncued_text`) gives the model the same labelled prompt once the request's
description is found, so these rows are what that re-decode reads.
"""

from __future__ import annotations

import re

from training.derive_template import _Template

_CUES = {
    "zh": r"(?:原因是|理由是|原因[:：]|理由[:：]|因为|问题是|问题[:：]|故障是|情况是|现象是)",
    "en": r"(?:because|since|the reason is|reason is|reason:|the problem is|problem:|issue:)",
}
"""Words that only introduce a reason or a description, in any domain (the value follows them)."""
_SEP = {"zh": r"\s*[，,]\s*", "en": r"\s*,\s*|\s+"}
_CLAUSE = {"zh": re.compile(r"[，,；;]"), "en": re.compile(r",\s|;\s")}


def described_first_templates(templates: list[_Template], text_kinds: set[str]) -> list[_Template]:
    """For each phrasing whose last words are a cue and a free-text slot (``{asset}申请更换，原因是
    {textreason}``, ``request a replacement for {asset} because {textreason}``): the slot first,
    then the ask without the cue (``{textreason}，{asset}申请更换``). Leading clauses of the ask with
    no slot are dropped (they describe the problem too: ``我的笔记本坏了，申请更换，原因是…`` ->
    ``{textreason}，申请更换``); an ask left with more than one clause is skipped (it would read as
    two descriptions). ``text_kinds``: the slot kinds that are free text."""
    out: list[_Template] = []
    seen = {(t.lang, t.text) for t in templates}
    for t in templates:
        if t.lang not in _CUES or "[" in t.text:
            continue
        m = re.search(
            rf"^(?P<ask>.+?)(?:{_SEP[t.lang]})(?:{_CUES[t.lang]})\s*(?P<slot>\{{([a-z]+)[0-9]*\}})[。.!！]*$",
            t.text,
            re.I,
        )
        if m is None or m.group(3) not in text_kinds:
            continue
        clauses = [c.strip() for c in _CLAUSE[t.lang].split(m.group("ask")) if c.strip()]
        while len(clauses) > 1 and "{" not in clauses[0]:
            clauses.pop(0)
        if len(clauses) != 1 or len(clauses[0]) < 2 or m.group("slot") in clauses[0]:
            continue
        sep = "，" if t.lang == "zh" else ", "
        text = m.group("slot") + sep + clauses[0]
        if (t.lang, text) not in seen:
            seen.add((t.lang, text))
            out.append(_Template(t.lang, text, t.steps))
    return out


__all__ = ["described_first_templates"]
