"""Assembling the runtime for ``tao run`` and ``POST /v1/run``: a tool domain's registry over HTTP
(``tools_url``, or the domain's mock service started in-process on a free loopback port), one
executor (shared breakers and idempotency records), one observer, and a loop per request."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opentelemetry.trace import Tracer

from tao.action.executor import ExecutorConfig, ToolExecutor
from tao.action.idempotency import IdempotencyBackend
from tao.action.registry import ToolRegistry
from tao.contracts import ToolSpec
from tao.contracts.domain import Domain
from tao.loop.carryover import CarryConfig, CarryOver, CarryStrategy
from tao.loop.intent.config import PlanningConfig
from tao.loop.loop import LoopConfig, TaoLoop
from tao.loop.plancheck import PlanValidator
from tao.loop.planner import Planner
from tao.loop.session import SessionStore
from tao.observe.observer import Observer
from tao.trace.trajectory import JsonlSink, Sink


@dataclass
class RuntimeConfig:
    tools_url: str | None = None  # None: start the mock service in-process
    trajectory_path: Path | None = None  # JSONL sink; None: in-memory only
    executor: ExecutorConfig = field(default_factory=ExecutorConfig)
    loop: LoopConfig = field(default_factory=LoopConfig)
    carry: CarryConfig = field(default_factory=CarryConfig)  # follow-up turns (strategy OFF: none)
    registry: str | None = (
        None  # tool domain MODULE:ATTR when no Domain is passed (default: TAO_REGISTRY / reference)
    )
    a2a_agents: str | list[str] | None = (
        None  # remote A2A agents as tools ("alias=URL,…"; None: TAO_A2A_AGENTS)
    )
    planning: PlanningConfig | None = None
    """The planning decision point (intent routing, bypass, fallback planner; tao.loop.intent,
    ``load_planning_config()`` reads planner_config.yaml); None: plan every request with the model."""


class Runtime:
    """Everything a run needs except the planner. Create inside the event loop that will use it."""

    def __init__(
        self,
        config: RuntimeConfig | None = None,
        *,
        tools: list[ToolSpec] | None = None,
        tracer: Tracer | None = None,
        session_store: SessionStore | None = None,
        domain: Domain | None = None,
        idempotency: IdempotencyBackend | None = None,
    ) -> None:
        self.config = config or RuntimeConfig()
        if domain is None:
            from tao.domains import load_domain

            domain = load_domain(self.config.registry)
        self.domain = domain
        self.mock = None
        url = self.config.tools_url
        mcp_ref = domain.transport if (domain.transport or "").startswith(("mcp+", "a2a+")) else None
        if url is None and mcp_ref is None:
            from tao.mock_service import MockState, start_in_thread

            self.mock = start_in_thread(MockState(domain=domain))
            url = self.mock.url
        self.tools_url = url
        if tools is None:
            tools = list(domain.tools)
        self.registry = ToolRegistry()
        if mcp_ref is not None and mcp_ref.startswith("a2a+") and self.config.tools_url is None:
            self.registry.register_a2a(tools, mcp_ref)  # the domain is one remote A2A agent
        elif mcp_ref is not None and self.config.tools_url is None:
            self.registry.register_mcp(tools, mcp_ref)  # the domain's own MCP server
        else:
            assert url is not None  # a tools URL was given, or the mock service started above
            self.registry.register_http(tools, url)
        # idempotency records: in-process by default, or shared (Redis) across replicas
        self.executor = ToolExecutor(self.registry, self.config.executor, idempotency=idempotency)
        self.observer = Observer()
        from tao.action.a2a_tools import agent_sources, load_specs

        for src, spec in load_specs(agent_sources(self.config.a2a_agents)):  # coordinator topology
            if self.registry.get(spec.name) is None:
                self.registry.register_a2a([spec], src.ref)
        self.plan_validator = PlanValidator(self.registry.args_schemas())
        self.sinks: list[Sink] = (
            [JsonlSink(self.config.trajectory_path)] if self.config.trajectory_path else []
        )
        self.tracer, self.session_store = tracer, session_store
        carry_cfg = self.config.carry
        if carry_cfg.lexicon is None:
            carry_cfg = CarryConfig(carry_cfg.strategy, carry_cfg.guard, domain.lexicon)
        self.carry = (
            CarryOver(self.registry.args_schemas(), carry_cfg)
            if carry_cfg.strategy is not CarryStrategy.OFF
            else None
        )
        self.decision = None
        if self.config.planning is not None:
            from tao.loop.intent import router_for
            from tao.loop.intent.decision import DecisionPoint

            pc = self.config.planning
            router = router_for(domain, pc.routing) if pc.routing.enabled else None
            self.decision = DecisionPoint(domain, pc, router)

    def loop(self, planner: Planner) -> TaoLoop:
        return TaoLoop(
            planner,
            self.executor,
            observer=self.observer,
            plan_validator=self.plan_validator,
            config=self.config.loop,
            sinks=self.sinks,
            tracer=self.tracer,
            session_store=self.session_store,
            carry=self.carry,
            decision=self.decision,
        )

    async def aclose(self) -> None:
        await self.executor.aclose()
        if self.mock is not None:
            self.mock.stop()
            self.mock = None


_ENGINE_LOCK = threading.Lock()


def load_plan_engine(checkpoint: Path, kind: str = "auto", registry: str | None = None) -> Any:
    """Load the plan engine (imports torch lazily). Raises FileNotFoundError if the checkpoint is missing."""
    if not Path(checkpoint).is_dir() or not any(Path(checkpoint).iterdir()):
        raise FileNotFoundError(f"no plan-model checkpoint at {checkpoint}")
    with _ENGINE_LOCK:
        from thought_model.engine import load_engine

        return load_engine(kind=kind, checkpoint=checkpoint, registry=registry)
