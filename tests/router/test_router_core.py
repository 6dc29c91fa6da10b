"""Router: policy table, explicit models, context fit, cooldown and fallback, tenants, record."""

from __future__ import annotations

from dataclasses import replace

import pytest

from router import (
    BucketConfig,
    CheapestPolicy,
    ContextTooLarge,
    CooldownConfig,
    Cooldowns,
    HeuristicEstimator,
    InvalidRequest,
    LocalBucket,
    Router,
    StrongestPolicy,
    UnknownModel,
    load_profiles,
)


def msgs(chars: int) -> list[dict]:
    return [{"role": "user", "content": "x" * chars}]


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make_router(capacity: float | None = 1e9, clock: Clock | None = None, **kw) -> Router:
    clock = clock or Clock()
    factory = (
        None
        if capacity is None
        else (lambda t: LocalBucket(BucketConfig(capacity, 60.0), tenant=t, clock=clock))
    )
    kw.setdefault("estimator", HeuristicEstimator())
    return Router(
        load_profiles(),
        bucket_factory=factory,
        cooldowns=Cooldowns(CooldownConfig(base_s=5, max_s=40), clock=clock),
        **kw,
    )


@pytest.mark.parametrize(
    "request_, model, reason",
    [
        ({"messages": msgs(200), "task_type": "tool_call"}, "gpt-4o-mini", "tool call"),
        ({"messages": msgs(200), "tools": [{"type": "function"}]}, "gpt-4o-mini", "tool call"),
        ({"messages": msgs(8000), "task_type": "planning"}, "o3", "strongest"),
        ({"messages": msgs(400), "max_tokens": 4000, "task_type": "chat"}, "gpt-4o-mini", "cheapest"),
        ({"messages": msgs(400)}, "gpt-4o-mini", "cheapest"),
        ({"messages": msgs(600_000)}, "gpt-4.1", "cheapest"),  # ~150k tokens: only the 1M window fits
        ({"messages": msgs(100), "task_type": "plan"}, "tao-plan-local", "dedicated"),
        ({"model": "o3", "messages": msgs(100)}, "o3", "requested"),
        ({"model": "auto", "messages": msgs(100), "task_type": "tool_call"}, "gpt-4o-mini", "tool call"),
    ],
)
def test_policy_table(request_, model, reason):
    d = make_router().route(request_)
    assert d.admitted and d.model == model and reason in d.reason
    assert d.predicted_tokens == pytest.approx(d.input_tokens + d.output_tokens)
    assert d.est_cost_usd >= 0 and d.predicted_seconds > 0


def test_long_output_prediction_goes_to_strongest_even_without_hint():
    est = HeuristicEstimator()
    r = make_router(estimator=est)
    for _ in range(200):  # the online correction learns that "chat" answers here are long
        est.observe({"task_type": "chat"}, 3000, 50)
    assert r.route({"messages": msgs(100)}).model == "o3"


def test_latency_bound_prefers_models_predicted_within_it():
    r = make_router(latency_bound_s=1.0)
    d = r.route({"messages": msgs(100), "max_tokens": 50, "task_type": "chat"})
    # 50 tokens: mini 0.3+50/90=0.86 s fits, the others are slower
    assert d.model == "gpt-4o-mini" and "latency bound" in d.reason
    d = r.route({"messages": msgs(100), "max_latency_s": 0.5})
    assert d.model == "gpt-4o-mini"  # nothing fits 0.5 s: cheapest stays first


def test_pluggable_policies():
    req = {"messages": msgs(400)}
    assert make_router(policy=StrongestPolicy()).route(req).model == "o3"
    assert make_router(policy=CheapestPolicy()).route(req).model == "gpt-4o-mini"


def test_tao_plan_local_never_chosen_for_general_requests():
    r = make_router()
    for req in ({"messages": msgs(10)}, {"messages": msgs(10), "task_type": "tool_call"}):
        d = r.route(req)
        assert d.model != "tao-plan-local" and "tao-plan-local" not in d.fallbacks


