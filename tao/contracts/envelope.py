"""The A2A message envelope: who sent a message, in which conversation, under which parent task.

Every A2A message the runtime sends carries one envelope in its ``metadata`` under
:data:`ENVELOPE_KEY`; every message it receives is checked against it before anything runs:

* ``schema`` is ``tao.a2a.envelope/MAJOR.MINOR``; a different name or major version is an
  :class:`EnvelopeVersionError` (the receiver answers a typed JSON-RPC error, never guesses);
* ``conversation_id``, ``parent_task_id``, ``sender`` place the message: an agent reads only the
  messages of its parent chain (``chain``: root first, each entry's ``parent_task_id`` the task
  before it, the last one the message's parent) plus the conversation's explicit ``blackboard``;
  a chain that does not link is an :class:`EnvelopeError`;
* ``depth`` counts delegation hops (bounded by the receiver), ``trace_id`` is the one trace id of
  the whole conversation, ``publish`` names the outputs the receiver writes to the blackboard.

A message without an envelope (a plain A2A client) starts a new conversation at depth 0.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ENVELOPE_KEY = "tao.runtime/envelope"
ENVELOPE_SCHEMA = "tao.a2a.envelope"
ENVELOPE_VERSION = "1.0"
ENVELOPE_ID = f"{ENVELOPE_SCHEMA}/{ENVELOPE_VERSION}"
EXTENSION_URI = "urn:tao-runtime:a2a-envelope"
"""The agent-card extension that says a remote agent reads and writes this envelope."""
_SCHEMA = re.compile(r"^([a-z0-9_.]+)/(\d+)\.(\d+)$")
KEY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_.]{0,63}$"


class EnvelopeError(ValueError):
    """An envelope that breaks the schema or whose chain does not link (the message is refused)."""

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        expected: str | None = None,
        received: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message, self.field, self.expected, self.received = message, field, expected, received

    def to_dict(self) -> dict[str, Any]:
        return {
            "error_type": type(self).__name__,
            "message": self.message,
            "field": self.field,
            "expected": self.expected,
            "received": self.received,
        }


class EnvelopeVersionError(EnvelopeError):
    """The sender speaks another envelope schema or major version."""


class ChainMessage(BaseModel):
    """One message of a parent chain, as the agent that reads it sees it."""

    model_config = ConfigDict(extra="forbid")

    message_id: str = Field(min_length=1, max_length=128)
    task_id: str = Field(min_length=1, max_length=128)
    parent_task_id: str | None = Field(default=None, max_length=128)
    sender: str = Field(min_length=1, max_length=128)
    text: str = Field(default="", max_length=8000)


class BlackboardEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: Any = None
    version: int = Field(default=1, ge=1)
    writer: str = Field(min_length=1, max_length=128)


class Envelope(BaseModel):
    """The envelope of one A2A message (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    schema_: str = Field(default=ENVELOPE_ID, alias="schema")
    conversation_id: str = Field(min_length=1, max_length=128)
    parent_task_id: str | None = Field(default=None, max_length=128)
    sender: str = Field(min_length=1, max_length=128)
    trace_id: str | None = Field(default=None, pattern=r"^[0-9a-f]{32}$")
    depth: int = Field(default=0, ge=0)
    chain: list[ChainMessage] = Field(default_factory=list, max_length=32)
    blackboard: dict[str, BlackboardEntry] = Field(default_factory=dict, max_length=256)
    publish: list[str] = Field(default_factory=list, max_length=16)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def check_version(schema: Any) -> None:
    """Raise :class:`EnvelopeVersionError` unless ``schema`` is this envelope at a compatible version
    (same name and major; a newer minor only adds optional fields)."""
    m = _SCHEMA.match(schema) if isinstance(schema, str) else None
    want = _SCHEMA.match(ENVELOPE_ID)
    assert want is not None
    if m is None or m.group(1) != want.group(1) or m.group(2) != want.group(2):
        raise EnvelopeVersionError(
            f"message envelope {schema!r} is not supported: this runtime reads {ENVELOPE_SCHEMA}/"
            f"{want.group(2)}.x",
            field=f"/metadata/{ENVELOPE_KEY}/schema",
            expected=f"{ENVELOPE_SCHEMA}/{want.group(2)}.x",
            received=str(schema),
        )


def parse_envelope(raw: Any) -> Envelope:
    """The envelope of a received message's metadata value; typed errors, never a guess."""
    if not isinstance(raw, dict):
        raise EnvelopeError(
            f"{ENVELOPE_KEY} must be an object",
            field=f"/metadata/{ENVELOPE_KEY}",
            received=type(raw).__name__,
        )
    check_version(raw.get("schema"))
    data = dict(raw)
    if m := _SCHEMA.match(str(data["schema"])):  # a newer minor: drop the fields this one does not know
        if m.group(3) != ENVELOPE_VERSION.split(".")[1]:
            data = {k: v for k, v in data.items() if k in Envelope.model_fields or k == "schema"}
    try:
        env = Envelope.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = "/".join(str(p) for p in first.get("loc", ()))
        raise EnvelopeError(
            f"message envelope breaks {ENVELOPE_ID}: {loc}: {first.get('msg')}",
            field=f"/metadata/{ENVELOPE_KEY}/{loc}",
        ) from None
    check_chain(env)
    return env


def check_chain(env: Envelope) -> None:
    """The chain links: root first (no parent), each entry's parent the task before it, the last
    entry the message's parent; an envelope with a parent and no chain is refused too."""
    prev: str | None = None
    for i, m in enumerate(env.chain):
        if m.parent_task_id != prev:
            raise EnvelopeError(
                f"parent chain broken at entry {i}: parent_task_id {m.parent_task_id!r}, expected {prev!r}",
                field=f"/metadata/{ENVELOPE_KEY}/chain/{i}/parent_task_id",
                expected=str(prev),
                received=str(m.parent_task_id),
            )
        prev = m.task_id
    if env.parent_task_id != prev:
        raise EnvelopeError(
            f"parent_task_id {env.parent_task_id!r} is not the last task of the chain ({prev!r})",
            field=f"/metadata/{ENVELOPE_KEY}/parent_task_id",
            expected=str(prev),
            received=str(env.parent_task_id),
        )
    for k in [*env.blackboard, *env.publish]:
        if not re.match(KEY_PATTERN, k):
            raise EnvelopeError(f"blackboard key {k!r} is not a name", field=f"/metadata/{ENVELOPE_KEY}")
