"""Open-loop HTTP load generator with exact outcome accounting.

Arrivals are scheduled by the clock at a constant rate (request *i* is due at ``t0 + i/qps``)
and sent whether or not earlier requests have finished, so server queueing shows up as latency
instead of silently lowering the offered rate (no coordinated omission: client latency is
measured from the *scheduled* time). The run is bounded by ``duration_s`` and ``max_requests``;
requests still in flight after the last send get ``drain_s`` to finish, then are cancelled and
classified as ``transport:cancelled``.

Every request that was started ends in exactly one category:

* ``success``; ``failed:<ERROR_TYPE>``; ``needs_user``; ``needs_approval`` — a 200 from /v1/run
  (``status`` and ``error_type`` of the body);
* ``rejected`` — HTTP 429 (the router's admission control);
* ``http_<code>:<error type>`` — any other HTTP status, ``bad_body`` — a 200 that is not the
  /v1/run shape;
* ``transport:<reason>`` — no HTTP response (timeout, connection refused/reset, cancelled).

``sent = received + transport failures`` must hold exactly; ``lost = sent - accounted`` is
reported and is 0 unless the accounting itself is broken. Only loopback URLs are accepted.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from bench.common import downsample, latency_summary

STAGES = ("thought", "action", "observation", "total")
UNCLASSIFIED = "unclassified"  # a request that ended without a category: counted as lost


class LoadConfigError(ValueError):
    """The load configuration is unusable (non-loopback URL, non-positive rate, ...)."""


@dataclass
class LoadConfig:
    """One open-loop run at a constant offered rate."""

    url: str  # full URL of the endpoint, e.g. http://127.0.0.1:8080/v1/run
    qps: float
    duration_s: float = 10.0
    max_requests: int | None = None
    timeout_s: float = 10.0  # per request, client side
    drain_s: float = 15.0  # wait for in-flight requests after the last send
    connections: int = 512  # connection pool size

    def validate(self) -> None:
        host = urlsplit(self.url).hostname or ""
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise LoadConfigError(f"load tests run against loopback only, not {host!r}")
        if not self.qps > 0 or not self.duration_s > 0:
            raise LoadConfigError("qps and duration_s must be positive")
        if self.max_requests is not None and self.max_requests < 1:
            raise LoadConfigError("max_requests must be at least 1")

    @property
    def planned(self) -> int:
        n = max(1, int(self.qps * self.duration_s))
        return min(n, self.max_requests) if self.max_requests else n


@dataclass
class Request:
    """A pre-serialised request body plus headers (the client does no work per request)."""

    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = "normal"  # what was injected (normal / broken_dependency / tool_timeout / ...)


@dataclass
class Record:
    """What happened to one request."""

    index: int
    kind: str
    category: str = UNCLASSIFIED
    http_status: int | None = None
    scheduled: float = 0.0
    sent_at: float = 0.0
    done_at: float = 0.0
    stages: dict[str, float] | None = None
    tool_ms: float | None = None
    tool_source: str | None = None
    trace_id: str | None = None


def tool_time_ms(body: dict[str, Any]) -> tuple[float | None, str | None]:
    """Σ time a /v1/run answer spent waiting on tool calls, and where that number came from:

    * ``steps``: each step's ``tool_ms`` / ``response_time_ms`` (or ``action.…``) when present;
    * ``trajectory``: Σ ``duration_ms`` of the ``tool_end`` events (the executor's HTTP round
      trip of each call) when the body carries its trajectory;
    * ``action_stage``: ``stages_ms.action`` (time inside the executor, its own checks included)
      as the last resort — an upper bound on tool time, so overhead from it is a lower bound.
    """
    steps = body.get("steps")
    if isinstance(steps, list) and steps:
        vals = []
        for s in steps:
            a = s.get("action") if isinstance(s, dict) and isinstance(s.get("action"), dict) else s
            v = (a.get("tool_ms", a.get("response_time_ms"))) if isinstance(a, dict) else None
            if isinstance(v, (int, float)):
                vals.append(float(v))
        if vals:
            return sum(vals), "steps"
    traj = body.get("trajectory")
    if isinstance(traj, list):
        return sum(
            float(e.get("duration_ms") or 0.0)
            for e in traj
            if isinstance(e, dict) and e.get("kind") == "tool_end"
        ), "trajectory"
    st = body.get("stages_ms")
    if isinstance(st, dict) and isinstance(st.get("action"), (int, float)):
        return float(st["action"]), "action_stage"
    return None, None


def classify_body(status: int, raw: bytes) -> tuple[str, dict[str, Any] | None]:
    """Category of an HTTP answer and its parsed body (None if not JSON)."""
    try:
        body = orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError:
        body = None
    if status == 429:
        return "rejected", body if isinstance(body, dict) else None
    if status != 200:
        etype = (
            (body.get("error") or {}).get("type")
            if isinstance(body, dict) and isinstance(body.get("error"), dict)
            else None
        )
        return f"http_{status}:{etype or 'unknown'}", body if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("status"), str):
        return "bad_body", None
    st = body["status"]
    if st == "success":
        return "success", body
    et = body.get("error_type")
    if st == "failed":
        return f"failed:{et or 'UNKNOWN'}", body
    return (f"{st}:{et}" if et else st), body


async def _one(session: aiohttp.ClientSession, cfg: LoadConfig, req: Request, rec: Record) -> None:
    rec.sent_at = time.perf_counter()
    try:
        async with session.post(cfg.url, data=req.body, headers=req.headers) as resp:
            raw = await resp.read()
            rec.http_status = resp.status
        rec.category, body = classify_body(rec.http_status, raw)
        if body is not None and rec.category != "rejected":
            st = body.get("stages_ms")
            if isinstance(st, dict):
                rec.stages = {k: float(v) for k, v in st.items() if isinstance(v, (int, float))}
            rec.tool_ms, rec.tool_source = tool_time_ms(body)
            rec.trace_id = body.get("trace_id")
    except asyncio.CancelledError:
        rec.category = "transport:cancelled"
        raise
    except (TimeoutError, aiohttp.ServerTimeoutError):
        rec.category = "transport:timeout"
    except aiohttp.ClientConnectorError:
        rec.category = "transport:connect_error"
    except aiohttp.ServerDisconnectedError:
        rec.category = "transport:disconnected"
    except (aiohttp.ClientPayloadError, aiohttp.ClientResponseError):
        rec.category = "transport:bad_http"
    except aiohttp.ClientError as exc:
        rec.category = f"transport:{type(exc).__name__}"
    except OSError as exc:
        rec.category = f"transport:os_error_{exc.errno}"
    finally:
        rec.done_at = time.perf_counter()


async def run_open_loop(cfg: LoadConfig, requests: Sequence[Request]) -> list[Record]:
    """Send ``requests`` (cycled) at ``cfg.qps``; return one Record per request started."""
    cfg.validate()
    if not requests:
        raise LoadConfigError("no requests to send")
    n = cfg.planned
    timeout = aiohttp.ClientTimeout(total=cfg.timeout_s)
    conn = aiohttp.TCPConnector(limit=cfg.connections, force_close=False, enable_cleanup_closed=True)
    records: list[Record] = []
    tasks: list[asyncio.Task] = []
    async with aiohttp.ClientSession(connector=conn, timeout=timeout, raise_for_status=False) as session:
        t0 = time.perf_counter() + 0.02
        end = t0 + cfg.duration_s
        for i in range(n):
            due = t0 + i / cfg.qps
            if due >= end:
                break
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            req = requests[i % len(requests)]
            rec = Record(index=i, kind=req.kind, scheduled=due)
            records.append(rec)
            tasks.append(asyncio.create_task(_one(session, cfg, req, rec)))
        if tasks:
            done, pending = await asyncio.wait(tasks, timeout=cfg.timeout_s + cfg.drain_s)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            for t in done:  # an unexpected client exception leaves its record unclassified (= lost)
                if not t.cancelled():
                    t.exception()
    return records


def summarize(cfg: LoadConfig, records: list[Record], *, samples: int = 400) -> dict[str, Any]:
    """Accounting, throughput and latency of one run (client and server-reported stages)."""
    counts = Counter(r.category for r in records)
    sent = len(records)
    transport = sum(v for k, v in counts.items() if k.startswith("transport:"))
    received = sum(
        1
        for r in records
        if r.http_status is not None
        and r.category != UNCLASSIFIED
        and not r.category.startswith("transport:")
    )
    accounted = sent - counts.get(UNCLASSIFIED, 0)
    first_send = min((r.sent_at for r in records), default=0.0)
    last_send = max((r.sent_at for r in records), default=0.0)
    last_done = max((r.done_at for r in records), default=0.0)
    answered = [
        r
        for r in records
        if r.http_status is not None
        and r.category != UNCLASSIFIED
        and not r.category.startswith("transport:")
    ]
    ok = [r for r in answered if r.category == "success"]
    client_ms = [(r.done_at - r.scheduled) * 1e3 for r in answered]
    lag_ms = [(r.sent_at - r.scheduled) * 1e3 for r in records]
    stages = {s: [r.stages[s] for r in answered if r.stages and s in r.stages] for s in STAGES}
    overhead = [
        r.stages["total"] - r.tool_ms
        for r in answered
        if r.stages and "total" in r.stages and r.tool_ms is not None
    ]
    trace_ids = [r.trace_id for r in answered if r.trace_id]
    window = max(last_done - first_send, 1e-9)
    return {
        "offered_qps": cfg.qps,
        "duration_s": cfg.duration_s,
        "sent": sent,
        "received": received,
        "transport_failures": transport,
        "accounted": accounted,
        "lost": sent - accounted,
        "balanced": sent == received + transport and counts.get(UNCLASSIFIED, 0) == 0,
        "unique_trace_ids": len(set(trace_ids)),
        "with_trace_id": len(trace_ids),
        "outcomes": dict(sorted(counts.items())),
        "by_kind": {
            k: dict(sorted(Counter(r.category for r in records if r.kind == k).items()))
            for k in sorted({r.kind for r in records})
        },
        "send_rate_qps": (sent - 1) / (last_send - first_send)
        if sent > 1 and last_send > first_send
        else None,
        "throughput_qps": len(answered) / window if answered else 0.0,
        "success_qps": len(ok) / window if ok else 0.0,
        "error_rate": 1 - len(ok) / sent if sent else None,
        "send_lag_ms": latency_summary(lag_ms),
        "client_ms": latency_summary(client_ms),
        "client_success_ms": latency_summary((r.done_at - r.scheduled) * 1e3 for r in ok),
        "stages_ms": {s: latency_summary(v) for s, v in stages.items()},
        "overhead_ms": latency_summary(overhead),
        "tool_time_source": dict(Counter(r.tool_source for r in answered if r.tool_source)),
        "samples": {
            "client_ms": downsample(client_ms, samples),
            "overhead_ms": downsample(overhead, samples),
            **{f"{s}_ms": downsample(v, samples) for s, v in stages.items()},
        },
    }


def run_load(cfg: LoadConfig, requests: Sequence[Request]) -> dict[str, Any]:
    """Blocking wrapper: one open-loop run, summarized."""
    records = asyncio.run(run_open_loop(cfg, requests))
    return summarize(cfg, records)
