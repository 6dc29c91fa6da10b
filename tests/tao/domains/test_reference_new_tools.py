"""The four tools added to the reference domain (list_invoices, list_expenses, get_order_invoice,
list_user_calendar_events), get_weather's city by reference and for any gazetteer city, and the
two new enum value kinds of the phrasing."""

from __future__ import annotations

import json
import random
from datetime import date
from pathlib import Path

import jsonschema
import orjson
import pytest

import rust_validator as rv
from tao.contracts import ToolSpec
from tao.domains.reference.mock import HANDLERS, known_city
from tao.domains.reference.mock_data import MockData
from tao.domains.reference.phrasing import ENUM_KINDS, PHRASING
from tao.domains.reference.phrasing.values import EXPENSE_STATUS, INVOICE_STATUS, ValueSampler
from tao.domains.reference.registry import reference_registry

REG = reference_registry()
NEW = ("list_invoices", "list_expenses", "get_order_invoice", "list_user_calendar_events")
# the tool list the independent set's writers were given (committed beside the set)
BRIEF_TOOLS = Path(__file__).resolve().parents[3] / "tao/domains/reference/eval_sets/tools.json"


@pytest.fixture(scope="module")
def data() -> MockData:
    return MockData.generate(today=date(2026, 11, 29))


def _args(tool: str, d: MockData) -> dict:
    user = next(iter(d.users))
    order = next(o for o, v in d.orders.items() if any(i.get("order_id") == o for i in d.invoices.values()))
    return {
        "list_invoices": {"user_id": user},
        "list_expenses": {"user_id": user},
        "get_order_invoice": {"order_id": order},
        "list_user_calendar_events": {"user_id": "U00000002", "date": "2026-11-30"},
    }[tool]


def test_registry_has_22_tools_with_handlers() -> None:
    assert len(REG) == 22
    assert set(REG) == set(HANDLERS)
    for name in NEW:
        assert isinstance(REG[name], ToolSpec)
        assert REG[name].permission.value == "read"


def test_new_tools_match_the_brief_contracts() -> None:
    brief = {t["name"]: t for t in json.loads(BRIEF_TOOLS.read_text())}
    for name in NEW:
        spec, want = REG[name], brief[name]
        props = spec.args_schema["properties"]
        assert sorted(props) == sorted(want["arguments"]["properties"])
        assert sorted(spec.args_schema.get("required", [])) == sorted(want["arguments"]["required"])
        assert sorted(spec.extract) == sorted(want["outputs_for_references"])
        for arg, p in want["arguments"]["properties"].items():
            if "enum" in p:
                assert set(p["enum"]) <= set(json.dumps(props[arg]).replace('"', " ").split())


@pytest.mark.parametrize("tool", NEW)
def test_contract_args_accept_literal_and_reference(tool: str, data: MockData) -> None:
    schema = REG[tool].args_schema
    jsonschema.validate(_args(tool, data), schema)
    first = next(iter(schema["required"]))
    ref = {**_args(tool, data), first: "${t1." + first + "}"}
    jsonschema.validate(ref, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**_args(tool, data), first: "nope"}, schema)


@pytest.mark.parametrize("tool", NEW)
def test_mock_answers_and_observation_passes(tool: str, data: MockData) -> None:
    status, body, side_effect = HANDLERS[tool](data, _args(tool, data))
    assert status == 200 and not side_effect
    jsonschema.validate(body, REG[tool].response_schema)
    checker = rv.ObservationChecker(REG[tool].model_dump(mode="json"))
    obs = checker.check(
        orjson.dumps({"tool": tool, "status_code": 200, "response_time_ms": 40, "parsed_data": body})
    )
    assert obs["valid"], obs
    assert set(obs["extracted_data"]) <= set(REG[tool].extract)


