"""XGBoost token-count estimator with online correction and a fast single-row predict path.

>>> from estimator import default_estimator
>>> est = default_estimator()
>>> e = est.predict({"model": "fast", "task_type": "tool_call",
...                  "messages": [{"role": "user", "content": "Where is order 42?"}]})
>>> e.output_tokens, e.total_tokens, e.seconds  # doctest: +SKIP
"""

from estimator.default import default_estimator
from estimator.features import TASK_TYPES, FeatureError, FeatureSpec
from estimator.model import Estimate, LatencyConfig, NotFittedError, TokenEstimator
from estimator.online import OnlineConfig
from estimator.train import TrainConfig

__all__ = [
    "TASK_TYPES",
    "Estimate",
    "FeatureError",
    "FeatureSpec",
    "LatencyConfig",
    "NotFittedError",
    "OnlineConfig",
    "TokenEstimator",
    "TrainConfig",
    "default_estimator",
]
