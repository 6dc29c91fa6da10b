"""A2A cards: where a remote agent is, its card parsed (tolerant of content, strict on protocol),
a TTL cache, and the card as one :class:`ToolSpec` (docs/protocols.md has the mapping).

Parsing tolerates unknown fields, skills without an id or with non-list tags, a missing name, an
interface without a version and a card without the TAO envelope extension (a warning each, kept in
:attr:`CardInfo.warnings` and logged); it refuses a card with no JSON-RPC interface or only A2A
versions other than 1.x / 0.3 (:class:`A2AProtocolError`) and an envelope extension of another
major (:class:`~tao.contracts.envelope.EnvelopeVersionError`).
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from tao.contracts import Permission, ToolSpec
from tao.contracts.envelope import EXTENSION_URI, KEY_PATTERN, EnvelopeError, check_version

log = logging.getLogger("tao.a2a")
SCHEMES = ("a2a+http://", "a2a+https://")
SUPPORTED_VERSIONS = ("1", "0.3")  # majors (and 0.3) the a2a-sdk client speaks
CARD_PATH = "/.well-known/agent-card.json"
DEFAULT_TTL_S = 300.0
DEFAULT_TIMEOUT_MS = 30_000
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
