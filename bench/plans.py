"""Random valid ThoughtPlans across the reference domain, for the load test's plan-replay mode.

Plans chain 1–4 tools of the reference registry (``tao/domains/reference/registry.py``); a later
step prefers a tool that can consume an earlier step's output through a step reference
(``find_user → list_orders(user_id=${t1.user_id}) → get_logistics(order_id=${t2.order_id})``).
Every step depends on its predecessor, so steps run one after another and the runtime's own
overhead (total minus tool time) is exact. Each argument object is checked against the tool's
JSON Schema and each plan against the ThoughtPlan contract before it is returned.

``broken_dependency(plan)`` makes the plan's last step reference an output its predecessor never
produces: the runtime must answer DEPENDENCY_MISSING without calling the tool.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from tao.contracts import ToolSpec
from tao.contracts.plan import ThoughtPlan
from tao.domains.reference.registry import reference_tools

CITIES = ("Beijing", "Shanghai", "Shenzhen", "Hangzhou", "北京", "上海", "Paris", "Berlin", "Tokyo")
NAMES = ("Li Wei", "Zhang Min", "王芳", "Alice Chen", "Bob Liu", "陈静")
WORDS = ("quarterly", "review", "client", "lunch", "trip", "hotel", "taxi", "offsite", "sync", "budget")
# relative symbols that name one day (period symbols such as @last_month resolve to a range,
# which a date argument rejects)
DAY_SYMBOLS = ("now", "today", "yesterday", "tomorrow", "day_after_tomorrow", "days_ago:3", "in_days:2")
# a step argument -> the extract key of an earlier step that can feed it
REF_SOURCES = {"to": "email"}


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _date(rng: random.Random) -> str:
    if rng.random() < 0.5:
        sym = rng.choice(DAY_SYMBOLS)
        return f"@{sym}" + (
            f" T{rng.randint(8, 18):02d}:{rng.choice((0, 30)):02d}" if rng.random() < 0.3 else ""
        )
    return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" + (
        f" {rng.randint(8, 18):02d}:{rng.choice((0, 30)):02d}" if rng.random() < 0.4 else ""
    )


def _phrase(rng: random.Random, lo: int = 2, hi: int = 5) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


LITERALS: dict[str, Callable[[random.Random], Any]] = {
    "user_id": lambda r: "U" + _digits(r, 8),
    "order_id": lambda r: str(r.randint(1, 9)) + _digits(r, 17),
    "invoice_id": lambda r: "INV" + _digits(r, 10),
    "expense_id": lambda r: "EXP" + _digits(r, 8),
    "room_id": lambda r: "R" + _digits(r, 3),
    "name": lambda r: r.choice(NAMES),
    "email": lambda r: f"user{r.randint(1, 999)}@example.com",
    "to": lambda r: f"user{r.randint(1, 999)}@example.com",
    "phone": lambda r: "1" + r.choice("3456789") + _digits(r, 9),
    "value": lambda r: r.choice(CITIES),
    "period": lambda r: r.choice(("@last_month", "@this_month", "2026-10", "2026-09/2026-11")),
    "amount": lambda r: round(r.uniform(1, 5000), 2),
    "reason": lambda r: _phrase(r),
    "title": lambda r: _phrase(r).title(),
    "description": lambda r: _phrase(r, 3, 8),
    "subject": lambda r: _phrase(r).capitalize(),
    "body": lambda r: _phrase(r, 5, 15).capitalize() + ".",
    "city": lambda r: r.choice(CITIES),
    "date": _date,
    "start": _date,
    "duration_min": lambda r: r.choice((15, 30, 45, 60, 90, 120)),
    "capacity": lambda r: r.randint(2, 20),
    "attendees": lambda r: [f"user{r.randint(1, 999)}@example.com" for _ in range(r.randint(0, 3))],
}


@dataclass
class PlanGenConfig:
    seed: int = 0
    max_steps: int = 4
    ref_probability: float = 0.85  # chance a ref-able argument uses an earlier step's output
    optional_probability: float = 0.5  # chance an optional argument is filled


def _refable(schema: dict) -> bool:
    return "${" in str(schema.get("pattern", "")) or r"\$\{" in str(schema.get("pattern", ""))


class PlanGenerator:
    """Deterministic (seeded) generator of valid ThoughtPlan dicts."""

    def __init__(
        self,
        cfg: PlanGenConfig | None = None,
        tools: list[ToolSpec] | None = None,
        literals: dict[str, Callable[[random.Random], Any]] | None = None,
    ) -> None:
        self.cfg = cfg or PlanGenConfig()
        self.rng = random.Random(self.cfg.seed)
        self.literals = {**LITERALS, **(literals or {})}
        self.tools = {t.name: t for t in (tools or reference_tools())}
        self._validators = {n: jsonschema_rs.validator_for(t.args_schema) for n, t in self.tools.items()}

    def _consumers(self, produced: dict[str, str]) -> list[str]:
        """Tools with a ref-able argument that an earlier output (``produced``) can feed."""
        out = []
        for name, t in self.tools.items():
            props = t.args_schema.get("properties", {})
            if any(_refable(s) and REF_SOURCES.get(a, a) in produced for a, s in props.items()):
                out.append(name)
        return out

    def _arguments(self, tool: ToolSpec, produced: dict[str, str]) -> tuple[dict[str, Any], set[str]]:
        props: dict[str, dict] = tool.args_schema.get("properties", {})
        required = set(tool.args_schema.get("required", []))
        args: dict[str, Any] = {}
        deps: set[str] = set()
        for arg, schema in props.items():
            if arg not in required and self.rng.random() >= self.cfg.optional_probability:
                continue
            src = REF_SOURCES.get(arg, arg)
            if _refable(schema) and src in produced and self.rng.random() < self.cfg.ref_probability:
                step = produced[src]
                args[arg] = f"${{{step}.{src}}}"
                deps.add(step)
                continue
            enum = schema.get("enum") or next(
                (x.get("enum") for x in schema.get("anyOf", []) if x.get("enum")), None
            )
            if enum:
                args[arg] = self.rng.choice(enum)
            elif arg in self.literals:
                args[arg] = self.literals[arg](self.rng)
        if tool.name == "find_user" and not args:
            args["name"] = self.literals["name"](self.rng)
        return args, deps

    def plan(self) -> dict[str, Any]:
        """One random valid plan (a ThoughtPlan dict without thought_id/created_at)."""
        n = self.rng.choices(range(1, self.cfg.max_steps + 1), weights=[3, 4, 2, 1][: self.cfg.max_steps])[0]
        produced: dict[str, str] = {}  # output name -> step that produces it (latest wins)
        steps: list[dict[str, Any]] = []
        for i in range(1, n + 1):
            consumers = self._consumers(produced)
            name = self.rng.choice(consumers if consumers and self.rng.random() < 0.8 else list(self.tools))
            tool = self.tools[name]
            args, deps = self._arguments(tool, produced)
            errors = [e.message for e in self._validators[name].iter_errors(args)]
            if errors:
                raise ValueError(f"generated invalid arguments for {name}: {errors[0]} ({args})")
            sid = f"t{i}"
            if i > 1:
                deps.add(f"t{i - 1}")  # sequential: overhead = total - tool time is exact
            steps.append({"step_id": sid, "tool": name, "arguments": args, "dependencies": sorted(deps)})
            for key in tool.extract:
                produced[key] = sid
        intent = steps[-1]["tool"] if n == 1 else f"{steps[0]['tool']}_then_{steps[-1]['tool']}"[:64]
        plan = {"version": "1.0", "intent": intent, "steps": steps}
        ThoughtPlan.model_validate(plan)
        return plan

    def plans(self, n: int) -> list[dict[str, Any]]:
        return [self.plan() for _ in range(n)]


def entity_literals(data: Any) -> dict[str, Callable[[random.Random], Any]]:
    """Literal generators that pick ids, names, emails, phones and cities that exist in a
    :class:`tao.domains.reference.mock_data.MockData` (so replayed plans mostly find their records)."""
    users = list(data.users.values())
    pools = {
        "user_id": [u["user_id"] for u in users],
        "name": [u["name"] for u in users],
        "email": [u["email"] for u in users],
        "to": [u["email"] for u in users],
        "phone": [u["phone"] for u in users],
        "order_id": list(data.orders),
        "invoice_id": list(data.invoices),
        "expense_id": list(data.expenses),
        "room_id": [r["room_id"] for r in data.rooms],
    }
    out: dict[str, Callable[[random.Random], Any]] = {
        k: (lambda r, v=v: r.choice(v)) for k, v in pools.items() if v
    }
    cities = sorted({u["city"] for u in users})
    if cities:
        out["city"] = lambda r: r.choice(cities)
    return out


def broken_dependency(plan: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
    """A copy of ``plan`` with one more step whose input never arrives.

    The appended ``get_order_status`` step depends on the plan's last step and references an
    output (``never_produced``) that no tool extracts and no response contains, so the runtime
    must stop with DEPENDENCY_MISSING instead of calling the tool with a hole in it.
    """
    steps = [
        dict(s, arguments=dict(s["arguments"]), dependencies=list(s["dependencies"])) for s in plan["steps"]
    ]
    if len(steps) >= 7:
        steps = steps[:6]
    prev = steps[-1]["step_id"]
    steps.append(
        {
            "step_id": f"t{len(steps) + 1}",
            "tool": "get_order_status",
            "arguments": {"order_id": f"${{{prev}.never_produced}}"},
            "dependencies": [prev],
        }
    )
    out = dict(plan, steps=steps)
    ThoughtPlan.model_validate(out)
    return out
