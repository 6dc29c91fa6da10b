"""Response samples are checked by the Rust observation checker when a domain loads: a sample its
schema or rules refuse fails registration with the sample's index and the JSON pointer."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from tao.contracts import ObservationRule, ToolSpec
from tao.contracts.domain import Domain
from tao.domains import DomainLoadError, load_domain
from tao.domains.contract import ContractError
from tao.domains.samples import ResponseSampleError, check_samples
from tao.observe.samples import sample_problems

UTC = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"
TICKETS = ToolSpec(
    name="list_tickets",
    description="List tickets.",
    args_schema={"type": "object", "properties": {}},
    response_schema={
        "type": "object",
        "properties": {
            "tickets": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "ticket_id": {"type": "string"},
                        "opened_at": {"type": "string", "pattern": UTC},
                    },
                    "required": ["ticket_id"],
                },
            },
            "count": {"type": "integer"},
        },
        "required": ["tickets", "count"],
    },
    observation_rules=[
        ObservationRule(
            name="count_ok", logic={">=": [{"var": "data.count"}, 0]}, message="count must not be negative"
        )
    ],
    blacklist={"/tickets/0/ticket_id": ["TCK-000000"]},
)
GOOD = {"tickets": [{"ticket_id": "TCK-104233", "opened_at": "2026-11-15T02:00:00Z"}], "count": 1}


def _fails(*samples: object) -> ResponseSampleError:
    d = Domain(name="t", tools=[TICKETS], response_samples={"list_tickets": [GOOD, *samples]})
    with pytest.raises(ResponseSampleError) as info:
        check_samples(d)
    err = info.value
    assert isinstance(err, DomainLoadError) and isinstance(err, ContractError)
    assert err.tool == "list_tickets" and err.index == 1
    assert f"response sample 1, at {err.pointer or '/'}" in str(err)
    return err


def test_an_offset_the_schema_does_not_allow() -> None:
    bad = {"tickets": [{"ticket_id": "TCK-1", "opened_at": "2026-11-15T10:00:00+08:00"}], "count": 1}
    err = _fails(bad)
    assert (err.pointer, err.check) == ("/tickets/0/opened_at", "schema")
    assert "+08:00" in str(err)


def test_a_missing_required_field_points_at_the_field() -> None:
    err = _fails({"tickets": [{"opened_at": "2026-11-15T02:00:00Z"}], "count": 1})
    assert (err.pointer, err.check) == ("/tickets/0/ticket_id", "schema")
    assert _fails({"tickets": []}).pointer == "/count"


def test_rules_and_blacklist_are_the_loops_rules() -> None:
    err = _fails({"tickets": [], "count": -1})
    assert (err.pointer, err.check) == ("", "rule:count_ok") and "count must not be negative" in str(err)
    err = _fails({"tickets": [{"ticket_id": "TCK-000000"}], "count": 1})
    assert (err.pointer, err.check) == ("/tickets/0/ticket_id", "blacklist")


def test_every_problem_is_listed_in_order() -> None:
    probs = sample_problems(TICKETS, [GOOD, {"count": 0}, GOOD, {"tickets": [], "count": -2}])
    assert [(i, p, c) for i, p, c, _ in probs] == [(1, "/tickets", "schema"), (3, "", "rule:count_ok")]
    assert sample_problems(TICKETS, [GOOD]) == []


def test_samples_of_an_unknown_tool() -> None:
    with pytest.raises(DomainLoadError, match="unknown tool 'nope'"):
        check_samples(Domain(name="t", tools=[TICKETS], response_samples={"nope": [{}]}))


def test_registration_fails_for_a_python_domain(tmp_path, monkeypatch) -> None:
    (tmp_path / "h6_bad_samples.py").write_text(
        textwrap.dedent(
            f"""
            from tao.contracts.domain import Domain
            from tao.contracts.tools import ToolSpec
            SPEC = ToolSpec.model_validate({TICKETS.model_dump(mode="json")!r})
            domain = Domain(name="bad", tools=[SPEC], response_samples={{"list_tickets": [{{"count": 1}}]}})
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ResponseSampleError) as info:
            load_domain("h6_bad_samples:domain")
        assert (info.value.index, info.value.pointer) == (0, "/tickets")
        assert info.value.ref == "h6_bad_samples:domain"
    finally:
        sys.modules.pop("h6_bad_samples", None)


def test_registration_fails_for_a_contract_file_with_the_file_pointer(tmp_path) -> None:
    spec = TICKETS.model_dump(mode="json")
    bad = {"tickets": [{"ticket_id": "TCK-1", "opened_at": "2026-11-15T10:00:00+08:00"}], "count": 1}
    p = tmp_path / "tickets.json"
    p.write_text(json.dumps({"tools": [dict(spec, response_samples=[GOOD, bad])]}))
    with pytest.raises(ResponseSampleError) as info:
        load_domain(str(p))
    err = info.value
    assert err.where == "/tools/0/response_samples/1" and err.ref == str(p.resolve())
    assert str(err).startswith(f"cannot load tool domain {str(p.resolve())!r}: ")
    assert ": /tools/0/response_samples/1/tickets/0/opened_at: " in str(err)
    p.write_text(json.dumps({"tools": [dict(spec, responses=[GOOD])]}))
    assert load_domain(str(p)).response_samples == {"list_tickets": [GOOD]}
