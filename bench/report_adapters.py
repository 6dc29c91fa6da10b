"""Derives ``comparisons`` and ``plots`` for suites whose JSON does not declare them, from the
structures those suites are known to write. A suite that declares its own keeps them; an adapter
only fills what is absent, and one that does not recognise the data returns nothing."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _validator(data: dict) -> dict[str, list]:
    """validator: ``results[size][method_key] = {"method", "us_per_doc", ...}``, baseline (a)."""
    results, methods = data.get("results"), data.get("methods")
    if not isinstance(results, dict) or not isinstance(methods, dict) or "a" not in methods:
        return {}
    comps, bars = [], {}
    for size, row in results.items():
        if not isinstance(row, dict):
            continue
        values = {methods[k]: row[k]["us_per_doc"] for k in methods
                  if isinstance(row.get(k), dict) and isinstance(row[k].get("us_per_doc"), (int, float))}
        if methods["a"] not in values:
            continue
        label = f"{size} document ({row.get('bytes', '?')} bytes)"
        comps.append({"name": f"validate one {label}", "metric": "us_per_doc", "unit": "µs",
                      "baseline": methods["a"], "lower_is_better": True, "values": values})
        bars[label] = values
    plots = [{"kind": "bar", "title": "validation cost per document", "ylabel": "µs per document (log)",
              "logy": True, "series": bars}] if bars else []
    return {"comparisons": comps, "plots": plots}


ADAPTERS: dict[str, Callable[[dict], dict[str, list]]] = {"validator": _validator}


def derive(name: str, data: dict[str, Any]) -> dict[str, list]:
    """``{"comparisons": [...], "plots": [...]}`` to use where the suite declared none."""
    adapter = ADAPTERS.get(name)
    if adapter is None:
        return {}
    try:
        derived = adapter(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return {}
    return {k: v for k, v in derived.items() if v and not data.get(k)}
