"""Generated rows (``training.generate`` output, the old hand-written set) -> the case format.

``python -m training.row_cases IN.jsonl OUT.jsonl``: each row's ``request``, ``user_id`` and
``today`` become a case's request and session (``now`` = ``today`` 10:00 in Asia/Shanghai, the
session default), its ``expected`` object the ``expect`` block (steps with their arguments as the
row writes them: the scorer resolves time symbols against the session; references keep their step
ids, which are the 1-based positions in generated plans). The family label follows the row:
``insufficient`` for an insufficient-context row, ``coordinated`` for ``multi_task``, ``chain``
for any other plan of two or more steps, else ``single``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

NOW_TIME = "T10:00:00+08:00"


def row_case(row: dict[str, Any], i: int) -> dict[str, Any]:
    """One generated row as a case (see the module doc)."""
    exp = row["expected"]
    if exp.get("error") == "insufficient_context":
        expect: dict[str, Any] = {"kind": "insufficient_context", "missing": list(exp["required_fields"])}
        family = "insufficient"
    else:
        steps = [{"tool": s["tool"], "args": dict(s.get("arguments") or {})} for s in exp["steps"]]
        expect = {"kind": "plan", "steps": steps}
        intent = exp.get("intent") or row.get("intent")
        family = "coordinated" if intent == "multi_task" else "chain" if len(steps) > 1 else "single"
    session = {"user_id": row.get("user_id"), "now": f"{row['today']}{NOW_TIME}", "timezone": "Asia/Shanghai"}
    return {
        "id": str(row.get("id", i)),
        "request": row["request"],
        "lang": row.get("lang", ""),
        "family": family,
        "session": session,
        "expect": expect,
    }


def convert(src: Path, dst: Path) -> int:
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = [json.dumps(row_case(r, i), ensure_ascii=False) for i, r in enumerate(rows, 1)]
    dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m training.row_cases IN.jsonl OUT.jsonl", file=sys.stderr)
        return 2
    n = convert(Path(args[0]), Path(args[1]))
    print(f"{n} cases -> {args[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
