"""A2A message isolation: the conversation a run belongs to, what it may read, the blackboard.

An agent reads only its **parent chain** (the messages from the conversation's root down to its
own task, :class:`~tao.contracts.envelope.ChainMessage`) plus the conversation's explicit
**blackboard**; every read and write is logged into the run's trajectory (``message_read``,
``blackboard_read``, ``blackboard_write``, each with the reading task, the message's task and
its sender). Nothing else of a conversation is ever handed to a run.

* :class:`Conversation` is the view of one task: its chain, the blackboard snapshot it was given,
  the writes it made (returned to its caller). The A2A server builds one per received message
  and sets :data:`CONVERSATION`; a run that was not started by a message (``POST /v1/run``) gets
  a root conversation from :func:`current_conversation` (its request is the root message).
* :class:`ConversationStore` keeps every message a server received, by conversation, and
  computes a task's chain by walking ``parent_task_id`` links through it: sibling tasks and other
  conversations are in the store but never on the walk. It also bounds each conversation's
  rounds (tasks) and the delegation depth.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections import OrderedDict
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from tao.contracts import EventKind
from tao.contracts.envelope import BlackboardEntry, ChainMessage, Envelope, EnvelopeError
from tao.trace.scope import CURRENT_RUN
from tao.trace.trajectory import Trajectory

MAX_DEPTH = 4
"""Delegation hops a message may be from its conversation's root (A -> B -> C is depth 2)."""
MAX_ROUNDS = 16
"""Tasks one conversation may open on one server."""
BB_REF = re.compile(r"^\$\{bb\.([A-Za-z_][A-Za-z0-9_.]{0,63})\}$")
"""A plan argument ``"${bb.KEY}"`` received over A2A is the blackboard's value of KEY (a logged read)."""


class IsolationError(EnvelopeError):
    """A read outside the reader's parent chain, or a bound (depth, rounds) exceeded."""


@dataclass
class Conversation:
    """One task's view of its conversation (see the module docstring)."""

    conversation_id: str
    task_id: str
    sender: str
    chain: list[ChainMessage]
    blackboard: dict[str, BlackboardEntry] = field(default_factory=dict)
    trace_id: str | None = None
    depth: int = 0
    writes: dict[str, BlackboardEntry] = field(default_factory=dict)
    trajectory: Trajectory | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _pending: list[tuple[EventKind, str | None, dict[str, Any]]] = field(default_factory=list, repr=False)

    def attach(self, trajectory: Trajectory) -> None:
        """The run's trajectory (``TaoLoop.run(on_start=…)``): log the chain this task reads."""
        self.trajectory = trajectory
        pending, self._pending = self._pending, []
        for m in self.chain:
            self._log(
                EventKind.MESSAGE_READ,
                message_id=m.message_id,
                message_task_id=m.task_id,
                parent_task_id=m.parent_task_id,
                sender=m.sender,
            )
        for kind, step_id, payload in pending:  # reads made before the run started (plan arguments)
            self._log(kind, step_id=step_id, **payload)

    def _log(self, kind: EventKind, *, step_id: str | None = None, **payload: Any) -> None:
        traj = self.trajectory
        if traj is None:
            scope = CURRENT_RUN.get()
            traj = scope.trajectory if scope is not None else None
        if traj is None:
            self._pending.append((kind, step_id, payload))
        else:
            traj.emit(
                kind,
                step_id=step_id,
                conversation_id=self.conversation_id,
                reader_task_id=self.task_id,
                agent=self.sender,
                **payload,
            )

    def read(self, key: str, *, step_id: str | None = None) -> Any:
        """The blackboard's value of ``key`` (logged); a missing key is an :class:`IsolationError`."""
        with self._lock:
            entry = self.blackboard.get(key)
        self._log(
            EventKind.BLACKBOARD_READ,
            step_id=step_id,
            key=key,
            found=entry is not None,
            version=entry.version if entry else None,
            writer=entry.writer if entry else None,
        )
        if entry is None:
            raise IsolationError(f"blackboard has no key {key!r}", field=f"/bb/{key}", received=key)
        return entry.value

    def write(self, key: str, value: Any, writer: str, *, step_id: str | None = None) -> BlackboardEntry:
        """Write ``key`` (version + 1, last writer wins; logged) and remember it for the caller."""
        with self._lock:
            prev = self.blackboard.get(key)
            entry = BlackboardEntry(value=value, version=(prev.version + 1) if prev else 1, writer=writer)
            self.blackboard[key] = entry
            self.writes[key] = entry
        self._log(EventKind.BLACKBOARD_WRITE, step_id=step_id, key=key, version=entry.version, writer=writer)
        return entry

    def child_envelope(self, publish: list[str] | None = None) -> Envelope:
        """The envelope of a message this task sends (a sub-task one hop deeper)."""
        with self._lock:
            board = dict(self.blackboard)
        return Envelope(
            conversation_id=self.conversation_id,
            parent_task_id=self.task_id,
            sender=self.sender,
            trace_id=self.trace_id,
            depth=self.depth + 1,
            chain=list(self.chain),
            blackboard=board,
            publish=list(publish or []),
        )

    def substitute(self, value: Any, *, step_id: str | None = None) -> Any:
        """Replace ``"${bb.KEY}"`` strings inside a JSON value by blackboard reads."""
        if isinstance(value, str) and (m := BB_REF.match(value)):
            return self.read(m.group(1), step_id=step_id)
        if isinstance(value, dict):
            return {k: self.substitute(v, step_id=step_id) for k, v in value.items()}
        if isinstance(value, list):
            return [self.substitute(v, step_id=step_id) for v in value]
        return value


