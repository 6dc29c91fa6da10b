"""The 41-tool combined registry: unique names, a handler per tool, examples within the contracts,
and a chain across parts served by the real mock service over HTTP."""

from __future__ import annotations

import re
from collections import Counter

import httpx
import jsonschema
import pytest

from tao.domains import load_domain
from tao.domains.combined import PARTS, tool_owner
from tao.mock_service.app import MockState
from tao.mock_service.server import start_in_thread

REF = "tao.domains.combined:registry"


def test_the_registry_has_41_unique_tools_from_three_parts() -> None:
    d = load_domain(REF)
    names = d.tool_names()
    assert len(names) == 41 == len(set(names))
    assert Counter(tool_owner().values()) == {"reference": 22, "helpdesk": 8, "workplace": 11}
    assert set(d.mock_handlers or {}) == set(names)
    assert len(PARTS) == 3


def test_examples_stay_within_ten_per_tool_and_language_and_match_the_schemas() -> None:
    d = load_domain(REF)
    reg = d.registry()
    per = Counter((ex.steps[0][0], ex.lang) for ex in d.examples if len(ex.steps) == 1)
    assert per and max(per.values()) <= 10
    for ex in d.examples:
        for tool, args in ex.steps:
            concrete = {
                k: ("E100000" if v == "<ME>" else v)
                for k, v in args.items()
                if not (isinstance(v, str) and v.startswith("${"))
            }
            schema = dict(reg[tool].args_schema)
            schema["required"] = [r for r in schema.get("required", []) if r in concrete]
            jsonschema.validate(concrete, schema)
            for v in args.values():
                if isinstance(v, str) and re.fullmatch(r"[A-Z]{1,3}-?[0-9]{5,6}", v):
                    assert v in ex.text, (ex.text, v)


def test_a_leave_and_travel_chain_runs_on_the_mock_service() -> None:
    svc = start_in_thread(MockState(domain=load_domain(REF)))
    try:
        with httpx.Client(base_url=svc.url, timeout=10) as c:
            emp = c.post("/tools/find_employee", json={"name": "张伟"}).json()["employee_id"]
            r = c.post(
                "/tools/request_leave",
                json={
                    "employee_id": emp,
                    "leave_type": "annual",
                    "start_date": "2026-05-06",
                    "end_date": "2026-05-07",
                },
            )
            assert r.status_code == 200 and r.json()["days"] == 2
            lid = r.json()["leave_id"]
            listed = c.post(
                "/tools/list_leave_requests", json={"employee_id": emp, "status": "pending"}
            ).json()
            assert listed["requests"][0]["leave_id"] == lid
            assert c.post("/tools/cancel_leave_request", json={"leave_id": lid}).json()["cancelled"] is True
            again = c.post("/tools/cancel_leave_request", json={"leave_id": lid})
            assert again.status_code == 409
            fl = c.post(
                "/tools/search_flights", json={"origin": "上海", "destination": "北京", "date": "2026-05-06"}
            )
            best = fl.json()["flights"][0]
            booked = c.post(
                "/tools/book_flight", json={"flight_id": best["flight_id"], "employee_id": emp}
            ).json()
            trip = c.post("/tools/get_trip", json={"trip_id": booked["trip_id"]}).json()
            assert trip["total"] == best["price"]
            assert c.post("/tools/get_trip", json={"trip_id": "TRP-000000"}).status_code == 404
            # a reference-domain tool on the same service reads its own part's state
            assert c.post("/tools/get_weather", json={"city": "Paris"}).status_code == 200
    finally:
        svc.stop()


@pytest.mark.parametrize("tool", ["get_leave_balance", "search_hotels", "get_payslip"])
def test_bad_arguments_are_typed_4xx(tool: str) -> None:
    d = load_domain(REF)
    h = (d.mock_handlers or {})[tool]
    status, body, effect = h(d.mock_data(7, None), {"employee_id": "E999999", "city": ""})  # pyright: ignore[reportOptionalCall]
    assert status in (400, 404) and body["error"] in ("bad_request", "not_found") and effect is False
