"""Evaluate the soft classifier on the labelled error bodies (written by someone who never saw it).

    python -m training.error_bodies.evaluate [--data tests/tao/observe/data/error_bodies.jsonl] [--json]

Reports precision above the threshold, coverage (share of bodies whose label is used), overall
accuracy, per-label numbers and the confusion matrix (rows: truth, columns: prediction, the
last column "-" for bodies below the threshold). Every row of the set is a failure, so a used
``ok`` prediction counts as wrong (it would raise the confidence of a bad body).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tao.observe.soft import LABELS, SoftCheck, default_soft_check

DATA = Path(__file__).resolve().parents[2] / "tests" / "tao" / "observe" / "data" / "error_bodies.jsonl"


def evaluate(rows: list[dict], sc: SoftCheck) -> dict:
    cols = [*LABELS, "-"]
    truth_labels = sorted({r["label"] for r in rows})
    conf = {t: dict.fromkeys(cols, 0) for t in truth_labels}
    used = correct = correct_all = 0
    per: dict[str, dict[str, int]] = {}
    wrong: list[dict] = []
    t0 = time.perf_counter()
    for r in rows:
        lab = sc.classify(r["body"], r.get("status_code"))
        t = r["label"]
        correct_all += lab.label == t
        p = per.setdefault(t, {"n": 0, "used": 0, "correct": 0})
        p["n"] += 1
        if lab.used:
            used += 1
            p["used"] += 1
            conf[t][lab.label] += 1
            if lab.label == t:
                correct += 1
                p["correct"] += 1
            else:
                wrong.append(
                    {"id": r.get("id"), "truth": t, "pred": lab.label, "conf": round(lab.confidence, 4)}
                )
        else:
            conf[t]["-"] += 1
    ms = (time.perf_counter() - t0) * 1000 / max(1, len(rows))
    pred_prec = {}
    for lab in LABELS:
        n_pred = sum(conf[t][lab] for t in truth_labels)
        if n_pred:
            pred_prec[lab] = round(conf.get(lab, {}).get(lab, 0) / n_pred, 4)
    return {
        "n": len(rows),
        "threshold": sc.threshold,
        "used": used,
        "precision_above_threshold": round(correct / used, 4) if used else None,
        "coverage": round(used / len(rows), 4),
        "accuracy_argmax": round(correct_all / len(rows), 4),
        "ok_used_on_failures": sum(conf[t]["ok"] for t in truth_labels),
        "per_label": per,
        "precision_per_predicted_label": pred_prec,
        "confusion": conf,
        "wrong_above_threshold": wrong,
        "ms_per_body": round(ms, 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = [json.loads(line) for line in a.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    sc = default_soft_check() if a.threshold is None else SoftCheck.load(threshold=a.threshold)
    rep = evaluate(rows, sc)
    if a.json:
        print(json.dumps(rep, ensure_ascii=False, indent=2))
        return 0
    print(
        f"n={rep['n']} threshold={rep['threshold']:.4f} used={rep['used']} "
        f"precision={rep['precision_above_threshold']} coverage={rep['coverage']} "
        f"argmax accuracy={rep['accuracy_argmax']} ok-on-failures={rep['ok_used_on_failures']} "
        f"{rep['ms_per_body']} ms/body"
    )
    cols = [*LABELS, "-"]
    print("truth \\ pred".ljust(18) + "".join(c[:8].rjust(9) for c in cols))
    for t, row in rep["confusion"].items():
        print(t.ljust(18) + "".join(str(row[c]).rjust(9) for c in cols))
    for w in rep["wrong_above_threshold"]:
        print("wrong:", w)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
