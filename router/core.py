"""The router: estimate → pick a model (policy, context fit, cooldowns) → token-second admission."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from router.bucket import Admission, Bucket
from router.cooldown import FAILURE_STATUSES, Cooldowns
from router.errors import ContextTooLarge, InvalidRequest, UnknownModel
from router.estimate import Estimator, default_estimator
from router.metrics import ADMISSIONS, ROUTED, UPSTREAM_ERRORS
from router.policy import DefaultPolicy, Policy, RouteContext
from router.profile import ModelProfile, check_fallbacks

AUTO_MODELS = frozenset({"", "auto", "router", "tao-router"})


@dataclass(frozen=True, slots=True)
class Decision:
    """Where a request goes and whether it may go now (``retry_after_s`` when not)."""

    model: str | None
    predicted_tokens: float
    predicted_seconds: float
    est_cost_usd: float
    admitted: bool
    retry_after_s: float
    reason: str
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    cost_token_s: float = 0.0
    tenant: str = "default"
    endpoint: str = ""
    fallbacks: tuple[str, ...] = ()
    features: dict[str, Any] = field(default_factory=dict)
    admission: Admission | None = None


@dataclass(slots=True)
class _Plan:
    profile: ModelProfile | None
    fallbacks: tuple[str, ...]
    features: dict[str, Any]
    input_tokens: float
    output_tokens: float
    seconds: float
    reason: str
    cooldown_wait: float = 0.0


def _validate(request: Any) -> None:
    if not isinstance(request, dict):
        raise InvalidRequest("request body must be a JSON object")
    msgs = request.get("messages")
    if not isinstance(msgs, list) or not msgs:
        raise InvalidRequest("'messages' must be a non-empty list", field="/messages")
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise InvalidRequest("each message needs a string 'role'", field=f"/messages/{i}")
    for key in ("max_tokens", "max_completion_tokens"):
        v = request.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v <= 0):
            raise InvalidRequest(f"'{key}' must be a positive integer", field=f"/{key}")
    model = request.get("model")
    if model is not None and not isinstance(model, str):
        raise InvalidRequest("'model' must be a string", field="/model")
    bound = request.get("max_latency_s")
    if bound is not None and (
        isinstance(bound, bool) or not isinstance(bound, (int, float)) or not bound > 0
    ):
        raise InvalidRequest("'max_latency_s' must be a positive number", field="/max_latency_s")
    task = request.get("task_type")
    if task is not None and not isinstance(task, str):
        raise InvalidRequest("'task_type' must be a string", field="/task_type")


class Router:
    """``route(request)`` → :class:`Decision`; ``record(decision, ...)`` after the upstream answers.

    ``bucket_factory(tenant) -> Bucket`` makes the admission bucket (``None``: admit everything).
    With ``per_tenant=True`` each tenant gets its own bucket, else all share ``"default"``.
    ``resources`` (e.g. shared Redis connections) are closed by :meth:`aclose` with the buckets.
    """

    def __init__(
        self,
        profiles: Iterable[ModelProfile],
        *,
        estimator: Estimator | None = None,
        policy: Policy | None = None,
        bucket_factory: Callable[[str], Bucket] | None = None,
        per_tenant: bool = False,
        cooldowns: Cooldowns | None = None,
        latency_bound_s: float | None = None,
        resources: Iterable[Any] = (),
    ) -> None:
        self.profiles = {p.name: p for p in profiles}
        if not self.profiles:
            raise ValueError("router needs at least one model profile")
        check_fallbacks(list(self.profiles.values()))
        self._routable = tuple(p for p in self.profiles.values() if not p.exclusive)
        self.estimator = estimator if estimator is not None else default_estimator()
        self.policy = policy or DefaultPolicy()
        self.cooldowns = cooldowns or Cooldowns()
        self.latency_bound_s = latency_bound_s
        self.per_tenant = per_tenant
        self._bucket_factory = bucket_factory
        self._buckets: dict[str, Bucket] = {}
        self._resources = list(resources)  # shared connections etc., closed by aclose()

    # ----- buckets -------------------------------------------------------------------------
    def bucket(self, tenant: str = "default") -> Bucket | None:
        if self._bucket_factory is None:
            return None
        key = tenant if self.per_tenant else "default"
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets.setdefault(key, self._bucket_factory(key))
        return b

    def buckets(self) -> dict[str, Bucket]:
        """The buckets made so far, by tenant key."""
        return dict(self._buckets)

    async def aclose(self) -> None:
        """Close the buckets' connections (Redis clients); call on shutdown."""
        for b in [*self._buckets.values(), *self._resources]:
            if hasattr(b, "aclose"):
                await b.aclose()
            if hasattr(b, "close"):
                b.close()

    # ----- planning (no I/O) ---------------------------------------------------------------
    def _candidates(self, request: dict[str, Any], ctx: RouteContext) -> tuple[list[ModelProfile], str]:
        name = request.get("model") or ""
        if name not in AUTO_MODELS:
            named = self.profiles.get(name)
            if named is None:
                raise UnknownModel(f"unknown model {name!r}; GET /v1/models lists them", field="/model")
            # never silently substituted: only the fallbacks its profile declares may answer for it
            return [named] + [self.profiles[f] for f in named.fallbacks], f"requested model {name}"
        special = [p for p in self.profiles.values() if p.exclusive and ctx.task_type in p.strengths]
        ranked, reason = self.policy.order(ctx)
        if special:
            return special + ranked, f"task_type {ctx.task_type} -> dedicated model"
        return ranked, reason

    def _plan(self, request: dict[str, Any], exclude: Iterable[str]) -> _Plan:
        _validate(request)
        try:
            feats = self.estimator.features(request)
            est = self.estimator.predict(feats)
        except (ValueError, TypeError) as exc:  # e.g. estimator.FeatureError on a bad hint
            raise InvalidRequest(f"cannot estimate this request: {exc}") from None
        out = float(est.output_tokens)
        inp = max(0.0, float(est.total_tokens) - out)
        max_out = request.get("max_tokens") or request.get("max_completion_tokens") or 0
        bound = request.get("max_latency_s", self.latency_bound_s)
        task = request.get("task_type")
        if not isinstance(task, str) or not task:
            ft = feats.get("task_type")
            task = ft if isinstance(ft, str) else "chat"
        ctx = RouteContext(
            request, task, inp, out, self._routable, float(bound) if bound is not None else None
        )
        ranked, reason = self._candidates(request, ctx)
        fitting = [
            p for p in ranked if inp <= p.max_input_tokens and max(out, max_out) <= p.max_output_tokens
        ]
        if not fitting:
            biggest = max(p.max_input_tokens for p in ranked) if ranked else 0
            raise ContextTooLarge(
                f"about {int(inp)} input + {int(max(out, max_out))} output tokens fit no "
                f"candidate model (largest input window {biggest})",
                field="/messages",
            )
        excl = set(exclude)
        usable = [p for p in fitting if p.name not in excl and self.cooldowns.remaining(p.name) <= 0]
        if not usable:
            waits = [self.cooldowns.remaining(p.name) for p in fitting if p.name not in excl]
            return _Plan(
                None,
                (),
                feats,
                inp,
                out,
                0.0,
                "all fitting models are cooling down or failed",
                min(waits) if waits else math.inf,
            )
        chosen = usable[0]
        return _Plan(
            chosen, tuple(p.name for p in usable[1:]), feats, inp, out, chosen.predict_seconds(out), reason
        )

    def _decision(self, plan: _Plan, tenant: str, adm: Admission | None, cost: float) -> Decision:
        p = plan.profile
        if p is None:
            return Decision(
                None,
                plan.input_tokens + plan.output_tokens,
                0.0,
                0.0,
                False,
                plan.cooldown_wait,
                plan.reason,
                plan.input_tokens,
                plan.output_tokens,
                0.0,
                tenant,
                "",
                (),
                plan.features,
            )
        ok = adm is None or adm.ok
        ADMISSIONS.labels("admitted" if ok else "rejected").inc()
        if ok:
            ROUTED.labels(p.name).inc()
        reason = plan.reason if ok else f"{plan.reason}; token-second bucket full"
        return Decision(
            p.name,
            plan.input_tokens + plan.output_tokens,
            plan.seconds,
            p.cost_usd(plan.input_tokens, plan.output_tokens),
            ok,
            0.0 if ok or adm is None else adm.wait_s,
            reason,
            plan.input_tokens,
            plan.output_tokens,
            cost,
            tenant,
            p.endpoint,
            plan.fallbacks,
            plan.features,
            adm,
        )

    def _cost(self, plan: _Plan, bucket: Bucket) -> float:
        cost = (plan.input_tokens + plan.output_tokens) * plan.seconds
        return min(cost, bucket.config.capacity)  # a job bigger than the bucket waits for a full one

    # ----- public API ----------------------------------------------------------------------
    def route(
        self, request: dict[str, Any], *, tenant: str = "default", exclude: Iterable[str] = ()
    ) -> Decision:
        plan = self._plan(request, exclude)
        bucket = self.bucket(tenant)
        if plan.profile is None or bucket is None:
            return self._decision(plan, tenant, None, 0.0)
        cost = self._cost(plan, bucket)
        return self._decision(plan, tenant, bucket.try_acquire(cost), cost)

    async def aroute(
        self, request: dict[str, Any], *, tenant: str = "default", exclude: Iterable[str] = ()
    ) -> Decision:
        plan = self._plan(request, exclude)
        bucket = self.bucket(tenant)
        if plan.profile is None or bucket is None:
            return self._decision(plan, tenant, None, 0.0)
        cost = self._cost(plan, bucket)
        return self._decision(plan, tenant, await bucket.atry_acquire(cost), cost)

    def _after(
        self,
        decision: Decision,
        actual_tokens: float,
        actual_seconds: float,
        status: str,
        output_tokens: float | None,
        retry_after_s: float | None,
    ) -> float:
        if decision.model is not None:
            if status == "ok":
                self.cooldowns.ok(decision.model)
                out = (
                    output_tokens
                    if output_tokens is not None
                    else max(0.0, actual_tokens - decision.input_tokens)
                )
                self.estimator.observe(decision.features, out, actual_seconds)
            elif status in FAILURE_STATUSES:
                self.cooldowns.fail(decision.model, retry_after_s, status)
                UPSTREAM_ERRORS.labels(decision.model, status).inc()
        return max(0.0, float(actual_tokens)) * max(0.0, float(actual_seconds))

    def record(
        self,
        decision: Decision,
        actual_tokens: float,
        actual_seconds: float,
        status: str = "ok",
        *,
        output_tokens: float | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        """Feed the estimator (on success), update cooldowns (on 429/5xx/timeout) and settle the
        bucket with the actual cost ``actual_tokens × actual_seconds`` (total tokens)."""
        actual = self._after(decision, actual_tokens, actual_seconds, status, output_tokens, retry_after_s)
        bucket = self.bucket(decision.tenant)  # not None: an admission came from it
        if decision.admission is not None and decision.admission.ok and bucket is not None:
            bucket.settle(decision.admission, actual)

    async def arecord(
        self,
        decision: Decision,
        actual_tokens: float,
        actual_seconds: float,
        status: str = "ok",
        *,
        output_tokens: float | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        actual = self._after(decision, actual_tokens, actual_seconds, status, output_tokens, retry_after_s)
        bucket = self.bucket(decision.tenant)  # not None: an admission came from it
        if decision.admission is not None and decision.admission.ok and bucket is not None:
            await bucket.asettle(decision.admission, actual)