@pytest.mark.parametrize(
    "bad, exc, field",
    [
        ({"model": "nope", "messages": msgs(10)}, UnknownModel, "/model"),
        ({"messages": []}, InvalidRequest, "/messages"),
        ({"messages": "hi"}, InvalidRequest, "/messages"),
        ({"messages": [{"content": "no role"}]}, InvalidRequest, "/messages/0"),
        ({"messages": msgs(10), "max_tokens": -5}, InvalidRequest, "/max_tokens"),
        ({"messages": msgs(10), "max_tokens": "5"}, InvalidRequest, "/max_tokens"),
        ({"messages": msgs(10), "model": 3}, InvalidRequest, "/model"),
        ({"messages": msgs(10), "max_latency_s": "soon"}, InvalidRequest, "/max_latency_s"),
        ({"messages": msgs(10), "task_type": 3}, InvalidRequest, "/task_type"),
        ({"messages": msgs(5_000_000)}, ContextTooLarge, "/messages"),
        ({"model": "gpt-4o-mini", "messages": msgs(10), "max_tokens": 500_000}, ContextTooLarge, "/messages"),
    ],
)
def test_bad_requests_raise_typed_errors(bad, exc, field):
    with pytest.raises(exc) as info:
        make_router().route(bad)
    assert info.value.field == field and info.value.status in (400, 404)


def test_named_model_is_never_substituted_unless_its_profile_declares_fallbacks():
    # 8k chars ~ 2k tokens: over tao-plan-local's 1024 window
    d = make_router().route({"model": "tao-plan-local", "messages": msgs(2000)})
    assert d.model == "tao-plan-local" and d.fallbacks == ()
    with pytest.raises(ContextTooLarge):  # no declared fallback: a typed 400, never another model
        make_router().route({"model": "tao-plan-local", "messages": msgs(8000)})
    d = make_router().route({"model": "gpt-4o-mini", "messages": msgs(200)})
    assert d.model == "gpt-4o-mini" and d.fallbacks == ()  # the policy's ranking is not a fallback
    profiles = [
        replace(p, fallbacks=("gpt-4.1",)) if p.name == "tao-plan-local" else p for p in load_profiles()
    ]
    r = Router(profiles, estimator=HeuristicEstimator())
    assert r.route({"model": "tao-plan-local", "messages": msgs(8000)}).model == "gpt-4.1"
    assert r.route({"model": "tao-plan-local", "messages": msgs(200)}).fallbacks == ("gpt-4.1",)


def test_fallbacks_must_name_known_profiles_and_not_the_model_itself():
    from router.profile import ProfileError

    base = load_profiles()
    with pytest.raises(ProfileError, match="unknown fallbacks"):
        Router([replace(base[0], fallbacks=("gpt-9",)), *base[1:]])
    with pytest.raises(ProfileError, match="itself"):
        replace(base[0], fallbacks=(base[0].name,))


def test_cooldown_and_fallback_chain():
    clock = Clock()
    r = make_router(clock=clock)
    req = {"messages": msgs(200), "task_type": "tool_call"}
    d1 = r.route(req)
    assert d1.model == "gpt-4o-mini" and d1.fallbacks[0] == "gpt-4.1"
    r.record(d1, 0, 0.1, "server_error")
    d2 = r.route(req)
    assert d2.model == "gpt-4.1" and d2.admitted
    r.record(d2, 0, 0.1, "rate_limited", retry_after_s=30)
    assert r.cooldowns.remaining("gpt-4.1") == pytest.approx(30)
    d3 = r.route(req)
    assert d3.model == "o3"
    r.record(d3, 0, 30.0, "timeout")
    d4 = r.route(req)
    assert d4.model is None and not d4.admitted and d4.retry_after_s == pytest.approx(5)
    clock.t = 5.01  # mini's 5 s cooldown is over
    assert r.route(req).model == "gpt-4o-mini"
    r.record(r.route(req), 0, 0.1, "server_error")  # second consecutive failure doubles: 10 s
    assert r.cooldowns.remaining("gpt-4o-mini") == pytest.approx(10)
    clock.t = 100.0
    d = r.route(req)
    r.record(d, d.predicted_tokens, 0.5, "ok")
    assert r.cooldowns.remaining(d.model) == 0


