"""Units that convert instead of vanishing: contract-declared units, checked against pint."""

from __future__ import annotations

import json
from pathlib import Path

import pint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rust_validator as rv
from tao.contracts.tools import Normalization

DATA = json.loads((Path(__file__).parent / "data" / "units_labelled.json").read_text(encoding="utf-8"))
UREG = pint.UnitRegistry()
PINT = {
    "degC": "degC", "degF": "degF", "K": "kelvin", "m/s": "meter / second", "km/h": "kilometer / hour",
    "mph": "mile / hour", "kn": "knot", "m": "meter", "km": "kilometer", "mi": "mile", "ft": "foot",
    "percent": "percent", "permille": "permille",
}  # fmt: skip


def _checker(to: str, *, require_unit: bool = False, strip: bool = False) -> rv.ObservationChecker:
    norm = Normalization(units={"/v": to}, require_unit=require_unit, strip_units=["/v"] if strip else [])
    spec = {
        "name": "probe",
        "description": "",
        "args_schema": {},
        "normalization": norm.model_dump(mode="json"),
        "extract": {"v": "/v"},
    }
    return rv.ObservationChecker(spec)


def _check(checker: rv.ObservationChecker, value: object) -> dict:
    return dict(checker.check({"status_code": 200, "response_time_ms": 1, "parsed_data": {"v": value}}))


def test_labelled_set_converts(capsys: pytest.CaptureFixture[str]) -> None:
    """Every labelled string (≥ 100 distinct, English and Chinese) converts to the pint label."""
    conversions = DATA["conversions"]
    checkers = {to: _checker(to, require_unit=True) for to in PINT}
    wrong, stripped = [], []
    for c in conversions:
        out = _check(checkers[c["to"]], c["text"])
        got = out["extracted_data"].get("v")
        if not out["valid"] or got != pytest.approx(c["expected"], rel=1e-9, abs=1e-9):
            wrong.append((c, got, out["details"].get("unit_errors")))
        conv = out["details"].get("unit_conversions", [])
        if not conv or conv[0]["from_unit"] is None:
            stripped.append(c)
    texts = {c["text"] for c in conversions}
    with capsys.disabled():
        print(f"\n[units] {len(conversions) - len(wrong)}/{len(conversions)} conversions of {len(texts)} strings, "
              f"{len(stripped)} stripped")  # fmt: skip
    assert len(texts) >= 100
    assert not wrong, wrong[:5]
    assert not stripped


@pytest.mark.parametrize("case", DATA["failures"], ids=lambda c: f"{c['text']}->{c['to']}")
def test_failures_are_typed_never_stripped(case: dict) -> None:
    out = _check(_checker(case["to"], require_unit=case["require_unit"]), case["text"])
    assert not out["valid"]
    assert out["error_type"] == "TOOL_SCHEMA_VIOLATION"
    assert out["extracted_data"] == {}  # never dressed up as an answer
    (err,) = out["details"]["unit_errors"]
    assert (err["pointer"], err["kind"], err["raw"]) == ("/v", case["kind"], case["text"])
    units = [a for a in out["audit_trail"] if a["check"] == "units"]
    assert len(units) == 1 and not units[0]["passed"] and case["kind"] in units[0]["detail"]


@pytest.mark.parametrize(
    ("to", "text", "want"),
    [
        ("degC", "72 °F", 22.2222222222),  # temperature
        ("m/s", "36 公里/小时", 10.0),  # speed
        ("km", "1,200 米", 1.2),  # length
        ("percent", "5‰", 0.5),  # ratio
    ],
)
def test_each_family_and_audit(to: str, text: str, want: float) -> None:
    out = _check(_checker(to), text)
    assert out["valid"]
    assert out["extracted_data"]["v"] == pytest.approx(want)
    (entry,) = [a for a in out["audit_trail"] if a["check"] == "units"]
    assert entry["passed"] and to in entry["detail"] and "/v" in entry["detail"]
    (conv,) = out["details"]["unit_conversions"]
    assert conv["raw"] == text and conv["unit"] == to and conv["value"] == pytest.approx(want)
    assert out["details"]["normalized"] == ["/v"]


