"""The soft observation check: tool error messages and free-text results → discrete labels.

Labels: ``ok`` (a normal result) and the error kinds ``network_issue``, ``auth_failed``,
``rate_limited``, ``not_found``, ``data_corrupted``, ``server_error``, ``validation_error``.

Model: hashed features (character 1–4-grams of the lower-cased body, words, a few structure
markers such as "JSON that does not parse" or "ends mid-tag", and the status-code class) →
multinomial logistic regression, trained by ``python -m training.error_bodies.train`` on
synthetic bodies from :mod:`training.error_bodies.generate` (never on the labelled evaluation
set). The weights are a small committed artifact, ``tao/observe/models/soft_labels.npz``.

A label is *used* only when its probability is at least the calibrated threshold (≥ 0.95). It
feeds the soft weight (0.3) of the observation's confidence (:meth:`SoftCheck.soft_score`):

* the hard checks passed and the body reads as ``ok`` → soft score 1.0;
* the hard checks passed but the body reads as an error (e.g. a 200 carrying a rate-limit page)
  → soft score 0.0, which lowers the confidence (0.6 + 0.1·consistency) but never fails it;
* below the threshold → no soft score: the hard result stands (the soft weight is left out).

A hard failure stays a failure: its confidence is 0 whatever the label says; the label only goes
into ``details`` (``soft_label`` / ``soft_confidence``) for the self-correction and the trace.
"""

from __future__ import annotations

import itertools
import json
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tao.contracts import ActionResult, ObservationResult, ToolSpec

LABELS = (
    "ok",
    "network_issue",
    "auth_failed",
    "rate_limited",
    "not_found",
    "data_corrupted",
    "server_error",
    "validation_error",
)
ERROR_LABELS = LABELS[1:]
DEFAULT_THRESHOLD = 0.95
MAX_CHARS = 3000  # head of the body that is read (plus the last 200 characters: truncation shows there)
MODEL_PATH = Path(__file__).with_name("models") / "soft_labels.npz"

