"""The server and the loop give the same answer on the same input: one plan checker, one
observation checker (the Rust core), whatever the path.

Seeded generators (no hand-picked cases): plans from the registry-driven training generator, valid
and broken (forward / self / unknown dependencies, cycles, duplicate ids, unknown tools, bad,
missing and extra arguments, references to steps that are not dependencies or do not exist), and
ActionResults for every reference tool (every status class, timeouts, latency over the bound,
schema violations, missing required fields, rule and blacklist failures, unparsed bodies, errors
the executor reported). Each one goes through the server's route (``/v1/observe``, the ``/v1/plan``
route's checker) and the loop's path (``TaoLoop.plan_validator`` / ``TaoLoop.observer``), and the
answers must be equal.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tao.contracts import ActionResult, ErrorInfo, ErrorType, ObservationResult, ThoughtPlan
from tao.server.app import create_app
from tao.server.config import ServerConfig

CONFIG = ServerConfig(load_model=False)
REG = {t.name: t for t in CONFIG.domain().tools}  # the served domain; the loop is built over it too
N_PLANS = 1200
N_RESULTS = 1200


@pytest.fixture(scope="module")
def server() -> Any:
    app = create_app(CONFIG)
    with TestClient(app) as client:
        yield app, client


@pytest.fixture(scope="module")
def loop() -> Any:
    from tao.action.executor import ToolExecutor
    from tao.action.registry import ToolRegistry
    from tao.loop.loop import TaoLoop

    registry = ToolRegistry()
    for spec in REG.values():
        registry.register(spec, _never_called)
    return TaoLoop(planner=None, executor=ToolExecutor(registry))  # type: ignore[arg-type]


async def _never_called(*_: Any) -> ActionResult:  # the agreement test runs no tool
    raise AssertionError("no tool call expected")


# ---------------------------------------------------------------------------------------- plans


def _valid_plans(n: int) -> list[dict[str, Any]]:
    from training.generate import GenConfig, iter_split

    out: list[dict[str, Any]] = []
    for split in ("train", "heldout_combos"):
        for r in iter_split(split, n, GenConfig(seed=11)):
            if r["expected"].get("steps"):
                out.append({k: v for k, v in r["expected"].items() if v is not None})
    return out


def _break(plan: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    p = copy.deepcopy(plan)
    steps = p["steps"]
    s = rng.choice(steps)
    kind = rng.randrange(11)
    if kind == 0 and len(steps) > 1:  # forward dependency
        steps[0]["dependencies"] = [*steps[0].get("dependencies", []), steps[-1]["step_id"]]
    elif kind == 1:  # self dependency
        s["dependencies"] = [*s.get("dependencies", []), s["step_id"]]
    elif kind == 2:  # unknown dependency
        s["dependencies"] = [*s.get("dependencies", []), "t7" if len(steps) < 7 else "t1"]
    elif kind == 3 and len(steps) > 1:  # cycle
        steps[0]["dependencies"] = [steps[1]["step_id"]]
        steps[1]["dependencies"] = [steps[0]["step_id"]]
    elif kind == 4 and len(steps) > 1:  # duplicate id
        steps[1]["step_id"] = steps[0]["step_id"]
    elif kind == 5:  # unknown tool
        s["tool"] = rng.choice(["nope_tool", "get_orders_v2", "delete_everything"])
    elif kind == 6 and s.get("arguments"):  # bad argument type
        k = rng.choice(sorted(s["arguments"]))
        s["arguments"][k] = rng.choice([12345, None, True, [], {"x": 1}, "", "x" * 300])
    elif kind == 7 and s.get("arguments"):  # missing argument
        del s["arguments"][rng.choice(sorted(s["arguments"]))]
    elif kind == 8:  # extra argument
        s.setdefault("arguments", {})["unexpected_arg"] = "x"
    elif kind == 9:  # a reference to a step that is not a dependency (or does not exist)
        k = rng.choice(sorted(s["arguments"])) if s.get("arguments") else "user_id"
        s.setdefault("arguments", {})[k] = f"${{t{rng.randint(1, 7)}.order_id}}"
    else:  # a reference to an earlier step listed in dependencies, to an output it lacks
        if len(steps) > 1 and s is not steps[0] and s.get("arguments"):
            k = rng.choice(sorted(s["arguments"]))
            s["arguments"][k] = f"${{{steps[0]['step_id']}.no_such_output}}"
            s["dependencies"] = sorted({*s.get("dependencies", []), steps[0]["step_id"]})
        else:
            s["tool"] = "nope_tool"
    return p


def _plans() -> list[ThoughtPlan]:
    rng = random.Random(20261201)
    valid = _valid_plans(150)
    out: list[ThoughtPlan] = []
    while len(out) < N_PLANS:
        base = rng.choice(valid)
        doc = base if rng.random() < 0.25 else _break(base, rng)
        out.append(ThoughtPlan.model_validate(doc))
    return out


def test_plan_checks_agree(server, loop) -> None:
    app, _ = server
    server_check = app.state.plan_validator  # what POST /v1/plan runs on a generated plan
    verdicts: Counter[str] = Counter()
    for plan in _plans():
        s = server_check.check(plan)
        errors, order, et = loop.plan_validator.classify(plan)
        assert s["valid"] == (et is None), plan
        assert [f"{e['path']}: {e['message']}".lstrip(": ") for e in s["errors"]] == errors
        assert list(s["order"] or []) == order
        verdicts[et.value if et else "valid"] += 1
        verdicts.update(e["code"] for e in s["errors"])
    # the generator reaches every verdict and every class of error
    for want in ("valid", "PLAN_INVALID", "TOOL_UNKNOWN", "LATER_DEPENDENCY", "SELF_DEPENDENCY",
                 "UNKNOWN_DEPENDENCY", "CYCLE", "DUPLICATE_STEP_ID", "UNKNOWN_TOOL", "ARGUMENT_INVALID",
                 "REFERENCE_NOT_DEPENDENCY"):  # fmt: skip
        assert verdicts[want] > 0, (want, verdicts)


# -------------------------------------------------------------------------------- observations


def _value(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value valid against the simple response schemas of the reference domain."""
    if "enum" in schema:
        return rng.choice(schema["enum"])
    t = schema.get("type")
    if isinstance(t, list):
        t = rng.choice([x for x in t if x != "null"] or ["null"])
    if t == "object" or "properties" in schema:
        return {k: _value(v, rng) for k, v in (schema.get("properties") or {}).items()}
    if t == "array":
        return [_value(schema.get("items") or {}, rng) for _ in range(rng.randint(0, 3))]
    if t == "integer":
        return rng.randint(0, 50)
    if t == "number":
        return round(rng.uniform(0, 500), 2)
    if t == "boolean":
        return rng.random() < 0.5
    if t == "null":
        return None
    return rng.choice(["2026-11-30", "北京", "ok", "shipped", "In Transit", "65%", "x"])


