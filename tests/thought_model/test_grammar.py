"""The output grammar: tight, registry-derived, consistent with the generator, enforced by xgrammar."""

from __future__ import annotations

import json
from datetime import datetime

import jsonschema
import pytest

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.domains.reference.registry import reference_tools
from thought_model.grammar import PlanParseError, output_json_schema
from thought_model.output_parse import parse_output
from training.dataset import row_session
from training.generate import GenConfig, iter_split

TOOLS = reference_tools()


@pytest.fixture(scope="module")
def schema() -> dict:
    s = output_json_schema(TOOLS)
    jsonschema.Draft202012Validator.check_schema(s)
    return s


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    cfg = GenConfig(seed=7)
    return [r for split in ("train", "heldout_combos") for r in iter_split(split, 120, cfg)]


def test_schema_is_tight(schema: dict) -> None:
    v = jsonschema.Draft202012Validator(schema)
    good = {
        "version": "1.0",
        "intent": "query_order_status",
        "steps": [
            {
                "step_id": "t1",
                "tool": "get_order_status",
                "arguments": {"order_id": "<ORDER1>"},
                "dependencies": [],
            }
        ],
    }
    assert v.is_valid(good)
    for bad_args in ({"order_id": "<USER1>"}, {"order_id": "12345"}, {"order_id": "<ORDER1>", "x": 1}, {}):
        bad = json.loads(json.dumps(good))
        bad["steps"][0]["arguments"] = bad_args
        assert not v.is_valid(bad), bad_args
    bad = json.loads(json.dumps(good))
    bad["steps"][0]["step_id"] = "t9"
    assert not v.is_valid(bad)
    ref = {
        "version": "1.0",
        "intent": "x_y",
        "steps": [
            {"step_id": "t1", "tool": "find_user", "arguments": {"name": "<NAME1>"}, "dependencies": []},
            {
                "step_id": "t2",
                "tool": "send_email",
                "arguments": {"to": "${t1.email}", "subject": "<TEXT1>", "body": "hi"},
                "dependencies": ["t1"],
            },
        ],
    }
    assert v.is_valid(ref)
    ref["steps"][1]["arguments"]["to"] = "${t1.order_id}"  # an order id is not an email
    assert not v.is_valid(ref)


def test_generated_targets_are_schema_valid_and_parse_back_to_expected(
    schema: dict, rows: list[dict]
) -> None:
    v = jsonschema.Draft202012Validator(schema)
    kinds = set()
    for r in rows:
        assert v.is_valid(json.loads(r["target"])), r
        got = parse_output(r["target"], r["request"], row_session(r), TOOLS)
        assert got.model_dump(mode="json", exclude_none=True) == {
            k: v_ for k, v_ in r["expected"].items() if v_ is not None
        }
        kinds.add(type(got).__name__)
    assert kinds == {"ThoughtPlan", "InsufficientContext"}


def test_parse_output_substitutes_slots_and_me() -> None:
    s = SessionState(user_id="U10000001", now=datetime(2026, 3, 1))
    out = (
        '{"version":"1.0","intent":"refund_order","steps":[{"step_id":"t1","tool":"refund_payment",'
        '"arguments":{"order_id":"<ORDER1>","amount":"<AMOUNT1>"},"dependencies":[]}]}'
    )
    plan = parse_output(out, "订单123456789012345678退款99.5元", s, TOOLS)
    assert isinstance(plan, ThoughtPlan)
    assert plan.steps[0].arguments == {"order_id": "123456789012345678", "amount": 99.5}
    ins = parse_output(
        '{"error":"insufficient_context","required_fields":["user_id"],"intent":"list_my_orders"}',
        "我的订单",
        None,
        TOOLS,
    )
    assert isinstance(ins, InsufficientContext) and ins.required_fields == ["user_id"]


@pytest.mark.parametrize(
    "text, why",
    [
        ("not json", "not JSON"),
        ("[1]", "not a JSON object"),
        (
            '{"version":"1.0","intent":"a_b","steps":[{"step_id":"t1","tool":"get_order_status",'
            '"arguments":{"order_id":"<ORDER2>"},"dependencies":[]}]}',
            "slot <ORDER2>",
        ),
        (
            '{"version":"1.0","intent":"a_b","steps":[{"step_id":"t1","tool":"list_orders",'
            '"arguments":{"user_id":"<ME>"},"dependencies":[]}]}',
            "<ME>",
        ),
        (
            '{"version":"1.0","intent":"a_b","steps":[{"step_id":"t1","tool":"get_logistics",'
            '"arguments":{"order_id":"${t2.order_id}"},"dependencies":[]}]}',
            "REFERENCE_NOT_DEPENDENCY",
        ),
        (
            '{"version":"1.0","intent":"a_b","steps":[{"step_id":"t1","tool":"nope_tool",'
            '"arguments":{},"dependencies":[]}]}',
            "UNKNOWN_TOOL",
        ),
        (
            '{"version":"1.0","intent":"a_b","steps":[{"step_id":"t2","tool":"get_order_status",'
            '"arguments":{},"dependencies":["t2"]}]}',
            "SELF_DEPENDENCY",
        ),
        ('{"version":"1.0","intent":"a_b","steps":[]}', "plan contract"),
    ],
)
def test_parse_output_rejects_malformed(text: str, why: str) -> None:
    with pytest.raises(PlanParseError, match=why.replace("$", r"\$")):
        parse_output(text, "订单123456789012345678", None, TOOLS)


