"""Values an example writes in other words than the plan's value (dates, times, amounts,
durations), array arguments and city pools of a contract-defined domain (``training.derive``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tao.contracts.domain import RequestExample
from tao.domains import load_domain, reference_domain
from tao.domains.contract import ContractError, contract_domain
from tao.domains.contract_file import ContractFileError, examples_from_jsonl
from training.derive import derive_phrasing, example_template, same_example_value
from training.derive_kinds import _Kinds
from training.generate import GenConfig, iter_split

FROM_CONTRACTS = "tao.domains.reference.from_contracts:registry"


@pytest.fixture(scope="module")
def ref_contracts():
    ref = reference_domain()
    return contract_domain("refc", ref.tools, (), mock_handlers=ref.mock_handlers, mock_data=ref.mock_data)


def _kinds(dom):
    return _Kinds(dom), dom.registry()


def test_date_fields_get_day_period_and_when_kinds(ref_contracts) -> None:
    kinds, _ = _kinds(ref_contracts)
    assert kinds.kind("list_orders", "period").name == "period"  # takes a range
    assert kinds.kind("get_weather", "date").name == "day"
    assert kinds.kind("submit_expense", "date").name == "day"
    assert kinds.kind("find_meeting_room", "start").name == "when"  # a start takes a time of day
    assert kinds.kind("book_meeting_room", "start").name == "when"
    assert kinds.kind("book_meeting_room", "duration_min").name == "dur"
    # one kind per shape: no "periodx" copies (the generator samples day / period / when by name)
    assert not [n for n in kinds.kinds if n.rstrip("x") in ("day", "period", "when") and n.endswith("x")]


@pytest.mark.parametrize(
    ("found", "value", "same"),
    [
        ("@tomorrow T15:00", "2026-03-05 15:00", True),
        ("@tomorrow T15:00", "@tomorrow T15:00", True),
        ("@last_month", "2026-02-01/2026-02-28", True),
        ("2026-02", "2026-02-01/2026-02-28", True),
        ("@tomorrow", "2026-03-06", False),
        (42.5, 42.5, True),
        (90, 60, False),
        ("@not_a_symbol", "2026-03-05", False),
    ],
)
def test_same_example_value(found, value, same) -> None:
    assert same_example_value(found, value) is same


def test_dates_times_amounts_and_durations_written_in_words_become_slots(ref_contracts) -> None:
    kinds, reg = _kinds(ref_contracts)
    ex = RequestExample.of(
        "明天下午3点找个能坐6个人的会议室，开1个半小时",
        "zh",
        "find_meeting_room",
        start="2026-03-05 15:00",
        capacity=6,
        duration_min=90,
    )
    t = example_template(ex, kinds, reg)
    assert t.text == "{when}找个能坐{count}的会议室，开{dur}"
    assert t.steps[0][1] == {"start": "{when}", "capacity": "{count}", "duration_min": "{dur}"}
    money = RequestExample.of(
        "报销午餐 ¥42.50，上个月15号的",
        "zh",
        "submit_expense",
        amount=42.5,
        category="meal",
        date="2026-02-15",
        description="午餐",
    )
    t2 = example_template(money, kinds, reg)
    assert "{amount}" in t2.text and "¥" not in t2.text  # the currency goes with the slot
    assert "{day}" in t2.text and "上个月" not in t2.text
    # a range: the duration is read from the whole text, before its start became a slot
    rng = RequestExample.of(
        "Can you book R118 for 2026-03-13 from 1 to 3pm?",
        "en",
        "book_meeting_room",
        room_id="R118",
        start="2026-03-13 13:00",
        duration_min=120,
    )
    assert example_template(rng, kinds, reg).steps[0][1]["duration_min"] == "{dur}"
    with pytest.raises(ContractError, match="is not written in the text"):
        example_template(
            RequestExample.of("明天的天气", "zh", "get_weather", city="北京", date="2026-03-05"), kinds, reg
        )
    with pytest.raises(ContractError, match="is not written in the text"):  # the wrong day
        example_template(
            RequestExample.of("北京后天的天气", "zh", "get_weather", city="北京", date="2026-03-05"),
            kinds,
            reg,
        )


def test_array_items_are_slots_of_their_kind(ref_contracts) -> None:
    kinds, reg = _kinds(ref_contracts)
    ex = RequestExample.of(
        'create an event "Design sync" next Friday at 10am for 30 minutes and invite amy@acme.io and bob@acme.io',
        "en",
        "create_calendar_event",
        title="Design sync",
        start="2026-03-13 10:00",
        duration_min=30,
        attendees=["amy@acme.io", "bob@acme.io"],
    )
    t = example_template(ex, kinds, reg)
    assert t.steps[0][1]["attendees"] == ["{email}", "{email2}"]
    assert "{email} and {email2}" in t.text
    people = RequestExample.of(
        "schedule Sync tomorrow at 9am for 15 minutes with Laura Chen",
        "en",
        "create_calendar_event",
        title="Sync",
        start="2026-03-05 09:00",
        duration_min=15,
        attendees=["Laura Chen"],
    )
    assert example_template(people, kinds, reg).steps[0][1]["attendees"] == ["{name}"]


def test_an_array_of_objects_is_a_clear_error() -> None:
    from tao.contracts import ToolSpec

    tool = ToolSpec(
        name="put_rows",
        description="store rows",
        args_schema={
            "type": "object",
            "properties": {"rows": {"type": "array", "items": {"type": "object"}}},
        },
    )
    dom = contract_domain("rows", [tool], ())
    with pytest.raises(ContractError, match=r"put_rows.*rows.*no slot kind"):
        derive_phrasing(dom)


def test_city_pools_come_from_the_gazetteer_without_a_domain_list(ref_contracts) -> None:
    kinds, _ = _kinds(ref_contracts)
    city = kinds.kind("get_weather", "city")
    assert len(city.pool["en"]) >= 100 and "Tokyo" in city.pool["en"]
    assert len(city.pool["zh"]) >= 100 and "东京" in city.pool["zh"]


def test_reference_from_contracts_loads_its_examples_and_generates_rows() -> None:
    dom = load_domain(FROM_CONTRACTS)
    assert dom.phrasing is None and len(dom.examples) > 400
    per: dict[tuple[str, str], int] = {}
    for ex in dom.examples:
        if len(ex.steps) == 1:
            per[(ex.steps[0][0], ex.lang)] = per.get((ex.steps[0][0], ex.lang), 0) + 1
    assert max(per.values()) <= 10  # "a few examples": at most ten per tool and language
    assert {t for t, _ in per} == {t.name for t in dom.tools}
    kinds, reg = _kinds(dom)
    for ex in dom.examples:  # every example's values are found (no ContractError)
        example_template(ex, kinds, reg)
    rows = list(iter_split("train", 400, GenConfig(n_train=400, seed=3), domain=dom))
    assert len(rows) >= 300
    tools = {s["tool"] for r in rows if "steps" in r["expected"] for s in r["expected"]["steps"]}
    assert {"find_meeting_room", "book_meeting_room", "create_calendar_event", "submit_expense"} <= tools
    dated = [r for r in rows if "<DATE1>" in r["target"]]
    assert len(dated) >= 20


def test_examples_from_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    tools = reference_domain().tools
    f = tmp_path / "ex.jsonl"
    good = {
        "text": "查下订单 260304120033445566",
        "lang": "zh",
        "steps": [{"tool": "get_order_status", "args": {"order_id": "260304120033445566"}}],
    }
    f.write_text(
        json.dumps(good, ensure_ascii=False)
        + "\n\n"
        + '{"text": "x", "lang": "zh", "steps": [{"tool": "nope"}]}\n'
    )
    with pytest.raises(ContractFileError, match=r"/3/steps/0/tool"):
        examples_from_jsonl(f, tools)
    f.write_text(json.dumps(good, ensure_ascii=False) + "\n{oops\n")
    with pytest.raises(ContractFileError, match=r"/2"):
        examples_from_jsonl(f, tools)
    f.write_text(json.dumps(good, ensure_ascii=False) + "\n")
    (ex,) = examples_from_jsonl(f, tools)
    assert ex.steps == (("get_order_status", {"order_id": "260304120033445566"}),)


def test_a_fan_out_value_is_never_dropped_as_missing_and_no_preposition_dangles(ref_contracts) -> None:
    import random

    from training.derive import _Template, drop_slot

    reg = ref_contracts.registry()
    fan = _Template(
        "en",
        "weather in {city} and {city2} on {day}",
        (
            ("get_weather", {"city": "{city}", "date": "{day}"}, ()),
            ("get_weather", {"city": "{city2}", "date": "{day}"}, ()),
        ),
    )
    for seed in range(10):
        assert drop_slot(fan, reg, random.Random(seed)) is None  # a shorter list, not a gap
    one = _Template(
        "en",
        "show the agenda of {user} for {day}",
        (("list_user_calendar_events", {"user_id": "{user}", "date": "{day}"}, ()),),
    )
    texts = {d.text for s in range(20) if (d := drop_slot(one, reg, random.Random(s)))}
    assert "show the agenda of {user}" in texts  # "for" goes with the dropped day
    assert texts <= {"show the agenda of {user}", "show the agenda for {day}"}
    assert all(not t.endswith((" for", " of")) for t in texts)


def test_a_filler_beside_a_lone_open_ended_slot_never_crashes() -> None:
    import random

    from training.fillers import add_fillers

    for seed in range(50):  # "{name}" alone has no cut point between words (it raised IndexError)
        out = add_fillers("{name}", "en", random.Random(seed), prob=1.0)
        assert "{name}" in out


def test_workplace_leave_dates_are_day_slots() -> None:
    rows = list(
        iter_split(
            "train", 300, GenConfig(n_train=300, seed=2), domain=load_domain("tao.domains.workplace:registry")
        )
    )
    leave = [r for r in rows if r["intent"].startswith("request_leave") and "steps" in r["expected"]]
    assert leave, "no leave request generated (its dates were free text before)"
    for r in leave:
        args = r["expected"]["steps"][0]["arguments"]
        assert str(args["start_date"])[:1] in "2@" and str(args["end_date"])[:1] in "2@"


def test_derived_phrasing_does_not_depend_on_string_hashing() -> None:
    """The same seed gives the same phrasings in every process: an enum's surfaces of one length
    were tried in set order, so PYTHONHASHSEED changed which one became a slot and every
    ``tao train --seed S`` of a user registry drew other rows (found at stop 40)."""
    import hashlib
    import os
    import subprocess
    import sys

    code = (
        "from tao.domains import load_domain; from training.derive import derive_phrasing; "
        "ph = derive_phrasing(load_domain('tao.domains.helpdesk:registry')); "
        "print(repr([(i.name, i.steps, i.zh, i.en) for i in ph.intents]))"
    )
    outs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        res = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
        )
        assert res.returncode == 0, res.stderr[-2000:]
        outs.add(hashlib.sha256(res.stdout.encode()).hexdigest())
    assert len(outs) == 1


def test_a_free_text_value_read_as_a_phone_keeps_its_complete_rows() -> None:
    """update_user_profile's ``value`` (a plain string) given "13912345678": perception reads a
    PHONE, not a TEXT, so every complete row was dropped and the derived intent trained on its
    insufficient rows only (update_user_profile_me: 100% insufficient). The phone slot fills it,
    as the plan grammar allows for a free-text field."""
    import random
    from dataclasses import replace

    from training.derive import with_phrasing
    from training.generate import _Drop, make_example, template_ids

    base = load_domain(FROM_CONTRACTS)  # without the learned words of ``field``: phone is implied
    base = replace(base, value_words={a: t for a, t in base.value_words.items() if a != "field"})
    dom = with_phrasing(base, seed=1234)
    ph = dom.phrasing
    assert ph is not None
    spec = next(
        i
        for i in ph.intents
        if i.steps[0][0] == "update_user_profile"
        and i.steps[0][1].get("field") == "phone"
        and len(i.steps) == 1
    )
    cfg = GenConfig(seed=1, user_known_prob=1.0)
    rng = random.Random(0)
    plans = []
    for _ in range(20):
        sampler = ph.value_sampler(lang="zh", heldout=False, rng=rng)
        train, _ = template_ids(spec, "zh", ph.held_mark)
        try:
            row = make_example(
                [(spec, rng.choice(train))], "zh", sampler, rng, cfg, dom.registry(), domain=dom
            )
        except _Drop:
            continue
        plans.append(json.loads(row["target"]))
    assert len(plans) >= 15
    assert all(p["steps"][0]["arguments"]["value"].startswith("<PHONE") for p in plans)


def test_uncued_free_text_of_a_derived_phrasing_is_labelled_not_dropped() -> None:
    """ "Cancel order {order}, {reason}" (a helper's example, no cue): perception finds no reason, so
    every complete row was dropped (190 derived reference phrasings lost half their rows or more).
    The generator labels the free text it wrote (``Phrasing.label_free_text``)."""
    import random

    from training.derive import with_phrasing
    from training.generate import _Drop, make_example, template_ids

    dom = with_phrasing(load_domain(FROM_CONTRACTS), seed=1234)
    ph = dom.phrasing
    assert ph is not None and ph.label_free_text
    spec, t = next(
        (i, k)
        for i in ph.intents
        if i.steps[0][0] == "cancel_order" and len(i.steps) == 1
        for k in template_ids(i, "en", ph.held_mark)[0]
        if i.en[k].lower().startswith("cancel order {order}, {text")
    )
    rng = random.Random(0)
    kept = []
    for _ in range(20):
        sampler = ph.value_sampler(lang="en", heldout=False, rng=rng)
        cfg = GenConfig(seed=1, user_known_prob=1.0, noise=0.0)
        try:
            kept.append(make_example([(spec, t)], "en", sampler, rng, cfg, dom.registry(), domain=dom))
        except _Drop:
            pass
    assert len(kept) >= 15
    assert all("<TEXT1>" in r["prompt"] and '"reason":"<TEXT1>"' in r["target"] for r in kept)


def test_a_plan_the_examples_write_in_one_language_gets_no_rows_in_the_other() -> None:
    """50 of the 117 derived reference intents had an English list made of Chinese phrasings
    (filled with English values: "帮我看看Anthony Marshall上个月已开出来的发票", or dropped rows). Such
    an intent now has no phrasing in the language its examples lack, and the generator draws each
    row's intent among those written in the row's language."""
    import re

    from training.derive import with_phrasing

    dom = with_phrasing(load_domain(FROM_CONTRACTS), seed=1234)
    ph = dom.phrasing
    assert ph is not None
    cjk = re.compile(r"[\u4e00-\u9fff]")
    assert not any(cjk.search(t) for i in ph.intents for t in i.en)
    assert any(not i.en for i in ph.intents) and all(i.zh or i.en for i in ph.intents)
    rows = list(iter_split("train", 200, GenConfig(seed=3, compose_prob=0.3), domain=dom))
    assert not any(r["lang"] == "en" and cjk.search(r["request"]) for r in rows)
    combos = list(iter_split("heldout_combos", 20, GenConfig(seed=3), domain=dom))
    assert len(combos) == 20


def test_an_enum_word_is_never_found_inside_a_placed_slot(ref_contracts) -> None:
    """``email`` (the enum value of ``field``) is no word of the ``{email}`` slot placed before it:
    the value is implied (a constant), not written twice as ``{{field}}``."""
    kinds, reg = _kinds(ref_contracts)
    ex = RequestExample.of(
        "请将用户U10234567的邮箱更新为 new.mail@example.com",
        "zh",
        "update_user_profile",
        user_id="U10234567",
        field="email",
        value="new.mail@example.com",
    )
    t = example_template(ex, kinds, reg)
    assert "{{" not in t.text and "}}" not in t.text
    assert t.steps[0][1]["field"] == "email"
    assert t.text.count("{") == 2  # the user and the value
