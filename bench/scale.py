"""The load suite's replay targets against a same-run peer, and how replay QPS scales with
worker processes and replicas (issue 17, "Cores and replicas" and the peer targets).

Called by ``bench.suites.load`` with the mock tool service (its own process). Every runtime
here runs with the admission bound ``--max-inflight-runs inflight_per_worker`` per process:

1. **runtime vs peer** — ``tao serve --no-model`` (1 worker) and ``bench.replay_peer`` (FastAPI
   + aiohttp proxy, the same tool calls to the same mock, nothing else), both up, stepped in
   turn at each of ``rates`` with the same requests; then the runtime at ½ and 2× its saturated
   QPS (the highest 200-answer rate of its steps) and the peer at that ½: overhead P99 at ½; at 2×
   the share of that maximum still answered, what was shed (503), what came back past
   ``deadline_s`` (a 200 later than that, a 504, a client timeout), nothing lost;
2. **workers and replicas** — the 1-worker runtime, ``tao serve --workers 2``, and 1 and 3
   ``tao serve`` processes each behind ``bench.balancer`` (round-robin TCP on loopback), all up at
   once and stepped in turn (rotating order) at multiples of the 1-worker saturation: 2 workers
   over 1, 3 replicas over 1.

Stepping configurations in turn, rate by rate, is what makes the ratios mean something on a
shared machine whose load average moves between ~7 and ~20 within minutes; a phase measured
minutes after another compares two machines.

"Saturated QPS" of a configuration = the highest rate of 200 answers (any /v1/run status: a random
plan may legitimately end ``needs_user``) over its open-loop steps; 503s and other errors are not
counted. Client, servers, mock and balancer share this machine's cores.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from typing import Any

from bench.load import LoadConfig, Request, run_load
from bench.stack import Service

NOT_ANSWERED = ("http_", "rejected", "transport:", "bad_body", "unclassified")


@dataclass
class ScaleConfig:
    step_s: float = 4.0
    max_requests_per_step: int = 16000  # never binds below 4000/s × 4 s
    client_timeout_s: float = 30.0
    deadline_s: float = 1.0  # a 200 later than this (from its scheduled send) is past its deadline
    # the runtime's and the peer's sweep: up to past the peer's saturation (1,700–2,400/s on 2 idle
    # cores: at stop 36 it answered 2,388 of 2,400/s), so `replay_qps_vs_peer` divides by the peer's
    # measured maximum, not by the top offered rate (`peer_saturated_in_sweep` says which it was)
    rates: tuple[float, ...] = (25, 50, 100, 200, 400, 800, 1600, 2400, 3200, 4000)
    warm_qps: float = 20.0  # warm-up of the 1-worker runtime and of the peer (not measured)
    warm_share: float = 0.5  # warm-up of the fleets at this share of the 1-worker saturation
    # admission bound per worker / replica: ≈ its saturated QPS × the latency to keep (~50/s ×
    # 0.3 s on these shared cores); the server's default (64) suits a replica doing 200+ QPS
    inflight_per_worker: int = 16
    warm_s: float = 3.0  # every worker/replica sees each tool before the clock starts
    scale_factors: tuple[float, ...] = (1.0, 1.5, 2.2, 3.0)  # × the 1-worker saturated QPS
    replicas: int = 3
    workers: int = 2

    @classmethod
    def for_run(cls, quick: bool) -> ScaleConfig:
        if not quick:
            return cls()
        return cls(step_s=2.0, max_requests_per_step=600, warm_s=1.5, scale_factors=(2.2,), rates=(50, 400))


def _log(msg: str) -> None:
    print(f"[scale] {msg}", file=sys.stderr, flush=True)


def served(run: dict) -> int:
    """200 answers with a /v1/run body (whatever the run's status)."""
    return sum(v for k, v in run["outcomes"].items() if not k.startswith(NOT_ANSWERED))


def served_qps(run: dict) -> float:
    rec = run["received"]
    return run["throughput_qps"] * served(run) / rec if rec else 0.0


def step(url: str, qps: float, reqs: list[Request], cfg: ScaleConfig, label: str) -> dict:
    s = run_load(
        LoadConfig(
            url=url,
            qps=qps,
            duration_s=cfg.step_s,
            timeout_s=cfg.client_timeout_s,
            drain_s=cfg.client_timeout_s,
            max_requests=cfg.max_requests_per_step,
        ),
        reqs,
    )
    s["label"] = label
    s["served_qps"] = served_qps(s)
    _log(
        f"{label} @ {qps:.0f}: served {s['served_qps']:.1f}/s, lost {s['lost']}, client p99 "
        f"{s['client_ms']['p99']}, {s['outcomes']}"
    )
    return s


def warm(url: str, reqs: list[Request], cfg: ScaleConfig, qps: float) -> None:
    if cfg.warm_s > 0:
        run_load(
            LoadConfig(url=url, qps=max(10.0, qps), duration_s=cfg.warm_s, timeout_s=cfg.client_timeout_s),
            reqs,
        )
        time.sleep(0.5)


def sweep(
    url: str, rates: tuple[float, ...], reqs: list[Request], cfg: ScaleConfig, label: str, warm_qps: float
) -> list[dict]:
    warm(url, reqs, cfg, warm_qps)
    out = []
    for q in rates:
        out.append(step(url, q, reqs, cfg, label))
        time.sleep(0.5)  # let the previous step's stragglers finish
    return out


def interleaved(
    urls: dict[str, str], rates: tuple[float, ...], reqs: list[Request], cfg: ScaleConfig
) -> dict[str, list[dict]]:
    """Each configuration at each rate, one step each in turn (the order rotates per rate), so
    the machine's drifting load hits every configuration alike."""
    out: dict[str, list[dict]] = {k: [] for k in urls}
    names = list(urls)
    for i, q in enumerate(rates):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            out[name].append(step(urls[name], q, reqs, cfg, name))
            time.sleep(0.5)
    for runs in out.values():
        runs.sort(key=lambda r: r["offered_qps"])
    return out


def saturation(runs: list[dict]) -> float:
    return max((r.get("served_qps", served_qps(r)) for r in runs), default=0.0)


def deadline_check(run: dict, deadline_s: float) -> dict[str, Any]:
    """How the requests of an overloaded step ended: served in time, shed (503), past deadline."""
    oc = run["outcomes"]
    shed = sum(v for k, v in oc.items() if k.startswith("http_503"))
    late_errors = sum(v for k, v in oc.items() if k.startswith(("http_504", "transport:timeout")))
    samples = run["samples"]["client_ms"]  # downsampled; the share is scaled to every answer
    share_late = sum(1 for x in samples if x > deadline_s * 1e3) / len(samples) if samples else 0.0
    return {
        "sent": run["sent"],
        "served": served(run),
        "shed_503": shed,
        "other_errors": run["received"] - served(run) - shed,
        "past_deadline": late_errors + round(share_late * run["received"]),
        "client_p99_ms": run["client_ms"]["p99"],
        "lost": run["lost"],
    }


def _serve(mock_url: str, extra: list[str], name: str) -> Service:
    return Service(
        name,
        ["-m", "tao", "serve", "--port", "{port}", "--no-model", "--log-level", "warning", *extra],
        env={"TAO_TOOLS_URL": mock_url},
        ready_timeout_s=300.0,
    )


def _fleet(mock_url: str, n: int, serve_args: list[str]) -> Callable[[ExitStack], str]:
    """Starts ``n`` replicas and the balancer in front of them; returns the balancer's /v1/run URL."""

    def start(stack: ExitStack) -> str:
        reps = [stack.enter_context(_serve(mock_url, serve_args, f"replica-{i}")) for i in range(n)]
        ups = [a for r in reps for a in ("--upstream", f"127.0.0.1:{r.port}")]
        bal = stack.enter_context(Service("balancer", ["-m", "bench.balancer", "--port", "{port}", *ups]))
        return bal.base_url + "/v1/run"

    return start


def run(
    mock_url: str,
    reqs: list[Request],
    quick: bool,
    serve_args: list[str] | None = None,
    *,
    fleet: bool = True,
) -> dict[str, Any]:
    """Every phase of the module doc, against the mock at ``mock_url``; ``fleet=False``: phase 1
    only (runtime vs peer, ½ and 2× saturation), the ``*workers*``/``*replicas*`` keys ``None``."""
    cfg = ScaleConfig.for_run(quick)
    serve_args = ["--max-inflight-runs", str(cfg.inflight_per_worker), *(serve_args or [])]
    rates = cfg.rates
    out: dict[str, Any] = {"config": asdict(cfg)}
    peer_args = ["-m", "bench.replay_peer", "--port", "{port}", "--tools-url", mock_url]
    with ExitStack() as stack:
        one = stack.enter_context(_serve(mock_url, serve_args, "tao-1-worker")).base_url + "/v1/run"
        peer = stack.enter_context(Service("replay-peer", peer_args)).base_url + "/v1/run"
        # runtime and peer step by step at each rate (the shared machine's load drifts by minutes)
        warm(one, reqs, cfg, cfg.warm_qps)
        warm(peer, reqs, cfg, cfg.warm_qps)
        paired = interleaved({"tao 1 worker": one, "peer proxy": peer}, rates, reqs, cfg)
        out["runtime"], out["peer"] = paired["tao 1 worker"], paired["peer proxy"]
        sat1 = saturation(out["runtime"])
        _log(f"runtime (1 worker) saturated at {sat1:.1f}/s")
        half = step(one, max(1.0, sat1 / 2), reqs, cfg, "tao 1 worker, ½ saturation")
        peer_half = step(peer, max(1.0, sat1 / 2), reqs, cfg, "peer proxy, tao's ½ saturation")
        over = step(one, max(2.0, 2 * sat1), reqs, cfg, "tao 1 worker, 2× saturation")
        # 1 worker, 2 workers, 1 and 3 replicas behind the balancer: all up, stepped in turn
        targets = tuple(round(f * sat1, 1) for f in cfg.scale_factors)
        names = [
            "tao 1 worker (scaling)",
            f"tao --workers {cfg.workers}",
            "1 replica + balancer",
            f"{cfg.replicas} replicas + balancer",
        ]
        scaled: dict[str, list[dict]] = {n: [] for n in names}
        if fleet:
            w2 = stack.enter_context(
                _serve(mock_url, ["--workers", str(cfg.workers), *serve_args], "tao-workers")
            )
            fleets = {n: _fleet(mock_url, n, serve_args)(stack) for n in (1, cfg.replicas)}
            configs = dict(
                zip(names, (one, w2.base_url + "/v1/run", fleets[1], fleets[cfg.replicas]), strict=True)
            )
            for u in list(configs.values())[1:]:
                warm(u, reqs, cfg, cfg.warm_share * sat1)
            scaled = interleaved(configs, targets, reqs, cfg)
    out["workers1"], out["workers2"] = scaled[names[0]], scaled[names[1]]
    out["replicas1"], out["replicas3"] = scaled[names[2]], scaled[names[3]]
    out["runtime_saturated_qps"] = sat1
    out["runtime_served"] = {"x": list(rates), "y": [r["served_qps"] for r in out["runtime"]]}
    out["half_sat"], out["twice_sat"], out["peer_half_sat"] = half, over, peer_half
    peer_sat = saturation(out["peer"])
    sat_w1, sat_w2 = saturation(out["workers1"]), saturation(out["workers2"])
    sat_r1, sat_r3 = saturation(out["replicas1"]), saturation(out["replicas3"])
    check = deadline_check(over, cfg.deadline_s)
    runs = [
        *out["runtime"],
        half,
        over,
        peer_half,
        *out["peer"],
        *out["workers1"],
        *out["workers2"],
        *out["replicas1"],
        *out["replicas3"],
    ]
    p99 = lambda r: r["client_ms"]["p99"]  # noqa: E731
    out["summary"] = {
        "replay_qps_vs_peer": sat1 / peer_sat if peer_sat else None,
        "replay_overhead_p99_ms_half_sat": half["overhead_ms"]["p99"],
        "answered_share_at_2x_sat": over["served_qps"] / sat1 if sat1 else None,
        "workers2_vs_workers1": sat_w2 / sat_w1 if sat_w1 else None,
        "replicas3_vs_replicas1": sat_r3 / sat_r1 if sat_r1 else None,
        "replay_saturated_qps": sat1,
        "peer_saturated_qps": peer_sat,
        # the peer answered < 90% of the sweep's top rate, so its maximum was reached (False: the
        # peer could do more, and replay_qps_vs_peer is an upper bound)
        "peer_saturated_in_sweep": saturation(out["peer"][-1:]) < 0.9 * rates[-1],
        "workers1_saturated_qps": sat_w1,
        "workers2_saturated_qps": sat_w2,
        "replicas1_saturated_qps": sat_r1,
        "replicas3_saturated_qps": sat_r3,
        "half_sat_offered_qps": half["offered_qps"],
        "replay_client_p99_ms_half_sat": p99(half),
        "peer_client_p99_ms_half_sat": p99(peer_half),
        "replay_client_p99_minus_peer_ms_half_sat": (p99(half) - p99(peer_half))
        if p99(half) is not None and p99(peer_half) is not None
        else None,
        "twice_sat_offered_qps": over["offered_qps"],
        "twice_sat_shed_503": check["shed_503"],
        "twice_sat_past_deadline": check["past_deadline"],
        "twice_sat_other_errors": check["other_errors"],
        "deadline_s": cfg.deadline_s,
        "scale_lost": sum(r["lost"] for r in runs),
        "scale_sent": sum(r["sent"] for r in runs),
    }
    out["twice_sat_check"] = check
    return out


def plot_series(scale: dict[str, Any]) -> dict[str, dict[str, list]]:
    """Extra series for the load suite's "throughput vs offered load" plot (200 answers/s)."""

    def line(runs: list[dict]) -> dict[str, list]:
        return {"x": [r["offered_qps"] for r in runs], "y": [r["served_qps"] for r in runs]}

    return {
        "tao /v1/run replay, served": scale["runtime_served"],
        "peer proxy (FastAPI + aiohttp), served": line(scale["peer"]),
        "tao 1 worker (scaling steps), served": line(scale["workers1"]),
        "tao --workers 2, served": line(scale["workers2"]),
        "1 replica + balancer, served": line(scale["replicas1"]),
        "3 replicas + balancer, served": line(scale["replicas3"]),
    }


def table(scale: dict[str, Any]) -> dict[str, Any]:
    rows = []
    for key in ("runtime", "peer", "workers1", "workers2", "replicas1", "replicas3"):
        for r in scale[key]:
            rows.append(_row(r))
    rows += [_row(scale["half_sat"]), _row(scale["peer_half_sat"]), _row(scale["twice_sat"])]
    return {
        "title": "replay scaling runs (served = 200 answers/s; latencies in ms from the scheduled send)",
        "columns": [
            "run",
            "offered QPS",
            "served QPS",
            "sent",
            "503",
            "lost",
            "client P50",
            "client P99",
            "overhead P99",
        ],
        "rows": rows,
    }


def _row(r: dict) -> list:
    shed = sum(v for k, v in r["outcomes"].items() if k.startswith("http_503"))
    return [
        r["label"],
        r["offered_qps"],
        r["served_qps"],
        r["sent"],
        shed,
        r["lost"],
        r["client_ms"]["p50"],
        r["client_ms"]["p99"],
        r["overhead_ms"]["p99"],
    ]


def merge(result: dict[str, Any], scale: dict[str, Any]) -> None:
    """Fold the scaling phases into the load suite's result: the summary keys (``lost``, ``sent``
    and ``accounted`` then count these runs too), a table, the peer and fleet series on the
    throughput plot, and the raw runs under ``scale``."""
    s = result["summary"]
    extra = dict(scale["summary"])
    lost, sent = extra.pop("scale_lost"), extra.pop("scale_sent")
    s.update(extra)
    s["lost"] = s.get("lost", 0) + lost
    s["sent"] = s.get("sent", 0) + sent
    s["accounted"] = s.get("accounted", 0) + sent - lost
    result.setdefault("tables", []).append(table(scale))
    for p in result.get("plots", []):
        if p.get("title") == "throughput vs offered load":
            p["series"].update(plot_series(scale))
            break
    result["scale"] = scale


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.scale [--quick] [--pair-only] [--serve-arg ARG]``: these phases alone, with
    their own mock tool service; prints the summary (``--out``: the whole result as JSON)."""
    import argparse
    from pathlib import Path

    import orjson

    from bench.suites.load import LoadSuiteConfig, replay_requests

    ap = argparse.ArgumentParser(prog="python -m bench.scale", description=main.__doc__)
    ap.add_argument("--quick", action="store_true", help="the --quick steps of the load suite")
    ap.add_argument(
        "--pair-only", action="store_true", help="phase 1 only: runtime vs peer, ½ and 2× saturation"
    )
    ap.add_argument("--serve-arg", action="append", default=[], help="extra `tao serve` argument")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    reqs = replay_requests(LoadSuiteConfig.for_run(a.quick))
    with Service("mock", ["-m", "tao.mock_service", "--port", "{port}"]) as mock:
        res = run(mock.base_url, reqs, a.quick, a.serve_arg, fleet=not a.pair_only)
    if a.out is not None:
        a.out.write_bytes(orjson.dumps(res, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS))
    sys.stdout.write(orjson.dumps(res["summary"], option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
