"""Train the soft observation classifier on synthetic bodies and calibrate its threshold.

    python -m training.error_bodies.train [--n 24000] [--out tao/observe/models/soft_labels.npz]

Model: multinomial logistic regression on the hashed features of :mod:`tao.observe.soft`
(full-batch L-BFGS from scipy, L2 1e-5). Calibration: the trained model is scored on fresh
synthetic draws (another seed); the threshold is the smallest value ≥ 0.95 at which their
precision reaches the target (0.99). ``--stress`` also trains models with whole message
families held out and prints their precision curve (a harsher proxy for bodies unlike any
template; informational). The labelled evaluation set is never read here (see ``evaluate.py``).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import cast

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from tao.observe.soft import DEFAULT_THRESHOLD, LABELS, MODEL_PATH, SoftCheck, features, vectorize
from training.error_bodies.generate import MSG, Sample, generate

DIM = 1 << 14


def matrix(samples: list[Sample], dim: int = DIM) -> tuple[sp.csr_matrix, np.ndarray]:
    rows, cols, vals = [], [], []
    for i, s in enumerate(samples):
        for k, v in vectorize(features(s.body, s.status_code), dim).items():
            rows.append(i)
            cols.append(k)
            vals.append(v)
    X = sp.csr_matrix((vals, (rows, cols)), shape=(len(samples), dim), dtype=np.float64)
    y = np.array([LABELS.index(s.label) for s in samples])
    return X, y


def fit(X: sp.csr_matrix, y: np.ndarray, l2: float = 1e-5, iters: int = 300) -> tuple[np.ndarray, np.ndarray]:
    n, d = cast("tuple[int, int]", X.shape)  # scipy types shape as optional
    k = len(LABELS)
    Y = np.zeros((n, k))
    Y[np.arange(n), y] = 1.0

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        W, b = theta[: d * k].reshape(d, k), theta[d * k :]
        Z = X @ W + b
        Z -= Z.max(axis=1, keepdims=True)
        P = np.exp(Z)
        P /= P.sum(axis=1, keepdims=True)
        nll = -np.sum(Y * np.log(P + 1e-12)) / n + 0.5 * l2 * np.sum(W * W)
        G = (P - Y) / n
        gW = X.T @ G + l2 * W
        return nll, np.concatenate([np.asarray(gW).ravel(), G.sum(axis=0)])

    res = scipy.optimize.minimize(
        loss, np.zeros(d * k + k), jac=True, method="L-BFGS-B", options={"maxiter": iters}
    )
    return res.x[: d * k].reshape(d, k), res.x[d * k :]


def precision_at(probs: np.ndarray, y: np.ndarray, thr: float) -> tuple[float, float]:
    conf, pred = probs.max(axis=1), probs.argmax(axis=1)
    used = conf >= thr
    if not used.any():
        return 1.0, 0.0
    return float((pred[used] == y[used]).mean()), float(used.mean())


def _proba(X: sp.csr_matrix, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    Z = X @ W + b
    Z -= Z.max(axis=1, keepdims=True)
    P = np.exp(Z)
    return P / P.sum(axis=1, keepdims=True)


def threshold_from(
    P: np.ndarray, Y: np.ndarray, target: float = 0.99
) -> tuple[float, list[tuple[float, float, float]]]:
    curve, chosen = [], None
    for thr in np.arange(DEFAULT_THRESHOLD, 0.9995, 0.0025):
        prec, cov = precision_at(P, Y, float(thr))
        curve.append((round(float(thr), 4), prec, cov))
        if chosen is None and prec >= target:
            chosen = float(thr)
    return (chosen if chosen is not None else 0.999), curve


def stress(n: int, seed: int) -> list[tuple[float, float, float]]:
    """Precision curve of models trained with half the message families held out (two folds)."""
    fams = sorted({f[0] for fl in MSG.values() for f in fl})
    r = random.Random(seed)
    r.shuffle(fams)
    probs_all, y_all = [], []
    for fold in (set(fams[::2]), set(fams[1::2])):
        train = [s for s in generate(n, seed=seed + 10) if s.family not in fold]
        held = [s for s in generate(n // 2, seed=seed + 20) if s.family in fold]
        X, y = matrix(train)
        W, b = fit(X, y)
        Xh, yh = matrix(held)
        probs_all.append(_proba(Xh, W, b))
        y_all.append(yh)
    return threshold_from(np.vstack(probs_all), np.concatenate(y_all))[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--n", type=int, default=24000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--stress", action="store_true", help="also print the family-held-out curve")
    a = ap.parse_args(argv)
    if a.stress:
        for t, p, c in stress(a.n // 2, a.seed)[::4]:
            print(f"stress thr {t:.4f}: held-out-family precision {p:.4f} coverage {c:.3f}")
    X, y = matrix(generate(a.n, seed=a.seed))
    W, b = fit(X, y)
    Xc, yc = matrix(generate(a.n // 2, seed=a.seed + 500))
    thr, curve = threshold_from(_proba(Xc, W, b), yc)
    for t, p, c in curve[::4]:
        print(f"calibration thr {t:.4f}: fresh-draw precision {p:.4f} coverage {c:.3f}")
    print(f"threshold {thr:.4f}")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, W=W.astype(np.float16), b=b.astype(np.float32), threshold=np.float32(thr))
    sc = SoftCheck.load(a.out)
    test = generate(2000, seed=a.seed + 1000)
    acc = np.mean([sc.classify(s.body, s.status_code).label == s.label for s in test])
    print(f"saved {a.out} ({a.out.stat().st_size // 1024} KiB); synthetic test accuracy {acc:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
