"""Export the contracts' JSON Schemas: ``python -m tao.contracts.export [--check] [DIR]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import BaseModel

from tao.contracts import (
    ActionResult,
    InsufficientContext,
    ObservationResult,
    PlanStep,
    SessionState,
    ThoughtPlan,
    ToolSpec,
    TrajectoryEvent,
)
from tao.contracts.status import shared_constants

MODELS: dict[str, type[BaseModel]] = {
    "tool_spec": ToolSpec,
    "thought_plan": ThoughtPlan,
    "plan_step": PlanStep,
    "insufficient_context": InsufficientContext,
    "session_state": SessionState,
    "action_result": ActionResult,
    "observation_result": ObservationResult,
    "trajectory_event": TrajectoryEvent,
}
CONSTANTS_FILE = "contract_constants.json"
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "schemas"


def render() -> dict[str, str]:
    """File name -> exact file text for every exported schema."""
    out = {}
    for name, model in MODELS.items():
        schema = model.model_json_schema()
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"tao:{name}", **schema}
        out[f"{name}.json"] = json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    # Error types, status values and the step-reference pattern, embedded by rust_validator.
    out[CONSTANTS_FILE] = json.dumps(shared_constants(), indent=2, ensure_ascii=False) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    ap.add_argument("--check", action="store_true", help="exit 1 if files differ from the models")
    args = ap.parse_args(argv)
    target = Path(args.dir)
    stale = []
    for fname, text in render().items():
        path = target / fname
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(fname)
        else:
            target.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale schemas (run `python -m tao.contracts.export`): {', '.join(stale)}", file=sys.stderr)
        return 1
    if not args.check:
        print(f"wrote {len(MODELS)} schemas and {CONSTANTS_FILE} to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
