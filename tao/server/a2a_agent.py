"""A2A tasks: ``tao serve`` answers A2A JSON-RPC at ``/v1/a2a`` with the ``a2a-sdk`` server pieces.

Methods: ``SendMessage`` / ``SendStreamingMessage`` / ``GetTask`` / ``CancelTask`` … (A2A 1.0,
``A2A-Version: 1.0``) and the 0.3 names (``message/send``, ``message/stream``, ``tasks/get``) on
the same endpoint. A message's text is the request; a data part ``{"plan": ThoughtPlan}`` replays
that plan instead of planning (the only way without a plan model: ``--no-model``); the run is the
same loop as ``POST /v1/run`` (contracts, checks, observations, trajectory). The task ends
``completed`` when the run succeeded, ``failed`` otherwise, with one artifact ``tao-run`` (a data
part: ``status``, ``error_type``, ``message``, ``answer``, ``steps``, ``trace_id``,
``blackboard_writes``). High-risk tools never run for an A2A caller (no approvals over A2A).

Before a task opens, the message's envelope (:mod:`tao.contracts.envelope`) is checked: schema
version, a parent chain that links, delegation depth and the conversation's rounds
(:class:`~tao.action.a2a_context.ConversationStore`); a refusal is a JSON-RPC ``InvalidParams``
error whose data says ``error_type``, ``field``, ``expected``, ``received``. The run reads only
its chain and the blackboard (logged in its trajectory) and runs under that conversation, so a
delegation it makes carries the chain on.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections import OrderedDict
from typing import Any

from fastapi import FastAPI

from tao.action.a2a_context import CONVERSATION, MAX_DEPTH, MAX_ROUNDS, Conversation, ConversationStore
from tao.contracts.envelope import ENVELOPE_KEY, Envelope, EnvelopeError, parse_envelope
from tao.server.config import ServerConfig

RPC_PATH = "/v1/a2a"


def envelope_of(message: Any, agent: str) -> Envelope:
    """The envelope of a received message; a plain A2A client's message starts a conversation."""
    from google.protobuf.json_format import MessageToDict

    meta = MessageToDict(message.metadata) if message.metadata else {}
    raw = meta.get(ENVELOPE_KEY)
    if raw is None:
        return Envelope(conversation_id=message.context_id or f"conv-{uuid.uuid4().hex}", sender="a2a-client")
    from tao.action.a2a_tools import struct_ints

    return parse_envelope(struct_ints(raw))


def _refuse(exc: EnvelopeError) -> Exception:
    from a2a.utils.errors import InvalidParamsError

    data = {k: str(v) for k, v in exc.to_dict().items() if v is not None}
    return InvalidParamsError(message=exc.message, data=data)


def _plan_of(message: Any) -> Any:
    from google.protobuf.json_format import MessageToDict

    from tao.action.a2a_tools import struct_ints

    for p in message.parts:
        if p.HasField("data"):
            data = struct_ints(MessageToDict(p.data))
            if isinstance(data, dict) and "plan" in data:
                return data["plan"]
    return None


_TRANSIENT = {"TOOL_TRANSIENT", "TOOL_TIMEOUT", "TOOL_CIRCUIT_OPEN", "RATE_LIMITED", "BUDGET_EXHAUSTED"}


def _idempotency_key(message: Any, env: Envelope) -> str | None:
    """The caller's idempotency key (``tao.runtime/idempotency-key``), scoped to its conversation."""
    from google.protobuf.json_format import MessageToDict

    meta = MessageToDict(message.metadata) if message.metadata else {}
    key = meta.get("tao.runtime/idempotency-key")
    return f"{env.conversation_id}:{env.sender}:{key}" if isinstance(key, str) and key else None


class _Done:
    """Results by idempotency key (bounded, least recently used first out) and one lock per key in
    flight, so a repeated sub-task (a caller's retry, a replayed run) is answered, not run again."""

    def __init__(self, size: int = 1000) -> None:
        self.size = size
        self._results: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    def lock(self, key: str) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    def get(self, key: str) -> dict[str, Any] | None:
        hit = self._results.get(key)
        if hit is not None:
            self._results.move_to_end(key)
        return hit

    def put(self, key: str, result: dict[str, Any]) -> None:
        self._results[key] = result
        while len(self._results) > self.size:
            old, _ = self._results.popitem(last=False)
            self._locks.pop(old, None)


def _published(keys: list[str], answer: dict[str, Any]) -> dict[str, Any]:
    """The values of ``keys`` in a run's answer (``{step_id: {output: value}}``), last step wins."""
    out: dict[str, Any] = {}
    for outputs in answer.values():
        if isinstance(outputs, dict):
            out.update({k: outputs[k] for k in keys if k in outputs})
    return out