def test_missing_unit_policy() -> None:
    """A bare number is read in the declared unit unless the contract requires a unit."""
    lenient = _check(_checker("degC"), 21)
    assert lenient["valid"] and lenient["extracted_data"]["v"] == 21
    assert lenient["details"]["unit_conversions"][0]["from_unit"] is None
    strict = _check(_checker("degC", require_unit=True), 21)
    assert not strict["valid"] and strict["details"]["unit_errors"][0]["kind"] == "missing_unit"
    assert _check(_checker("degC"), None)["valid"]  # null is the required-fields check's business


def test_units_win_over_deprecated_strip_units() -> None:
    assert _check(_checker("m/s", strip=True), "36 km/h")["extracted_data"]["v"] == pytest.approx(10.0)
    spec = {"name": "legacy", "description": "", "args_schema": {}, "extract": {"v": "/v"}}
    spec["normalization"] = {"strip_units": ["/v"]}
    legacy = rv.ObservationChecker(spec)
    assert _check(legacy, "12 km/h")["extracted_data"]["v"] == 12.0  # alias kept where no unit is declared


def test_undeclarable_unit_is_a_compile_error() -> None:
    spec = {
        "name": "bad",
        "description": "",
        "args_schema": {},
        "normalization": {"units": {"/v": "furlong"}},
    }
    with pytest.raises(rv.CompileError):
        rv.ObservationChecker(spec)


# Spellings (as a tool writes them) → pint unit, by family, for the property test.
SPELLED = {
    "temperature": [("°C", "degC"), ("℃", "degC"), ("摄氏度", "degC"), ("°F", "degF"), ("华氏度", "degF"), ("K", "kelvin")],
    "speed": [("km/h", "kilometer / hour"), ("公里/小时", "kilometer / hour"), ("m/s", "meter / second"),
              ("米/秒", "meter / second"), ("mph", "mile / hour"), ("kn", "knot")],
    "length": [("m", "meter"), ("米", "meter"), ("km", "kilometer"), ("公里", "kilometer"), ("mi", "mile"), ("ft", "foot")],
    "ratio": [("%", "percent"), ("‰", "permille")],
}  # fmt: skip
TARGETS = {
    "temperature": ["degC", "degF", "K"],
    "speed": ["m/s", "km/h", "mph", "kn"],
    "length": ["m", "km", "mi", "ft"],
    "ratio": ["percent", "permille"],
}
CHECKERS = {to: _checker(to) for to in PINT}


@st.composite
def quantities(draw: st.DrawFn) -> tuple[str, str, float]:
    family = draw(st.sampled_from(sorted(SPELLED)))
    spelling, unit = draw(st.sampled_from(SPELLED[family]))
    to = draw(st.sampled_from(TARGETS[family]))
    magnitude = round(draw(st.floats(min_value=0 if unit == "kelvin" else -200, max_value=5000)), 3)
    sep = draw(st.sampled_from(["", " "]))
    expected = UREG.Quantity(magnitude, unit).to(PINT[to]).magnitude
    return f"{magnitude!r}{sep}{spelling}", to, float(expected)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(quantities())
def test_conversions_agree_with_pint(q: tuple[str, str, float]) -> None:
    text, to, expected = q
    out = _check(CHECKERS[to], text)
    if not out["valid"]:  # only a temperature below absolute zero may fail
        assert out["details"]["unit_errors"][0]["kind"] == "out_of_range", out["details"]
        assert UREG.Quantity(expected, PINT[to]).to("kelvin").magnitude < 1e-6
        return
    assert out["extracted_data"]["v"] == pytest.approx(expected, rel=1e-9, abs=1e-8)
