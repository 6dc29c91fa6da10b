"""A2A text with no plan is planned by the server's plan engine (the tiny random checkpoint: what it
plans is noise, so the run fails typed; the point is that the engine planned it, not a replay)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from a2a import types as a2a
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from google.protobuf.json_format import MessageToDict
from serve_helpers import ServeProcess, wait_http

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
]  # a tiny checkpoint + a server: minutes on a loaded VM


def test_text_only_message_is_planned_by_the_engine(tiny_checkpoint, tmp_path):
    srv = ServeProcess(
        ["--checkpoint", str(tiny_checkpoint), "--engine", "cpu", "--codec", "generic"],
        tmp_path / "serve.log",
        env={"TAO_API_KEY": ""},
    )
    try:
        wait_http(srv.base + "/readyz", 240, srv.proc)

        async def send():
            import httpx

            async with httpx.AsyncClient(timeout=60) as http:
                card = await A2ACardResolver(http, srv.base).get_agent_card()
                client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
                msg = a2a.Message(
                    message_id=uuid.uuid4().hex,
                    role=a2a.Role.ROLE_USER,
                    parts=[a2a.Part(text="明天北京天气怎么样")],
                )
                return [ev async for ev in client.send_message(a2a.SendMessageRequest(message=msg))]

        task = asyncio.run(send())[-1].task
        data = next(MessageToDict(p.data) for art in task.artifacts for p in art.parts if p.HasField("data"))
        assert data["planner"] not in ("", "replay"), data  # the plan engine planned the message's text
        state = a2a.TaskState.Name(task.status.state)
        assert (state == "TASK_STATE_COMPLETED") == (data["status"] == "success"), (state, data)
        if data["status"] != "success":
            assert data["error_type"], data  # a typed failure, never a crash
    finally:
        srv.stop()
