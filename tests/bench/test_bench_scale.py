"""The scaling phases' parts: the replay peer makes the runtime's own tool calls (same resolved
arguments, checked against ``tao serve``'s answer for the same plans on identical mocks), the
loopback balancer round-robins connections and pipes bodies intact, and the summary arithmetic."""

from __future__ import annotations

import hashlib
import itertools
import threading
import time

import httpx
import orjson
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bench import scale
from bench.stack import Service, free_port
from bench.suites.load import LoadSuiteConfig, replay_requests


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_peer_sends_the_runtimes_tool_calls() -> None:
    reqs = replay_requests(LoadSuiteConfig(n_plans=60))
    # one mock each, same seed: a write step creates the same ids on both sides
    mock_a = Service("mock-a", ["-m", "tao.mock_service", "--port", "{port}"])
    mock_b = Service("mock-b", ["-m", "tao.mock_service", "--port", "{port}"])
    with mock_a, mock_b:
        serve = Service(
            "tao-serve",
            ["-m", "tao", "serve", "--port", "{port}", "--no-model", "--log-level", "warning"],
            env={"TAO_TOOLS_URL": mock_a.base_url},
            ready_timeout_s=300,
        )
        peer = Service(
            "peer", ["-m", "bench.replay_peer", "--port", "{port}", "--tools-url", mock_b.base_url]
        )
        with serve, peer:
            compared = 0
            for r in reqs:
                for m in (mock_a, mock_b):  # the same data before each request on both sides
                    httpx.post(m.base_url + "/_reset", timeout=10).raise_for_status()
                a = httpx.post(
                    serve.base_url + "/v1/run", content=r.body, headers=r.headers, timeout=60
                ).json()
                b = httpx.post(
                    peer.base_url + "/v1/run", content=r.body, headers=r.headers, timeout=60
                ).json()
                if a["status"] != "success":
                    continue
                assert b["status"] == "success", (a, b)
                assert [s["tool"] for s in a["steps"]] == [s["tool"] for s in b["steps"]]
                planned = orjson.loads(r.body)["plan"]["steps"]
                for sa, sb, sp in zip(a["steps"], b["steps"], planned, strict=True):
                    if "@now" in orjson.dumps(sp["arguments"]).decode():
                        continue  # "now" is the minute of each call
                    assert sa["arguments"] == sb["arguments"], (sa, sb)
                compared += 1
    assert compared >= 30  # most random plans succeed


class _Upstream:
    """A uvicorn app in a thread that names itself and echoes the body's size and digest."""

    def __init__(self, name: str) -> None:
        async def who(request: Request) -> JSONResponse:
            body = await request.body()
            return JSONResponse({"name": name, "n": len(body), "sha": hashlib.sha256(body).hexdigest()})

        app = Starlette(routes=[Route("/who", who, methods=["GET", "POST"]), Route("/healthz", who)])
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        end = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < end
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.mark.timeout(120)
def test_balancer_round_robins_connections_and_skips_a_dead_upstream() -> None:
    a, b = _Upstream("a"), _Upstream("b")
    dead = free_port()
    ups = [
        "--upstream",
        f"127.0.0.1:{a.port}",
        "--upstream",
        f"127.0.0.1:{dead}",
        "--upstream",
        f"127.0.0.1:{b.port}",
    ]
    try:
        with Service("balancer", ["-m", "bench.balancer", "--port", "{port}", *ups]) as bal:
            names = []
            for _ in range(6):  # a new connection each time
                with httpx.Client(base_url=bal.base_url, timeout=10) as c:
                    names.append(c.get("/who").json()["name"])
            assert set(names) == {"a", "b"}
            assert all(x != y for x, y in itertools.pairwise(names))  # alternates, dead one skipped
            big = bytes(range(256)) * 4096  # 1 MiB each way through the pipe
            with httpx.Client(base_url=bal.base_url, timeout=10) as c:
                for _ in range(3):  # kept alive: the same upstream
                    r = c.post("/who", content=big).json()
                    assert r["n"] == len(big) and r["sha"] == hashlib.sha256(big).hexdigest()
    finally:
        a.stop()
        b.stop()


def _run(
    outcomes: dict[str, int], throughput: float, lost: int = 0, samples: list[float] | None = None
) -> dict:
    received = sum(v for k, v in outcomes.items() if not k.startswith("transport:"))
    return {
        "offered_qps": 100.0,
        "outcomes": outcomes,
        "received": received,
        "sent": sum(outcomes.values()) + lost,
        "lost": lost,
        "throughput_qps": throughput,
        "client_ms": {"p50": 1.0, "p99": 2.0},
        "overhead_ms": {"p99": 1.0},
        "samples": {"client_ms": samples or []},
    }


def test_served_counts_only_run_answers() -> None:
    r = _run(
        {
            "success": 60,
            "needs_user:TOOL_CLIENT_ERROR": 20,
            "http_503:overloaded": 20,
            "transport:timeout": 5,
        },
        throughput=100.0,
    )
    assert scale.served(r) == 80
    assert scale.served_qps(r) == pytest.approx(80.0)
    check = scale.deadline_check(dict(r, samples={"client_ms": [10.0] * 9 + [5000.0]}), deadline_s=1.0)
    assert check["shed_503"] == 20 and check["served"] == 80
    assert check["past_deadline"] == 5 + 10  # the client timeouts + 10 % of the 100 answers


def test_merge_adds_the_keys_and_counts_the_runs() -> None:
    result = {
        "summary": {"lost": 0, "sent": 10, "accounted": 10},
        "plots": [{"title": "throughput vs offered load", "series": {}}],
    }
    r = dict(_run({"success": 10}, 10.0), label="x", served_qps=10.0)
    sc = {
        "summary": {"replay_qps_vs_peer": 0.9, "scale_lost": 1, "scale_sent": 5},
        "runtime_served": {"x": [1], "y": [1]},
        "runtime": [r],
        "workers1": [r],
        "peer": [r],
        "workers2": [r],
        "replicas1": [r],
        "replicas3": [r],
        "half_sat": r,
        "peer_half_sat": r,
        "twice_sat": r,
    }
    scale.merge(result, sc)
    s = result["summary"]
    assert s["replay_qps_vs_peer"] == 0.9 and s["lost"] == 1 and s["sent"] == 15 and s["accounted"] == 14
    assert "scale_lost" not in s
    assert "peer proxy (FastAPI + aiohttp), served" in result["plots"][0]["series"]
    assert result["tables"][0]["rows"]
