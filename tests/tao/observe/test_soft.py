"""The soft observation check: precision above its threshold on the independent labelled error
bodies, the confidence combination (soft weight 0.3), and that it never flips a hard failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tao.contracts import ActionResult, ErrorInfo, ErrorType, ObservationResult
from tao.domains.reference.registry import reference_registry
from tao.observe.observer import Observer
from tao.observe.soft import (
    DEFAULT_THRESHOLD,
    MODEL_PATH,
    SoftCheck,
    SoftLabel,
    SoftObserver,
    combine,
    default_soft_check,
)
from training.error_bodies.evaluate import evaluate

DATA = Path(__file__).parent / "data" / "error_bodies.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_artifact_is_small_and_threshold_calibrated_at_least_095():
    assert MODEL_PATH.stat().st_size < 512 * 1024
    sc = default_soft_check()
    assert sc.threshold >= DEFAULT_THRESHOLD
    assert SoftCheck.load(threshold=0.5).threshold == DEFAULT_THRESHOLD  # never below 0.95


def test_precision_above_threshold_on_labelled_error_bodies():
    assert len(ROWS) >= 200
    rep = evaluate(ROWS, default_soft_check())
    assert rep["precision_above_threshold"] >= 0.95, rep["wrong_above_threshold"]
    assert rep["coverage"] >= 0.3  # measured 0.45; a floor so a silent model cannot pass
    assert rep["ok_used_on_failures"] == 0  # no failure body is ever read as a normal result


def _obs(valid: bool, conf: float) -> ObservationResult:
    return ObservationResult(
        valid=valid, error_type=None if valid else ErrorType.TOOL_TRANSIENT, confidence_score=conf
    )


def test_combine_weights():
    ok, err, low = (
        SoftLabel("ok", 0.99, True),
        SoftLabel("rate_limited", 0.99, True),
        SoftLabel("ok", 0.6, False),
    )
    assert combine(_obs(True, 1.0), 1.0, ok).confidence_score == pytest.approx(1.0)
    assert combine(_obs(True, 1.0), 0.0, err).confidence_score == pytest.approx(0.7)
    below = combine(_obs(True, 1.0), None, low)
    assert below.confidence_score == 1.0 and below.details["soft_used"] is False  # the hard result stands
    assert combine(_obs(True, 1.0), None, None).details == {}


@pytest.mark.parametrize("row", ROWS[:120], ids=lambda r: r["id"])
def test_never_flips_a_hard_failure(row):
    sc = default_soft_check()
    res = ActionResult(
        tool="get_user_profile",
        status_code=row["status_code"],
        original_response=row["body"],
        error_info=ErrorInfo(error_type=ErrorType.TOOL_TRANSIENT, message="upstream failed"),
    )
    obs = SoftObserver(Observer(), sc).observe(reference_registry()["get_user_profile"], res)
    assert obs.valid is False and obs.confidence_score == 0.0
    assert obs.details["soft_label"] != "ok" or not obs.details["soft_used"]


def test_soft_observer_on_clean_and_disguised_results():
    spec = reference_registry()["get_order_status"]
    so = SoftObserver(Observer())
    data = {"order_id": "1", "status": "paid", "amount": 3}
    clean = ActionResult(
        tool=spec.name, status_code=200, parsed_data=data, original_response=json.dumps(data)
    )
    obs = so.observe(spec, clean)
    assert obs.valid and obs.confidence_score == pytest.approx(1.0)
    # a 200 that passes the hard checks but whose raw body reads as a rate-limit error
    body = json.dumps({**data, "message": "Rate limit exceeded. Too many requests, retry after 30 seconds."})
    odd = ActionResult(tool=spec.name, status_code=200, parsed_data=data, original_response=body)
    obs2 = so.observe(spec, odd)
    assert obs2.valid  # soft checks never fail an observation on their own
    if obs2.details["soft_used"]:
        assert obs2.details["soft_label"] == "rate_limited" and obs2.confidence_score == pytest.approx(0.7)
