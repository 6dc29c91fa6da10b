"""Application factory. Each feature owns a ``tao.server.routes_*`` module exposing
``register(app: FastAPI, config: ServerConfig) -> None``. Every module listed must import: a
route module that fails to import stops start-up with the module's name (never a server that
silently lacks an endpoint). The tool domain is resolved first, so a checkpoint whose domain
cannot be loaded fails start-up too."""

from __future__ import annotations

import importlib

from fastapi import FastAPI

from tao.server.config import ServerConfig
from tao.server.errors import install_error_handlers


class RouteImportError(ImportError):
    """A route module of :data:`ROUTE_MODULES` does not import (the server refuses to start)."""


ROUTE_MODULES = (
    "tao.server.routes_core",  # health, readiness, metrics, middleware (serving issue)
    "tao.server.routes_plan",  # POST /v1/plan
    "tao.server.routes_observe",  # POST /v1/observe, /v1/observe/batch
    "tao.server.routes_gateway",  # POST /v1/chat/completions, GET /v1/models (router)
    "tao.server.routes_run",  # POST /v1/run, GET /v1/tools (action layer)
    "tao.server.routes_approve",  # POST /v1/runs/{run_id}/approve (bound approvals, any replica)
    "tao.server.routes_a2a",  # GET /.well-known/agent-card.json (A2A card from the registry)
    "tao.server.admission",  # in-flight bounds on /v1/run and /v1/plan (503 + Retry-After)
)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    config = config or ServerConfig.from_env()
    app = FastAPI(title="TAO Runtime", version="0.1.0")
    app.state.config = config
    install_error_handlers(app)
    config.domain()  # DomainLoadError / DomainMismatchError here, not on the first request
    for name in ROUTE_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise RouteImportError(f"route module {name} failed to import: {exc}") from exc
        module.register(app, config)
    from tao.server.openapi import install as install_openapi

    install_openapi(app)  # complete components.schemas, typed error responses on every operation
    from tao.server.metrics import register_routes

    register_routes(app)  # metrics label requests by route template, never by raw path
    return app
