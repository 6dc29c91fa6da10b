"""Write ``data/units_labelled.json``: unit strings (English and Chinese) with the value they
must convert to, labelled by ``pint`` — not by the validator's own parser.

Each source is written down here by hand as (text, magnitude, pint unit); pint converts the
magnitude to every declared unit of the family. Failure cases carry the expected error kind.

    .venv/bin/python tests/rust_validator/make_units_labelled.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pint

OUT = Path(__file__).parent / "data" / "units_labelled.json"

# Declared (contract) unit -> pint unit.
DECLARED = {
    "degC": "degC", "degF": "degF", "K": "kelvin",
    "m/s": "meter / second", "km/h": "kilometer / hour", "mph": "mile / hour", "kn": "knot",
    "m": "meter", "km": "kilometer", "mi": "mile", "ft": "foot",
    "percent": "percent", "permille": "permille",
}  # fmt: skip
FAMILIES = {
    "temperature": ["degC", "degF", "K"],
    "speed": ["m/s", "km/h", "mph", "kn"],
    "length": ["m", "km", "mi", "ft"],
    "ratio": ["percent", "permille"],
}

# (text as a tool writes it, magnitude, pint unit of the text, family)
SOURCES: list[tuple[str, float, str, str]] = [
    # temperature
    ("21°C", 21, "degC", "temperature"), ("-3.5 °C", -3.5, "degC", "temperature"),
    ("36.6℃", 36.6, "degC", "temperature"), ("0 C", 0, "degC", "temperature"),
    ("25摄氏度", 25, "degC", "temperature"), ("-5 ° C", -5, "degC", "temperature"),
    ("−12 °C", -12, "degC", "temperature"), ("100 celsius", 100, "degC", "temperature"),
    ("72°F", 72, "degF", "temperature"), ("98.6 ℉", 98.6, "degF", "temperature"),
    ("-40 F", -40, "degF", "temperature"), ("50华氏度", 50, "degF", "temperature"),
    ("451 fahrenheit", 451, "degF", "temperature"), ("293.15 K", 293.15, "kelvin", "temperature"),
    ("0 K", 0, "kelvin", "temperature"), ("300kelvin", 300, "kelvin", "temperature"),
    ("20 degC", 20, "degC", "temperature"), ("68 degF", 68, "degF", "temperature"),
    # speed
    ("12 km/h", 12, "kilometer / hour", "speed"), ("36km/h", 36, "kilometer / hour", "speed"),
    ("90 KM/H", 90, "kilometer / hour", "speed"), ("15 kph", 15, "kilometer / hour", "speed"),
    ("18公里/小时", 18, "kilometer / hour", "speed"), ("7.2 千米/小时", 7.2, "kilometer / hour", "speed"),
    ("5 m/s", 5, "meter / second", "speed"), ("3.4米/秒", 3.4, "meter / second", "speed"),
    ("10 米每秒", 10, "meter / second", "speed"), ("60 mph", 60, "mile / hour", "speed"),
    ("8 kn", 8, "knot", "speed"), ("20 knots", 20, "knot", "speed"), ("12节", 12, "knot", "speed"),
    # length
    ("1,200 m", 1200, "meter", "length"), ("5 km", 5, "kilometer", "length"),
    ("3公里", 3, "kilometer", "length"), ("800米", 800, "meter", "length"),
    ("26.2 mi", 26.2, "mile", "length"), ("2 miles", 2, "mile", "length"),
    ("5280 ft", 5280, "foot", "length"), ("6 feet", 6, "foot", "length"),
    ("1.5e3 m", 1500, "meter", "length"), ("10 英里", 10, "mile", "length"),
    # ratio
    ("65%", 65, "percent", "ratio"), ("100 %", 100, "percent", "ratio"), ("0.5%", 0.5, "percent", "ratio"),
    ("百分之65", 65, "percent", "ratio"), ("30％", 30, "percent", "ratio"), ("5‰", 5, "permille", "ratio"),
    ("12.5 ‰", 12.5, "permille", "ratio"),
]  # fmt: skip

# More spellings of each unit, each with two magnitudes, written with and without a space.
SPELLINGS: list[tuple[str, str, str]] = [
    ("°C", "degC", "temperature"), ("℃", "degC", "temperature"), ("摄氏度", "degC", "temperature"),
    ("°F", "degF", "temperature"), ("℉", "degF", "temperature"), ("华氏度", "degF", "temperature"),
    ("K", "kelvin", "temperature"), ("km/h", "kilometer / hour", "speed"),
    ("公里/小时", "kilometer / hour", "speed"), ("公里每小时", "kilometer / hour", "speed"),
    ("m/s", "meter / second", "speed"), ("米/秒", "meter / second", "speed"), ("mph", "mile / hour", "speed"),
    ("kt", "knot", "speed"), ("km", "kilometer", "length"), ("千米", "kilometer", "length"),
    ("m", "meter", "length"), ("米", "meter", "length"), ("mi", "mile", "length"), ("ft", "foot", "length"),
    ("英尺", "foot", "length"), ("%", "percent", "ratio"), ("‰", "permille", "ratio"),
    ("公里", "kilometer", "length"), ("knots", "knot", "speed"), ("feet", "foot", "length"),
    ("英里", "mile", "length"), ("千米/小时", "kilometer / hour", "speed"), ("kelvin", "kelvin", "temperature"),
]  # fmt: skip
for spelling, unit, family in SPELLINGS:
    for magnitude, sep in ((7, ""), (1234.5, " ")):
        number = "1,234.5" if magnitude == 1234.5 and family == "length" else f"{magnitude:g}"
        SOURCES.append((f"{number}{sep}{spelling}", magnitude, unit, family))

# (text, declared unit, require_unit, expected error kind)
FAILURES: list[tuple[str, str, bool, str]] = [
    ("12 furlongs", "m", False, "unknown_unit"), ("3 parsecs", "km", False, "unknown_unit"),
    ("20 度", "degC", False, "unknown_unit"), ("5 c", "degC", False, "unknown_unit"),
    ("7 bananas", "percent", False, "unknown_unit"), ("12 级", "m/s", False, "unknown_unit"),
    ("12 km/h", "degC", False, "incompatible_unit"), ("65%", "m/s", False, "incompatible_unit"),
    ("3公里", "km/h", False, "incompatible_unit"), ("20°C", "m", False, "incompatible_unit"),
    ("windy", "m/s", False, "not_a_number"), ("N/A", "percent", False, "not_a_number"),
    ("", "degC", False, "not_a_number"), ("-300 °C", "K", False, "out_of_range"),
    ("21", "degC", True, "missing_unit"), ("65", "percent", True, "missing_unit"),
]  # fmt: skip


def build() -> dict[str, list[dict[str, object]]]:
    ureg = pint.UnitRegistry()
    conversions = []
    for text, magnitude, unit, family in SOURCES:
        for to in FAMILIES[family]:
            value = ureg.Quantity(magnitude, unit).to(DECLARED[to]).magnitude
            conversions.append({"text": text, "to": to, "expected": float(value)})
    failures = [{"text": t, "to": to, "require_unit": r, "kind": k} for t, to, r, k in FAILURES]
    return {"conversions": conversions, "failures": failures}


if __name__ == "__main__":
    data = build()
    assert len({c["text"] for c in data["conversions"]}) >= 100
    lines = ['{\n  "about": "unit strings and their values in a declared unit, labelled with pint by '
             'tests/rust_validator/make_units_labelled.py",\n  "conversions": [']  # fmt: skip
    lines.append(",\n".join("    " + json.dumps(c, ensure_ascii=False) for c in data["conversions"]))
    lines.append('  ],\n  "failures": [')
    lines.append(",\n".join("    " + json.dumps(c, ensure_ascii=False) for c in data["failures"]))
    lines.append("  ]\n}\n")
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {len(data['conversions'])} conversions and {len(data['failures'])} failures to {OUT}")
