"""Chaos run: replicas of ``tao serve`` on one real Redis, killed and restarted under load.

What runs (all real processes on loopback): one ``redis-server`` (append-only file, fsync on every
write: a restart keeps the idempotency records), the mock tool service with ``--no-dedup`` (it
ignores ``Idempotency-Key``: only the runtime can prevent a duplicate), ``replicas`` ``tao serve
--no-model`` processes sharing that Redis. Each run is one non-idempotent ``submit_expense``
(a unique amount per run) sent **twice with the same Idempotency-Key to two different replicas**
at almost the same moment; a client resends on 409 ``request_in_progress`` / 503 and moves to
another replica when its connection dies, as a real client would. Meanwhile replicas are
SIGKILLed and restarted at random points and Redis is SIGKILLed and restarted once.

Afterwards every key is sent once more: it must answer the *recorded* reply
(``Idempotent-Replayed: true``), otherwise the run was lost. Side effects are read back from the
mock (every expense it created, by amount): an amount created twice is a duplicate.

The token-second bucket is driven alongside by one :class:`router.RedisBucket` per replica on the
same Redis through the same kill+restart, and in a second phase through a restart that *loses*
Redis' data (the epoch path); admitted token*s are compared with the bound
``capacity + rate * elapsed``.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from router.bucket import BucketConfig
from router.redis_bucket import RedisBucket, RedisBucketConfig
from router.testing.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class ChaosConfig:
    runs: int = 2000
    replicas: int = 3
    concurrency: int = 6  # keys in flight at once (each key: two sends)
    kills: int = 4  # replica SIGKILL + restart events, spread over the run
    kill_window: tuple[float, float] = (0.05, 0.8)  # ... at these fractions of the runs done
    redis_restarts: int = 1
    redis_down_s: float = 1.0
    lock_ttl_s: float = 5.0  # TAO_IDEMPOTENCY_LOCK_TTL_S of the replicas
    slow_rate: float = 0.15  # the mock answers this share of submit_expense calls slowly ...
    slow_s: float = 0.3  # ... so a kill lands mid-step now and then
    bucket_capacity: float = 300.0  # token*s per window, shared by the replicas' buckets
    bucket_window_s: float = 3.0
    bucket_cost: float = 10.0
    data_loss_phase_s: float = 6.0  # bucket only: Redis restarted *without* its data
    start_timeout_s: float = 300.0
    send_deadline_s: float = 90.0
    seed: int = 16
    workdir: Path | None = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, timeout: float, proc: subprocess.Popen) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: process exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not ready after {timeout:.0f} s")


@dataclass
class Proc:
    """One child process on a fixed loopback port (restarted on the same port)."""

    name: str
    args: list[str]
    log_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=_free_port)
    proc: subprocess.Popen | None = None
    starts: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Proc:
        self.starts += 1
        log = open(self.log_dir / f"{self.name}.{self.starts}.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, *self.args, "--port", str(self.port)],
            cwd=ROOT,
            env={**os.environ, **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        return self

    def wait_ready(self, timeout: float) -> None:
        assert self.proc is not None
        _wait_http(self.base + "/healthz", timeout, self.proc)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


EXPENSE_DATE = "2026-11-14"


def amount_of(i: int) -> float:
    return round(10.0 + i / 100.0, 2)  # unique per run, below any approval limit


def run_body(i: int) -> dict[str, Any]:
    args = {"amount": amount_of(i), "category": "meal", "date": EXPENSE_DATE, "description": f"chaos run {i}"}
    step = {"step_id": "t1", "tool": "submit_expense", "arguments": args, "dependencies": []}
    return {
        "request": f"报销午餐 {amount_of(i)} 元",
        "session": {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
        "plan": {"version": "1.0", "intent": "submit_expense", "steps": [step]},
    }


@dataclass
class SendOutcome:
    status: int | None = None
    body: dict[str, Any] | None = None
    replayed: bool = False
    tries: int = 0
    conn_errors: int = 0
    in_progress: int = 0
    unavailable: int = 0


class Fleet:
    """The replicas; a client picks one by index and moves on when it is down."""

    def __init__(self, procs: list[Proc]) -> None:
        self.procs = procs

    def send(self, key: str, body: dict[str, Any], first: int, deadline_s: float) -> SendOutcome:
        out = SendOutcome()
        idx, end = first, time.monotonic() + deadline_s
        with httpx.Client(timeout=30.0) as client:
            while time.monotonic() < end:
                out.tries += 1
                base = self.procs[idx % len(self.procs)].base
                try:
                    r = client.post(base + "/v1/run", json=body, headers={"Idempotency-Key": key})
                except httpx.HTTPError:
                    out.conn_errors += 1
                    idx += 1  # that replica is down (killed or restarting): another one
                    time.sleep(0.1)
                    continue
                if r.status_code == 409 and _etype(r) == "request_in_progress":
                    out.in_progress += 1
                    time.sleep(0.25)
                    continue
                if r.status_code == 503:
                    out.unavailable += 1
                    time.sleep(min(1.0, float(r.headers.get("retry-after", "1") or 1)))
                    continue
                out.status, out.replayed = r.status_code, r.headers.get("idempotent-replayed") == "true"
                try:
                    out.body = r.json()
                except ValueError:
                    out.body = {"raw": r.text[:200]}
                return out
        return out


def _etype(r: httpx.Response) -> str | None:
    try:
        return (r.json().get("error") or {}).get("type")
    except (ValueError, AttributeError):
        return None


# ------------------------------------------------------------------------------ the bucket
@dataclass
class BucketLoad:
    """One RedisBucket per replica, acquiring as fast as the bound lets them, in threads."""

    url: str
    cfg: ChaosConfig
    tenant: str = field(default_factory=lambda: f"chaos-{uuid.uuid4().hex[:8]}")
    admitted: float = 0.0
    attempts: int = 0
    degraded_admitted: float = 0.0
    restarts_seen: int = 0
    t0: float = 0.0
    t1: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)
    _buckets: list[RedisBucket] = field(default_factory=list)

    def start(self) -> BucketLoad:
        c = self.cfg
        bcfg = BucketConfig(c.bucket_capacity, c.bucket_window_s)
        rc = RedisBucketConfig(
            url=self.url, replicas=c.replicas, reconnect_interval_s=0.2, socket_timeout_s=0.25
        )
        self._buckets = [RedisBucket(bcfg, rc, tenant=self.tenant) for _ in range(c.replicas)]
        self._buckets[0].reset()  # a full bucket at the start: the bound is capacity + rate * t
        self.t0 = time.monotonic()
        for b in self._buckets:
            t = threading.Thread(target=self._drive, args=(b,), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def _drive(self, b: RedisBucket) -> None:
        cost = self.cfg.bucket_cost
        while not self._stop.is_set():
            adm = b.try_acquire(cost)
            with self._lock:
                self.attempts += 1
                if adm.ok:
                    self.admitted += cost
                    if adm.backend == "degraded":
                        self.degraded_admitted += cost
            time.sleep(0.02)

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        for t in self._threads:
            t.join(10)
        self.t1 = time.monotonic()
        self.restarts_seen = sum(b.restarts_seen for b in self._buckets)
        for b in self._buckets:
            b.close()
        elapsed = self.t1 - self.t0
        bound = self.cfg.bucket_capacity + self.cfg.bucket_capacity / self.cfg.bucket_window_s * elapsed
        return {
            "elapsed_s": round(elapsed, 2),
            "admitted_token_s": self.admitted,
            "degraded_admitted_token_s": self.degraded_admitted,
            "bound_token_s": round(bound, 1),
            "admitted_vs_bound": round(self.admitted / bound, 4),
            "attempts": self.attempts,
            "restarts_seen": self.restarts_seen,
        }


def bucket_data_loss_phase(cfg: ChaosConfig) -> dict[str, Any]:
    """Bucket only: a Redis without persistence restarted mid-load (its state is gone)."""
    server = RedisServer().start()
    try:
        load = BucketLoad(server.url, cfg).start()
        third = cfg.data_loss_phase_s / 3
        time.sleep(third)
        server.kill()
        time.sleep(cfg.redis_down_s)
        server.start()
        time.sleep(max(0.5, cfg.data_loss_phase_s - third - cfg.redis_down_s))
        return load.stop()
    finally:
        server.close()


# ------------------------------------------------------------------------------ the run
def _expenses_by_amount(mock: str) -> Counter:
    """Every expense the runs created, counted by amount: ids are sequential from EXP00000001
    (the mock's seeded expenses first; they carry a ``created_at``, the runs' ones do not)."""
    counts: Counter = Counter()
    with httpx.Client(timeout=10.0) as client:
        k = 1
        while True:
            r = client.post(mock + "/tools/get_expense_status", json={"expense_id": f"EXP{k:08d}"})
            if r.status_code == 404:
                return counts
            r.raise_for_status()
            e = r.json()
            if "created_at" not in e:
                counts[float(e["amount"])] += 1
            k += 1


def run_chaos(cfg: ChaosConfig, log=print) -> dict[str, Any]:
    rng = random.Random(cfg.seed)
    tmp = Path(tempfile.mkdtemp(prefix="tao-chaos-")) if cfg.workdir is None else cfg.workdir
    tmp.mkdir(parents=True, exist_ok=True)
    redis_server = RedisServer(persistent=True).start()
    mock = Proc("mock", ["-m", "tao.mock_service", "--no-dedup", "--today", "2026-11-15"], tmp)
    env = {
        "TAO_REDIS_URL": redis_server.url,
        "TAO_TOOLS_URL": mock.base,
        "TAO_API_KEY": "",
        "TAO_IDEMPOTENCY_LOCK_TTL_S": str(cfg.lock_ttl_s),
    }
    procs = [
        Proc(f"replica{i}", ["-m", "tao", "serve", "--no-model", "--timeout", "20"], tmp, env)
        for i in range(cfg.replicas)
    ]
    fleet = Fleet(procs)
    events: list[dict[str, Any]] = []
    restarters: list[threading.Thread] = []
    t_start = time.monotonic()
    try:
        mock.start()
        for p in procs:
            p.start()
        mock.wait_ready(cfg.start_timeout_s)
        for p in procs:
            p.wait_ready(cfg.start_timeout_s)
        startup_s = time.monotonic() - t_start
        log(f"chaos: {cfg.replicas} replicas ready in {startup_s:.1f} s")
        httpx.post(
            mock.base + "/_config",
            json={"slow_rate": cfg.slow_rate, "slow_s": cfg.slow_s, "tools": ["submit_expense"]},
            timeout=5,
        ).raise_for_status()
        for p in procs:  # warm each runtime (first run builds it) with a read-only call
            warm = {
                "request": "天气",
                "plan": {
                    "version": "1.0",
                    "intent": "w",
                    "steps": [
                        {
                            "step_id": "t1",
                            "tool": "get_weather",
                            "arguments": {"city": "北京", "date": "2026-11-16"},
                            "dependencies": [],
                        }
                    ],
                },
            }
            httpx.post(p.base + "/v1/run", json=warm, timeout=120)
        # chaos schedule: fractions of the runs done at which to act
        kill_at = sorted(rng.uniform(*cfg.kill_window) for _ in range(cfg.kills))
        redis_at = sorted(rng.uniform(0.3, 0.7) for _ in range(cfg.redis_restarts))
        done = [0]
        done_lock = threading.Lock()
        bucket = BucketLoad(redis_server.url, cfg).start()
        outcomes: dict[str, tuple[int, SendOutcome, SendOutcome]] = {}
        t_traffic = time.monotonic()

        def one(i: int) -> None:
            key, body = f"chaos-{cfg.seed}-{i}-{uuid.uuid4().hex[:6]}", run_body(i)
            a, b = i % cfg.replicas, (i + 1) % cfg.replicas
            second: list[SendOutcome] = []
            delay = rng.uniform(0.0, 0.03)

            def dup() -> None:
                time.sleep(delay)
                second.append(fleet.send(key, body, b, cfg.send_deadline_s))

            t = threading.Thread(target=dup)
            t.start()
            first = fleet.send(key, body, a, cfg.send_deadline_s)
            t.join()
            outcomes[key] = (i, first, second[0])
            with done_lock:
                done[0] += 1

        def chaos() -> None:
            plan = [("kill", f) for f in kill_at] + [("redis", f) for f in redis_at]
            for kind, frac in sorted(plan, key=lambda x: x[1]):
                while done[0] < frac * cfg.runs:
                    time.sleep(0.02)
                if kind == "kill":
                    live = [p for p in procs if p.alive()]
                    if len(live) <= 1:
                        continue  # keep one replica serving
                    victim = rng.choice(live)
                    victim.stop(signal.SIGKILL)
                    events.append({"at_run": done[0], "event": f"SIGKILL {victim.name}"})
                    victim.start()  # restarted at once; ready when its imports are done

                    def ready(p: Proc = victim, at: int = done[0]) -> None:
                        t0 = time.monotonic()
                        try:
                            p.wait_ready(cfg.start_timeout_s)
                            events.append(
                                {"at_run": at, "event": f"{p.name} back after {time.monotonic() - t0:.1f} s"}
                            )
                        except (RuntimeError, TimeoutError) as exc:
                            events.append({"at_run": at, "event": f"{p.name} did not come back: {exc}"})

                    th = threading.Thread(target=ready, daemon=True)
                    th.start()
                    restarters.append(th)
                else:
                    redis_server.kill()
                    events.append({"at_run": done[0], "event": "SIGKILL redis"})
                    time.sleep(cfg.redis_down_s)
                    redis_server.start()
                    events.append({"at_run": done[0], "event": f"redis back after {cfg.redis_down_s:.1f} s"})

        chaos_thread = threading.Thread(target=chaos, daemon=True)
        chaos_thread.start()
        with ThreadPoolExecutor(cfg.concurrency) as pool:
            list(pool.map(one, range(cfg.runs)))
        traffic_s = time.monotonic() - t_traffic
        chaos_thread.join(cfg.start_timeout_s)
        bucket_live = bucket.stop()
        for th in restarters:
            th.join(cfg.start_timeout_s)
        log(f"chaos: {cfg.runs} runs in {traffic_s:.1f} s; verifying")
        # every key once more, spread over the replicas (the restarted ones included)
        verify: dict[str, SendOutcome] = {}
        for n, (key, (i, _, _)) in enumerate(sorted(outcomes.items(), key=lambda kv: kv[1][0])):
            verify[key] = fleet.send(key, run_body(i), n, cfg.send_deadline_s)
        stats = httpx.get(mock.base + "/_stats", timeout=10).json()
        effects = int(stats["side_effects"].get("submit_expense", 0))
        by_amount = _expenses_by_amount(mock.base)
        if sum(by_amount.values()) != effects:
            raise RuntimeError(f"the mock counts {effects} side effects but holds {sum(by_amount.values())}")
        duplicates = sum(c - 1 for c in by_amount.values() if c > 1)
        kinds: Counter = Counter()
        lost, mismatched, failed_sends = 0, 0, 0
        lost_detail: list[dict[str, Any]] = []
        for key, (i, first, second) in outcomes.items():
            v = verify[key]
            if v.status != 200 or not v.replayed:
                lost += 1
                lost_detail.append({"run": i, "verify_status": v.status, "replayed": v.replayed})
                continue
            status = (v.body or {}).get("status", "?")
            kinds[status] += 1
            for s in (first, second):
                if s.status != 200:
                    failed_sends += 1
                elif s.body != v.body:
                    mismatched += 1
            if status == "success" and by_amount.get(amount_of(i), 0) != 1:
                lost += 1  # recorded as done, but the effect is not there (exactly once)
                lost_detail.append({"run": i, "effects": by_amount.get(amount_of(i), 0)})
        data_loss = bucket_data_loss_phase(cfg)
        sends = [s for (_, a, b) in outcomes.values() for s in (a, b)]
        summary = {
            "runs": cfg.runs,
            "sends": 2 * cfg.runs,
            "replicas": cfg.replicas,
            "replica_kills": sum(1 for e in events if e["event"].startswith("SIGKILL replica")),
            "redis_restarts": sum(1 for e in events if e["event"] == "SIGKILL redis"),
            "side_effects": effects,
            "duplicate_side_effects": duplicates,
            "runs_lost": lost,
            "outcome_success": kinds.get("success", 0),
            "outcome_needs_user": kinds.get("needs_user", 0),
            "outcome_other": sum(v for k, v in kinds.items() if k not in ("success", "needs_user")),
            "sends_not_200": failed_sends,
            "sends_answered_differently": mismatched,
            "send_conn_errors": sum(s.conn_errors for s in sends),
            "send_409_in_progress": sum(s.in_progress for s in sends),
            "send_503": sum(s.unavailable for s in sends),
            "bucket_admitted_vs_bound": bucket_live["admitted_vs_bound"],
            "bucket_data_loss_admitted_vs_bound": data_loss["admitted_vs_bound"],
            "startup_s": round(startup_s, 1),
            "traffic_s": round(traffic_s, 1),
        }
        return {
            "summary": summary,
            "events": events,
            "bucket": {"redis_kill_restart_aof": bucket_live, "redis_restart_data_lost": data_loss},
            "outcomes": dict(kinds),
            "lost": lost_detail[:50],
            "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in cfg.__dict__.items()},
        }
    finally:
        for p in procs:
            p.stop(signal.SIGKILL)
        mock.stop()
        redis_server.close()
