"""Train and write the committed default model: ``python -m estimator.train_default``."""

from __future__ import annotations

import argparse
import time

from estimator.data.synthetic import MODELS, generate
from estimator.default import DEFAULT_DIR
from estimator.features import FeatureSpec
from estimator.model import TokenEstimator
from estimator.train import TrainConfig


def train_default(n: int = 20000, seed: int = 0, out=DEFAULT_DIR) -> TokenEstimator:
    """Fit the default estimator on ``n`` synthetic agent requests and save it to ``out``."""
    est = TokenEstimator(FeatureSpec(models=MODELS), TrainConfig(n_trees=200, max_depth=6))
    est.fit(generate(n, seed=seed))
    est.save(out, compress=True)
    return est


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(DEFAULT_DIR))
    a = ap.parse_args(argv)
    t = time.perf_counter()
    train_default(a.n, a.seed, a.out)
    print(f"trained on {a.n} synthetic requests in {time.perf_counter() - t:.1f}s -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