def test_list_filters_and_not_found(data: MockData) -> None:
    user = next(iter(data.users))
    _, all_inv, _ = HANDLERS["list_invoices"](data, {"user_id": user})
    for st in INVOICE_STATUS:
        _, some, _ = HANDLERS["list_invoices"](data, {"user_id": user, "status": st})
        assert all(i["status"] == st for i in some["invoices"])
    assert all_inv["count"] >= 1
    created = [i["created_at"] for i in all_inv["invoices"]]
    assert created == sorted(created, reverse=True)  # newest first
    assert HANDLERS["list_expenses"](data, {"user_id": "U99999999"})[0] == 404
    assert HANDLERS["list_invoices"](data, {"user_id": user, "period": "bad"})[0] == 400
    assert HANDLERS["get_order_invoice"](data, {"order_id": "0" * 18})[0] == 404
    _, e, _ = HANDLERS["list_expenses"](data, {"user_id": user, "period": "2026-09-01/2026-11-29"})
    assert all("2026-09-01" <= x["created_at"][:10] <= "2026-11-29" for x in e["expenses"])


def test_weather_city_takes_a_reference_and_any_gazetteer_city(data: MockData) -> None:
    schema = REG["get_weather"].args_schema
    jsonschema.validate({"city": "${t1.city}"}, schema)
    jsonschema.validate({"city": "上海"}, schema)
    for city in ("大阪", "Montreal", "旧金山", "Nairobi", "北京"):
        assert known_city(city)
        status, body, _ = HANDLERS["get_weather"](data, {"city": city, "date": "2026-11-30"})
        assert status == 200 and body["city"] == city
        assert HANDLERS["get_weather"](data, {"city": city, "date": "2026-11-30"})[1] == body  # deterministic
    assert HANDLERS["get_weather"](data, {"city": "不是城市啊"})[0] == 404


def test_grammar_offers_city_reference_after_a_profile_step() -> None:
    from thought_model.grammar import arguments_schema

    tools = list(REG.values())
    s2 = arguments_schema(REG["get_weather"], tools, avail=frozenset({"<CITY1>"}), step=2)
    assert "\\$\\{t[1-1]\\.(city)\\}" in s2["properties"]["city"]["pattern"]
    s1 = arguments_schema(REG["get_weather"], tools, avail=frozenset({"<CITY1>"}), step=1)
    assert s1["properties"]["city"]["pattern"] == "^((<CITY1>))$"  # the first step references nothing


@pytest.mark.parametrize(
    ("kind", "table", "tool"),
    [("invstatus", INVOICE_STATUS, "list_invoices"), ("expstatus", EXPENSE_STATUS, "list_expenses")],
)
def test_new_value_kinds(kind: str, table: dict, tool: str) -> None:
    assert kind in ENUM_KINDS
    enum = set(REG[tool].args_schema["properties"]["status"]["anyOf"][0]["enum"])
    assert set(table) == enum
    for lang in ("zh", "en"):
        s = ValueSampler(lang=lang, heldout=False, rng=random.Random(3))
        for _ in range(20):
            surface, canon = s.sample(kind)
            assert canon in enum and surface in table[canon][0 if lang == "zh" else 1]


def test_new_intents_generate_rows() -> None:
    from training.generate import GenConfig, iter_split

    names = {i.name for i in PHRASING.intents}
    for n in (
        "list_my_invoices",
        "list_expenses",
        "invoice_then_email",
        "profile_city_weather",
        "my_city_weather",
    ):
        assert n in names
    rows = list(iter_split("train", 400, GenConfig(compose_prob=0.4, three_prob=0.3, list_prob=0.2)))
    tools = {s["tool"] for r in rows for s in r["expected"].get("steps", [])}
    assert set(NEW) <= tools
    assert any(r["template"].count("+") == 2 for r in rows)  # three-intent compositions
    chain = [r for r in rows if r["intent"] == "profile_city_weather" and "steps" in r["expected"]]
    for r in chain:
        assert r["expected"]["steps"][1]["arguments"]["city"] == "${t1.city}"
