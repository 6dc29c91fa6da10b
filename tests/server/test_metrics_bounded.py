"""/metrics stays small however many distinct paths are requested: the endpoint label is the
matched route template (unmatched -> one fixed label), per-tenant series are capped."""

from __future__ import annotations

import random
import string

import pytest
from fastapi.testclient import TestClient

from tao.server import metrics
from tao.server.app import create_app
from tao.server.config import ServerConfig

KEY = "test-key-metrics"


def _random_path(rng: random.Random) -> str:
    seg = "".join(rng.choices(string.ascii_lowercase + string.digits, k=12))
    return rng.choice(["/v1/", "/v1/sessions/", "/", "/admin/"]) + seg


@pytest.fixture
def fresh_labels(monkeypatch):
    monkeypatch.setattr(metrics, "_templates", {})
    monkeypatch.setattr(
        metrics, "_fallback", metrics.BoundedLabel(metrics.MAX_ENDPOINT_SERIES, metrics.UNMATCHED)
    )


def _flood(client: TestClient, n: int, seed: int) -> tuple[int, int]:
    """Bytes /metrics grew by and endpoint series added after ``n`` requests to random paths."""
    rng = random.Random(seed)
    before = client.get("/metrics").text
    for _ in range(n):
        assert client.get(_random_path(rng)).status_code in (401, 404)
    after = client.get("/metrics").text
    series = "tao_http_requests_total{"
    return len(after) - len(before), after.count(series) - before.count(series)


@pytest.mark.slow
def test_random_paths_as_wired_today_stay_bounded(fresh_labels) -> None:
    """Even a caller that hands in raw paths and no route table: at most 64 endpoint values
    (the middleware today passes the raw ``/v1/...`` path and nothing registers the routes)."""
    with TestClient(create_app(ServerConfig(load_model=False, api_key=KEY))) as client:
        grown, series = _flood(client, 1000, seed=1)
    assert series <= 2 * (metrics.MAX_ENDPOINT_SERIES + 1) and grown < 200_000, (grown, series)  # 401, 404


@pytest.mark.slow
def test_random_paths_with_route_templates_add_almost_nothing(fresh_labels) -> None:
    app = create_app(ServerConfig(load_model=False, api_key=KEY))
    metrics.register_routes(app)
    with TestClient(app) as client:
        grown, series = _flood(client, 3000, seed=2)  # the issue: 3,000 unauthenticated 401s
    assert series <= 4 and grown < 8_000, (grown, series)  # was 7.35 MB


def test_endpoint_label_is_the_template(fresh_labels) -> None:
    app = create_app(ServerConfig(load_model=False))
    assert (
        metrics.endpoint_label({"type": "http", "path": "/v1/plan", "method": "POST", "app": app})
        == "/v1/plan"
    )
    assert metrics.endpoint_label({"type": "http", "path": "/v1/zzz", "method": "GET", "app": app}) == "other"
    assert metrics._bound_endpoint("/v1/plan") == "/v1/plan"  # raw path of a known route
    assert metrics._bound_endpoint("/v1/" + "x" * 40) == "other"


def test_tenant_series_are_capped() -> None:
    cap = metrics.BoundedLabel(3)
    assert [cap(t) for t in ("a", "b", "c", "d", "a", "e")] == ["a", "b", "c", "other", "a", "other"]
