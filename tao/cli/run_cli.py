"""``tao run "REQUEST"``: run the whole TAO loop once and print the trajectory.

Plans with the embedded default model (``thought_model/checkpoints/default``) or replays a plan
given with ``--plan`` (JSON text or a file; no model). Tools are the checkpoint's domain (or
``--registry MODULE:ATTR``) served by ``--tools-url`` / ``TAO_TOOLS_URL``, or by the domain's mock
service started in-process on a free loopback port. Output: a readable trajectory (rich), or
``--json``. Exit code 0 on success, 1 when the run did not succeed (failed / needs_user /
needs_approval), 2 on bad usage, 3 when the model is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain

DEMO_USER = "U00000001"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tao run", description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("request", nargs="?", default=None, help="the user's request, e.g. 查询上个月的订单状态")
    ap.add_argument("--json", action="store_true", help="print the run (with the trajectory) as JSON")
    ap.add_argument("--plan", help="replay this plan (JSON text or a path) instead of asking the model")
    ap.add_argument(
        "--replay",
        type=Path,
        metavar="JSONL",
        help="re-run the plan recorded in a trajectory file (the last trace, or --trace-id); each step "
        "keeps its original call's idempotency key (recorded digest; with TAO_REDIS_URL the shared "
        "step records answer it)",
    )
    ap.add_argument("--trace-id", default=None, help="which trace of --replay to re-run")
    ap.add_argument(
        "--checkpoint", type=Path, default=Path(os.environ.get("TAO_CHECKPOINT") or DEFAULT_CHECKPOINT)
    )
    ap.add_argument("--engine", default=os.environ.get("TAO_ENGINE", "auto"), help="auto | cpu | vllm")
    ap.add_argument(
        "--registry",
        default=None,
        metavar="MODULE:ATTR|FILE",
        help="tool domain, or a .json/.yaml file of tool contracts (default: the checkpoint's own; else "
        "$TAO_REGISTRY, else tao.domains.reference:domain)",
    )
    ap.add_argument(
        "--tools-url",
        default=os.environ.get("TAO_TOOLS_URL") or None,
        help="base URL of the tool service (default: start the mock service in-process)",
    )
    ap.add_argument("--user", default=DEMO_USER, help="session user id (default: the demo user)")
    ap.add_argument("--now", type=datetime.fromisoformat, default=None, help="session clock (ISO date-time)")
    ap.add_argument("--timezone", default="Asia/Shanghai")
    ap.add_argument(
        "--approve",
        action="append",
        default=[],
        metavar="TOOL",
        help="approve this write/high-risk tool for this run (repeatable)",
    )
    ap.add_argument("--trajectory", type=Path, default=None, help="also append the events to this JSONL file")
    ap.add_argument("--timeout", type=float, default=60.0, help="wall-time budget of the run, seconds")
    ap.add_argument(
        "--session",
        default=None,
        metavar="ID",
        help="keep a conversation: this turn sees the snapshot of the session's last turn (follow-ups "
        "such as 那3月呢 / book the first one) and leaves its own; stored under --session-dir",
    )
    ap.add_argument(
        "--session-dir",
        type=Path,
        default=None,
        help="where --session keeps its snapshots (default: $TAO_SESSION_DIR, else ~/.cache/tao/sessions)",
    )
    ap.add_argument("--tenant", default="default", help="tenant namespace of --session")
    ap.add_argument(
        "--planner-config",
        type=Path,
        default=os.environ.get("TAO_PLANNER_CONFIG") or None,
        metavar="FILE",
        help="turn on the planning decision point (intent routing, bypass, fallback planner) with this "
        "planner_config.yaml (default: $TAO_PLANNER_CONFIG; none: plan every request with the model)",
    )
    return ap


def _load_plan(text: str) -> Any:
    """A plan given inline (JSON text starting with '{') or as a file path (JSON: a plan or a list)."""
    raw = text.encode() if text.lstrip().startswith("{") else Path(text).read_bytes()
    return orjson.loads(raw)


async def _run(a: argparse.Namespace) -> dict:
    from tao.action.permissions import approve_tools
    from tao.contracts import SessionState
    from tao.domains import load_domain
    from tao.loop.loop import LoopConfig
    from tao.loop.planner import EnginePlanner, ReplayPlanner
    from tao.loop.runtime import Runtime, RuntimeConfig, load_plan_engine

    store = None
    if a.session is not None:
        from tao.loop.session_file import FileSessionStore, default_session_dir

        store = FileSessionStore(a.session_dir or default_session_dir())
        store.path(a.tenant, a.session)  # a bad id or tenant is a usage error before any work
    session = SessionState(
        session_id=a.session or "cli", tenant=a.tenant, user_id=a.user or None, now=a.now, timezone=a.timezone
    )
    engine = None
    digests: dict[str, str] = {}
    if a.replay is not None:
        from tao.trace.trajectory import load_jsonl, replay

        events = load_jsonl(a.replay, a.trace_id)
        if not events:
            raise ValueError(f"no trace {a.trace_id or ''} in {a.replay}".replace("  ", " "))
        last = a.trace_id or events[-1].trace_id
        rec = replay([e for e in events if e.trace_id == last])
        planner = ReplayPlanner(rec.replay_plan())
        digests = rec.arg_digests()  # the original calls' keys (the arguments were stored redacted)
        a.request = a.request or rec.request or "replay"
    elif a.plan is not None:
        planner = ReplayPlanner(_load_plan(a.plan))
    else:
        engine = await asyncio.to_thread(load_plan_engine, a.checkpoint, a.engine, a.registry)
        planner = EnginePlanner(engine)
    if engine is not None:  # the model plans for its checkpoint's domain; the mock needs its module
        domain = checkpoint_domain(a.checkpoint, a.registry, full=a.tools_url is None)
    else:
        domain = load_domain(a.registry)
    if a.tools_url is None and domain.transport is None and not domain.mock_handlers:
        raise ValueError(
            f"domain {domain.ref or domain.name!r} has no mock handlers (a contract file describes its "
            "tools, it does not serve them): call the real tools with --tools-url URL or TAO_TOOLS_URL "
            "(each tool at URL/tools/NAME), or use a Python domain with mock handlers"
        )
    idem = None
    if redis_url := os.environ.get("TAO_REDIS_URL"):  # the step records the servers share
        from tao.action.idempotency_redis import RedisIdempotency

        idem = RedisIdempotency.from_url(redis_url)
    planning = None
    if a.planner_config is not None:
        from tao.loop.intent import load_planning_config

        planning = load_planning_config(a.planner_config)  # PlanningConfigError is a ValueError
    rt = Runtime(
        RuntimeConfig(
            tools_url=a.tools_url,
            trajectory_path=a.trajectory,
            loop=LoopConfig(wall_time_s=a.timeout),
            planning=planning,
        ),
        domain=domain,
        session_store=store,
        idempotency=idem,
    )
    try:
        report = await rt.loop(planner).run(
            a.request, session, approver=approve_tools(a.approve), arg_digests=digests
        )
        out = report.to_dict(with_events=True)
        out["tools_url"] = rt.tools_url if rt.mock is None else "in-process mock service"
        out["observer"] = rt.observer.backend
        return out
    finally:
        await rt.aclose()
        if engine is not None:
            engine.close()


def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    a = ap.parse_args(argv)
    if a.replay is None and (a.request is None or not a.request.strip()):
        ap.error("the request is empty")
    if a.plan is None and a.replay is None and not (a.checkpoint / "config.json").is_file():
        print(
            f"tao run: the plan model is missing (no checkpoint at {a.checkpoint}).\n"
            "  Train or fetch the default model first (`tao train`), point --checkpoint/TAO_CHECKPOINT at one,\n"
            '  or replay a plan without a model: tao run REQUEST --plan \'{"intent":...,"steps":[...]}\'',
            file=sys.stderr,
        )
        return 3
    from tao.domains import DomainLoadError
    from tao.loop.session import SessionKeyError

    try:
        out = asyncio.run(_run(a))
    except (
        OSError,
        ValueError,
        RuntimeError,
        DomainLoadError,
        SessionKeyError,
    ) as exc:  # bad plan file, engine or domain
        print(f"tao run: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if a.json:
        sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        from tao.cli.run_view import render

        render(out)
    return 0 if out["status"] == "success" else 1


if __name__ == "__main__":
    raise SystemExit(main())
