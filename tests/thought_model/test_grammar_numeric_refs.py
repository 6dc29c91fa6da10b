"""Numeric arguments that take a step reference: ``refund_payment.amount = ${t1.amount}``.

The grammar offers ``${tK.amount}`` in the number field where an earlier step's tool extracts an
output of the same name and type (``get_order_status.amount``), the generated targets of the
``refund_full_amount`` chain are schema-valid and parse back, and unrelated numbers (a head count,
a duration) get no reference alternative."""

from __future__ import annotations

import json
import random
from datetime import datetime

import jsonschema

from tao.contracts import SessionState, ThoughtPlan
from tao.domains.reference.registry import reference_tools
from thought_model.grammar import arguments_schema, numeric_ref_outputs, output_json_schema
from thought_model.output_parse import parse_output

TOOLS = reference_tools()
BY_NAME = {t.name: t for t in TOOLS}


def _plan(amount: object, deps: list[str] | None = None) -> dict:
    return {
        "version": "1.0",
        "intent": "refund_full_amount",
        "steps": [
            {
                "step_id": "t1",
                "tool": "get_order_status",
                "arguments": {"order_id": "<ORDER1>"},
                "dependencies": [],
            },
            {
                "step_id": "t2",
                "tool": "refund_payment",
                "arguments": {"order_id": "<ORDER1>", "amount": amount},
                "dependencies": ["t1"] if deps is None else deps,
            },
        ],
    }


def test_numeric_ref_outputs_by_name_and_type() -> None:
    assert numeric_ref_outputs("amount", "number", TOOLS) == ["amount"]
    assert numeric_ref_outputs("duration_min", "integer", TOOLS) == []
    assert numeric_ref_outputs("capacity", "integer", TOOLS) == []
    assert numeric_ref_outputs("amount", "integer", TOOLS) == []  # a number does not fill an integer


def test_per_request_grammar_offers_the_reference_in_the_number_field() -> None:
    v = jsonschema.Draft202012Validator(output_json_schema(TOOLS, slots=["<ORDER1>"]))
    assert v.is_valid(_plan("${t1.amount}"))
    for bad in ("${t1.status}", "${t2.amount}", "${t3.amount}", "<AMOUNT1>", 12.5, "12.5"):
        assert not v.is_valid(_plan(bad)), bad  # wrong output, self/forward ref, absent slot, literal
    # the first step cannot refer to anything: refund_payment without an amount slot is not offered
    assert arguments_schema(BY_NAME["refund_payment"], TOOLS, frozenset({"<ORDER1>"}), 1) is None
    second = arguments_schema(BY_NAME["refund_payment"], TOOLS, frozenset({"<ORDER1>"}), 2)
    assert second is not None and second["properties"]["amount"]["pattern"] == r"^((\$\{t[1-1]\.(amount)\}))$"
    # a stated amount is still a slot, and the reference stays an alternative
    with_amount = jsonschema.Draft202012Validator(output_json_schema(TOOLS, slots=["<ORDER1>", "<AMOUNT1>"]))
    assert with_amount.is_valid(_plan("<AMOUNT1>")) and with_amount.is_valid(_plan("${t1.amount}"))


def test_registry_wide_grammar_keeps_literal_numbers_and_adds_the_reference() -> None:
    v = jsonschema.Draft202012Validator(output_json_schema(TOOLS))
    for ok in (12.5, "<AMOUNT2>", "${t1.amount}"):
        assert v.is_valid(_plan(ok)), ok
    assert not v.is_valid(_plan("${t1.order_id}"))
    room = arguments_schema(BY_NAME["book_meeting_room"], TOOLS, None, 3)
    assert room is not None and r"\\$\\{" not in json.dumps(room["properties"]["duration_min"])


def test_refund_full_amount_targets_are_schema_valid_and_parse_back() -> None:
    from tao.domains.reference.phrasing.intents import INTENTS
    from tao.domains.reference.phrasing.values import ValueSampler
    from thought_model.entities import perceive
    from training.generate import GenConfig, _Drop, make_example

    spec = next(s for s in INTENTS if s.name == "refund_full_amount")
    rng = random.Random(3)
    registry = dict(BY_NAME)
    seen_ref = 0
    for lang in ("zh", "en"):
        for _ in range(12):
            try:
                row = make_example(
                    [(spec, 0)],
                    lang,
                    ValueSampler(lang=lang, heldout=False, rng=rng),
                    rng,
                    GenConfig(),
                    registry,
                )
            except _Drop:
                continue
            session = SessionState(user_id=row.get("user_id"), now=datetime.fromisoformat(row["today"]))
            p = perceive(row["request"], today=datetime.fromisoformat(row["today"]).date())
            schema = output_json_schema(TOOLS, slots=list(p.slots) + (["<ME>"] if row.get("user_id") else []))
            target = json.loads(row["target"])
            assert jsonschema.Draft202012Validator(schema).is_valid(target), row
            got = parse_output(row["target"], p, session, TOOLS)
            if isinstance(got, ThoughtPlan):
                assert got.steps[1].arguments["amount"] == "${t1.amount}"
                assert got.steps[1].dependencies == ["t1"]
                seen_ref += 1
    assert seen_ref >= 10


def test_parse_output_adds_the_dependency_a_reference_implies() -> None:
    """Since round 10 (thought_model.ref_repair) a reference to an earlier step whose tool extracts
    the output implies the dependency: the plan parses with it instead of failing the plan check."""
    from thought_model.entities import perceive

    p = perceive("给订单123456789012345678全额退款")
    got = parse_output(json.dumps(_plan("${t1.amount}", deps=[]), ensure_ascii=False), p, None, TOOLS)
    assert isinstance(got, ThoughtPlan)
    assert got.steps[1].arguments["amount"] == "${t1.amount}" and got.steps[1].dependencies == ["t1"]
    ok = parse_output(json.dumps(_plan("${t1.amount}"), ensure_ascii=False), p, None, TOOLS)
    assert isinstance(ok, ThoughtPlan) and ok.steps[1].arguments["amount"] == "${t1.amount}"
