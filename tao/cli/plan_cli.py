"""``tao plan "REQUEST"``: print the ThoughtPlan (or insufficient-context error) for a request.

Uses the transformers path (:mod:`thought_model.hf_planner`) on the default checkpoint, for the
tool domain the checkpoint records (``--registry MODULE:ATTR`` must agree with it). The
session user defaults to a demo user so "my orders" requests can be planned; pass
``--no-user`` to plan as an anonymous session.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

DEMO_USER = "U10000001"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tao plan", description="print a ThoughtPlan for a request")
    ap.add_argument("request", help="the user's request (Chinese or English)")
    ap.add_argument("--checkpoint", default=None, help="model folder (default: the embedded default)")
    ap.add_argument(
        "--registry",
        default=None,
        metavar="MODULE:ATTR",
        help="tool domain (default: the checkpoint's own; else $TAO_REGISTRY, else tao.domains.reference:domain)",
    )
    ap.add_argument("--user-id", default=DEMO_USER, help=f"session user id (default: {DEMO_USER})")
    ap.add_argument("--no-user", action="store_true", help="plan for a session without a known user")
    ap.add_argument("--now", default=None, help="session clock, ISO date-time (default: now)")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if not a.request.strip():
        print("tao plan: the request is empty", file=sys.stderr)
        return 2
    from tao.contracts import SessionState
    from tao.domains import DomainLoadError
    from thought_model.checkpoint import DomainMismatchError
    from thought_model.grammar import PlanParseError
    from thought_model.hf_planner import DEFAULT_CHECKPOINT, HFPlanner

    try:
        now = datetime.fromisoformat(a.now) if a.now else datetime.now()
    except ValueError:
        print(f"tao plan: --now is not an ISO date-time: {a.now!r}", file=sys.stderr)
        return 2
    session = SessionState(user_id=None if a.no_user else a.user_id, now=now)
    try:
        planner = HFPlanner(a.checkpoint or DEFAULT_CHECKPOINT, registry=a.registry)
    except (FileNotFoundError, OSError) as exc:
        print(f"tao plan: cannot load the model: {exc}", file=sys.stderr)
        return 2
    except (DomainLoadError, DomainMismatchError) as exc:
        print(f"tao plan: {exc}", file=sys.stderr)
        return 2
    try:
        result = planner.plan(a.request, session)
    except PlanParseError as exc:
        print(f"tao plan: the model's output was not a valid plan: {exc}", file=sys.stderr)
        return 1
    if hasattr(result, "stamped"):
        result = result.stamped()
    print(json.dumps(result.model_dump(mode="json", exclude_none=True), ensure_ascii=False, indent=2))
    return 0
