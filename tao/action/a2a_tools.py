"""A2A tools: a remote agent's card as one :class:`ToolSpec`, called through the ``a2a-sdk`` client.

Refs: ``--registry a2a+http://HOST:PORT`` (a domain of that one agent) or, beside any domain,
``TAO_A2A_AGENTS="helpdesk=http://HOST:PORT,billing=http://…"`` (``RuntimeConfig.a2a_agents``):
each agent becomes a tool (``ALIAS``, else ``ask_`` + the card's name) whose arguments are
``request`` (the sub-task's text), optional ``plan`` (a ThoughtPlan the remote replays: an object
is resolved by the caller first, its step refs are the caller's; a JSON string travels as is) and
``publish`` (outputs the remote writes to the conversation's blackboard). The result is the
remote task: ``{agent, task_id, conversation_id, state, status, error_type, message, answer,
trace_id, blackboard_writes}``.

Cards are fetched from ``/.well-known/agent-card.json`` and kept ``ttl_s`` (:class:`CardCache`);
parsing is tolerant (unknown fields, bad skills, a missing name: warnings, kept in
:attr:`CardInfo.warnings` and logged), but the protocol is not: the JSON-RPC interface must speak
A2A 1.x or 0.3 (what the SDK client speaks; sent as ``A2A-Version``) and, when the card carries
the TAO envelope extension, the envelope's major version must match
(:class:`A2AProtocolError` / :class:`~tao.contracts.envelope.EnvelopeVersionError`).

Every call carries the envelope of :mod:`tao.action.a2a_context` (conversation, parent task,
sender, chain, blackboard, depth, trace id; also as a W3C ``traceparent`` header); the executor's
contract applies as for any tool (permission, argument check, timeout, retries only when
idempotent, breaker, observation). Mapping of outcomes: completed -> 200; failed with a transient
cause -> 503 (``TOOL_TRANSIENT``); failed otherwise, rejected, input/auth required -> 4xx
(``TOOL_CLIENT_ERROR``); a refused message (envelope, depth, rounds, A2A version) -> 400 with the
remote's reason; unreachable -> ``TOOL_TRANSIENT``; no answer in time -> ``TOOL_TIMEOUT``.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from tao.action.a2a_context import MAX_DEPTH, current_conversation
from tao.action.http_tools import CallContext
from tao.action.normalize import from_http
from tao.contracts import ActionResult, ErrorInfo, ErrorType, Permission, ToolSpec
from tao.contracts.domain import Domain
from tao.contracts.envelope import ENVELOPE_KEY, EXTENSION_URI, KEY_PATTERN, EnvelopeError, check_version

log = logging.getLogger("tao.a2a")
SCHEMES = ("a2a+http://", "a2a+https://")
SUPPORTED_VERSIONS = ("1", "0.3")  # majors (and 0.3) the a2a-sdk client speaks
CARD_PATH = "/.well-known/agent-card.json"
DEFAULT_TTL_S = 300.0
DEFAULT_TIMEOUT_MS = 30_000
_TRANSIENT = {"TOOL_TRANSIENT", "TOOL_TIMEOUT", "TOOL_CIRCUIT_OPEN", "RATE_LIMITED", "BUDGET_EXHAUSTED"}
_SLUG = re.compile(r"[^a-z0-9]+")


class A2ARefError(ValueError):
    """An agent ref that names no URL."""


class A2AProtocolError(ValueError):
    """The remote agent speaks no A2A version (or binding) this runtime speaks."""

    def __init__(self, message: str, *, expected: str | None = None, received: str | None = None) -> None:
        super().__init__(message)
        self.expected, self.received = expected, received


@dataclass(frozen=True)
class AgentSource:
    """A remote agent: its base URL and the tool name it gets (``None``: from its card)."""

    url: str
    alias: str | None = None

    @classmethod
    def parse(cls, ref: str) -> AgentSource:
        ref = ref.strip()
        alias, sep, rest = ref.partition("=")
        if not sep or "://" in alias:
            alias, rest = "", ref
        url = rest[len("a2a+") :] if rest.startswith(SCHEMES) else rest
        if not url.startswith(("http://", "https://")) or len(url) < 10:
            raise A2ARefError(
                f"{ref!r}: expected [ALIAS=]a2a+http(s)://HOST:PORT or [ALIAS=]http(s)://HOST:PORT"
            )
        if alias and not re.fullmatch(r"[a-z][a-z0-9_]{1,63}", alias):
            raise A2ARefError(f"{ref!r}: the alias must be a tool name ([a-z][a-z0-9_]{{1,63}})")
        return cls(url.rstrip("/"), alias or None)

    @property
    def ref(self) -> str:
        return f"a2a+{self.url}"


def agent_sources(raw: str | Sequence[str] | None) -> list[AgentSource]:
    """``TAO_A2A_AGENTS`` / ``RuntimeConfig.a2a_agents`` (comma or space separated) as sources."""
    if raw is None:
        raw = os.environ.get("TAO_A2A_AGENTS", "")
    items = re.split(r"[,\s]+", raw) if isinstance(raw, str) else list(raw)
    return [AgentSource.parse(x) for x in items if x and x.strip()]


@dataclass
class CardInfo:
    """A parsed card, the JSON-RPC interface chosen, and what parsing had to tolerate."""

    card: Any  # a2a.types.AgentCard
    url: str
    protocol_version: str
    warnings: list[str] = field(default_factory=list)
    envelope: bool = False  # the card carries the TAO envelope extension
    read_only: bool = False  # every skill is tagged read


def _version_ok(v: str) -> bool:
    return v == "0.3" or v.startswith("0.3.") or v.split(".")[0] == "1"


def parse_card(data: Any, base_url: str) -> CardInfo:
    """An agent card (JSON) -> :class:`CardInfo`: tolerant of content, strict on protocol."""
    from a2a.client.card_resolver import parse_agent_card
    from google.protobuf.json_format import ParseError

    if not isinstance(data, dict):
        raise A2AProtocolError(f"{base_url}{CARD_PATH}: the agent card is not a JSON object")
    data = dict(data)
    warnings: list[str] = []
    skills = data.get("skills")
    if skills is not None and not isinstance(skills, list):
        warnings.append(f"skills is {type(skills).__name__}, not a list: ignored")
        data["skills"] = []
    elif isinstance(skills, list):
        good = []
        for i, s in enumerate(skills):
            if isinstance(s, dict) and isinstance(s.get("id"), str) and s["id"]:
                s = dict(s)
                if not isinstance(s.get("tags", []), list):
                    warnings.append(f"skills[{i}].tags is not a list: ignored")
                    s.pop("tags")
                good.append(s)
            else:
                warnings.append(f"skills[{i}] has no id: dropped")
        data["skills"] = good
    from a2a import types as a2a

    known = set(a2a.AgentCard.DESCRIPTOR.fields_by_camelcase_name) | {
        "url",
        "preferredTransport",
        "protocolVersion",
        "additionalInterfaces",
        "security",
        "supportsAuthenticatedExtendedCard",
    }
    extra = sorted(k for k in data if k not in known)
    if extra:
        warnings.append("unknown card fields ignored: " + ", ".join(extra[:10]))
    try:
        card = parse_agent_card(data)
    except (ParseError, ValueError, TypeError) as exc:
        raise A2AProtocolError(f"{base_url}{CARD_PATH}: the agent card does not parse: {exc}") from None
    if not card.name:
        warnings.append("the card has no name: named after its host")
        card.name = re.sub(r"^https?://", "", base_url)
    iface = [i for i in card.supported_interfaces if (i.protocol_binding or "JSONRPC").upper() == "JSONRPC"]
    if not iface:
        raise A2AProtocolError(
            f"{base_url}: the card advertises no JSON-RPC interface "
            f"({', '.join(i.protocol_binding for i in card.supported_interfaces) or 'none'})",
            expected="JSONRPC",
            received=",".join(i.protocol_binding for i in card.supported_interfaces) or "none",
        )
    versions = [i.protocol_version or "" for i in iface]
    chosen = next((i for i in iface if i.protocol_version and i.protocol_version.split(".")[0] == "1"), None)
    chosen = chosen or next(
        (i for i in iface if i.protocol_version and _version_ok(i.protocol_version)), None
    )
    if chosen is None and "" in versions:
        chosen = next(i for i in iface if not i.protocol_version)
        warnings.append("the JSON-RPC interface names no protocol version: 1.0 assumed")
    if chosen is None:
        raise A2AProtocolError(
            f"{base_url}: the agent speaks A2A {', '.join(versions)}; this runtime speaks 1.x and 0.3",
            expected="1.x or 0.3",
            received=",".join(versions),
        )
    envelope = False
    for ext in card.capabilities.extensions:
        if ext.uri == EXTENSION_URI:
            from google.protobuf.json_format import MessageToDict

            params = MessageToDict(ext.params)
            check_version(params.get("schema"))  # EnvelopeVersionError: the typed mismatch
            envelope = True
    if not envelope:
        warnings.append("not a TAO runtime (no envelope extension): it may ignore the envelope")
    tags = [set(s.tags) for s in card.skills]
    if tags and any(not t & {"read", "write", "high_risk"} for t in tags):
        warnings.append("skills without a permission tag: the agent is treated as one that writes")
    read_only = bool(tags) and all("read" in t and not t & {"write", "high_risk"} for t in tags)
    return CardInfo(
        card, chosen.url or base_url, chosen.protocol_version or "1.0", warnings, envelope, read_only
    )


class CardCache:
    """Cards by base URL, refetched after ``ttl_s`` (``clock`` injectable for tests)."""

    def __init__(self, ttl_s: float = DEFAULT_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self.clock = ttl_s, clock
        self._cards: dict[str, tuple[float, CardInfo]] = {}
        self.fetches = 0

    def _store(self, url: str, data: Any) -> CardInfo:
        info = parse_card(data, url)
        for w in info.warnings:
            log.warning("A2A card %s: %s", url, w)
        self._cards[url] = (self.clock(), info)
        return info

    def fresh(self, url: str) -> CardInfo | None:
        hit = self._cards.get(url)
        return hit[1] if hit is not None and self.clock() - hit[0] < self.ttl_s else None

    def get_sync(self, url: str, timeout_s: float = 10.0) -> CardInfo:
        if (hit := self.fresh(url)) is not None:
            return hit
        self.fetches += 1
        r = httpx.get(url + CARD_PATH, timeout=timeout_s, headers={"A2A-Version": "1.0"})
        r.raise_for_status()
        return self._store(url, r.json())

    async def get(self, url: str, client: httpx.AsyncClient, timeout_s: float = 10.0) -> CardInfo:
        if (hit := self.fresh(url)) is not None:
            return hit
        self.fetches += 1
        r = await client.get(url + CARD_PATH, timeout=timeout_s)
        r.raise_for_status()
        return self._store(url, r.json())


CARDS = CardCache(float(os.environ.get("TAO_A2A_CARD_TTL_S", DEFAULT_TTL_S)))


def _slug(name: str) -> str:
    s = _SLUG.sub("_", name.lower()).strip("_") or "agent"
    return ("ask_" + s)[:64].rstrip("_")


def args_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["request"],
        "properties": {
            "request": {"type": "string", "minLength": 1, "maxLength": 4000, "description": "the sub-task"},
            "plan": {
                "type": ["object", "string"],
                "description": "a ThoughtPlan the remote agent replays instead of planning",
            },
            "publish": {
                "type": "array",
                "maxItems": 16,
                "items": {"type": "string", "pattern": KEY_PATTERN},
                "description": "outputs the remote agent writes to the conversation's blackboard",
            },
        },
    }


RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["agent", "task_id", "state", "status"],
    "properties": {
        "agent": {"type": "string"},
        "task_id": {"type": "string"},
        "conversation_id": {"type": "string"},
        "state": {"type": "string"},
        "status": {"type": "string"},
        "error_type": {"type": ["string", "null"]},
        "message": {"type": "string"},
        "answer": {"type": "object"},
        "trace_id": {"type": ["string", "null"]},
        "blackboard_writes": {"type": "object"},
    },
}


def spec_of(info: CardInfo, source: AgentSource) -> ToolSpec:
    """One remote agent as a contract (docs/protocols.md has the mapping)."""
    card = info.card
    skills = "; ".join(f"{s.id}: {s.description}"[:160] for s in card.skills[:24])
    desc = f"Delegate a sub-task to the A2A agent {card.name!r}: {card.description}".strip()
    return ToolSpec(
        name=source.alias or _slug(card.name),
        description=(desc + (f" Skills: {skills}" if skills else ""))[:4000],
        args_schema=args_schema(),
        response_schema=RESPONSE_SCHEMA,
        required_fields=["/task_id", "/status"],
        extract={
            "answer": "/answer",
            "task_id": "/task_id",
            "status": "/status",
            "writes": "/blackboard_writes",
        },
        permission=Permission.READ if info.read_only else Permission.WRITE,
        idempotent=info.read_only,
        retry_budget=1 if info.read_only else 0,
        timeout_ms=int(float(os.environ.get("TAO_A2A_TIMEOUT_S", DEFAULT_TIMEOUT_MS / 1000)) * 1000),
        max_result_tokens=4000,
        domain=f"a2a:{source.alias or _slug(card.name)[4:]}",
    )


def load_specs(
    sources: Sequence[AgentSource], cache: CardCache | None = None
) -> list[tuple[AgentSource, ToolSpec]]:
    """Fetch each card (sync) and build its contract; an agent that cannot be reached is skipped
    with a warning (its tool is unknown until the runtime restarts); a protocol mismatch raises."""
    cache = cache or CARDS
    out = []
    for src in sources:
        try:
            info = cache.get_sync(src.url)
        except (httpx.HTTPError, ValueError) as exc:
            if isinstance(exc, (A2AProtocolError, EnvelopeError)):
                raise
            log.warning("A2A agent %s unreachable at start (%s): not registered", src.url, exc)
            continue
        out.append((src, spec_of(info, src)))
    return out


def load_a2a_domain(ref: str) -> Domain:
    """The domain of one remote agent (the ``a2a+…`` loader of :func:`tao.domains.load_domain`)."""
    src = AgentSource.parse(ref)
    info = CARDS.get_sync(src.url)  # unreachable / protocol errors: DomainLoadError with the reason
    spec = spec_of(info, src)
    return Domain(name=spec.domain, tools=[spec], ref=ref, transport=src.ref)


def _ints(v: Any) -> Any:
    """protobuf Struct numbers are doubles: integral ones back to int (JSON Schema integers)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)
    if isinstance(v, dict):
        return {k: _ints(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_ints(x) for x in v]
    return v


@dataclass
class A2AConnection:
    """Calls one remote agent (a registry transport); cards from the shared :data:`CARDS` cache."""

    source: AgentSource
    cache: CardCache = field(default_factory=lambda: CARDS)
    api_key: str | None = field(default_factory=lambda: os.environ.get("TAO_A2A_API_KEY") or None)
    max_depth: int = MAX_DEPTH
    _http: httpx.AsyncClient | None = None

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(headers={"A2A-Version": "1.0"})
        return self._http

    async def call(self, spec: ToolSpec, args: dict[str, Any], ctx: CallContext) -> ActionResult:
        t0 = time.perf_counter()
        conv = current_conversation()
        if conv.depth + 1 > self.max_depth:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.PERMISSION_DENIED,
                f"delegation depth {conv.depth + 1} > {self.max_depth}",
            )
        try:
            info = await self.cache.get(self.source.url, self._client(), min(10.0, ctx.timeout_s))
        except (A2AProtocolError, EnvelopeError) as exc:
            return _fail(
                spec, ctx, t0, ErrorType.TOOL_CLIENT_ERROR, f"A2A agent {self.source.url}: {exc}", exc
            )
        except (httpx.HTTPError, ValueError) as exc:
            return _fail(
                spec, ctx, t0, ErrorType.TOOL_TRANSIENT, f"agent card unavailable: {exc}", retry=True
            )
        env = conv.child_envelope(list(args.get("publish") or []))
        try:
            task = await self._send(info, args, ctx, env.to_json())
        except TimeoutError:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_TIMEOUT,
                f"no A2A answer within {ctx.timeout_s:.3f} s",
                retry=True,
            )
        except Exception as exc:
            return self._map_exc(spec, ctx, t0, exc)
        result, status = self._result(task, spec)
        for key, entry in (result.get("blackboard_writes") or {}).items():
            if isinstance(entry, dict):
                conv.write(
                    key, entry.get("value"), str(entry.get("writer") or spec.name), step_id=ctx.step_id
                )
        res = from_http(
            spec.name, ctx.step_id, status, orjson.dumps(result), (time.perf_counter() - t0) * 1000
        )
        if res.error_info is not None:  # the remote's own reason, not only the mapped status
            why = f"remote task {result.get('state')}: {result.get('error_type')}: {result.get('message')}"
            info = res.error_info.model_copy(update={"message": f"{res.error_info.message}; {why}"[:2000]})
            res = res.model_copy(update={"error_info": info})
        return res

    async def _send(self, info: CardInfo, args: dict[str, Any], ctx: CallContext, envelope: dict) -> Any:
        import asyncio

        from a2a import types as a2a
        from a2a.client import ClientCallContext, ClientConfig, ClientFactory

        parts = [a2a.Part(text=args["request"])]
        plan = args.get("plan")
        if isinstance(plan, str):
            plan = orjson.loads(plan)
        if plan is not None:
            part = a2a.Part(media_type="application/json")
            part.data.struct_value.update({"plan": plan})
            parts.append(part)
        msg = a2a.Message(
            message_id=uuid.uuid4().hex,
            role=a2a.Role.ROLE_USER,
            context_id=envelope["conversation_id"],
            parts=parts,
        )
        meta = {ENVELOPE_KEY: envelope, "tao.runtime/request-id": ctx.request_id}
        if ctx.idempotency_key:
            meta["tao.runtime/idempotency-key"] = ctx.idempotency_key
        msg.metadata.update(meta)
        headers = {"X-Request-ID": ctx.request_id}
        if envelope.get("trace_id"):
            headers["traceparent"] = f"00-{envelope['trace_id']}-{uuid.uuid4().hex[:16]}-01"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=self._client())).create(info.card)
        call = ClientCallContext(service_parameters=headers, timeout=ctx.timeout_s)
        last = None
        async with asyncio.timeout(ctx.timeout_s):
            async for ev in client.send_message(a2a.SendMessageRequest(message=msg), context=call):
                last = ev
        return last

    def _result(self, ev: Any, spec: ToolSpec) -> tuple[dict[str, Any], int]:
        from a2a import types as a2a
        from google.protobuf.json_format import MessageToDict

        out: dict[str, Any] = {"agent": spec.name, "answer": {}, "blackboard_writes": {}}
        if ev is None or not ev.HasField("task"):
            text = (
                "".join(p.text for p in ev.message.parts) if ev is not None and ev.HasField("message") else ""
            )
            out.update(task_id="", state="message", status="success" if text else "failed", message=text)
            return out, 200 if text else 502
        task = ev.task
        state = a2a.TaskState.Name(task.status.state).removeprefix("TASK_STATE_").lower()
        out.update(task_id=task.id, conversation_id=task.context_id, state=state, status=state, message="")
        for art in task.artifacts:
            for p in art.parts:
                if p.HasField("data"):
                    data = _ints(MessageToDict(p.data))
                    if isinstance(data, dict) and "status" in data:
                        out.update(
                            {
                                k: data[k]
                                for k in (
                                    "status",
                                    "error_type",
                                    "message",
                                    "answer",
                                    "trace_id",
                                    "blackboard_writes",
                                )
                                if k in data
                            }
                        )
        if state == "completed":
            return out, 200 if out.get("status") == "success" else 422
        if state == "failed":
            return out, 503 if out.get("error_type") in _TRANSIENT else 422
        return out, 409  # rejected, input/auth required, canceled: the remote did not do it

    def _map_exc(self, spec: ToolSpec, ctx: CallContext, t0: float, exc: Exception) -> ActionResult:
        from a2a.client import A2AClientError, A2AClientTimeoutError
        from a2a.utils.errors import A2AError

        if isinstance(exc, A2AClientTimeoutError | httpx.TimeoutException):
            return _fail(spec, ctx, t0, ErrorType.TOOL_TIMEOUT, f"A2A call timed out: {exc}", retry=True)
        cause = exc.__cause__
        if isinstance(exc, A2AClientError) and isinstance(cause, httpx.HTTPError):
            exc = cause  # the SDK wraps HTTP and network failures: judge by what happened
        if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code in (401, 403):
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_CLIENT_ERROR,
                f"A2A agent refused our credentials (HTTP {exc.response.status_code}; TAO_A2A_API_KEY)",
            )
        if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code < 500:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_CLIENT_ERROR,
                f"A2A agent answered HTTP {exc.response.status_code}",
            )
        if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code >= 500:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_TRANSIENT,
                f"A2A agent answered {exc.response.status_code}",
                retry=True,
            )
        if isinstance(exc, httpx.TransportError | ConnectionError | OSError):
            return _fail(spec, ctx, t0, ErrorType.TOOL_TRANSIENT, f"A2A agent unreachable: {exc}", retry=True)
        if isinstance(exc, A2AError):
            data = exc.data or {}
            info = ErrorInfo(
                error_type=ErrorType.TOOL_CLIENT_ERROR,
                message=f"A2A agent refused the message ({type(exc).__name__}): {exc.message}",
                field=data.get("field") or None,
                expected=data.get("expected") or None,
                received=data.get("received") or None,
            )
            return ActionResult(
                tool=spec.name,
                step_id=ctx.step_id,
                status_code=400,
                response_time_ms=round((time.perf_counter() - t0) * 1000, 3),
                error_info=info,
            )
        return _fail(
            spec,
            ctx,
            t0,
            ErrorType.TOOL_TRANSIENT,
            f"A2A call failed: {type(exc).__name__}: {exc}",
            retry=True,
        )

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None


def _fail(
    spec: ToolSpec, ctx: CallContext, t0: float, et: ErrorType, msg: str, exc: Any = None, retry: bool = False
) -> ActionResult:
    return ActionResult(
        tool=spec.name,
        step_id=ctx.step_id,
        response_time_ms=round((time.perf_counter() - t0) * 1000, 3),
        error_info=ErrorInfo(
            error_type=et,
            message=msg,
            expected=getattr(exc, "expected", None),
            received=getattr(exc, "received", None),
            retryable=retry,
        ),
    )
