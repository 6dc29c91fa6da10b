"""The remote plan engine (``--engine vllm-server``) against a local OpenAI-compatible server with
fault injection (a real uvicorn on loopback): the wire body is the in-process engine's prompt ids
and plan grammar, the answer is parsed by the same codec, and every failure is a typed error of
its own row. The real ``vllm serve`` run is in test_vllm_server_engine.py."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import datetime

import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from router.testing.upstream import ServerThread
from tao.contracts import ErrorType, InsufficientContext, SessionState, ThoughtPlan
from thought_model.checkpoint import DEFAULT_CHECKPOINT
from thought_model.engine import load_engine
from thought_model.engine.base import PlanRequest
from thought_model.engine.loader import EngineLoadError
from thought_model.engine.remote import RemoteEngineConfig, VllmServerEngine

SESSION = SessionState(user_id="U00000001", now=datetime(2026, 11, 30, 9, 0), timezone="Asia/Shanghai")
PLAN = (
    '{"version":"1.0","intent":"query_order_status","steps":[{"step_id":"t1","tool":"get_order_status",'
    '"arguments":{"order_id":"202611051234567890"},"dependencies":[]}]}'
)


@dataclass
class Fake:
    """What the fake model server answers: per prompt (token ids) a mode; records every body."""

    by_prompt: dict[tuple[int, ...], tuple[str, str]] = field(default_factory=dict)
    bodies: list[dict] = field(default_factory=list)
    models: list[dict] = field(
        default_factory=lambda: [{"id": "ckpt", "object": "model", "max_model_len": 256}]
    )

    async def list_models(self, request: Request) -> Response:
        return Response(orjson.dumps({"object": "list", "data": self.models}), media_type="application/json")

    async def completions(self, request: Request) -> Response:
        body = orjson.loads(await request.body())
        self.bodies.append(body)
        mode, text = self.by_prompt.get(tuple(body["prompt"]), ("ok", PLAN))
        if mode == "status":
            code = int(text)
            err = {"error": {"message": f"injected {code}", "type": "server_error", "code": code}}
            return Response(orjson.dumps(err), status_code=code, media_type="application/json")
        if mode == "hang":
            await asyncio.sleep(float(text))
            mode, text = "ok", PLAN
        finish = "length" if mode == "length" else "stop"
        out = {
            "id": "cmpl-1",
            "object": "text_completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "text": text, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": len(body["prompt"]), "completion_tokens": 7, "total_tokens": 7},
        }
        return Response(orjson.dumps(out), media_type="application/json")

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/models", self.list_models, methods=["GET"]),
                Route("/v1/completions", self.completions, methods=["POST"]),
            ]
        )


@pytest.fixture(scope="module")
def fake():
    f = Fake()
    with ServerThread(f.app()) as srv:
        yield f, srv.url


@pytest.fixture
def engine(fake):
    f, url = fake
    f.by_prompt.clear()
    f.bodies.clear()
    eng = VllmServerEngine(DEFAULT_CHECKPOINT, RemoteEngineConfig(url=url, timeout_s=5.0))
    yield eng
    eng.close()


def _arun(eng: VllmServerEngine, reqs: list[PlanRequest]):
    async def go():
        try:
            return await eng.agenerate(reqs)
        finally:
            await eng.aclose()

    return asyncio.run(go())


def _ids(eng: VllmServerEngine, req: PlanRequest) -> tuple[int, ...]:
    prompt, _ = eng.codec.prepare(req)
    return tuple(eng.tokenizer.encode(prompt, add_special_tokens=False))


def test_wire_body_is_the_in_process_prompt_and_grammar(engine, fake) -> None:
    f, _ = fake
    req = PlanRequest("查一下订单 202611051234567890 的状态", session=SESSION)
    res = engine.generate([req])[0]
    assert res.ok and isinstance(res.output, ThoughtPlan)
    assert res.output.steps[0].tool == "get_order_status"
    body = f.bodies[-1]
    assert body["model"] == "ckpt"  # the server's only model, found through /v1/models
    assert tuple(body["prompt"]) == _ids(engine, req)
    assert body["temperature"] == 0
    assert body["max_tokens"] == min(512, 256 - len(body["prompt"]))  # capped by max_model_len
    so = body["structured_outputs"]
    assert so["disable_any_whitespace"] is True
    assert "steps" in orjson.dumps(so["json"]).decode()  # the plan grammar's JSON Schema


def test_a_failing_row_is_typed_and_the_others_are_planned(engine, fake) -> None:
    f, _ = fake
    texts = [
        "订单 202611051234567890 的状态",
        "查订单 202611051234567891",
        "订单 202611051234567892 呢",
        "订单 202611051234567893",
        "订单 202611051234567894 状态",
        "帮我看看订单 202611051234567890 现在的状态",
    ]
    reqs = [PlanRequest(t, session=SESSION) for t in texts]
    modes = [
        ("status", "500"),
        ("status", "429"),
        ("ok", "not json"),
        ("length", PLAN[:40]),
        ("status", "400"),
    ]
    for req, mode in zip(reqs, modes):
        f.by_prompt[_ids(engine, req)] = mode
    for results in (engine.generate(reqs), _arun(engine, reqs)):
        kinds = [r.error.error_type if r.error else None for r in results]
        assert kinds == [
            ErrorType.TOOL_TRANSIENT,
            ErrorType.RATE_LIMITED,
            ErrorType.LLM_OUTPUT_MALFORMED,
            ErrorType.LLM_OUTPUT_MALFORMED,
            ErrorType.LLM_OUTPUT_MALFORMED,
            None,
        ]
        assert results[0].error is not None and results[0].error.field == "/engine"
        assert results[-1].ok


def test_deadline_bounds_the_call(engine, fake) -> None:
    f, _ = fake
    req = PlanRequest("订单 202611051234567899 的状态", session=SESSION, deadline_s=0.3)
    f.by_prompt[_ids(engine, req)] = ("hang", "3")
    t0 = time.perf_counter()
    res = _arun(engine, [req])[0]
    assert time.perf_counter() - t0 < 2.0
    assert res.error is not None and res.error.error_type == ErrorType.BUDGET_EXHAUSTED


def test_insufficient_context_comes_back_typed(engine, fake) -> None:
    f, _ = fake
    req = PlanRequest("帮我查一下订单状态", session=SESSION)
    text = '{"error":"insufficient_context","required_fields":["order_id"],"intent":"query_order_status"}'
    f.by_prompt[_ids(engine, req)] = ("ok", text)
    res = engine.generate([req])[0]
    assert isinstance(res.output, InsufficientContext) and res.output.required_fields == ["order_id"]


def test_an_unknown_tool_subset_is_typed_without_a_call(engine, fake) -> None:
    f, _ = fake
    res = engine.generate([PlanRequest("x", tools=["nope"])])[0]
    assert res.error is not None and res.error.error_type == ErrorType.TOOL_UNKNOWN
    assert f.bodies == []


def test_loader_needs_a_url_and_a_reachable_server(fake, monkeypatch) -> None:
    monkeypatch.delenv("TAO_ENGINE_URL", raising=False)
    with pytest.raises(EngineLoadError, match="engine-url"):
        load_engine("vllm-server", compose=False)
    with pytest.raises(EngineLoadError, match="unreachable"):
        load_engine("vllm-server", compose=False, engine_url="http://127.0.0.1:9/v1")
    _, url = fake
    eng = load_engine("vllm-server", compose=True, engine_url=url.removesuffix("/"))  # /v1 added
    try:
        res = eng.generate([PlanRequest("查一下订单 202611051234567890 的状态", session=SESSION)])[0]
        assert res.ok
    finally:
        eng.close()


def test_a_named_model_that_is_not_served_is_refused(fake) -> None:
    from thought_model.engine.remote import RemoteEngineError

    _, url = fake
    with pytest.raises(RemoteEngineError, match="not served"):
        VllmServerEngine(DEFAULT_CHECKPOINT, RemoteEngineConfig(url=url, model="other"))
