"""Choosing the router's thresholds on a generated validation split (``python -m tao.loop.intent.calibrate``).

The training corpus is split by *group* (the template or base example a row was generated from, so
no template is on both sides): one group in ``k`` is validation, the rest fits a router; contract rows
(descriptions, cards) always fit. On the validation rows every point of a grid of ``threshold``
(best tool), ``none_threshold`` and ``none_lead`` (the "none" class: the fallback when its
probability is at least the threshold and at least ``none_lead`` above the best tool's) is scored: in-scope rows routed
with their tools in the subset, out-of-scope rows sent to the fallback branch. The ROC-like table
(in-scope coverage against out-of-scope fallback) is printed as JSON; the recommended config is the
point with the highest in-scope coverage among those sending >= 95% of the out-of-scope rows to
the fallback (the issue's target; none such: the best balanced accuracy). The shipped router is then fit on the whole corpus with those values (docs/routing.md).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import zlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tao.loop.intent.config import RouterConfig
from tao.loop.intent.corpus import IntentRow, Split, domain_rows
from tao.loop.intent.router import IntentRouter, RouteBranch

VALID_SOURCES = ("intent", "example", "pair", "negative", "out_of_scope")
GRID = {
    "threshold": (0.05, 0.1, 0.15, 0.2, 0.25, 0.3),
    "none_threshold": (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7),
    "none_lead": (-1.0, -0.5, -0.4, -0.3, -0.25, -0.2, -0.15, -0.1, -0.05, 0.0),
}


def calibration_split(rows: Sequence[IntentRow], k: int = 5) -> tuple[list[IntentRow], list[IntentRow]]:
    """(fit rows, validation rows): one group in ``k`` (by a hash of the group) is validation."""
    fit, valid = [], []
    for r in rows:
        held = r.source.split(":")[0] in VALID_SOURCES and zlib.crc32((r.group or r.text).encode()) % k == 0
        (valid if held else fit).append(r)
    return fit, valid


def sweep(router: IntentRouter, rows: Sequence[IntentRow]) -> list[dict[str, Any]]:
    """Every grid point's in-scope coverage and out-of-scope fallback on ``rows``."""
    base = router.config
    points: list[dict[str, Any]] = []
    try:
        for th in GRID["threshold"]:
            router.config = replace(base, threshold=th, none_threshold=1.0, none_lead=-1.0)
            seen = []
            for r in rows:
                d = router.route(r.text)
                seen.append(
                    (
                        r,
                        d.branch is RouteBranch.RULE,
                        d.routed,
                        r.tools <= set(d.tools),
                        d.none or 0.0,
                        d.best[1] if d.best else 0.0,
                    )
                )
            for nt, lead in itertools.product(GRID["none_threshold"], GRID["none_lead"]):
                ins = oos = ins_ok = oos_ok = 0
                for r, rule, routed, covers, none, best in seen:
                    none_wins = not rule and none >= nt and none - best >= lead
                    final = routed and not none_wins
                    if r.tools:
                        ins += 1
                        ins_ok += final and covers
                    else:
                        oos += 1
                        oos_ok += not final
                cov, fb = ins_ok / max(1, ins), oos_ok / max(1, oos)
                points.append(
                    {
                        "threshold": th,
                        "none_threshold": nt,
                        "none_lead": lead,
                        "in_scope_routed": round(cov, 4),
                        "oos_fallback": round(fb, 4),
                        "balanced": round((cov + fb) / 2, 4),
                        "n_in_scope": ins,
                        "n_oos": oos,
                    }
                )
    finally:
        router.config = base
    return points


def best_point(points: Sequence[dict[str, Any]], oos_target: float = 0.95) -> dict[str, Any]:
    """The issue's target as the rule: the highest in-scope coverage among the points that send at
    least ``oos_target`` of the out-of-scope rows to the fallback (none: the best balanced one)."""
    ok = [p for p in points if p["oos_fallback"] >= oos_target]
    if ok:
        return max(ok, key=lambda p: (p["in_scope_routed"], p["oos_fallback"], -p["threshold"]))
    return max(points, key=lambda p: (p["balanced"], p["in_scope_routed"], -p["threshold"]))


def calibrate(domain: Any, parts: Sequence[Any], k: int = 5, model_path: str | None = None) -> dict[str, Any]:
    """Fit on the fit side of the split (or load that fit from ``model_path``), sweep the grid on
    the validation side."""
    rows = domain_rows(parts, Split.TRAIN)
    fit, valid = calibration_split(rows, k)
    router = IntentRouter.build(domain, RouterConfig(model_path=model_path), parts=parts, rows=fit)
    points = sweep(router, valid)
    return {
        "fit_rows": len(fit),
        "valid_rows": len(valid),
        "valid_in_scope": sum(1 for r in valid if r.tools),
        "valid_oos": sum(1 for r in valid if not r.tools),
        "fit_s": round(router.fit_s, 1),
        "best": best_point(points),
        "points": points,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="choose the router's thresholds on a validation split")
    ap.add_argument("--registry", default="tao.domains.combined:registry")
    ap.add_argument("--k", type=int, default=5, help="one group in k is validation")
    ap.add_argument("--out", default=None, help="also write the table here (JSON)")
    ap.add_argument("--model-path", default=None, help="keep the validation fit here (.npz) and reuse it")
    a = ap.parse_args(argv)
    from tao.domains import load_domain

    domain = load_domain(a.registry)
    if domain.name == "combined":
        from tao.domains.combined import parts as combined_parts

        parts = combined_parts()
    else:
        parts = [domain]
    res = calibrate(domain, parts, a.k, a.model_path)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(res, f, indent=1)
    print(json.dumps({k: v for k, v in res.items() if k != "points"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
