"""The reference domain's phrasing for the training generator (``training.generate``): intents with
their plans and request templates (:mod:`.intents`, :mod:`.intents_extra`, :mod:`.templates`),
composition connectors, and the slot-value sampler (:mod:`.values`)."""

from __future__ import annotations

from tao.contracts.domain import Phrasing
from tao.domains.reference.phrasing.intents import CONNECTORS, INTENTS, TRAIN_CONNECTORS
from tao.domains.reference.phrasing.intents_extra import HELD_MARK
from tao.domains.reference.phrasing.values import ValueSampler

SLOT_TYPE = {
    "order": "ORDER",
    "user": "USER",
    "inv": "INV",
    "exp": "EXP",
    "room": "ROOM",
    "email": "EMAIL",
    "phone": "PHONE",
    "amount": "AMOUNT",
    "day": "DATE",
    "period": "DATE",
    "when": "DATE",
    "dur": "DUR",
    "count": "NUM",
    "city": "CITY",
    "name": "NAME",
    "reason": "TEXT",
    "title": "TEXT",
    "subject": "TEXT",
    "body": "TEXT",
    "desc": "TEXT",
    "etitle": "TEXT",
    "wkend": "DATE",  # a weekend, fills {day}
    "span": "DATE",  # last / next N days, fills {period}
    "range": "DATE",  # a clock range: fills {when} (DATE) and {dur} (DUR), see training.generate
}
"""Template placeholder kind -> the perception slot type its value lands in."""
ENUM_KINDS = frozenset({"status", "category", "invstatus", "expstatus"})

PHRASING = Phrasing(
    intents=INTENTS,
    connectors=CONNECTORS,
    train_connectors=TRAIN_CONNECTORS,
    slot_types=SLOT_TYPE,
    enum_kinds=ENUM_KINDS,
    value_sampler=ValueSampler,
    held_mark=HELD_MARK,
)