def test_xgrammar_accepts_targets_and_rejects_invalid_tokens(tmp_path, rows: list[dict]) -> None:
    import xgrammar as xgr

    from thought_model.grammar import compile_output_grammar
    from training.dataset import row_prompt
    from training.tokenizer import padded_vocab_size, train_tokenizer

    tok = train_tokenizer([row_prompt(r) + r["target"] for r in rows], vocab_size=600)
    g = compile_output_grammar(tok, TOOLS, vocab_size=padded_vocab_size(tok))
    eos = tok.convert_tokens_to_ids("<|eos|>")
    for r in rows[:40]:
        m = xgr.GrammarMatcher(g)
        ids = tok(r["target"], add_special_tokens=False)["input_ids"] + [eos]
        assert all(m.accept_token(i) for i in ids) and m.is_terminated(), r["target"]
    m = xgr.GrammarMatcher(g)
    assert not m.accept_string('{"version":"2.0"')


def test_per_request_schema_offers_only_the_request_slots() -> None:
    s = output_json_schema(TOOLS, slots=["<ORDER1>", "<ME>"])
    jsonschema.Draft202012Validator.check_schema(s)
    v = jsonschema.Draft202012Validator(s)
    plan = {
        "version": "1.0",
        "intent": "a_b",
        "steps": [
            {
                "step_id": "t1",
                "tool": "get_order_status",
                "arguments": {"order_id": "<ORDER1>"},
                "dependencies": [],
            },
            {"step_id": "t2", "tool": "list_orders", "arguments": {"user_id": "<ME>"}, "dependencies": []},
        ],
    }
    assert v.is_valid(plan)
    plan["steps"][0]["arguments"]["order_id"] = "<ORDER2>"
    assert not v.is_valid(plan)
    positions = s["anyOf"][0]["properties"]["steps"]["prefixItems"]
    first = {b["properties"]["tool"]["const"] for b in positions[0]["anyOf"]}
    assert "get_order_status" in first and "get_weather" not in first  # no city slot: weather impossible
    offered = {b["properties"]["tool"]["const"] for b in positions[1]["anyOf"]}
    assert "get_order_status" in offered and "get_weather" in offered  # later: city=${t1.city}
    me_only = output_json_schema(TOOLS, slots=["<ME>"])["anyOf"][0]["properties"]["steps"]["prefixItems"]
    assert "get_logistics" not in {
        b["properties"]["tool"]["const"] for b in me_only[0]["anyOf"]
    }  # nothing to refer to
    assert "get_logistics" in {
        b["properties"]["tool"]["const"] for b in me_only[1]["anyOf"]
    }  # ${t1.order_id}
    only_ins = output_json_schema(TOOLS, slots=[])
    no_required = {t.name for t in TOOLS if not t.args_schema.get("required")}
    first_only = only_ins["anyOf"][0]["properties"]["steps"]["prefixItems"][0]["anyOf"]
    assert {b["properties"]["tool"]["const"] for b in first_only} == no_required


def test_steps_are_position_aware(schema: dict) -> None:
    """Step k is t{k}; dependencies and references name earlier steps only."""
    v = jsonschema.Draft202012Validator(schema)

    def plan(*steps: dict) -> dict:
        return {"version": "1.0", "intent": "a_b", "steps": list(steps)}

    t1 = {"step_id": "t1", "tool": "find_user", "arguments": {"name": "<NAME1>"}, "dependencies": []}
    t2 = {
        "step_id": "t2",
        "tool": "list_orders",
        "arguments": {"user_id": "${t1.user_id}"},
        "dependencies": ["t1"],
    }
    assert v.is_valid(plan(t1, t2))
    assert not v.is_valid(plan(t1, {**t2, "step_id": "t1"}))  # duplicate id
    assert not v.is_valid(plan({**t2, "step_id": "t1", "dependencies": []}))  # self-reference
    assert not v.is_valid(plan(t1, {**t2, "arguments": {"user_id": "${t3.user_id}"}}))  # forward reference
    assert not v.is_valid(plan(t1, {**t2, "dependencies": ["t2"]}))  # depends on itself
    assert not v.is_valid(plan(t2, t1))


def test_repeated_later_step_id_is_renumbered_by_position() -> None:
    """Steps 3..7 share one sub-grammar (ids t3..t7), so a long decode can repeat an id; the k-th
    step is read as t{k} and a reference names the latest earlier step written with that id."""
    s = SessionState(user_id="U10000001", now=datetime(2026, 3, 1))

    def step(sid: str, tool: str, args: dict, deps: list[str]) -> dict:
        return {"step_id": sid, "tool": tool, "arguments": args, "dependencies": deps}

    steps = [
        step("t1", "list_orders", {"user_id": "<ME>"}, []),
        step("t2", "get_order_status", {"order_id": "${t1.order_id}"}, ["t1"]),
        step("t3", "get_logistics", {"order_id": "${t1.order_id}"}, ["t1"]),
        step("t3", "get_order_invoice", {"order_id": "${t1.order_id}"}, ["t1"]),
        step("t5", "get_invoice", {"invoice_id": "${t3.invoice_id}"}, ["t3"]),
    ]
    out = json.dumps({"version": "1.0", "intent": "a_b", "steps": steps})
    plan = parse_output(out, "我最新的订单", s, TOOLS)
    assert isinstance(plan, ThoughtPlan)
    assert [p.step_id for p in plan.steps] == ["t1", "t2", "t3", "t4", "t5"]
    last = plan.steps[4]
    assert last.dependencies == ["t4"] and last.arguments["invoice_id"] == "${t4.invoice_id}"
    # a reference with no earlier step of that id is left as written: still rejected
    steps[4] = step("t5", "get_invoice", {"invoice_id": "${t6.invoice_id}"}, ["t6"])
    with pytest.raises(PlanParseError):
        parse_output(json.dumps({"version": "1.0", "intent": "a_b", "steps": steps}), "x", s, TOOLS)