def test_exclude_skips_models_already_tried():
    d = make_router().route({"messages": msgs(10), "task_type": "tool_call"}, exclude={"gpt-4o-mini"})
    assert d.model == "gpt-4.1"


def test_admission_rejects_with_retry_after_and_record_settles():
    clock = Clock()
    r = make_router(capacity=2000.0, clock=clock)
    req = {"messages": msgs(400), "max_tokens": 60, "task_type": "chat"}
    d = r.route(req)
    assert d.admitted and 0 < d.cost_token_s <= 2000
    n = 1
    while r.route(req).admitted:
        n += 1
    rejected = r.route(req)
    assert not rejected.admitted and rejected.retry_after_s > 0 and "bucket full" in rejected.reason
    r.record(d, 0, 0.0, "ok", output_tokens=0)  # full refund of the first admission
    assert r.route(req).admitted


def test_huge_job_cost_is_capped_at_capacity_and_waits_for_a_full_bucket():
    clock = Clock()
    r = make_router(capacity=1000.0, clock=clock)
    big = {"messages": msgs(40_000), "task_type": "planning"}
    d = r.route(big)
    assert d.admitted and d.cost_token_s == 1000.0
    d2 = r.route(big)
    assert not d2.admitted and d2.retry_after_s == pytest.approx(60.0)


def test_per_tenant_buckets_are_independent():
    clock = Clock()
    r = make_router(capacity=1000.0, clock=clock, per_tenant=True)
    big = {"messages": msgs(40_000), "task_type": "planning"}
    assert r.route(big, tenant="a").admitted and not r.route(big, tenant="a").admitted
    assert r.route(big, tenant="b").admitted
    shared = make_router(capacity=1000.0, clock=clock)
    assert shared.route(big, tenant="a").admitted and not shared.route(big, tenant="b").admitted


def test_record_feeds_the_estimator():
    seen = []

    class Spy(HeuristicEstimator):
        def observe(self, features, actual_tokens, actual_seconds):
            seen.append((features["task_type"], actual_tokens, actual_seconds))

    r = make_router(estimator=Spy())
    d = r.route({"messages": msgs(40), "task_type": "tool_call"})
    r.record(d, d.input_tokens + 33, 0.7, "ok")
    r.record(d, 0, 0.7, "server_error")
    assert seen == [("tool_call", pytest.approx(33), 0.7)]


def test_no_bucket_admits_everything():
    r = make_router(capacity=None)
    assert all(r.route({"messages": msgs(40_000), "task_type": "planning"}).admitted for _ in range(50))


async def test_async_route_and_record():
    r = make_router(capacity=1000.0)
    d = await r.aroute({"messages": msgs(40_000), "task_type": "planning"})
    assert d.admitted and not (await r.aroute({"messages": msgs(40), "task_type": "planning"})).admitted
    await r.arecord(d, 0, 0.0, "ok")
    assert (await r.aroute({"messages": msgs(40), "task_type": "planning"})).admitted


def test_estimator_rejections_become_invalid_request():
    class Picky(HeuristicEstimator):
        def features(self, request):
            if not isinstance(request.get("tool_results", []), list):
                raise ValueError("tool_results must be a list")
            return super().features(request)

    with pytest.raises(InvalidRequest, match="tool_results"):
        make_router(estimator=Picky()).route({"messages": msgs(10), "tool_results": 5})