_WORD = re.compile(r"[a-z][a-z0-9_]+|[0-9]{3}")
_CJK = re.compile(r"[\u3400-\u9fff]+")
_WS = re.compile(r"\s+")
_HEX = re.compile(r"\b[0-9a-f]{8,}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_NUM = re.compile(r"[0-9]+")


def _structure(body: str) -> list[str]:
    """Markers of the body's shape: parseable JSON or not, unclosed markup, mojibake, emptiness."""
    s = body.strip()
    marks: list[str] = []
    if not s:
        return ["~empty"]
    if s[0] in "{[":
        try:
            json.loads(s)
            marks.append("~json_ok")
        except ValueError:
            marks.append("~json_bad")
            if s.count("{") + s.count("[") > s.count("}") + s.count("]"):
                marks.append("~json_unclosed")
    if s.startswith("<"):
        lower = s[-300:].lower()
        if s.startswith("<?xml") or not s.lower().startswith(("<!doctype html", "<html")):
            marks.append("~xml")
        if not s.endswith(">"):
            marks.append("~markup_cut")
        elif "</html>" not in lower and "<html" in s[:300].lower():
            marks.append("~html_unclosed")
        elif s.lower().startswith("<?xml") and s.count("<") > 2 * s.count("</") + 2:
            marks.append("~xml_unbalanced")
    if "\ufffd" in s or re.search(r"[ÃÂâ][\x80-\xbf€™œ]|Ã.|锟斤拷|ï¿½", s):
        marks.append("~mojibake")
    if re.search(r"[\x00-\x08\x0e-\x1f]", s):
        marks.append("~control_chars")
    if len(s) < 40:
        marks.append("~short")
    return marks


def features(body: str, status_code: int | None = None) -> list[str]:
    """The feature strings of one observation (hashed by :func:`vectorize`)."""
    head = body[:MAX_CHARS] + ("\n" + body[-200:] if len(body) > MAX_CHARS else "")
    text = _WS.sub(" ", _NUM.sub("0", _HEX.sub("#", head.lower())))
    feats = _structure(body)
    if status_code is not None:
        feats += [f"~s{status_code // 100}xx", f"~s{status_code}"]
    else:
        feats.append("~s_none")
    words = _WORD.findall(text)
    feats += ["w:" + w for w in words]
    feats += ["b:" + a + " " + b for a, b in itertools.pairwise(words)]
    for run in _CJK.findall(text):
        feats += ["c:" + run[i : i + n] for n in (1, 2, 3) for i in range(len(run) - n + 1)]
    t = " " + text[:1500] + " "
    feats += ["g:" + t[i : i + 4] for i in range(len(t) - 3) if not t[i : i + 4].isspace()]
    return feats


def vectorize(feats: list[str], dim: int) -> dict[int, float]:
    """Hashing trick (crc32) with log term frequency, L2-normalized; a sparse dict."""
    counts: dict[int, float] = {}
    for f in feats:
        h = zlib.crc32(f.encode("utf-8", "replace")) % dim
        counts[h] = counts.get(h, 0.0) + 1.0
    vals = {k: 1.0 + float(np.log(v)) for k, v in counts.items()}
    norm = float(np.sqrt(sum(v * v for v in vals.values()))) or 1.0
    return {k: v / norm for k, v in vals.items()}


@dataclass(frozen=True)
class SoftLabel:
    label: str
    confidence: float
    used: bool  # confidence ≥ threshold


class SoftCheck:
    """The classifier plus its threshold; :meth:`classify` costs ~0.1–0.5 ms per body."""

    def __init__(self, weights: np.ndarray, bias: np.ndarray, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.W = np.asarray(weights, dtype=np.float32)  # (dim, n_labels)
        self.b = np.asarray(bias, dtype=np.float32)
        self.dim = self.W.shape[0]
        self.threshold = max(float(threshold), DEFAULT_THRESHOLD)

    @classmethod
    def load(cls, path: Path | str = MODEL_PATH, threshold: float | None = None) -> SoftCheck:
        z = np.load(path)
        thr = float(z["threshold"]) if threshold is None else threshold
        return cls(z["W"].astype(np.float32), z["b"], thr)

    def proba(self, body: str, status_code: int | None = None) -> np.ndarray:
        x = vectorize(features(body, status_code), self.dim)
        idx = np.fromiter(x.keys(), dtype=np.int64, count=len(x))
        val = np.fromiter(x.values(), dtype=np.float32, count=len(x))
        z = val @ self.W[idx] + self.b
        z = np.exp(z - z.max())
        return z / z.sum()

    def classify(self, body: str, status_code: int | None = None) -> SoftLabel:
        p = self.proba(body, status_code)
        i = int(p.argmax())
        conf = float(p[i])
        return SoftLabel(LABELS[i], conf, conf >= self.threshold)

    def soft_score(self, body: str, status_code: int | None = None) -> tuple[float | None, SoftLabel]:
        """(score for the 0.3 weight or None below the threshold, the label)."""
        lab = self.classify(body, status_code)
        if not lab.used:
            return None, lab
        return (1.0 if lab.label == "ok" else 0.0), lab


@lru_cache(maxsize=1)
def default_soft_check() -> SoftCheck:
    """The committed model with its calibrated threshold (loaded once)."""
    return SoftCheck.load()


def result_text(result: ActionResult) -> str:
    """What the soft check reads of an ActionResult: the raw body, else the error message, else
    the parsed data as JSON."""
    if result.original_response:
        return result.original_response
    if result.error_info is not None:
        return result.error_info.message
    if result.parsed_data is None:
        return ""
    return json.dumps(result.parsed_data, ensure_ascii=False, default=str)


def combine(obs: ObservationResult, soft: float | None, label: SoftLabel | None) -> ObservationResult:
    """Fold a soft score into an observation made without one (DESIGN.md: hard 0.6, soft 0.3,
    consistency 0.1). A hard failure keeps ``valid=False`` and confidence 0; a valid one gets
    ``0.6 + 0.3·soft + 0.1·consistency`` when the label is used, and is unchanged otherwise.
    The label always goes into ``details`` (``soft_label``, ``soft_confidence``, ``soft_used``)."""
    if label is None:
        return obs
    details = {
        **obs.details,
        "soft_label": label.label,
        "soft_confidence": round(label.confidence, 4),
        "soft_used": label.used,
    }
    if not obs.valid or soft is None:
        return obs.model_copy(update={"details": details})
    # without a soft score the checker renormalized: c = (0.6 + 0.1·consistency) / 0.7
    consistency = min(1.0, max(0.0, (obs.confidence_score * 0.7 - 0.6) / 0.1))
    conf = min(1.0, max(0.0, 0.6 + 0.3 * soft + 0.1 * consistency))
    return obs.model_copy(update={"confidence_score": conf, "details": details})


class SoftObserver:
    """Wraps an observer (``tao.observe.observer.Observer``): each observation gets the soft
    check folded in by :func:`combine`. Use ``Loop(observer=SoftObserver(Observer()))``.

    The score goes to the Rust checker (``Observer.observe(..., soft=s)``), which applies the one
    confidence rule; this wrapper only classifies and records the label in ``details``."""

    def __init__(self, inner: Any, check: SoftCheck | None = None) -> None:
        self.inner = inner
        self.soft_check = check or default_soft_check()
        self.backend = getattr(inner, "backend", "rust")

    def __getattr__(self, name: str) -> Any:  # check(), caches, … of the wrapped observer
        return getattr(self.inner, name)

    def observe(
        self, spec: ToolSpec, result: ActionResult, expected: dict[str, Any] | None = None
    ) -> ObservationResult:
        text = result_text(result)
        if not text:
            return self.inner.observe(spec, result, expected)
        soft, label = self.soft_check.soft_score(text, result.status_code)
        # the Rust checker weighs the score in (one confidence rule); combine() adds the label only
        obs = self.inner.observe(spec, result, expected, soft=soft)
        return combine(obs, None, label)
