"""``tao plan "REQUEST"``: print the ThoughtPlan (or insufficient-context error) for a request.

Uses the transformers path (:mod:`thought_model.hf_planner`) on the default checkpoint, for the
tool domain the checkpoint records (``--registry MODULE:ATTR`` must agree with it). The
session user defaults to a demo user so "my orders" requests can be planned; pass
``--no-user`` to plan as an anonymous session. A user id that breaks the domain's user-id rule
is refused (exit 2) before the model is loaded.

The plan is printed **resolved** (:func:`tao.loop.resolve.resolve_plan`, the step ``/v1/plan``
and the loop run): dates and periods against the session clock (``--now``, ``--timezone``), one
step per day for ``@this_weekend`` on a one-date argument, and the symbols kept in each step's
``resolved_from``. A model output that is not a valid plan is a typed error on stderr (exit 1).
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
    ap.add_argument("--timezone", default="Asia/Shanghai", help="session time zone (default: Asia/Shanghai)")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if not a.request.strip():
        print("tao plan: the request is empty", file=sys.stderr)
        return 2
    from tao.contracts import ErrorInfo, SessionState, ThoughtPlan
    from tao.domains import DomainLoadError
    from tao.loop.resolve import ResolveError, resolve_output, user_id_checker
    from thought_model.checkpoint import DomainMismatchError, checkpoint_domain
    from thought_model.hf_planner import DEFAULT_CHECKPOINT, HFPlanner

    try:
        now = datetime.fromisoformat(a.now) if a.now else datetime.now()
    except ValueError:
        print(f"tao plan: --now is not an ISO date-time: {a.now!r}", file=sys.stderr)
        return 2
    checkpoint = a.checkpoint or DEFAULT_CHECKPOINT
    try:
        domain = checkpoint_domain(checkpoint, a.registry)
    except (DomainLoadError, DomainMismatchError) as exc:
        print(f"tao plan: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, OSError) as exc:
        print(f"tao plan: cannot load the model: {exc}", file=sys.stderr)
        return 2
    user_id = None if a.no_user else a.user_id
    if user_id is not None:
        problem = user_id_checker(domain.tools, domain.lexicon)(user_id)
        if problem:
            print(f"tao plan: --user-id: {problem}", file=sys.stderr)
            return 2
    session = SessionState(user_id=user_id, now=now, timezone=a.timezone)
    try:
        planner = HFPlanner(checkpoint, registry=a.registry)
    except (FileNotFoundError, OSError) as exc:
        print(f"tao plan: cannot load the model: {exc}", file=sys.stderr)
        return 2
    except (DomainLoadError, DomainMismatchError) as exc:
        print(f"tao plan: {exc}", file=sys.stderr)
        return 2
    result = planner.plan(a.request, session)
    if isinstance(result, ErrorInfo):
        print(
            json.dumps(result.model_dump(mode="json", exclude_none=True), ensure_ascii=False), file=sys.stderr
        )
        return 1
    try:
        result = resolve_output(result, session, planner.gen.tools)
    except ResolveError as exc:
        print(json.dumps(exc.error_info().model_dump(mode="json", exclude_none=True)), file=sys.stderr)
        return 1
    if isinstance(result, ThoughtPlan):  # an insufficient-context answer has no stamp
        result = result.stamped()
    print(json.dumps(result.model_dump(mode="json", exclude_none=True), ensure_ascii=False, indent=2))
    return 0
