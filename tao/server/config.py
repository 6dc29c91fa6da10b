"""Typed server configuration (flags and TAO_* environment variables)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tao.contracts.domain import Domain
from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    api_key: str | None = None  # TAO_API_KEY: when set, every /v1 request needs `Authorization: Bearer KEY`
    max_body_bytes: int = 1 << 20
    request_timeout_s: float = 30.0
    checkpoint: Path = DEFAULT_CHECKPOINT
    engine: str = "auto"  # auto | cpu | vllm | vllm-server (TAO_ENGINE)
    engine_url: str | None = None  # the vllm-server engine's OpenAI API base (TAO_ENGINE_URL)
    load_model: bool = True  # False: plan endpoints answer 503 (useful for gateway-only replicas)
    router_config: Path | None = None  # TOML/YAML of model profiles (TAO_ROUTER_CONFIG)
    redis_url: str | None = None  # TAO_REDIS_URL: shared bucket / session store
    tools_url: str | None = None  # base URL of the HTTP tool service used by /v1/run (TAO_TOOLS_URL)
    registry: str | None = None  # tool domain MODULE:ATTR (TAO_REGISTRY); default: the checkpoint's own
    compose: bool | None = None  # hybrid ComposingEngine (TAO_COMPOSE); None: compose.COMPOSE_DEFAULT
    grammar_warmup: bool = (
        True  # compile the registry's frequent slot-set grammars before /readyz (TAO_GRAMMAR_WARMUP=0: off)
    )
    # admission control (tao.server.admission): in-flight bounds per replica, 0 = unbounded
    max_inflight_runs: int = 64  # POST /v1/run (TAO_MAX_INFLIGHT_RUNS)
    max_inflight_plans: int = 32  # POST /v1/plan (TAO_MAX_INFLIGHT_PLANS)
    admission_max_queue: int = 0  # requests that may wait for a slot (TAO_ADMISSION_QUEUE)
    admission_queue_wait_s: float = 0.0  # how long they may wait before a 503 (TAO_ADMISSION_WAIT_S)
    gc_freeze: bool = True  # freeze the start-up heap once ready (tao.server.gc_freeze; TAO_GC_FREEZE=0: off)
    # the CPU engine decodes in a child process (thought_model.engine.decode_process). Off for an
    # app embedded with create_app; the `tao serve` binary turns it on (TAO_DECODE_PROCESS=0: off)
    decode_process: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    _domains: dict[bool, Domain] = field(default_factory=dict, repr=False)

    def domain(self, *, full: bool = False) -> Domain:
        """The tool domain served: the checkpoint's own (its ``domain.json``), or ``registry`` when it
        agrees with the checkpoint. ``full``: the domain module itself (the mock service needs its
        handlers). Raises ``DomainLoadError`` / ``DomainMismatchError``, never falls back."""
        if full not in self._domains:
            if not self.load_model and self.registry:  # no plan model to agree with (MCP, gateway)
                from tao.domains import load_domain

                self._domains[full] = load_domain(self.registry)
            else:
                self._domains[full] = checkpoint_domain(self.checkpoint, self.registry, full=full)
        return self._domains[full]

    @classmethod
    def from_env(cls, **overrides) -> ServerConfig:
        env = os.environ
        cfg = cls(
            api_key=env.get("TAO_API_KEY") or None,
            engine=env.get("TAO_ENGINE", "auto"),
            engine_url=env.get("TAO_ENGINE_URL") or None,
            redis_url=env.get("TAO_REDIS_URL") or None,
            tools_url=env.get("TAO_TOOLS_URL") or None,
            registry=env.get("TAO_REGISTRY") or None,
            router_config=Path(env["TAO_ROUTER_CONFIG"]) if env.get("TAO_ROUTER_CONFIG") else None,
            checkpoint=Path(env["TAO_CHECKPOINT"]) if env.get("TAO_CHECKPOINT") else DEFAULT_CHECKPOINT,
            grammar_warmup=env.get("TAO_GRAMMAR_WARMUP", "1").strip().lower()
            not in ("0", "false", "off", "no"),
            gc_freeze=env.get("TAO_GC_FREEZE", "1").strip().lower() not in ("0", "false", "off", "no"),
        )
        for name, key, conv in (
            ("max_inflight_runs", "TAO_MAX_INFLIGHT_RUNS", int),
            ("max_inflight_plans", "TAO_MAX_INFLIGHT_PLANS", int),
            ("admission_max_queue", "TAO_ADMISSION_QUEUE", int),
            ("admission_queue_wait_s", "TAO_ADMISSION_WAIT_S", float),
        ):
            if env.get(key):
                setattr(cfg, name, conv(env[key]))
        for k, v in overrides.items():
            if v is not None:
                setattr(cfg, k, v)
        return cfg
