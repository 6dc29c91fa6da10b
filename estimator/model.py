"""``TokenEstimator``: features → output tokens, total tokens and seconds, corrected online.

Targets (each an XGBoost hist booster, evaluated per row by the Rust ``TreeEnsemble``):

* ``output_tokens`` — generated tokens (objective from :class:`TrainConfig`, default MAE);
* ``output_tokens_p90`` — a conservative upper estimate (quantile objective, optional);
* ``total_extra`` — ``total_tokens - prompt_tokens`` when records carry a measured total that
  differs from the counted prompt (e.g. the backend's tokenizer differs from ours); otherwise
  ``total = prompt_tokens + output_tokens``;
* ``seconds`` — request latency when records carry it; otherwise a throughput formula
  (:class:`LatencyConfig`).
"""

from __future__ import annotations

import gzip
import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import xgboost as xgb

from estimator.fast import TreeEnsemble, ensemble_from_booster
from estimator.features import NAN, FeatureError, FeatureExtractor, FeatureSpec
from estimator.online import LiveStats, OnlineConfig, ResidualCorrector
from estimator.refit import RefitBuffer
from estimator.tokens import approx_tokens
from estimator.train import TrainConfig, train_booster

FORMAT_VERSION = 1


@dataclass(frozen=True)
class LatencyConfig:
    """Latency formula used when no ``seconds`` target was trained."""

    overhead_s: float = 0.15
    prefill_tokens_per_s: float = 4000.0
    decode_tokens_per_s: float = 40.0


@dataclass(frozen=True)
class Estimate:
    """What a request is expected to cost."""

    output_tokens: float
    total_tokens: float
    seconds: float
    prompt_tokens: float
    output_tokens_p90: float | None = None


@dataclass(frozen=True)
class _Models:
    """One immutable set of boosters and their Rust evaluators (swapped whole on refit)."""

    boosters: dict[str, xgb.Booster]
    fast: dict[str, TreeEnsemble]


class NotFittedError(RuntimeError):
    """predict/observe before fit() or load()."""


def _models_from(boosters: dict[str, xgb.Booster]) -> _Models:
    return _Models(boosters, {k: ensemble_from_booster(b) for k, b in boosters.items()})


@dataclass
class _Config:
    train: TrainConfig = field(default_factory=TrainConfig)
    online: OnlineConfig = field(default_factory=OnlineConfig)
    latency: LatencyConfig = field(default_factory=LatencyConfig)