STATUSES = [200, 200, 200, 201, 204, 301, 400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504, None]


def _result(tool: str, rng: random.Random) -> ActionResult:
    spec = REG[tool]
    data: Any = _value(spec.response_schema or {"type": "object"}, rng)
    status = 200 if rng.random() < 0.5 else rng.choice(STATUSES)
    slow = [spec.timeout_ms * 1.49, spec.timeout_ms * 1.5, spec.timeout_ms * 3]
    latency = rng.choice([1.0, 30.0]) if rng.random() < 0.7 else rng.choice(slow)
    raw = None
    error = None
    kind = rng.randrange(12)  # 6..11: left as generated
    if kind == 0 and isinstance(data, dict) and data:  # a required field missing or null
        k = rng.choice(sorted(data))
        if rng.random() < 0.5:
            del data[k]
        else:
            data[k] = None
    elif kind == 1 and isinstance(data, dict) and data:  # schema violation
        data[rng.choice(sorted(data))] = rng.choice([[1, 2], {"x": {}}, 3.5, "?"])
    elif kind == 2 and isinstance(data, dict):  # rule / blacklist values
        data["status"] = rng.choice(["unknown", "error", "Unknown"])
    elif kind == 3:  # a body that did not parse
        data, raw = None, rng.choice(["<html>502 Bad Gateway</html>", "not json", "{"])
    elif kind == 4:  # an error the executor already reported
        et = rng.choice([ErrorType.TOOL_TIMEOUT, ErrorType.TOOL_TRANSIENT, ErrorType.RATE_LIMITED,
                         ErrorType.TOOL_CIRCUIT_OPEN, ErrorType.PERMISSION_DENIED,
                         ErrorType.TOOL_ARGUMENT_INVALID])  # fmt: skip
        error, status, data = ErrorInfo(error_type=et, message="reported"), None, None
    elif kind == 5:  # not a dict at all
        data = rng.choice([[], "text", 7, None])
    return ActionResult(
        tool=tool,
        step_id="t1",
        status_code=status,
        response_time_ms=latency,
        parsed_data=data,
        original_response=raw,
        error_info=error,
    )


def test_observation_checks_agree(server, loop) -> None:
    _, client = server
    rng = random.Random(1201)
    tools = sorted(REG)
    seen: Counter[str] = Counter()
    for _ in range(N_RESULTS):
        tool = rng.choice(tools)
        result = _result(tool, rng)
        r = client.post("/v1/observe", json={"tool": tool, "result": result.model_dump(mode="json")})
        assert r.status_code == 200, r.text
        via_server = ObservationResult.model_validate(r.json())
        via_loop = loop.observer.observe(REG[tool], result)
        assert via_server.model_dump(mode="json") == via_loop.model_dump(mode="json"), (tool, result)
        seen[via_loop.error_type.value if via_loop.error_type else "valid"] += 1
        if via_loop.valid:
            assert via_loop.confidence_score == 1.0  # the documented rule: clean, no soft check
    for want in ("valid", "TOOL_TIMEOUT", "TOOL_TRANSIENT", "TOOL_CLIENT_ERROR", "RATE_LIMITED",
                 "TOOL_SCHEMA_VIOLATION", "TOOL_MALFORMED_RESPONSE", "RULE_VIOLATION"):  # fmt: skip
        assert seen[want] > 0, (want, seen)
