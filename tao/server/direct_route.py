"""Direct dispatch of a hot route: ``POST /v1/run`` reaches its endpoint without the router's
scan of every route and FastAPI's per-request handler (dependency solving, body sniffing, two
exit stacks), which cost ~6 % of a replayed run's server CPU.

:func:`install` wraps the router's own ASGI stack (``app.router.middleware_stack``), so the
request has been through every middleware (core, admission), the exception middleware and
FastAPI's exit stack exactly as before; an exception the endpoint raises (``ApiError``, …)
reaches the same exception handlers. The route stays registered (OpenAPI, ``/metrics`` labels,
other methods on the path answered by the router); only an exact ``(method, path)`` match with
an endpoint that takes the ``Request`` alone and returns a ``Response`` is dispatched here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

Endpoint = Callable[[Request], Awaitable[Response]]


class DirectRoute:
    """ASGI app in front of the router: ``method path`` goes to ``endpoint``, the rest to ``app``."""

    def __init__(
        self, app: ASGIApp, router: Any, route: Any, method: str, path: str, endpoint: Endpoint
    ) -> None:
        self.app, self.router, self.route = app, router, route
        self.method, self.path, self.endpoint = method, path, endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path or scope["method"] != self.method:
            return await self.app(scope, receive, send)
        # what the router's match would have put in the scope
        scope.setdefault("router", self.router)
        scope["endpoint"], scope["path_params"], scope["route"] = self.endpoint, {}, self.route
        response = await self.endpoint(Request(scope, receive, send))
        await response(scope, receive, send)


def install(app: FastAPI, method: str, path: str, endpoint: Endpoint) -> None:
    """Dispatch ``method path`` straight to ``endpoint`` (already registered on ``app`` for that
    path, so the route, its OpenAPI entry and its metrics label exist)."""
    route = next(
        (
            r
            for r in app.router.routes
            if getattr(r, "path", None) == path and method in (getattr(r, "methods", None) or ())
        ),
        None,
    )
    if route is None or getattr(route, "endpoint", None) is not endpoint:
        raise ValueError(f"{method} {path} is not registered with this endpoint")
    app.router.middleware_stack = DirectRoute(
        app.router.middleware_stack, app.router, route, method, path, endpoint
    )
