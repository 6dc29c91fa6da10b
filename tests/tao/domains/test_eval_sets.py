"""The hand-written external evaluation set (tao/domains/reference/eval_sets/handwritten.jsonl) is well-formed:
every expected plan is a valid ThoughtPlan over the reference registry that follows its intent's
plan shape, insufficient-context rows are valid InsufficientContext objects, and the set has the
promised size and balance."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date

import jsonschema
import pytest

from tao.contracts import InsufficientContext, ThoughtPlan
from tao.contracts.plan import REF_PATTERN, TIME_SYMBOL_PATTERN
from tao.domains.reference import EVAL_SETS
from tao.domains.reference.phrasing.intents import INTENTS
from tao.domains.reference.registry import reference_tools

PATH = EVAL_SETS["handwritten"]
MULTI = "multi_task"
ME = "<ME>"
KEYS = {"request", "user_id", "today", "lang", "intent", "expected"}
ENUM_ARGS = {"field", "category", "status"}
VALUE_FORMAT = {"phone": r"1[3-9][0-9]{9}", "email": r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"}
TOOLS = {t.name: t for t in reference_tools()}
SPECS = {s.name: s for s in INTENTS}


def _rows() -> list[dict]:
    with PATH.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


ROWS = _rows()


def _shape(spec, offset: int = 0) -> list[tuple[str, tuple[str, ...]]]:
    """(tool, dependencies) per step of an intent's plan, step ids shifted by ``offset``."""
    return [(tool, tuple(f"t{int(d[1:]) + offset}" for d in deps)) for tool, _, deps in spec.steps]


def _spec_args(spec) -> list[tuple[str, dict]]:
    return [(tool, args) for tool, args, _ in spec.steps]


def _multi_candidates(steps: list[dict]) -> list[list[tuple[object, int]]]:
    """Pairs of intents whose plan shapes, concatenated, give the multi_task plan."""
    got = [(s["tool"], tuple(s["dependencies"])) for s in steps]
    out = []
    for a in INTENTS:
        n = len(a.steps)
        if n >= len(steps) or got[:n] != _shape(a):
            continue
        out += [[(a, 0), (b, n)] for b in INTENTS if got[n:] == _shape(b, n)]
    return out


def _arg_problems(r: dict, steps: list[dict], parts: list[tuple[object, int]]) -> list[str]:
    """Where the plan's arguments disagree with the intents' plans (names, <ME>, refs, constants)."""
    bad = []
    for spec, off in parts:
        for j, (_, args) in enumerate(_spec_args(spec)):
            got = steps[off + j]["arguments"]
            if not set(got) <= set(args):
                bad.append(f"{spec.name}: arguments outside the intent's plan: {set(got) - set(args)}")
            for name, v in args.items():
                if v == ME:
                    if r["user_id"] is None or got.get(name) != r["user_id"]:
                        bad.append(f"{spec.name}.{name}: <ME> needs the session user")
                elif isinstance(v, str) and v.startswith("${"):
                    want = re.sub(r"\$\{t([1-7])\.", lambda m: "${t" + str(int(m.group(1)) + off) + ".", v)  # noqa: B023 (used at once)
                    if got.get(name) != want:
                        bad.append(f"{spec.name}.{name}: {got.get(name)!r} != {want!r}")
                elif isinstance(v, str) and not v.startswith("{") and got.get(name) != v:
                    bad.append(f"{spec.name}.{name}: {got.get(name)!r} != constant {v!r}")
    return bad


def _later_intents() -> set[str]:
    """Intents added after the hand-written set was written (round 6: the four new tools and the
    profile -> weather chains; round 7: the chain and shared-object intents); the set is fixed, so it
    has no rows for them."""
    from tao.domains.reference.phrasing.intents_chain import CHAIN_INTENTS
    from tao.domains.reference.phrasing.intents_more import MORE_INTENTS
    from tao.domains.reference.phrasing.intents_new import NEW_INTENTS
    from tao.domains.reference.phrasing.intents_pairs import PAIR_INTENTS

    return {s.name for s in NEW_INTENTS + MORE_INTENTS + CHAIN_INTENTS + PAIR_INTENTS}


LATER = _later_intents()


def test_file_size_and_balance() -> None:
    assert len(ROWS) == 240
    langs = Counter(r["lang"] for r in ROWS)
    assert langs == {"zh": 120, "en": 120}
    ins = sum(r["expected"].get("error") == "insufficient_context" for r in ROWS)
    multi = sum(r["intent"] == MULTI for r in ROWS)
    assert 0.12 <= ins / len(ROWS) <= 0.18
    assert 0.08 <= multi / len(ROWS) <= 0.12
    for lang in ("zh", "en"):
        per = Counter(r["intent"] for r in ROWS if r["lang"] == lang)
        missing = {name: per.get(name, 0) for name in SPECS if name not in LATER and per.get(name, 0) < 3}
        assert not missing, f"{lang}: intents with fewer than 3 rows: {missing}"
    assert len({r["request"] for r in ROWS}) == len(ROWS), "duplicate requests"
    assert len({r["today"] for r in ROWS}) >= 100, "vary the session date"


