"""The problem said first, the ask after it (training.derive_described, issue #15): a phrasing
whose value follows a cue is also written with the value first and no cue; the speaker's own
chain never takes a clause about another person."""

from __future__ import annotations

from tao.domains import load_domain
from training.derive import _Template, derive_phrasing
from training.derive_chains import reattached_templates
from training.derive_described import described_first_templates

REPLACE = ("request_device_replacement", {"asset_tag": "{asset}", "reason": "{textreason}"}, ())
CHAIN = (
    ("list_devices", {"employee_id": "<ME>"}, ()),
    ("request_device_replacement", {"asset_tag": "${t1.asset_tag}", "reason": "{textreason}"}, ("t1",)),
)


def test_the_value_after_a_cue_also_comes_first_without_it() -> None:
    got = described_first_templates(
        [
            _Template("zh", "{asset}申请更换，原因是{textreason}", (REPLACE,)),
            _Template("en", "request a replacement for {asset} because {textreason}", (REPLACE,)),
            _Template("en", "replace {asset}, reason: {textreason}", (REPLACE,)),
        ],
        {"textreason"},
    )
    assert [t.text for t in got] == [
        "{textreason}，{asset}申请更换",
        "{textreason}, request a replacement for {asset}",
        "{textreason}, replace {asset}",
    ]
    assert all(t.steps == (REPLACE,) for t in got)


def test_a_leading_clause_without_a_value_is_dropped_and_two_clauses_are_skipped() -> None:
    """``我的笔记本坏了`` describes the problem too; ``{asset} is too old, please replace it`` would
    read as two descriptions."""
    got = described_first_templates(
        [
            _Template("zh", "我的笔记本坏了，申请更换，原因是{textreason}", CHAIN),
            _Template(
                "en", "{asset} is too old and slow, please replace it because {textreason}", (REPLACE,)
            ),
        ],
        {"textreason"},
    )
    assert [(t.text, t.steps) for t in got] == [("{textreason}，申请更换", CHAIN)]


def test_only_a_free_text_slot_at_the_end_after_a_cue() -> None:
    """A name after "because" is no description; a value in the middle stays where it is."""
    got = described_first_templates(
        [
            _Template("en", "email {name} because {name2}", (REPLACE,)),
            _Template("zh", "原因是{textreason}，{asset}申请更换", (REPLACE,)),
            _Template("zh", "{asset}申请更换{textreason}", (REPLACE,)),
        ],
        {"textreason"},
    )
    assert got == []


def test_the_helpdesk_rows_say_the_problem_first() -> None:
    ph = derive_phrasing(load_domain("tao.domains.helpdesk:registry"))
    (chain,) = [
        i
        for i in ph.intents
        if [s[0] for s in i.steps] == ["list_devices", "request_device_replacement"]
        and i.steps[0][1] == {"employee_id": "<ME>"}
    ]
    assert "{textreason}，申请更换" in chain.zh
    assert "{textreason}, request a replacement" in chain.en
    # the insufficient phrasing is still drawn from the examples' own orders
    assert not [t for t in (*chain.zh, *chain.en) if t.startswith("，") or t.startswith(", ")]


def test_the_speakers_own_chain_takes_no_clause_about_another_person() -> None:
    reg = load_domain("tao.domains.helpdesk:registry").registry()
    theirs = _Template(
        "zh",
        "{employee}的笔记本坏了，帮他申请更换，原因是{textreason}",
        (
            ("list_devices", {"employee_id": "{employee}"}, ()),
            (
                "request_device_replacement",
                {"asset_tag": "${t1.asset_tag}", "reason": "{textreason}"},
                ("t1",),
            ),
        ),
    )
    mine = _Template("zh", "我名下有哪些设备", (("list_devices", {"employee_id": "<ME>"}, ()),))
    other = _Template(
        "zh", "看看{employee}名下的设备", (("list_devices", {"employee_id": "{employee}"}, ()),)
    )
    got = [t.text for t in reattached_templates([theirs, mine, other], reg)]
    assert "看看{employee}名下的设备，帮他申请更换，原因是{textreason}" in got
    assert not [t for t in got if t.startswith("我名下")]
