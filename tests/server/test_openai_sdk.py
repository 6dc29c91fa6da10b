"""The official ``openai`` SDK against the gateway, unchanged usage patterns from its README.

A real uvicorn serving ``create_app`` (auth on) in front of the real mock upstream; nothing of the
protocol is mocked on the client side: the SDK's own parsing, streaming and exception classes.
"""

from __future__ import annotations

import asyncio
import json

import openai
import pytest
from serve_helpers import free_port

from router import HeuristicEstimator, RouterConfig, build_router
from router.testing.upstream import ServerThread, Upstream, UpstreamBehavior
from tao.server.app import create_app
from tao.server.config import ServerConfig

KEY = "sdk-test-key"
MODELS = ("gpt-4o-mini", "gpt-4.1", "o3")
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
                "required": ["city", "unit"],
            },
        },
    }
]
HELLO = [{"role": "user", "content": "Say hello"}]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    up = Upstream("mock")
    up_srv = ServerThread(up.app()).start()
    path = tmp_path_factory.mktemp("sdk") / "profiles.toml"
    rows = []
    for tier, name in enumerate(MODELS, start=1):
        rows.append(
            f'[[model]]\nname = "{name}"\nendpoint = "{up_srv.url}/v1"\nmax_input_tokens = 8000\n'
            f"max_output_tokens = 2000\nprice_in_per_1k = {0.001 * tier}\nprice_out_per_1k = {0.002 * tier}\n"
            f"tier = {tier}\nconcurrency = 8\n"
            + (
                'fallbacks = ["gpt-4.1"]\n' if name == "gpt-4o-mini" else ""
            )  # named: only these answer for it
        )
    path.write_text("\n".join(rows))
    app = create_app(ServerConfig(load_model=False, api_key=KEY, router_config=path, port=free_port()))
    gw = ServerThread(app, lifespan="on").start()
    yield up, app, gw.url, path
    gw.stop()
    up_srv.stop()


@pytest.fixture
def client(stack):
    up, app, url, path = stack
    up.behavior = UpstreamBehavior()
    up.requests.clear()
    app.state.gateway.router = build_router(
        RouterConfig(profiles_path=path, capacity_token_s=1e7, window_s=60), estimator=HeuristicEstimator()
    )
    with openai.OpenAI(api_key=KEY, base_url=url + "/v1", max_retries=0) as c:
        yield c


def test_models_list_and_retrieve(client):
    ids = [m.id for m in client.models.list()]
    assert set(MODELS) <= set(ids)
    m = client.models.retrieve("gpt-4.1")
    assert m.id == "gpt-4.1" and m.object == "model" and m.owned_by == "tao-router"


def test_retrieve_unknown_model_is_not_found(client):
    with pytest.raises(openai.NotFoundError) as info:
        client.models.retrieve("no-such-model")
    assert info.value.code == "model_not_found" and info.value.param == "model"


def test_chat_completion_sync(client):
    r = client.chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    assert r.object == "chat.completion" and r.choices[0].message.role == "assistant"
    assert r.choices[0].message.content.startswith("tok") and r.choices[0].finish_reason == "stop"
    assert r.usage is not None and r.usage.completion_tokens == 20


def test_streaming_without_usage_has_a_choice_in_every_chunk(client, stack):
    up = stack[0]
    text = ""
    chunks = list(client.chat.completions.create(model="gpt-4o-mini", messages=HELLO, stream=True))
    for chunk in chunks:  # the README loop: chunk.choices[0] on every chunk, no IndexError
        text += chunk.choices[0].delta.content or ""
    assert text.split() == ["tok"] * 20 and all(c.usage is None for c in chunks)
    # the upstream was still asked for usage (the bucket settles on real counts)
    assert up.requests[-1]["stream_options"] == {"include_usage": True}


def test_streaming_with_include_usage(client):
    chunks = list(
        client.chat.completions.create(
            model="gpt-4o-mini", messages=HELLO, stream=True, stream_options={"include_usage": True}
        )
    )
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 20
    assert all(c.choices for c in chunks[:-1])


def test_stream_helper_final_completion(client):
    with client.chat.completions.stream(model="gpt-4o-mini", messages=HELLO) as stream:
        events = [e.type for e in stream]
        final = stream.get_final_completion()
    assert "content.delta" in events and final.choices[0].message.content.split()[0] == "tok"