CONVERSATION: ContextVar[Conversation | None] = ContextVar("tao_a2a_conversation", default=None)


def current_conversation(agent: str = "tao") -> Conversation:
    """The conversation of the running task: the one the A2A server set, else the run's root
    conversation (created once per run, shared by its steps), else a detached one."""
    conv = CONVERSATION.get()
    if conv is not None:
        return conv
    scope = CURRENT_RUN.get()
    if scope is None:
        tid = uuid.uuid4().hex
        return Conversation(
            f"conv-{tid}",
            f"task-{tid}",
            agent,
            [ChainMessage(message_id=f"msg-{tid}", task_id=f"task-{tid}", sender="user", text="")],
        )
    root = scope.state.get("a2a_root")
    if root is None:
        traj = scope.trajectory
        tid = traj.thought_id or uuid.uuid4().hex
        task_id = f"run-{tid}"
        root = Conversation(
            conversation_id=f"conv-{traj.trace_id}",
            task_id=task_id,
            sender=agent,
            chain=[
                ChainMessage(
                    message_id=f"msg-{tid}", task_id=task_id, sender="user", text=scope.request[:8000]
                )
            ],
            trace_id=traj.trace_id,
            trajectory=traj,
        )
        scope.state["a2a_root"] = root
    return root


@dataclass
class _Stored:
    message: ChainMessage
    conversation_id: str


class ConversationStore:
    """The messages a server received (bounded: least recently used conversations go first)."""

    def __init__(
        self, max_conversations: int = 1000, max_rounds: int = MAX_ROUNDS, max_depth: int = MAX_DEPTH
    ):
        self.max_conversations, self.max_rounds, self.max_depth = max_conversations, max_rounds, max_depth
        self._convs: OrderedDict[str, dict[str, _Stored]] = OrderedDict()  # conversation -> task -> message
        self._opened: dict[str, int] = {}  # conversation -> tasks opened here (the rounds)
        self._lock = threading.Lock()

    def check(self, env: Envelope) -> None:
        """Bounds, before a task is opened: delegation depth and the conversation's rounds."""
        if env.depth > self.max_depth:
            raise IsolationError(
                f"delegation depth {env.depth} exceeds {self.max_depth}",
                field="/depth",
                expected=f"<= {self.max_depth}",
                received=str(env.depth),
            )
        with self._lock:
            opened = self._opened.get(env.conversation_id, 0)
            stored = dict(self._convs.get(env.conversation_id, {}))
        for i, m in enumerate(env.chain):  # a chain may repeat the record, never rewrite it
            have = stored.get(m.task_id)
            if have is not None and have.message != m:
                raise IsolationError(
                    f"chain entry {i} (task {m.task_id}) differs from this conversation's record of it",
                    field=f"/chain/{i}",
                    expected=have.message.message_id,
                    received=m.message_id,
                )
        if opened >= self.max_rounds:
            raise IsolationError(
                f"conversation {env.conversation_id} reached {self.max_rounds} rounds on this agent",
                field="/conversation_id",
                expected=f"<= {self.max_rounds} tasks",
                received=str(opened + 1),
            )

    def admit(self, env: Envelope, message_id: str, task_id: str, text: str) -> list[ChainMessage]:
        """Store the message (and the chain it came with) and return the task's chain."""
        own = ChainMessage(
            message_id=message_id,
            task_id=task_id,
            parent_task_id=env.parent_task_id,
            sender=env.sender,
            text=text[:8000],
        )
        with self._lock:
            conv = self._convs.setdefault(env.conversation_id, {})
            self._convs.move_to_end(env.conversation_id)
            for m in [*env.chain, own]:
                conv.setdefault(m.task_id, _Stored(m, env.conversation_id))
            self._opened[env.conversation_id] = self._opened.get(env.conversation_id, 0) + 1
            while len(self._convs) > self.max_conversations:
                gone, _ = self._convs.popitem(last=False)
                self._opened.pop(gone, None)
        return self.chain(env.conversation_id, task_id)

    def chain(self, conversation_id: str, task_id: str) -> list[ChainMessage]:
        """Root first, down to ``task_id``: the walk along ``parent_task_id`` links (siblings and
        other conversations are never visited)."""
        with self._lock:
            conv = dict(self._convs.get(conversation_id, {}))
        out: list[ChainMessage] = []
        seen: set[str] = set()
        cur: str | None = task_id
        while cur is not None:
            stored = conv.get(cur)
            if stored is None or cur in seen:
                raise IsolationError(
                    f"task {cur!r} is not in conversation {conversation_id!r}", field="/parent_task_id"
                )
            seen.add(cur)
            out.append(stored.message)
            cur = stored.message.parent_task_id
        return out[::-1]

    def messages(self, conversation_id: str) -> list[ChainMessage]:
        """Every stored message of a conversation (for inspection and tests, never for a run)."""
        with self._lock:
            return [s.message for s in self._convs.get(conversation_id, {}).values()]

    def rounds(self, conversation_id: str) -> int:
        with self._lock:
            return len(self._convs.get(conversation_id, {}))