@pytest.mark.parametrize("i", range(len(ROWS)))
def test_row_is_well_formed(i: int) -> None:
    r = ROWS[i]
    assert set(r) == KEYS
    assert isinstance(r["request"], str) and r["request"].strip()
    assert r["lang"] in ("zh", "en")
    assert r["user_id"] is None or re.fullmatch(r"U[0-9]{8}", r["user_id"])
    assert date.fromisoformat(r["today"]).year == 2026
    assert r["intent"] == MULTI or r["intent"] in SPECS
    exp = r["expected"]
    if exp.get("error") is not None:
        _check_insufficient(r)
    else:
        _check_plan(r)


def _check_insufficient(r: dict) -> None:
    exp = r["expected"]
    ic = InsufficientContext.model_validate(exp)
    assert set(exp) == {"error", "intent", "required_fields"}
    assert ic.intent == r["intent"] != MULTI
    spec = SPECS[r["intent"]]
    assert len(set(ic.required_fields)) == len(ic.required_fields)
    for field in ic.required_fields:
        uses = [(tool, args[field]) for tool, args in _spec_args(spec) if field in args]
        assert uses, f"{field} is not an argument of {spec.name}"
        assert any(field in TOOLS[tool].args_schema.get("required", []) for tool, _ in uses), (
            f"{field} is not required in {spec.name}"
        )
        if any(v == ME for _, v in uses):
            assert r["user_id"] is None, "<ME> is only missing when the session has no user"


def _check_plan(r: dict) -> None:
    exp = r["expected"]
    plan = ThoughtPlan.model_validate(exp)
    assert set(exp) == {"version", "intent", "steps"} and exp["version"] == "1.0"
    assert plan.intent == r["intent"]
    steps = exp["steps"]
    assert [s["step_id"] for s in steps] == [f"t{k + 1}" for k in range(len(steps))]
    for k, s in enumerate(steps):
        assert set(s) == {"step_id", "tool", "arguments", "dependencies"}
        tool = TOOLS.get(s["tool"])
        assert tool is not None, f"unknown tool {s['tool']}"
        earlier = {f"t{j + 1}" for j in range(k)}
        assert set(s["dependencies"]) <= earlier, "dependencies must be earlier steps"
        for name in tool.args_schema.get("required", []):
            assert name in s["arguments"], f"{s['tool']}: required argument {name} missing"
        jsonschema.validate(s["arguments"], tool.args_schema)
        if s["tool"] == "update_user_profile" and s["arguments"]["field"] in VALUE_FORMAT:
            assert re.fullmatch(VALUE_FORMAT[s["arguments"]["field"]], s["arguments"]["value"]), (
                f"not a {s['arguments']['field']}: {s['arguments']['value']!r}"
            )
        for name, v in s["arguments"].items():
            _check_value(r, steps, s, name, v)

    # the plan follows its intent's shape (tools, dependencies, constant and <ME> arguments)
    if r["intent"] == MULTI:
        candidates = _multi_candidates(steps)
        assert candidates, "multi_task plan is not two intents concatenated"
        problems = [_arg_problems(r, steps, parts) for parts in candidates]
        assert any(not p for p in problems), problems
    else:
        spec = SPECS[r["intent"]]
        assert [(s["tool"], tuple(s["dependencies"])) for s in steps] == _shape(spec)
        problems = _arg_problems(r, steps, [(spec, 0)])
        assert not problems, problems


def _check_value(r: dict, steps: list[dict], step: dict, name: str, v) -> None:
    if isinstance(v, str) and (m := re.fullmatch(REF_PATTERN, v)):
        src, out = m.group(1), m.group(2)
        assert src in step["dependencies"], f"{v} refers to a step not in dependencies"
        producer = TOOLS[next(s["tool"] for s in steps if s["step_id"] == src)]
        assert out in producer.extract or out in producer.response_schema.get("properties", {}), (
            f"{producer.name} has no output {out}"
        )
        return
    if name == "amount":
        assert isinstance(v, float), "amounts are floats"
    if name in ("duration_min", "capacity"):
        assert isinstance(v, int) and not isinstance(v, bool)
    if name in ENUM_ARGS or not isinstance(v, (str, list)):
        return
    if isinstance(v, str) and (
        re.fullmatch(TIME_SYMBOL_PATTERN, v)
        or re.fullmatch(r"[0-9]{4}-[0-9]{2}(-[0-9]{2})?( [0-9]{2}:[0-9]{2})?", v)
    ):
        return
    if name == "user_id" and v == r["user_id"] and v.lower() not in r["request"].lower():
        return  # <ME>
    for x in v if isinstance(v, list) else [v]:
        assert x.lower() in r["request"].lower(), f"{step['tool']}.{name}={x!r} is not in the request"
