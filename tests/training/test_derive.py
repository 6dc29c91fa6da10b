"""Phrasing derived from contracts + examples (training/derive.py): unknown pattern kinds fail with
the tool and field named, examples' values become slots, chains come from ``extract``, a field that
takes a step reference still takes a literal, presets are typed, the final evaluation scores only
the trained domain's own sets."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from tao.contracts import ThoughtPlan, ToolSpec
from tao.contracts.domain import Domain, Lexicon, RequestExample
from tao.domains import load_domain, reference_domain
from tao.domains.contract import ContractError, contract_domain, ref_or
from thought_model.grammar import output_json_schema
from thought_model.output_parse import parse_output
from thought_model.prompt import prepare_prompt
from training.config import PRESETS, TrainConfig, build_parser, config_from_args
from training.derive import derive_phrasing, example_template
from training.generate import GenConfig, iter_split

HELPDESK = "tao.domains.helpdesk:registry"


def _tool(name: str, props: dict, required: list[str], extract: dict | None = None) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=f"{name} tool",
        args_schema={
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": False,
        },
        extract=extract or {},
    )


def test_an_unknown_pattern_kind_fails_naming_tool_and_field() -> None:
    tools = [_tool("lookup_flight", {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, ["code"])]
    dom = contract_domain("flights", tools)
    with pytest.raises(ContractError, match=r"tool 'lookup_flight' field 'code'.*fits no slot kind"):
        derive_phrasing(dom)


def test_an_unknown_pattern_fails_before_any_training(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "bad_pattern_domain.py").write_text(
        "from tao.contracts import ToolSpec\n"
        "tools = [ToolSpec(name='get_box', description='x', args_schema={'type': 'object', "
        "'properties': {'box': {'type': 'string', 'pattern': '^(?=.*Q)[A-Z]{4}$'}}, 'required': ['box']})]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from training.train import train

    cfg = TrainConfig(out_dir=str(tmp_path / "run"), registry="bad_pattern_domain:tools", progress=False)
    with pytest.raises(ContractError, match=r"get_box.*box"):
        train(cfg)
    assert not (tmp_path / "run" / "data" / "train.jsonl").exists()


def test_id_kinds_come_from_the_patterns() -> None:
    lex = load_domain(HELPDESK).lexicon
    kinds = {k.slot: k for k in lex.id_kinds}
    assert set(kinds) == {"EMPLOYEE", "TICKET", "ASSET"}
    assert lex.me_kind == "EMPLOYEE"
    from thought_model.entities import perceive

    p = perceive("reset the VPN password of e104233 and check TCK-208871, AT-31550", lexicon=lex)
    assert p.slots == {"<EMPLOYEE1>": "E104233", "<TICKET1>": "TCK-208871", "<ASSET1>": "AT-31550"}
    assert "Reset" in lex.name_stop_en  # "Reset my password" is no person's name
    assert perceive("Reset my VPN password", lexicon=lex).slots == {}


def test_examples_values_become_slots() -> None:
    dom = load_domain(HELPDESK)
    ph = derive_phrasing(dom)
    from training.derive_kinds import _Kinds

    kinds = _Kinds(dom)
    ex = RequestExample.of(
        "给E104233提一个网络工单：VPN老是断线",
        "zh",
        "create_ticket",
        employee_id="E104233",
        category="network",
        summary="VPN老是断线",
    )
    t = example_template(ex, kinds, dom.registry())
    assert t.text == "给{employee}提一个{category}工单：{textsummary}"
    assert t.steps == (
        (
            "create_ticket",
            {"employee_id": "{employee}", "category": "{category}", "summary": "{textsummary}"},
            (),
        ),
    )
    implied = RequestExample.of(
        "帮我开个工单，问题是电脑开不了机",
        "zh",
        "create_ticket",
        employee_id="<ME>",
        category="hardware",
        summary="电脑开不了机",
    )
    t2 = example_template(implied, kinds, dom.registry())
    assert t2.steps[0][1]["category"] == "hardware"  # not written: a constant of the phrasing
    with pytest.raises(ContractError, match="is not written in the text"):
        example_template(
            RequestExample.of("查一下工单", "zh", "get_ticket", ticket_id="TCK-104233"), kinds, dom.registry()
        )
    # generated rows: other values in the same phrasing, bound to slots
    rows = list(iter_split("test", 60, GenConfig(n_eval=60, seed=5), domain=dom))
    assert any("<EMPLOYEE1>" in r["target"] for r in rows)
    hit = [r for r in rows if r["intent"] == "get_ticket" and "steps" in r["expected"]]
    for r in hit:
        tid = r["expected"]["steps"][0]["arguments"]["ticket_id"]
        assert tid.upper() in r["request"].upper() and tid not in ("TCK-104233", "TCK-208871")
    assert {i.name for i in ph.intents} >= {"get_ticket", "reset_password_me", "create_ticket"}


def test_chains_are_derived_from_extract() -> None:
    tools = [
        _tool("find_member", {"name": {"type": "string", "maxLength": 40}}, [], {"member_id": "/member_id"}),
        _tool(
            "get_member_card",
            {"member_id": {"type": "string", "pattern": ref_or(r"^M[0-9]{7}$")}},
            ["member_id"],
        ),
    ]
    ex = (
        RequestExample.of("find the member Alice Chen", "en", "find_member", name="Alice Chen"),
        RequestExample.of("show the card of member M1234567", "en", "get_member_card", member_id="M1234567"),
    )
    ph = derive_phrasing(contract_domain("club", tools, ex))
    chains = [i for i in ph.intents if len(i.steps) == 2]
    assert chains, [i.name for i in ph.intents]
    (first, _, _), (second, args, deps) = chains[0].steps
    assert (first, second, args["member_id"], deps) == (
        "find_member",
        "get_member_card",
        "${t1.member_id}",
        ("t1",),
    )
    assert "show the card of member {name}" in chains[0].en


def test_a_reference_field_accepts_a_literal_and_a_reference() -> None:
    dom = load_domain(HELPDESK)
    schema = output_json_schema(dom.tools, lexicon=dom.lexicon)
    v = jsonschema.Draft202012Validator(schema)

    def plan(first: str, second: str) -> dict:
        return {
            "version": "1.0",
            "intent": "x_y",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "get_employee",
                    "arguments": {"employee_id": first},
                    "dependencies": [],
                },
                {
                    "step_id": "t2",
                    "tool": "list_devices",
                    "arguments": {"employee_id": second},
                    "dependencies": ["t1"],
                },
            ],
        }

    assert v.is_valid(plan("<EMPLOYEE1>", "${t1.manager_id}"))
    assert v.is_valid(plan("<ME>", "<EMPLOYEE2>"))
    assert not v.is_valid(plan("<TICKET1>", "${t1.manager_id}"))
    # the literal a slot stands for comes back in the parsed plan
    from tao.contracts import SessionState

    s = SessionState(user_id="E000001")
    p = prepare_prompt("who manages E104233? list that manager's devices", s, dom.tools, dom.lexicon)
    out = json.dumps(plan("<EMPLOYEE1>", "${t1.manager_id}"))
    got = parse_output(out, p.perception, s, dom.tools, dom.lexicon)
    assert isinstance(got, ThoughtPlan)
    assert got.steps[0].arguments["employee_id"] == "E104233"
    assert got.steps[1].arguments["employee_id"] == "${t1.manager_id}"
    # without an id kind for the pattern the full grammar keeps the literal itself (never refs only)
    bare = jsonschema.Draft202012Validator(output_json_schema(dom.tools, lexicon=Lexicon()))
    assert bare.is_valid(plan("E104233", "${t1.manager_id}"))


def test_final_evaluation_scores_only_the_trained_domains_sets() -> None:
    from training.evaluate import split_path
    from training.train import final_eval_splits

    helpdesk = load_domain(HELPDESK)
    splits = final_eval_splits(helpdesk)
    assert "handwritten" not in splits  # the reference domain's generated-row set
    assert "independent" in splits and helpdesk.eval_sets["independent"].parent.name == "eval_sets"
    assert split_path("/nonexistent", "independent", helpdesk.eval_sets) == helpdesk.eval_sets["independent"]
    bare = Domain(name="bare", tools=helpdesk.tools)
    assert final_eval_splits(bare) == ("test", "heldout_templates", "heldout_values", "heldout_combos")
    ref_sets = set(reference_domain().eval_sets.values())
    assert (
        not {split_path("/nonexistent", s, bare.eval_sets) for s in ("handwritten", "independent")} & ref_sets
    )


def test_presets_are_typed_and_every_flag_has_help() -> None:
    known = set(TrainConfig.__dataclass_fields__)
    for preset, over in PRESETS.items():
        assert set(over) <= known, preset
    for action in build_parser()._actions:
        if action.option_strings and action.dest != "help":
            assert action.help, action.option_strings
    cfg = config_from_args(
        ["--registry", HELPDESK, "--preset", "quick", "--out", "/tmp/x", "--max-steps", "7"]
    )
    assert (cfg.checkpoint_dir, cfg.out_dir, cfg.max_steps) == ("/tmp/x", "/tmp/x/run", 7)
    assert cfg.time_budget_min == PRESETS[next(iter(PRESETS))]["time_budget_min"]


def test_helpdesk_registry_matches_the_writers_contracts() -> None:
    src = json.loads(
        (Path(__file__).resolve().parents[2] / "tao/domains/helpdesk/eval_sets/tools.json").read_text()
    )
    tools = load_domain(HELPDESK).registry()
    assert [t["name"] for t in src] == list(tools)
    for t in src:
        spec = tools[t["name"]]
        assert spec.permission.value == t["permission"]
        props = spec.args_schema["properties"]
        assert list(props) == list(t["arguments"]["properties"])
        assert spec.args_schema["required"] == t["arguments"]["required"]
        for name, p in t["arguments"]["properties"].items():
            mine = dict(props[name])
            if p.get("also_accepts"):
                assert mine.pop("pattern") == ref_or(p["pattern"])
                p = {k: v for k, v in p.items() if k not in ("also_accepts", "pattern")}
            assert mine == p, name
        assert set(spec.extract) == set(t["outputs_for_references"])


def test_helpdesk_mock_handlers() -> None:
    dom = load_domain(HELPDESK)
    assert dom.mock_data is not None and dom.mock_handlers is not None
    data = dom.mock_data(7, None)
    h = dom.mock_handlers
    st, emp, _ = h["find_employee"](data, {"name": "Alice Chen"})
    assert st == 200 and emp["employee_id"].startswith("E")
    st, devs, _ = h["list_devices"](data, {"employee_id": emp["employee_id"]})
    assert st == 200 and devs["count"] >= 1
    st, req, effect = h["request_device_replacement"](
        data, {"asset_tag": devs["devices"][0]["asset_tag"], "reason": "x"}
    )
    assert st == 200 and effect
    st, tk, _ = h["get_ticket"](data, {"ticket_id": req["ticket_id"]})
    assert st == 200 and tk["status"] == "open"
    assert h["get_employee"](data, {"employee_id": "E999999"})[0] == 404
    rng = random.Random(0)
    assert rng is not None


def test_generated_helpdesk_targets_are_schema_valid_and_parse_back() -> None:
    from training.dataset import row_session

    dom = load_domain(HELPDESK)
    v = jsonschema.Draft202012Validator(output_json_schema(dom.tools, lexicon=dom.lexicon))
    rows = list(iter_split("train", 150, GenConfig(seed=9, compose_prob=0.3), domain=dom))
    kinds = {"plan": 0, "insufficient": 0}
    served_as_trained = 0
    for r in rows:
        assert v.is_valid(json.loads(r["target"])), r
        session = row_session(r)
        # the row's free text is a slot even where no cue marks it (the composer's uncued pass)
        known = prepare_prompt(r["request"], session, lexicon=dom.lexicon, known_text=r["free_text"])
        assert known.text == r["prompt"]
        served_as_trained += prepare_prompt(r["request"], session, lexicon=dom.lexicon).text == r["prompt"]
        got = parse_output(r["target"], known.perception, session, dom.tools, dom.lexicon)
        if "steps" in r["expected"]:
            assert got.model_dump(mode="json", exclude_none=True)["steps"] == r["expected"]["steps"], r
        kinds["plan" if "steps" in r["expected"] else "insufficient"] += 1
    assert kinds["plan"] > 80 and kinds["insufficient"] > 5
    assert served_as_trained >= 0.8 * len(rows)  # most rows' free text is cued: perception alone finds it
    assert all(r["user_id"] is None or r["user_id"][0] == "E" for r in rows)  # the domain's own id kind
