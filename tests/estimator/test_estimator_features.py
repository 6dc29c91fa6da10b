"""Feature extraction from chat requests."""

from __future__ import annotations

import math

import pytest

from estimator.features import (
    REQUEST_FEATURES,
    FeatureError,
    FeatureExtractor,
    FeatureSpec,
    json_depth,
    longest_string,
)
from estimator.tokens import approx_tokens

SPEC = FeatureSpec(models=("gpt-4o-mini", "o3"))


def _request(**kw):
    req = {
        "model": "o3",
        "messages": [
            {"role": "system", "content": "You are a planner."},
            {"role": "user", "content": "Find my order"},
            {"role": "assistant", "content": "Which order?"},
            {"role": "user", "content": "The one from last month, please check its status"},
            {"role": "tool", "content": '{"order": {"id": "A1", "items": [{"sku": "xyz"}]}}'},
        ],
        "tool_results": [{"status": "shipped", "note": "n" * 50}],
        "max_tokens": 256,
        "temperature": 0.7,
        "task_type": "planning",
        "memory": True,
    }
    req.update(kw)
    return req


def test_every_documented_feature_is_computed():
    f = FeatureExtractor(SPEC)(_request())
    assert set(REQUEST_FEATURES) <= set(f)
    assert f["history_turns"] == 2  # the user + assistant turns before the last user message
    assert f["n_messages"] == 5
    assert f["last_user_tokens"] == approx_tokens("The one from last month, please check its status")
    assert f["tool_depth"] == 4  # {"order": {"items": [{...}]}}
    assert f["tool_longest_str"] == 50
    assert f["n_tool_results"] == 2
    assert f["tool_result_chars"] > 50
    assert f["memory"] == 1.0 and f["temperature"] == 0.7 and f["max_tokens"] == 256
    assert f["task_type"] == 0.0  # planning
    assert f["model_id"] == 1.0  # index in the spec's vocabulary


def test_prompt_tokens_grow_with_content_and_use_the_given_tokenizer():
    short = FeatureExtractor(SPEC)(_request(tool_results=[]))
    long = FeatureExtractor(SPEC)(_request(tool_results=[{"text": "word " * 400}]))
    assert long["prompt_tokens"] - short["prompt_tokens"] >= 400
    exact = FeatureExtractor(SPEC, count_tokens=lambda s: len(s))(_request(tool_results=[]))
    chars = sum(len(m["content"]) + 4 for m in _request()["messages"])
    assert exact["prompt_tokens"] == chars


def test_missing_hints_are_nan_and_unknown_values_are_nan():
    f = FeatureExtractor(SPEC)({"messages": [{"role": "user", "content": "hi"}]})
    for name in ("memory", "temperature", "max_tokens", "task_type", "model_id"):
        assert math.isnan(f[name]), name
    f = FeatureExtractor(SPEC)(_request(model="unknown-model", task_type="dance"))
    assert math.isnan(f["model_id"]) and math.isnan(f["task_type"])
    assert f["tool_depth"] >= 1


def test_extra_spec_features_come_from_hints():
    spec = FeatureSpec(names=(*REQUEST_FEATURES, "rate_60s"))
    f = FeatureExtractor(spec)(_request(hints={"rate_60s": 12}))
    assert f["rate_60s"] == 12.0
    assert math.isnan(FeatureExtractor(spec)(_request())["rate_60s"])
    assert spec.row(f)[-1] == 12.0 and len(spec.row(f)) == len(spec.names)


@pytest.mark.parametrize(
    "bad",
    [
        "not a dict",
        {"messages": "hello"},
        {"messages": ["hello"]},
        {"messages": [], "temperature": "hot"},
        {"messages": [], "tool_results": {"a": 1}},
        {"messages": [], "max_tokens": float("inf")},
    ],
)
def test_bad_requests_raise_a_typed_error(bad):
    with pytest.raises(FeatureError):
        FeatureExtractor(SPEC)(bad)


def test_json_helpers_and_token_approximation():
    assert json_depth(1) == 0 and json_depth([]) == 1 and json_depth({"a": [1, {"b": 2}]}) == 3
    assert longest_string({"key_name": ["ab", {"c": "xyz"}]}) == 8
    assert approx_tokens("") == 0
    assert approx_tokens("hello world") == 2
    assert approx_tokens("查询上个月的订单状态") == 10  # one token per CJK character
    assert approx_tokens("a" * 400) == 100
    assert approx_tokens('{"a":1}') > approx_tokens("a 1")
