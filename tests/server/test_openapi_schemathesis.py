"""The OpenAPI document against the real server: schemathesis generates requests for every
operation of ``/openapi.json`` and sends them to a ``tao serve --no-model`` on loopback, with and
without an API key. Every response must match the documented status codes, content types and
schemas, and no response may be a server error other than the documented ``503`` of a replica
without a plan model (``model_disabled`` / ``model_not_ready``: a typed refusal, not a fault)."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import pytest
from serve_helpers import ServeProcess, wait_http

pytestmark = pytest.mark.slow  # heavy module: runs in `make test`, not `make test-fast`

KEY = "st-key"


@pytest.fixture(scope="module", params=["open", "keyed"])
def served(request, tmp_path_factory):
    env = {"TAO_API_KEY": KEY if request.param == "keyed" else "", "TAO_TOOLS_URL": ""}
    srv = ServeProcess(
        ["--no-model", "--timeout", "20"], tmp_path_factory.mktemp("st") / "serve.log", env=env
    )
    try:
        wait_http(srv.base + "/healthz", 60, srv.proc)
    except Exception:
        srv.stop()
        raise
    srv.key = KEY if request.param == "keyed" else None  # type: ignore[attr-defined]
    yield srv
    srv.stop()


def test_document_is_complete(served):
    doc = httpx.get(served.base + "/openapi.json").json()
    text = httpx.get(served.base + "/openapi.json").text
    refs = set(re.findall(r"#/components/schemas/([A-Za-z0-9_.-]+)", text))
    assert refs and refs <= set(doc["components"]["schemas"])  # no dangling $ref
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert "400" in op["responses"] and "500" in op["responses"], (method, path)
            ok = op["responses"]["200"]["content"]
            assert all(c.get("schema") for c in ok.values()), (method, path)


def test_typed_404_and_405(served):
    r = httpx.get(served.base + "/no/such/route")
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found"
    r = httpx.delete(served.base + "/healthz")
    assert r.status_code == 405 and r.json()["error"]["type"] == "method_not_allowed"


@pytest.mark.slow  # ~40 s per server (two servers); make test runs it, make test-fast does not
def test_schemathesis_run_conforms(served, tmp_path):
    """The schemathesis CLI (examples + fuzzing phases) against the live server; server errors are
    counted from the server's own access log (every 5xx must be a documented no-model 503)."""
    args = [
        sys.executable, "-m", "schemathesis.cli", "run", served.base + "/openapi.json",
        "--checks", "status_code_conformance,content_type_conformance,response_schema_conformance",
        "--phases", "examples,fuzzing", "-n", "12", "--generation-deterministic",
        "--request-timeout", "25", "--max-failures", "20",
    ]  # fmt: skip
    if served.key:
        args += ["-H", f"Authorization: Bearer {served.key}"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=400, cwd=tmp_path)
    report = out.stdout[-4000:] + out.stderr[-2000:]
    assert out.returncode == 0, report
    assert re.search(r"\d+ generated", out.stdout), report
    statuses = re.findall(r'"[A-Z]+ [^"]*HTTP/1\.1" (\d{3})', served.log_text())
    assert len(statuses) > 50, "schemathesis sent too few requests"
    assert not [s for s in statuses if s.startswith("5") and s != "503"], report
