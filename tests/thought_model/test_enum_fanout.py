"""Issue #15: coordinated asks on a user's own registry: lists of registry id kinds fan out
(thought_model.fanout), lists of enum values fan out (thought_model.enum_fanout), and enum words
are found in their other spellings (thought_model.enum_words)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan, ToolSpec
from tao.contracts.domain import IdKind, Lexicon
from tao.domains import load_domain
from tao.domains.helpdesk.examples import VALUE_WORDS
from thought_model.entities import perceive
from thought_model.enum_fanout import coordinated_values, enum_fan_out
from thought_model.enum_words import EnumWords, fix_enums, zh_stems
from thought_model.fanout import Group, coordinated_groups, fan_out

HELPDESK = load_domain("tao.domains.helpdesk:registry")
WORDS = EnumWords(HELPDESK.tools, VALUE_WORDS)
ME = "E100777"

# a registry no code knows by name: parcels with their own id kind and a status enum, no words
PARCELS = (
    ToolSpec(
        name="track_parcel",
        description="Where a parcel is, by its id (PX + 7 digits).",
        args_schema={
            "type": "object",
            "properties": {"parcel_id": {"type": "string", "pattern": "^PX[0-9]{7}$"}},
            "required": ["parcel_id"],
        },
    ),
    ToolSpec(
        name="list_parcels",
        description="List the parcels of a depot, optionally with a state.",
        args_schema={
            "type": "object",
            "properties": {
                "depot": {"type": "string", "enum": ["north", "south"]},
                "state": {"type": "string", "enum": ["queued", "in_transit", "delivered"]},
            },
            "required": ["depot"],
        },
    ),
)
PARCEL_LEXICON = Lexicon(
    id_kinds=(
        IdKind(slot="PARCEL", pattern=r"(?<![0-9A-Za-z])PX[0-9]{7}(?![0-9A-Za-z])", sample="PX1234567"),
    )
)


def _plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [{"step_id": f"t{i}", "tool": t, "arguments": a} for i, (t, a) in enumerate(steps, 1)],
        }
    )


def _rows(p: ThoughtPlan) -> list[tuple[str, dict]]:
    return [(s.tool, s.arguments) for s in p.steps]


def _masked(text: str) -> str:
    return perceive(text, lexicon=HELPDESK.lexicon, user_known=True).masked


def test_a_list_of_a_registry_id_kind_gets_one_step_per_id() -> None:
    p = perceive("TCK-220914 和 TCK-220977 这俩啥情况", lexicon=HELPDESK.lexicon, user_known=True)
    plan = _plan(("get_ticket", {"ticket_id": "TCK-220914"}))
    assert _rows(fan_out(plan, p)) == [
        ("get_ticket", {"ticket_id": "TCK-220914"}),
        ("get_ticket", {"ticket_id": "TCK-220977"}),
    ]
    p = perceive("track PX1234567 and PX7654321 please", lexicon=PARCEL_LEXICON)
    assert coordinated_groups(p.masked) == [Group("PARCEL", ("<PARCEL1>", "<PARCEL2>"))]
    plan = _plan(("track_parcel", {"parcel_id": "PX1234567"}))
    assert len(fan_out(plan, p).steps) == 2


def test_a_repeated_object_noun_still_joins_a_list_but_a_verb_does_not() -> None:
    assert coordinated_groups("parcel <PARCEL1> and parcel <PARCEL2>") == [
        Group("PARCEL", ("<PARCEL1>", "<PARCEL2>"))
    ]
    assert coordinated_groups("track <PARCEL1> and cancel <PARCEL2>") == []
    assert coordinated_groups("<AMOUNT1> and <AMOUNT2>") == []


def test_enum_values_joined_as_a_list_get_one_step_each() -> None:
    for text, values in [
        ("reset my email and wifi passwords", ["email", "wifi"]),
        ("重设邮箱密码和VPN密码", ["email", "vpn"]),
        ("把E140552的邮箱、wifi密码都重置一下", ["email", "wifi"]),
    ]:
        who = "E140552" if "E140552" in text else ME
        plan = _plan(("reset_password", {"employee_id": who, "system": values[-1]}))
        out = enum_fan_out(plan, _masked(text), WORDS)
        assert _rows(out) == [("reset_password", {"employee_id": who, "system": v}) for v in values], text


def test_a_value_the_request_never_writes_gives_way_to_the_written_list() -> None:
    """ "重設我的ERP和VPN密碼" planned as one email reset: email is written nowhere."""
    plan = _plan(("reset_password", {"employee_id": ME, "system": "email"}))
    out = enum_fan_out(plan, _masked("重設我的ERP和VPN密碼"), WORDS)
    assert _rows(out) == [("reset_password", {"employee_id": ME, "system": v}) for v in ("erp", "vpn")]
    # a value written apart from the list belongs to another ask: left alone
    plan = _plan(("reset_password", {"employee_id": ME, "system": "email"}))
    text = "reset my email password; my vpn and erp accounts are fine"
    assert enum_fan_out(plan, _masked(text), WORDS) is plan


def test_an_optional_filter_left_out_is_set_and_fanned() -> None:
    plan = _plan(("list_tickets", {"employee_id": ME}))
    out = enum_fan_out(plan, _masked("list my closed tickets and also the ones in progress"), WORDS)
    assert [s.arguments["status"] for s in out.steps] == ["closed", "in_progress"]


def test_values_of_two_clauses_or_one_value_are_no_list() -> None:
    plan = _plan(("list_devices", {"employee_id": ME}), ("create_ticket", _ticket("software")))
    assert enum_fan_out(plan, _masked("查一下我的设备，再开个软件工单：Excel打不开"), WORDS) is plan
    plan = _plan(("reset_password", {"employee_id": ME, "system": "vpn"}))
    assert enum_fan_out(plan, _masked("reset my VPN password please"), WORDS) is plan
    # two steps of the tool already: each has its value
    two = _plan(
        ("reset_password", {"employee_id": ME, "system": "vpn"}),
        ("reset_password", {"employee_id": "E200001", "system": "erp"}),
    )
    assert enum_fan_out(two, _masked("reset my vpn and E200001's erp password"), WORDS) is two


def test_coordinated_values_need_a_conjunction_and_no_sentence_break() -> None:
    text = "closed tickets and the open ones"
    spans = [(0, 6, "closed"), (19, 23, "open")]
    assert coordinated_values(text, spans) == ["closed", "open"]
    assert coordinated_values("closed tickets. open ones", [(0, 6, "closed"), (16, 20, "open")]) == []
    assert coordinated_values("closed tickets", [(0, 6, "closed")]) == []


def test_a_registry_without_words_is_written_by_its_enum_values() -> None:
    words = EnumWords(PARCELS, {})
    plan = _plan(("list_parcels", {"depot": "north"}))
    out = enum_fan_out(plan, "list the queued and in-transit parcels of the north depot", words)
    assert _rows(out) == [
        ("list_parcels", {"depot": "north", "state": "queued"}),
        ("list_parcels", {"depot": "north", "state": "in_transit"}),
    ]


def test_enum_words_in_other_spellings_are_found() -> None:
    assert zh_stems(["已解决", "等待中", "关闭的", "优先级高", "高"]) == {"解决", "等待", "关闭"}
    for text, value in [
        ("我已经解决的工单", "resolved"),
        ("E290017有哪些处于等待状态的工单", "waiting"),
        ("E155306's in-progress tickets", "in_progress"),
        ("我有哪些未解决的工单", "open"),  # the longer word of another value wins
    ]:
        plan = _plan(("list_tickets", {"employee_id": ME}))
        out = fix_enums(plan, _masked(text), WORDS)
        assert out.steps[0].arguments.get("status") == value, text


def _ticket(category: str) -> dict:
    return {"employee_id": ME, "category": category, "summary": "<TEXT1>"}


def test_each_anchored_step_gets_the_value_of_its_own_piece() -> None:
    from thought_model.enum_align import align_enums

    two = _plan(
        ("reset_password", {"employee_id": "E204118", "system": "vpn"}),
        ("reset_password", {"employee_id": "E204552", "system": "vpn"}),
    )
    for text in (
        "reset E204118's vpn password and E204552's email password",
        "把E204118的VPN密码和E204552的邮箱密码重置一下",
        "reset the vpn password of E204118 and the email password of E204552",
    ):
        p = perceive(text, lexicon=HELPDESK.lexicon, user_known=True)
        out = align_enums(two, p, WORDS)
        assert [s.arguments["system"] for s in out.steps] == ["vpn", "email"], text
    # one value for both, or a piece with two values: as planned
    p = perceive("reset the vpn passwords of E204118 and E204552", lexicon=HELPDESK.lexicon, user_known=True)
    assert align_enums(two, p, WORDS) is two


def test_a_repeated_tuple_of_a_registry_id_kind_gets_one_step_each() -> None:
    from thought_model.paired import paired_fan_out

    p = perceive(
        "replace AT-11111 because the screen is cracked; AT-22222 because the battery died",
        lexicon=HELPDESK.lexicon,
        user_known=True,
    )
    reason = p.slots["<TEXT1>"]
    plan = _plan(("request_device_replacement", {"asset_tag": "AT-11111", "reason": reason}))
    out = paired_fan_out(plan, p)
    assert [s.arguments["asset_tag"] for s in out.steps] == ["AT-11111", "AT-22222"]
    assert out.steps[1].arguments["reason"] == p.slots["<TEXT2>"]


def test_two_values_of_one_enum_argument_are_one_clause() -> None:
    from thought_model.clauses import split_masked
    from thought_model.enum_pair import enum_pair
    from thought_model.split_vocab import registry_split_vocab

    vocab = registry_split_vocab(HELPDESK.tools, HELPDESK.lexicon)
    assert split_masked("show my open and waiting tickets", vocab) == ["show my open and waiting tickets"]
    assert len(split_masked("check <TICKET1> is closed and open a ticket about <TEXT1>", vocab)) == 2
    assert len(split_masked("reset my vpn password and list my open tickets", vocab)) == 2
    values = registry_split_vocab(PARCELS, None).enum_values
    assert enum_pair("list the queued", "delivered parcels", values)
    assert not enum_pair("list the queued", "north parcels", values)  # values of two arguments


def test_a_twin_with_an_unwritten_value_is_dropped() -> None:
    from thought_model.enum_fanout import drop_unwritten_twins

    ticket = {"employee_id": ME, "category": "software", "summary": "Excel总是崩溃"}
    plan = _plan(
        ("create_ticket", {**ticket, "priority": "high"}), ("create_ticket", {**ticket, "priority": "urgent"})
    )
    out = drop_unwritten_twins(plan, _masked("提一个软件工单：Excel总是崩溃，紧急"), WORDS)
    assert _rows(out) == [("create_ticket", {**ticket, "priority": "urgent"})]
    # both written: a list, kept
    assert drop_unwritten_twins(plan, _masked("开两个软件工单，一个高优先级一个紧急"), WORDS) is plan