def test_async_client_plain_and_stream(stack):
    _, _, url, _ = stack

    async def go():
        async with openai.AsyncOpenAI(api_key=KEY, base_url=url + "/v1", max_retries=0) as ac:
            r = await ac.chat.completions.create(model="gpt-4.1", messages=HELLO)
            parts = [
                c.choices[0].delta.content or ""
                async for c in await ac.chat.completions.create(model="gpt-4.1", messages=HELLO, stream=True)
            ]
            many = await asyncio.gather(
                *(ac.chat.completions.create(model="gpt-4o-mini", messages=HELLO) for _ in range(5))
            )
            return r, parts, many

    r, parts, many = asyncio.run(go())
    assert r.choices[0].message.content and "".join(parts).split() == ["tok"] * 20
    assert len({m.id for m in many}) == 5


def test_function_calling_round_trip(client, stack):
    up = stack[0]
    r = client.chat.completions.create(model="gpt-4o-mini", messages=HELLO, tools=TOOLS)
    call = r.choices[0].message.tool_calls[0]
    assert r.choices[0].finish_reason == "tool_calls" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "x", "unit": "c"}
    assert up.requests[-1]["tools"] == TOOLS  # passed through unchanged
    follow = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            *HELLO,
            r.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": '{"temp": 21}'},
        ],
        tools=TOOLS,
    )
    assert follow.choices[0].message.content and follow.choices[0].finish_reason == "stop"


def test_streamed_tool_call_accumulates(client):
    name, args = "", ""
    stream = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=HELLO,
        tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
        stream=True,
    )
    for chunk in stream:
        for tc in chunk.choices[0].delta.tool_calls or []:
            name += tc.function.name or ""
            args += tc.function.arguments or ""
    assert name == "get_weather" and json.loads(args)["city"] == "x"


def test_raw_response_headers_and_request_id(client):
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=HELLO, extra_headers={"X-Request-ID": "req-" + "9" * 80}
    )
    assert raw.headers["x-request-id"] == "req-" + "9" * 80 and raw.headers["x-tao-model"] == "gpt-4o-mini"
    assert raw.parse().choices[0].message.content


def test_with_options_and_extra_body_hints(client, stack):
    up = stack[0]
    r = client.with_options(timeout=10.0).chat.completions.create(
        model="gpt-4o-mini", messages=HELLO, max_tokens=3, extra_body={"task_type": "tool_call"}
    )
    assert r.usage.completion_tokens == 3 and "task_type" not in up.requests[-1]  # router hint stripped


def test_wrong_key_is_authentication_error(stack):
    _, _, url, _ = stack
    with openai.OpenAI(api_key="wrong", base_url=url + "/v1", max_retries=0) as c:
        with pytest.raises(openai.AuthenticationError) as info:
            c.chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    err = info.value
    assert err.status_code == 401 and err.code == "unauthorized" and err.type == "unauthorized"
    assert set(err.body) >= {"message", "type", "param", "code"}


def test_bad_request_is_bad_request_error(client):
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="gpt-4o-mini", messages=HELLO, stream="yes")  # type: ignore[arg-type]
    assert info.value.param == "/stream"


def test_rate_limit_is_rate_limit_error(client, stack):
    _, app, _, path = stack
    app.state.gateway.router = build_router(
        RouterConfig(profiles_path=path, capacity_token_s=50.0, window_s=60), estimator=HeuristicEstimator()
    )
    long = [{"role": "user", "content": "x" * 400}]
    client.chat.completions.create(model="gpt-4o-mini", messages=long)  # takes the bucket (capped cost)
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(model="gpt-4o-mini", messages=long)
    assert info.value.code == "rate_limited" and int(info.value.response.headers["retry-after"]) >= 1


def test_upstream_auth_failure_is_502_not_401(client, stack):
    up = stack[0]
    up.behavior = UpstreamBehavior(api_key="the-provider-key")  # the gateway sends none
    with pytest.raises(openai.InternalServerError) as info:
        client.chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    err = info.value
    assert err.status_code == 502 and err.code == "upstream_auth_failed"
    assert err.body["upstream_status"] == 401 and err.body["model"] == "gpt-4o-mini"


def test_upstream_5xx_falls_back_then_sdk_sees_success(client, stack):
    up = stack[0]
    up.behavior = UpstreamBehavior(fail_status=503, fail_times=1)
    raw = client.chat.completions.with_raw_response.create(model="gpt-4o-mini", messages=HELLO)
    assert raw.parse().choices[0].message.content and raw.headers["x-tao-model"] == "gpt-4.1"
    assert raw.headers["x-tao-fallback-from"] == "gpt-4o-mini"  # the declared fallback answered, and says so
