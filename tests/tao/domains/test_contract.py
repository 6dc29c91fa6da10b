"""A domain from contracts alone (tao/domains/contract.py): id kinds from argument patterns, the
short JSON form of tool contracts, regex sampling, the lexicon's ``me`` kind and name stop words."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tao.contracts.plan import REF_PATTERN
from tao.domains.contract import (
    ContractError,
    base_pattern,
    contract_lexicon,
    derive_id_kinds,
    id_kind_of,
    ref_or,
    regex_sample,
    slot_name,
    tools_from_json,
)
from tao.domains.reference.registry import reference_tools

TOOLS_JSON = Path(__file__).resolve().parents[3] / "tao/domains/helpdesk/eval_sets/tools.json"


def test_short_form_json_becomes_tool_specs(tmp_path: Path) -> None:
    tools = tools_from_json(TOOLS_JSON)
    by = {t.name: t for t in tools}
    assert len(tools) == 8
    pat = by["get_ticket"].args_schema["properties"]["ticket_id"]["pattern"]
    assert pat == ref_or(r"^TCK-[0-9]{6}$") and base_pattern(pat) == (r"^TCK-[0-9]{6}$", True)
    assert by["reset_password"].permission.value == "high_risk" and not by["reset_password"].idempotent
    assert set(by["list_devices"].extract) == {"count", "asset_tag", "model"}
    dumped = tmp_path / "specs.json"  # ToolSpec dumps round-trip too
    dumped.write_text(json.dumps([t.model_dump(mode="json") for t in tools]))
    assert [t.name for t in tools_from_json(dumped)] == list(by)
    with pytest.raises(ContractError, match="'broken'"):
        tools_from_json([{"name": "broken", "arguments": {"properties": {}}, "permission": "root"}])


def test_id_kinds_from_patterns_and_the_me_kind() -> None:
    tools = tools_from_json(TOOLS_JSON)
    kinds = {k.slot: k for k in derive_id_kinds(tools)}
    assert set(kinds) == {"EMPLOYEE", "TICKET", "ASSET"}  # the email pattern is a generic kind, no id
    assert re.search(kinds["TICKET"].pattern, "工单TCK-123456的状态") and not re.search(
        kinds["TICKET"].pattern, "TCK-1234567"
    )
    assert re.fullmatch(r"E[0-9]{6}", kinds["EMPLOYEE"].sample) and kinds["EMPLOYEE"].upper
    lex = contract_lexicon(tools, me_field="employee_id")
    assert lex.me_kind == "EMPLOYEE"
    ref = {k.slot for k in derive_id_kinds(reference_tools())}
    assert ref == {"USER", "ORDER", "INVOICE", "EXPENSE", "ROOM"}  # phone, email, dates, city: generic


@pytest.mark.parametrize(
    ("pattern", "is_id"),
    [
        (r"^E[0-9]{6}$", True),
        (r"^[A-Z]{2}-[0-9]{4,6}$", True),
        (r"^[A-Z]{3}$", False),  # no digit: "VPN" would be one
        (r"^[0-9]+$", False),  # unbounded
        (r"^1[3-9][0-9]{9}$", False),  # a phone number: the generic kind
        (r"^(?=.*Q)[A-Z0-9]{6}$", False),  # look-ahead
    ],
)
def test_which_patterns_are_id_kinds(pattern: str, is_id: bool) -> None:
    assert (id_kind_of(ref_or(pattern), "X") is not None) == is_id


def test_regex_sample_matches_and_is_seeded() -> None:
    for p in (r"^E[0-9]{6}$", r"^(AT|BT)-[0-9]{5}$", r"^[a-z]{2,4}\.[0-9]?x$", REF_PATTERN):
        for seed in range(5):
            v = regex_sample(p, random.Random(seed))
            assert re.fullmatch(p.removeprefix("^").removesuffix("$"), v), (p, v)
    assert regex_sample(r"^E[0-9]{6}$", random.Random(1)) == regex_sample(r"^E[0-9]{6}$", random.Random(1))
    with pytest.raises(ContractError):
        regex_sample(r"^(a)\1$")


def test_slot_names() -> None:
    assert [slot_name(n) for n in ("employee_id", "asset_tag", "po_number", "x", "3d_id")] == [
        "EMPLOYEE",
        "ASSET",
        "PO",
        "XID",
        "K3D",
    ]
