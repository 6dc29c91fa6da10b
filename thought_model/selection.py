"""Selection chains in the clause step: "refund <AMOUNT1> on my latest delivered order".

A selection phrase names the newest item of one of the user's lists ("my latest delivered
order", "我最近一笔已付款的订单"): a list tool finds it. When the same piece also asks something of
that item with a verb of its own, :func:`split_selection` makes two clauses, the selection and the
rest with the phrase replaced by a pronoun ("refund <AMOUNT1> on it"); the composer then resolves
the pronoun to the list step's id through the registry's extract -> argument graph, and keeps the
selection clause's plan to its list step (:func:`is_selection`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from thought_model.entities import SLOT_TOKEN_RE

_SELECT_EN = re.compile(
    r"\b(?:my|the)\s+(?:very\s+)?(?:latest|newest|most\s+recent(?:ly)?|last)\s+(?:[a-z_\-]+\s+){0,2}?"
    r"(?:order|invoice|expense claim|expense|claim|reimbursement)\b",
    re.I,
)
_SELECT_ZH = re.compile(
    r"我(?:的)?(?:最新|最近|最后|上)(?:的)?(?:一|那|这)?(?:笔|张|个|单|份)?[\u4e00-\u9fff]{0,4}?(?:的)?(?:订单|发票|报销单)"
)


def _zh(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", SLOT_TOKEN_RE.sub("", text)) is not None


def split_selection(piece: str, has_verb: Callable[[str, bool], bool]) -> list[str]:
    """``[selection, rest]`` when ``piece`` selects an item and also asks something of it with a
    verb of its own (``has_verb(text, zh)``: the splitter's lexicons); ``[piece]`` otherwise."""
    zh = _zh(piece)
    m = (_SELECT_ZH if zh else _SELECT_EN).search(piece)
    if m is None:
        return [piece]
    rest = piece[: m.start()] + ("它" if zh else "it") + piece[m.end() :]
    if not SLOT_TOKEN_RE.sub(" ", rest).strip() or not has_verb(rest, zh):
        return [piece]
    left = piece[: m.start()] + piece[m.end() :]
    if not SLOT_TOKEN_RE.search(left) and (
        len(re.sub(r"[\W把帮我给你]", "", left)) <= 2 if zh else len(re.findall(r"[a-z]+", left.lower())) <= 1
    ):
        return [piece]  # "list my newest order", "grab my latest invoice": the selection is the ask
    return [m.group(0), rest.strip()]


def is_selection(masked: str) -> bool:
    """Whether a clause is only a selection phrase (its plan: the list step that finds the item)."""
    t = masked.strip()
    return (_SELECT_ZH if _zh(t) else _SELECT_EN).fullmatch(t) is not None