class TokenEstimator:
    """Estimate the cost of a chat request before it runs; learn from what it really cost."""

    def __init__(
        self,
        spec: FeatureSpec | None = None,
        train: TrainConfig | None = None,
        online: OnlineConfig | None = None,
        latency: LatencyConfig | None = None,
        count_tokens: Callable[[str], int] = approx_tokens,
    ) -> None:
        self.spec = spec or FeatureSpec()
        self.cfg = _Config(train or TrainConfig(), online or OnlineConfig(), latency or LatencyConfig())
        self._extract = FeatureExtractor(self.spec, count_tokens)
        self._models: _Models | None = None
        self._lock = threading.Lock()
        self._reset_online()
        idx = self.spec.index()
        self._i_prompt = idx.get("prompt_tokens")
        self._i_max = idx.get("max_tokens")
        self._i_model = idx.get("model_id")
        self._i_task = idx.get("task_type")

    def _reset_online(self) -> None:
        o = self.cfg.online
        self._corr_out = ResidualCorrector(o.alpha, o.warmup, o.kind, o.guard)
        self._corr_sec = ResidualCorrector(o.alpha, o.warmup, o.kind, o.guard)
        self.live_tokens = LiveStats(o.stats_window)
        self.live_seconds = LiveStats(o.stats_window)
        self._buffer = RefitBuffer(o.buffer_size, len(self.spec.names), o.keep_training, o.recent_weight)
        self._since_refit = 0
        self._refits = 0
        self._refit_thread: threading.Thread | None = None

    # ---- features -------------------------------------------------------------------
    def features(self, request: dict[str, Any]) -> dict[str, float]:
        """Feature dict of one request (see :mod:`estimator.features`)."""
        return self._extract(request)

    def _row(self, x: Any) -> list[float]:
        if isinstance(x, dict):
            feats = self._extract(x) if "messages" in x else x
            return self.spec.row(feats)
        if isinstance(x, (list, tuple, np.ndarray)):
            row = [float(v) for v in x]
            if len(row) != len(self.spec.names):
                raise FeatureError(f"row has {len(row)} values, spec has {len(self.spec.names)}")
            return row
        raise FeatureError(f"expected a request, feature dict or row, got {type(x).__name__}")

    def _key(self, row: list[float]) -> tuple:
        def part(i: int | None) -> float | None:
            if i is None or math.isnan(row[i]):
                return None
            return row[i]

        if self.cfg.online.key_prompt_bucket and self._i_prompt is not None:
            p = row[self._i_prompt]
            bucket = None if math.isnan(p) else int(math.log2(max(p, 0.0) + 1.0))
            return (part(self._i_model), part(self._i_task), bucket)
        return (part(self._i_model), part(self._i_task))

    # ---- predict --------------------------------------------------------------------
    def predict(self, request_or_features: Any) -> Estimate:
        """Estimate for a request dict, a feature dict or a row in spec order."""
        m = self._models
        if m is None:
            raise NotFittedError("estimator is not fitted: call fit() or load() first")
        row = self._row(request_or_features)
        return self._estimate(m, row, self._key(row))

    def _estimate(self, m: _Models, row: list[float], key: tuple) -> Estimate:
        fast = m.fast
        prompt = row[self._i_prompt] if self._i_prompt is not None else NAN
        prompt = 0.0 if math.isnan(prompt) else prompt
        cap = row[self._i_max] if self._i_max is not None else NAN
        c = self._corr_out.correction(key) if self.cfg.online.correct else 0.0
        out = fast["output_tokens"].predict(row) + c
        out = max(0.0, out if math.isnan(cap) else min(out, cap))
        p90 = None
        if "output_tokens_p90" in fast:
            p90 = fast["output_tokens_p90"].predict(row) + c
            p90 = max(out, p90 if math.isnan(cap) else min(p90, cap))
        if "total_extra" in fast:
            total = max(prompt, prompt + fast["total_extra"].predict(row) + c)
        else:
            total = prompt + out
        if "seconds" in fast:
            sec = fast["seconds"].predict(row)
            if self.cfg.online.correct:
                sec += self._corr_sec.correction(key)
        else:
            lat = self.cfg.latency
            sec = lat.overhead_s + prompt / lat.prefill_tokens_per_s + out / lat.decode_tokens_per_s
        return Estimate(out, total, max(0.0, sec), prompt, p90)

    # ---- online -----------------------------------------------------------------------
    def observe(self, features: Any, actual_tokens: float, actual_seconds: float | None = None) -> Estimate:
        """Record what a request really cost; returns the estimate it was scored against.

        Updates the per-(model, task type) residual correction at once, the live MAE/bias,
        and the bounded refit buffer; every ``refit_every`` observations a background thread
        refits the trees on the buffer (plus a sample of the original training data).
        """
        m = self._models
        if m is None:
            raise NotFittedError("estimator is not fitted: call fit() or load() first")
        if not isinstance(actual_tokens, (int, float)) or not math.isfinite(actual_tokens):
            raise ValueError("actual_tokens must be a finite number")
        row = self._row(features)
        key = self._key(row)
        with self._lock:
            served = self._estimate(m, row, key)
            self.live_tokens.add(served.output_tokens, float(actual_tokens))
            raw_out = m.fast["output_tokens"].predict(row)
            self._corr_out.update(key, float(actual_tokens) - raw_out)
            sec = NAN if actual_seconds is None else float(actual_seconds)
            if not math.isnan(sec):
                self.live_seconds.add(served.seconds, sec)
                if "seconds" in m.fast:
                    self._corr_sec.update(key, sec - m.fast["seconds"].predict(row))
            self._buffer.add(row, float(actual_tokens), sec)
            self._since_refit += 1
            due = 0 < self.cfg.online.refit_every <= self._since_refit
        if due:
            self._start_refit()
        return served

    def _start_refit(self) -> None:
        t = self._refit_thread
        if t is not None and t.is_alive():
            return
        self._since_refit = 0
        if not self.cfg.online.background:
            self.refit_now()
            return
        self._refit_thread = threading.Thread(target=self.refit_now, name="estimator-refit", daemon=True)
        self._refit_thread.start()

    def wait_refit(self, timeout: float | None = None) -> None:
        """Block until a running background refit has finished (tests, shutdown)."""
        t = self._refit_thread
        if t is not None:
            t.join(timeout)

    def refit_now(self) -> None:
        """Refit every target on the refit buffer (+ kept training sample) and swap models."""
        X, y_out, y_sec, w = self._buffer.training_set()
        if len(y_out) < 50:
            return
        trees = self.cfg.online.refit_trees
        old = self._models
        assert old is not None
        boosters: dict[str, xgb.Booster] = {}
        rcfg = replace(self.cfg.train, nthread=1)  # background work stays on one core
        boosters["output_tokens"] = train_booster(X, y_out, rcfg, weight=w, n_trees=trees)
        if "output_tokens_p90" in old.boosters:
            boosters["output_tokens_p90"] = train_booster(
                X, y_out, rcfg, objective="reg:quantileerror", weight=w, n_trees=trees
            )
        if "total_extra" in old.boosters:  # no measured totals in the buffer: keep the old one
            boosters["total_extra"] = old.boosters["total_extra"]
        ok = ~np.isnan(y_sec)
        if "seconds" in old.boosters and ok.sum() >= 50:
            boosters["seconds"] = train_booster(X[ok], y_sec[ok], rcfg, weight=w[ok], n_trees=trees)
        elif "seconds" in old.boosters:
            boosters["seconds"] = old.boosters["seconds"]
        new = _models_from(boosters)
        with self._lock:
            self._models = new
            # The new trees absorbed the drift in the buffer: restart corrections from zero.
            self._corr_out.reset()
            self._corr_sec.reset()
            self._refits += 1

    def stats(self) -> dict[str, Any]:
        """Live MAE and bias (estimate - actual) of served estimates, plus online state."""
        return {
            "output_tokens": self.live_tokens.summary(),
            "seconds": self.live_seconds.summary(),
            "corrections": self._corr_out.summary(),
            "refits": self._refits,
            "buffer": len(self._buffer),
        }

    # ---- training ---------------------------------------------------------------------
    def rows_and_targets(
        self, records: Iterable[dict[str, Any]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Records → (X, output tokens, total tokens, seconds); NaN where a target is absent."""
        rows, out, tot, sec = [], [], [], []
        for i, r in enumerate(records):
            if not isinstance(r, dict):
                raise FeatureError(f"record {i} must be a dict")
            if "features" in r:
                row = self.spec.row(r["features"])
            elif "request" in r:
                row = self.spec.row(self._extract(r["request"]))
            else:
                raise FeatureError(f"record {i} needs 'features' or 'request'")
            if "output_tokens" not in r:
                raise FeatureError(f"record {i} needs 'output_tokens'")
            rows.append(row)
            out.append(float(r["output_tokens"]))
            tot.append(float(r.get("total_tokens", NAN)))
            sec.append(float(r.get("seconds", NAN) if r.get("seconds") is not None else NAN))
        if not rows:
            raise ValueError("fit() needs at least one record")
        return (np.asarray(rows, np.float64), np.asarray(out), np.asarray(tot), np.asarray(sec))

    def fit(self, records: Iterable[dict[str, Any]]) -> TokenEstimator:
        """Train on records ``{"request"|"features", "output_tokens", ["total_tokens"],
        ["seconds"]}``; replaces the models and resets online state."""
        X, y_out, y_tot, y_sec = self.rows_and_targets(records)
        return self.fit_arrays(X, y_out, y_tot, y_sec)

    def fit_arrays(
        self,
        X: np.ndarray,
        y_out: np.ndarray,
        y_total: np.ndarray | None = None,
        y_seconds: np.ndarray | None = None,
    ) -> TokenEstimator:
        """Train from a feature matrix in spec order (NaN targets = not measured)."""
        cfg = self.cfg.train
        X = np.asarray(X, np.float64)
        boosters = {"output_tokens": train_booster(X, y_out, cfg)}
        if cfg.quantile is not None:
            boosters["output_tokens_p90"] = train_booster(
                X, y_out, cfg, objective="reg:quantileerror", alpha=cfg.quantile
            )
        if y_total is not None and self._i_prompt is not None:
            ok = ~np.isnan(y_total)
            extra = y_total - X[:, self._i_prompt]
            # Only worth a target when the measured total differs from prompt + output.
            if ok.sum() >= 50 and np.abs(extra[ok] - y_out[ok]).mean() > 0.5:
                boosters["total_extra"] = train_booster(X[ok], extra[ok], cfg)
        if y_seconds is not None:
            ok = ~np.isnan(y_seconds)
            if ok.sum() >= 50:
                boosters["seconds"] = train_booster(X[ok], y_seconds[ok], cfg)
        self._models = _models_from(boosters)
        self._reset_online()
        self._buffer.keep_training_sample(X, y_out, y_seconds, seed=cfg.seed)
        return self

    @property
    def targets(self) -> tuple[str, ...]:
        """Names of the trained targets."""
        return tuple(self._models.boosters) if self._models else ()

    def booster(self, target: str = "output_tokens") -> xgb.Booster:
        """The XGBoost booster of one target (for comparisons and inspection)."""
        if self._models is None:
            raise NotFittedError("estimator is not fitted")
        return self._models.boosters[target]

    # ---- persistence ------------------------------------------------------------------
    def save(self, directory: str | Path, compress: bool = False) -> Path:
        """Write ``spec.json`` and one XGBoost JSON model per target (``<target>.json``, or
        ``<target>.json.gz`` with ``compress``) into ``directory``."""
        if self._models is None:
            raise NotFittedError("nothing to save: estimator is not fitted")
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        for name, b in self._models.boosters.items():
            raw = bytes(b.save_raw(raw_format="json"))
            plain, packed = d / f"{name}.json", d / f"{name}.json.gz"
            (packed if compress else plain).write_bytes(gzip.compress(raw, 9, mtime=0) if compress else raw)
            (plain if compress else packed).unlink(missing_ok=True)
        meta = {
            "format_version": FORMAT_VERSION,
            "spec": self.spec.to_json(),
            "targets": list(self._models.boosters),
            "train": asdict(self.cfg.train),
            "online": asdict(self.cfg.online),
            "latency": asdict(self.cfg.latency),
            "corrections": {"output": self._corr_out.to_json(), "seconds": self._corr_sec.to_json()},
        }
        (d / "spec.json").write_bytes(orjson.dumps(meta, option=orjson.OPT_INDENT_2))
        return d

    @classmethod
    def load(
        cls, directory: str | Path, count_tokens: Callable[[str], int] = approx_tokens
    ) -> TokenEstimator:
        """Read a directory written by :meth:`save`."""
        d = Path(directory)
        try:
            meta = orjson.loads((d / "spec.json").read_bytes())
        except (OSError, orjson.JSONDecodeError) as e:
            raise ValueError(f"not an estimator directory: {d} ({e})") from e
        if meta.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"unsupported estimator format {meta.get('format_version')}")
        est = cls(
            FeatureSpec.from_json(meta["spec"]),
            TrainConfig(**meta["train"]),
            OnlineConfig(**meta["online"]),
            LatencyConfig(**meta["latency"]),
            count_tokens,
        )
        boosters = {}
        for name in meta["targets"]:
            plain, packed = d / f"{name}.json", d / f"{name}.json.gz"
            try:
                raw = plain.read_bytes() if plain.is_file() else gzip.decompress(packed.read_bytes())
                b = xgb.Booster()
                b.load_model(bytearray(raw))
            except (OSError, xgb.core.XGBoostError) as e:
                raise ValueError(f"cannot load target {name} from {d}: {e}") from e
            boosters[name] = b
        est._models = _models_from(boosters)
        o = est.cfg.online
        corr = meta.get("corrections", {})
        args = (o.alpha, o.warmup, o.kind, o.guard)
        est._corr_out = ResidualCorrector.from_json(corr.get("output", []), *args)
        est._corr_sec = ResidualCorrector.from_json(corr.get("seconds", []), *args)
        return est
