"""Token-second admission and cheapest-fitting model routing (``import router``).

>>> import router
>>> r = router.build_router(router.RouterConfig(capacity_token_s=1e6))
>>> d = r.route({"model": "auto", "messages": [{"role": "user", "content": "hi"}], "task_type": "tool_call"})
>>> d.model, d.admitted
('gpt-4o-mini', True)
"""

from router.bucket import Admission, Bucket, BucketConfig, LocalBucket
from router.config import RouterConfig, build_router
from router.cooldown import CooldownConfig, Cooldowns
from router.core import AUTO_MODELS, Decision, Router
from router.errors import ContextTooLarge, InvalidRequest, RouterError, UnknownModel
from router.estimate import Estimate, Estimator, HeuristicEstimator, default_estimator
from router.policy import POLICIES, CheapestPolicy, DefaultPolicy, Policy, RouteContext, StrongestPolicy
from router.profile import ModelProfile, ProfileError, load_profiles
from router.redis_bucket import RedisBucket, RedisBucketConfig, RedisConnections

__all__ = [
    "AUTO_MODELS",
    "POLICIES",
    "Admission",
    "Bucket",
    "BucketConfig",
    "CheapestPolicy",
    "ContextTooLarge",
    "CooldownConfig",
    "Cooldowns",
    "Decision",
    "DefaultPolicy",
    "Estimate",
    "Estimator",
    "HeuristicEstimator",
    "InvalidRequest",
    "LocalBucket",
    "ModelProfile",
    "Policy",
    "ProfileError",
    "RedisBucket",
    "RedisBucketConfig",
    "RedisConnections",
    "RouteContext",
    "Router",
    "RouterConfig",
    "RouterError",
    "StrongestPolicy",
    "UnknownModel",
    "build_router",
    "default_estimator",
    "load_profiles",
]
