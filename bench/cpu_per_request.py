"""Server CPU per request of a 2-step plan replay on ``POST /v1/run`` (short, closed-loop).

    python -m bench.cpu_per_request [--requests 1500] [--concurrency 8] [--serve-arg ...]
    python -m bench.cpu_per_request --pair 3 [--requests 1500] [--concurrency 8]

Starts the mock tool service and ``tao serve --no-model`` as separate processes (the mock out of
process, as a deployment has it), warms up, then sends ``--requests`` replays of
``list_orders(@last_month) → get_order_status(${t1.order_id})`` at ``--concurrency`` and reads
the user+system CPU time of each process from ``/proc``: CPU ms per request of the runtime (and
of the mock), wall QPS, and the outcomes (every request must be a ``success``). A closed loop at
a fixed concurrency keeps the server below overload, so the figure is the cost of the request
path itself, not of queueing.

``--shed``: the cost of a request that admission control refuses. The server runs with
``--max-inflight-runs 1`` and one holder keeps that slot busy (back-to-back replays whose tool
calls the mock delays 2.5 s, ``X-Mock-Fault: slow``), so the measured requests are answered 503
``overloaded``; the CPU per request is then that of a shed request (the holder's few runs are
included, a handful in the window).

``--peer``: the same measurement of the replay peer (:mod:`bench.replay_peer`, FastAPI + aiohttp
making the same tool calls, nothing else) instead of the runtime. ``--pair N``: N rounds, each
the runtime then the peer, against one mock; prints every run, the medians and
``runtime_vs_peer_cpu`` (median runtime CPU per request ÷ median peer CPU per request).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter

import aiohttp
import orjson

from bench.stack import Service

PLAN = {
    "version": "1.0",
    "intent": "order_status",
    "steps": [
        {
            "step_id": "t1",
            "tool": "list_orders",
            "arguments": {"user_id": "U00000001", "period": "@last_month"},
            "dependencies": [],
        },
        {
            "step_id": "t2",
            "tool": "get_order_status",
            "arguments": {"order_id": "${t1.order_id}"},
            "dependencies": ["t1"],
        },
    ],
}
BODY = orjson.dumps(
    {
        "request": "查询上个月的订单状态",
        "session": {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
        "plan": PLAN,
    }
)


async def _hold(session: aiohttp.ClientSession, url: str, stop: asyncio.Event) -> None:
    """Keeps one run in flight (its tool calls delayed by the mock) until ``stop``."""
    while not stop.is_set():
        headers = {"content-type": "application/json", "x-mock-fault": "slow"}
        async with session.post(url + "/v1/run", data=BODY, headers=headers) as r:
            await r.read()


async def _drive(url: str, n: int, concurrency: int, hold: bool = False) -> Counter:
    out: Counter = Counter()
    conn = aiohttp.TCPConnector(limit=concurrency + 1)
    async with aiohttp.ClientSession(connector=conn) as session:
        left = iter(range(n))
        stop = asyncio.Event()
        holder = asyncio.create_task(_hold(session, url, stop)) if hold else None
        if holder is not None:
            await asyncio.sleep(0.5)  # the holder has its slot

        async def worker() -> None:
            for _ in left:
                async with session.post(
                    url + "/v1/run", data=BODY, headers={"content-type": "application/json"}
                ) as r:
                    raw = await r.read()
                    status = orjson.loads(raw).get("status") if r.status == 200 else f"http_{r.status}"
                    out[str(status)] += 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        if holder is not None:
            stop.set()
            holder.cancel()
            await asyncio.gather(holder, return_exceptions=True)
    return out


MOCK_ARGS = ["-m", "tao.mock_service", "--port", "{port}", "--today", "2026-11-15", "--slow-s", "2.5"]


def _server(mock: Service, serve_args: list[str], peer: bool) -> Service:
    if peer:
        return Service(
            "replay-peer", ["-m", "bench.replay_peer", "--port", "{port}", "--tools-url", mock.base_url]
        )
    return Service(
        "tao-serve",
        ["-m", "tao", "serve", "--port", "{port}", "--no-model", "--log-level", "warning", *serve_args],
        env={"TAO_TOOLS_URL": mock.base_url},
        ready_timeout_s=120.0,
    )


def _measure_with(
    mock: Service,
    requests: int,
    concurrency: int,
    serve_args: list[str],
    warmup: int,
    shed: bool,
    peer: bool,
) -> dict:
    if shed:
        serve_args = [*serve_args, "--max-inflight-runs", "1", "--test-fault-headers"]
    serve = _server(mock, serve_args, peer)
    with serve:
        warm = asyncio.run(_drive(serve.base_url, warmup, 1 if shed else concurrency))
        if warm.get("success", 0) != warmup:
            raise RuntimeError(f"warm-up runs did not all succeed: {dict(warm)}\n{serve.log_tail()}")
        s0, m0, t0 = serve.cpu_seconds(), mock.cpu_seconds(), time.perf_counter()
        outcomes = asyncio.run(_drive(serve.base_url, requests, concurrency, hold=shed))
        wall = time.perf_counter() - t0
        s1, m1 = serve.cpu_seconds(), mock.cpu_seconds()
    assert s0 is not None and s1 is not None and m0 is not None and m1 is not None
    return {
        "mode": "shed" if shed else ("peer" if peer else "run"),
        "requests": requests,
        "concurrency": concurrency,
        "outcomes": dict(outcomes),
        "wall_s": round(wall, 2),
        "qps": round(requests / wall, 1),
        "server_cpu_ms_per_request": round(1000 * (s1 - s0) / requests, 3),
        "mock_cpu_ms_per_request": round(1000 * (m1 - m0) / requests, 3),
    }


def measure(
    requests: int,
    concurrency: int,
    serve_args: list[str],
    warmup: int = 200,
    shed: bool = False,
    peer: bool = False,
) -> dict:
    with Service("mock-tools", MOCK_ARGS) as mock:
        return _measure_with(mock, requests, concurrency, serve_args, warmup, shed, peer)


def pair(rounds: int, requests: int, concurrency: int, serve_args: list[str], warmup: int = 200) -> dict:
    """``rounds`` × (runtime, then peer) against one mock: every run, medians and their ratio."""
    runs: list[dict] = []
    with Service("mock-tools", MOCK_ARGS) as mock:
        for _ in range(rounds):
            for peer in (False, True):
                runs.append(_measure_with(mock, requests, concurrency, serve_args, warmup, False, peer))
    tao = statistics.median(r["server_cpu_ms_per_request"] for r in runs if r["mode"] == "run")
    peer_ms = statistics.median(r["server_cpu_ms_per_request"] for r in runs if r["mode"] == "peer")
    return {
        "runs": runs,
        "runtime_cpu_ms_median": round(tao, 3),
        "peer_cpu_ms_median": round(peer_ms, 3),
        "runtime_vs_peer_cpu": round(tao / peer_ms, 2) if peer_ms > 0 else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.cpu_per_request", description=__doc__)
    ap.add_argument("--requests", type=int, default=1500)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--serve-arg", action="append", default=[], help="extra `tao serve` argument")
    ap.add_argument("--shed", action="store_true", help="CPU per request refused by admission control")
    ap.add_argument("--peer", action="store_true", help="measure the replay peer instead of the runtime")
    ap.add_argument("--pair", type=int, default=0, metavar="N", help="N rounds of runtime then peer")
    a = ap.parse_args(argv)
    if a.pair:
        res = pair(a.pair, a.requests, a.concurrency, a.serve_arg)
        sys.stdout.write(orjson.dumps(res, option=orjson.OPT_INDENT_2).decode() + "\n")
        ok = all(r["outcomes"].get("success") == a.requests for r in res["runs"])
        return 0 if ok else 1
    res = measure(a.requests, a.concurrency, a.serve_arg, shed=a.shed, peer=a.peer)
    sys.stdout.write(orjson.dumps(res, option=orjson.OPT_INDENT_2).decode() + "\n")
    if a.shed:  # nearly every request shed (a few may land while the holder re-sends)
        return 0 if res["outcomes"].get("http_503", 0) >= 0.9 * a.requests else 1
    return 0 if res["outcomes"].get("success") == a.requests else 1


if __name__ == "__main__":
    raise SystemExit(main())
