"""Start-up is loud: a route module that fails to import stops ``create_app``."""

from __future__ import annotations

import pytest

from tao.server import app as app_module
from tao.server.config import ServerConfig


@pytest.mark.slow
def test_a_route_module_that_fails_to_import_stops_start_up(monkeypatch) -> None:
    monkeypatch.setattr(
        app_module, "ROUTE_MODULES", (*app_module.ROUTE_MODULES, "tao.server.routes_missing_xyz")
    )
    with pytest.raises(app_module.RouteImportError, match=r"tao\.server\.routes_missing_xyz"):
        app_module.create_app(ServerConfig(load_model=False))
