"""Application factory. Each feature owns a ``tao.server.routes_*`` module exposing
``register(app: FastAPI, config: ServerConfig) -> None``; modules not yet present are skipped."""

from __future__ import annotations

import importlib

from fastapi import FastAPI

from tao.server.config import ServerConfig
from tao.server.errors import install_error_handlers

ROUTE_MODULES = (
    "tao.server.routes_core",  # health, readiness, metrics, middleware (serving issue)
    "tao.server.routes_plan",  # POST /v1/plan
    "tao.server.routes_observe",  # POST /v1/observe, /v1/observe/batch
    "tao.server.routes_gateway",  # POST /v1/chat/completions, GET /v1/models (router)
    "tao.server.routes_run",  # POST /v1/run, GET /v1/tools (action layer)
)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    config = config or ServerConfig.from_env()
    app = FastAPI(title="TAO Runtime", version="0.1.0")
    app.state.config = config
    install_error_handlers(app)
    for name in ROUTE_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(app, config)
    return app