def build(app: FastAPI, config: ServerConfig, card: Any) -> list[Any]:
    """The JSON-RPC routes (Starlette ``Route``s) of this server's A2A agent."""
    from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_message
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import Part, Role

    store = ConversationStore(
        max_rounds=int(os.environ.get("TAO_A2A_MAX_ROUNDS", MAX_ROUNDS)),
        max_depth=int(os.environ.get("TAO_A2A_MAX_DEPTH", MAX_DEPTH)),
    )
    app.state.a2a_conversations = store
    agent = card.name

    done = _Done()

    async def run_once(
        conv: Conversation, env: Envelope, plan: Any, engine: Any, text: str, trace: str
    ) -> dict:
        from tao.loop.planner import EnginePlanner, ReplayPlanner

        rt = await app.state.run_holder.get()
        token = CONVERSATION.set(conv)
        try:
            if plan is not None:
                plan = conv.substitute(plan)  # "${bb.KEY}" arguments: logged blackboard reads
                planner: Any = ReplayPlanner(plan)
            else:
                planner = EnginePlanner(engine)
            report = await rt.loop(planner).run(text, None, trace_id=trace, on_start=conv.attach)
        finally:
            CONVERSATION.reset(token)
        for key, value in _published(env.publish, report.answer).items():
            conv.write(key, value, agent)
        body = report.to_dict()
        keys = ("trace_id", "thought_id", "status", "error_type", "message", "answer", "steps", "planner")
        result = {k: body[k] for k in keys}
        result["blackboard_writes"] = {k: e.model_dump(mode="json") for k, e in conv.writes.items()}
        return result

    class TaoAgentExecutor(AgentExecutor):
        async def execute(self, context, event_queue) -> None:
            from tao.server.routes_core import TRACE_ID

            msg = context.message
            assert msg is not None  # the SDK calls execute for a received message
            env = envelope_of(msg, agent)
            task = context.current_task or new_task_from_user_message(msg)
            if context.current_task is None:
                await event_queue.enqueue_event(task)
            up = TaskUpdater(event_queue, task.id, task.context_id)
            await up.start_work()
            text = context.get_user_input()
            chain = store.admit(env, msg.message_id, task.id, text)
            trace = env.trace_id or (TRACE_ID.get() if TRACE_ID.get() != "-" else uuid.uuid4().hex)
            conv = Conversation(
                conversation_id=env.conversation_id,
                task_id=task.id,
                sender=agent,
                chain=chain,
                blackboard=dict(env.blackboard),
                trace_id=trace,
                depth=env.depth,
            )

            async def fail(message: str) -> None:
                await up.failed(
                    new_text_message(
                        message, context_id=task.context_id, task_id=task.id, role=Role.ROLE_AGENT
                    )
                )

            plan = _plan_of(msg)
            engine = getattr(getattr(app.state, "plan_engine", None), "engine", None)
            if plan is None and engine is None:
                return await fail('the plan engine is not loaded; send a data part {"plan": …} to replay')
            key = _idempotency_key(msg, env)
            lock = done.lock(key) if key else None
            if lock is not None:
                await lock.acquire()
            try:
                result = done.get(key) if key else None
                if result is None:
                    try:
                        result = await run_once(conv, env, plan, engine, text, trace)
                    except EnvelopeError as exc:
                        return await fail(str(exc))
                    if key and result["error_type"] not in _TRANSIENT:
                        done.put(key, result)
                else:
                    result = dict(result, deduplicated=True)  # the same sub-task again: not run twice
            finally:
                if lock is not None:
                    lock.release()
            data = Part(media_type="application/json")
            data.data.struct_value.update(_jsonable(result))
            await up.add_artifact([data], name="tao-run")
            if result["status"] == "success":
                await up.complete()
            else:
                await fail(f"{result['status']}: {result['error_type']}: {result['message']}")

        async def cancel(self, context, event_queue) -> None:
            up = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
            await up.cancel()

    class EnvelopeCheckingHandler(DefaultRequestHandler):
        """Refuses a message whose envelope breaks the schema or a bound before any task opens."""

        def _check(self, params: Any) -> None:
            try:
                store.check(envelope_of(params.message, agent))
            except EnvelopeError as exc:
                raise _refuse(exc) from None

        async def on_message_send(self, params, context):  # type: ignore[override]
            self._check(params)
            return await super().on_message_send(params, context)

        async def on_message_send_stream(self, params, context):  # type: ignore[override]
            self._check(params)
            async for ev in super().on_message_send_stream(params, context):
                yield ev

    handler = EnvelopeCheckingHandler(
        agent_executor=TaoAgentExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    return create_jsonrpc_routes(handler, rpc_url=RPC_PATH, enable_v0_3_compat=True)


def _jsonable(v: Any) -> Any:
    import orjson

    return orjson.loads(orjson.dumps(v, default=str))
