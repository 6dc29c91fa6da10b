"""``tao serve``: run the HTTP API under uvicorn with graceful shutdown.

    tao serve [--host 127.0.0.1] [--port 8080] [--checkpoint DIR] [--engine auto|cpu|vllm|vllm-server]
              [--api-key KEY] [--max-body-bytes N] [--timeout S] [--no-model] [--codec model|generic]
              [--keys-file PATH] [--idempotency-lock-ttl S] [--test-fault-headers]
              [--max-inflight-runs N] [--max-inflight-plans N] [--workers N]

Flags override ``TAO_*`` environment variables. A non-loopback ``--host`` needs keys configured
(the server refuses to start open to the network). On SIGTERM/SIGINT uvicorn stops accepting
connections and lets in-flight requests finish (up to ``--graceful-timeout`` seconds), then the
plan engine is closed. ``--workers N`` (N > 1) runs N worker processes on the one port
(:mod:`tao.server.workers`: each its own app and plan engine, state shared through
``TAO_REDIS_URL``).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn

    from tao.server.config import ServerConfig

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s trace=%(trace_id)s req=%(request_id)s %(message)s"


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tao serve", description="serve the TAO Runtime HTTP API")
    ap.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=None, help="port (default 8080; 0 = any free port)")
    ap.add_argument("--checkpoint", type=Path, default=None, help="plan model checkpoint (TAO_CHECKPOINT)")
    ap.add_argument(
        "--engine",
        choices=["auto", "cpu", "vllm", "vllm-server"],
        default=None,
        help="plan engine (TAO_ENGINE); vllm-server = a `vllm serve` of the same checkpoint at --engine-url",
    )
    ap.add_argument(
        "--engine-url",
        default=None,
        metavar="URL",
        help="OpenAI API base of the model server for --engine vllm-server, e.g. http://127.0.0.1:8000/v1 "
        "(TAO_ENGINE_URL)",
    )
    ap.add_argument(
        "--registry",
        default=None,
        metavar="MODULE:ATTR",
        help="tool domain (TAO_REGISTRY; default: the checkpoint's own, else tao.domains.reference:domain)",
    )
    ap.add_argument(
        "--compose",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="hybrid planner: clause split + composition around the plan model (TAO_COMPOSE; "
        "default: thought_model.compose.COMPOSE_DEFAULT)",
    )
    ap.add_argument("--api-key", default=None, help="require this bearer key on /v1 (TAO_API_KEY)")
    ap.add_argument(
        "--keys-file",
        default=None,
        metavar="PATH",
        help='API keys -> tenants and roles, JSON {"keys": [{"sha256", "tenant", "roles"}]} (TAO_KEYS_FILE)',
    )
    ap.add_argument(
        "--idempotency-lock-ttl",
        type=float,
        default=None,
        metavar="S",
        help="in-flight lock of a keyed run / non-idempotent step (TAO_IDEMPOTENCY_LOCK_TTL_S; default 10)",
    )
    ap.add_argument(
        "--test-fault-headers",
        action="store_true",
        help="tests only: forward X-Mock-* request headers to the tool calls (fault injection)",
    )
    ap.add_argument("--max-body-bytes", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=None, help="per-request timeout in seconds")
    ap.add_argument(
        "--max-inflight-runs",
        type=int,
        default=None,
        help="admission bound on POST /v1/run in flight (TAO_MAX_INFLIGHT_RUNS; default 64, 0 = none)",
    )
    ap.add_argument(
        "--max-inflight-plans",
        type=int,
        default=None,
        help="admission bound on POST /v1/plan in flight (TAO_MAX_INFLIGHT_PLANS; default 32, 0 = none)",
    )
    ap.add_argument(
        "--graceful-timeout", type=float, default=30.0, help="seconds to finish in-flight requests"
    )
    ap.add_argument(
        "--no-model", action="store_true", help="do not load the plan model (/v1/plan answers 503)"
    )
    ap.add_argument(
        "--codec",
        choices=["model", "generic"],
        default=None,
        help="prompt/grammar codec (generic: for random test checkpoints)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes on the one port (SO_REUSEPORT; each its own engine; "
        "N > 1 wants TAO_REDIS_URL for idempotency keys, sessions and approvals)",
    )
    ap.add_argument(
        "--planner-config",
        default=None,
        metavar="FILE",
        help="planning decision point for /v1/run (intent routing, bypass, fallback planner) from this "
        "planner_config.yaml (TAO_PLANNER_CONFIG; default: off)",
    )
    ap.add_argument("--log-level", default="info")
    return ap


_parser = parser  # the name older callers (tests) import


def configure_logging(level: str) -> None:
    from tao.server.routes_core import install_log_trace_ids

    install_log_trace_ids()
    logging.basicConfig(level=level.upper(), format=LOG_FORMAT, stream=sys.stderr, force=True)


def server_config(args: argparse.Namespace) -> ServerConfig:
    """The :class:`ServerConfig` of parsed ``tao serve`` arguments (flags over ``TAO_*`` env)."""
    from tao.server.config import ServerConfig

    cfg = ServerConfig.from_env(
        host=args.host,
        port=args.port,
        checkpoint=args.checkpoint,
        engine=args.engine,
        engine_url=args.engine_url,
        api_key=args.api_key,
        max_body_bytes=args.max_body_bytes,
        request_timeout_s=args.timeout,
        registry=args.registry,
        compose=args.compose,
        max_inflight_runs=args.max_inflight_runs,
        max_inflight_plans=args.max_inflight_plans,
    )
    if args.no_model:
        cfg.load_model = False
    if args.codec:
        cfg.extra["codec"] = args.codec
    if args.keys_file:
        cfg.extra["keys_file"] = args.keys_file
    if args.idempotency_lock_ttl:
        cfg.extra["idempotency_lock_ttl_s"] = str(args.idempotency_lock_ttl)
    if args.test_fault_headers:
        cfg.extra["test_fault_headers"] = "1"
    if planner_config := args.planner_config or os.environ.get("TAO_PLANNER_CONFIG"):
        cfg.extra["planner_config"] = planner_config
    return cfg


def check_bind(cfg: ServerConfig) -> str | None:
    """Why this configuration must not start (a bad keys file, a non-loopback bind without keys),
    or None."""
    from tao.server.auth import KeysFileError, is_loopback, keyring_for

    try:
        ring = keyring_for(cfg.api_key, cfg.extra.get("keys_file"))
    except KeysFileError as exc:
        return str(exc)
    if cfg.extra.get("planner_config"):
        from tao.loop.intent import PlanningConfigError, load_planning_config

        try:
            load_planning_config(cfg.extra["planner_config"])
        except PlanningConfigError as exc:
            return f"--planner-config: {exc}"
    if ring is None and not is_loopback(cfg.host):
        return (
            f"refusing to bind {cfg.host} without API keys (--keys-file / TAO_KEYS_FILE or "
            "--api-key / TAO_API_KEY); bind 127.0.0.1 for keyless local use"
        )
    return None


def build_server(args: argparse.Namespace, cfg: ServerConfig) -> uvicorn.Server | str:
    """The uvicorn server of one process (the app, its engine loaded at start-up), or why the app
    cannot be built (its domain does not load or does not match the checkpoint)."""
    import uvicorn

    from tao.domains import DomainLoadError
    from tao.server.app import create_app
    from thought_model.checkpoint import DomainMismatchError

    # the binary's own engine decodes in a child process (its own interpreter lock); an app
    # embedded with create_app keeps the in-process scheduler
    cfg.decode_process = os.environ.get("TAO_DECODE_PROCESS", "1").strip().lower() not in (
        "0",
        "false",
        "off",
        "no",
    )
    try:
        app = create_app(cfg)
    except (DomainLoadError, DomainMismatchError) as exc:
        return str(exc)
    if cfg.gc_freeze:  # this process is the server's own: its start-up heap is frozen once ready
        from tao.server.gc_freeze import install

        install(app)
    return uvicorn.Server(
        uvicorn.Config(
            app,
            host=cfg.host,
            port=cfg.port,
            log_config=None,
            log_level=args.log_level,
            timeout_graceful_shutdown=args.graceful_timeout,
            access_log=True,
            lifespan="on",
        )
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    configure_logging(args.log_level)
    if args.workers < 1:
        print("tao serve: --workers must be at least 1", file=sys.stderr)
        return 2
    cfg = server_config(args)
    refused = check_bind(cfg)
    if refused:
        print(f"tao serve: {refused}", file=sys.stderr)
        return 2
    if args.workers > 1:
        from tao.server.workers import Supervisor, SupervisorConfig

        sup = SupervisorConfig(
            argv=argv,
            workers=args.workers,
            host=cfg.host,
            port=cfg.port,
            graceful_timeout_s=args.graceful_timeout,
            shared_state=cfg.redis_url is not None,
        )
        return Supervisor(sup).run()
    server = build_server(args, cfg)
    if isinstance(server, str):
        print(f"tao serve: {server}", file=sys.stderr)
        return 2
    server.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
