"""Insufficient-context phrasings of a derived domain (issue #15): the session user's id kind is
never dropped, a dangling cue goes with the dropped slot, and all required values can be dropped."""

from __future__ import annotations

import random

from tao.domains import load_domain
from training.derive import _Template, derive_phrasing, drop_slot


def _reg():
    return {t.name: t for t in load_domain("tao.domains.helpdesk:registry").tools}


TICKET = (
    ("create_ticket", {"employee_id": "{employee}", "category": "{category}", "summary": "{text}"}, ()),
)


def test_a_dangling_cue_goes_with_the_dropped_slot() -> None:
    t = _Template("zh", "帮{employee}开个{category}工单，问题是{text}", TICKET)
    out = drop_slot(t, _reg(), random.Random(0), keep={"employee"}, every=True)
    assert out is not None and out.text == "帮{employee}开个工单"


def test_the_session_users_kind_is_never_dropped() -> None:
    steps = (("list_tickets", {"employee_id": "{employee}"}, ()),)
    t = _Template("en", "list the tickets of {employee}", steps)
    assert drop_slot(t, _reg(), random.Random(0), keep={"employee"}) is None
    assert drop_slot(t, _reg(), random.Random(0)) is not None


def test_every_needs_two_slots() -> None:
    steps = (("reset_password", {"employee_id": "<ME>", "system": "{system}"}, ()),)
    t = _Template("en", "reset my {system} password", steps)
    assert drop_slot(t, _reg(), random.Random(0), every=True) is None
    one = drop_slot(t, _reg(), random.Random(0))
    assert one is not None and one.text == "reset my password"


def test_derived_helpdesk_has_a_bare_ticket_request() -> None:
    ph = derive_phrasing(load_domain("tao.domains.helpdesk:registry"), seed=1234)
    texts = {x for i in ph.intents if i.steps[0][0] == "create_ticket" for x in i.zh + i.en}
    assert any("{" not in x and "工单" in x for x in texts)  # "帮我提个工单": every value dropped
    # no dropped phrasing leaves a cue dangling at its end
    assert not any(
        x.rstrip().endswith(("问题是", "because", "原因是")) for i in ph.intents for x in i.zh + i.en
    )
