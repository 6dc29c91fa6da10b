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
