"""A one-vs-rest logistic classifier over sparse rows (numpy + scipy L-BFGS; trains in seconds).

Multi-label: a row may have several tools (a multi-intent request) or none (out of scope), so each
tool has its own sigmoid rather than one softmax. L2-regularized; positives weighted up so a tool
with ten examples is not drowned by the thousands of rows of other tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse


@dataclass
class OvrLogistic:
    classes: tuple[str, ...]
    W: np.ndarray
    b: np.ndarray

    @classmethod
    def fit(
        cls,
        X: sparse.csr_matrix,
        labels: Sequence[frozenset[str]],
        classes: Sequence[str],
        *,
        l2: float = 1e-4,
        max_iter: int = 200,
        pos_weight_cap: float = 20.0,
    ) -> OvrLogistic:
        shape: tuple[int, int] = X.shape  # pyright: ignore[reportAssignmentType]
        n, d = shape
        c = len(classes)
        col = {name: j for j, name in enumerate(classes)}
        Y = np.zeros((n, c), dtype=np.float64)
        for i, tools in enumerate(labels):
            for t in tools:
                if t in col:
                    Y[i, col[t]] = 1.0
        pos = Y.sum(0)
        wpos = np.clip((n - pos) / np.maximum(pos, 1.0) / 10.0, 1.0, pos_weight_cap)
        weight = np.where(Y > 0, wpos, 1.0)
        Xt = X.T.tocsr()

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            W = theta[: d * c].reshape(d, c)
            b = theta[d * c :]
            z = np.asarray(X @ W) + b
            p = 1.0 / (1.0 + np.exp(-z))
            ll = weight * (np.logaddexp(0.0, z) - Y * z)
            g = weight * (p - Y) / n
            gW = np.asarray(Xt @ g) + l2 * W
            f = float(ll.sum() / n + 0.5 * l2 * float((W * W).sum()))
            return f, np.concatenate([gW.ravel(), g.sum(0)])

        theta0 = np.zeros(d * c + c)
        theta0[d * c :] = -2.0
        res = optimize.minimize(loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
        theta = res.x
        return cls(
            tuple(classes), theta[: d * c].reshape(d, c).astype(np.float32), theta[d * c :].astype(np.float32)
        )

    def predict_proba(self, X: sparse.csr_matrix) -> np.ndarray:
        z = np.asarray(X @ self.W) + self.b
        return 1.0 / (1.0 + np.exp(-z))
