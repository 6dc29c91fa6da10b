"""Positional step ids for the steps the grammar does not number exactly.

The decoding grammar (:mod:`thought_model.grammar`) gives steps t1 and t2 their exact ids, but
steps 3..7 share one sub-grammar whose id is any of ``t3..t7`` (each exact position costs compile
time on a cache miss). A long decode can then repeat an id (``t6`` twice) or skip one, and the
plan check rejects the whole plan as ``DUPLICATE_STEP_ID``, a typed error for the caller.

:func:`renumber_steps` restores the positional reading the grammar means: the k-th step is
``t{k}``, and a reference ``tN`` (in ``dependencies`` or a ``${tN.field}`` argument) names the
*latest earlier* step that was written as ``tN``. A reference with no earlier step of that id is
left as written, so a forward or self reference still fails the plan check: nothing is guessed.
It works on the raw output object, before the plan contract is validated, and only when an id
repeats: an output without a repeated id is returned as it is (a wrong id is then the plan check's
to report, as before).
"""

from __future__ import annotations

import re
from typing import Any

_REF = re.compile(r"\$\{(t[0-9]+)\.")


def renumber_steps(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with positional step ids (see the module docstring); ``obj`` itself if nothing moves."""
    steps = obj.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        return obj
    written = [s.get("step_id") for s in steps]
    if len(set(map(str, written))) == len(written):
        return obj  # no id repeats: any other id error is the plan check's to report
    renamed: list[dict[str, Any]] = []
    for k, step in enumerate(steps):
        latest = {w: f"t{i + 1}" for i, w in enumerate(written[:k]) if isinstance(w, str)}
        new = dict(step)
        new["step_id"] = f"t{k + 1}"
        deps = step.get("dependencies")
        if isinstance(deps, list):
            new["dependencies"] = [latest.get(d, d) if isinstance(d, str) else d for d in deps]
        if isinstance(step.get("arguments"), dict):
            new["arguments"] = _rewrite(step["arguments"], latest)
        renamed.append(new)
    return {**obj, "steps": renamed}


def _rewrite(value: Any, latest: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _REF.sub(lambda m: "${" + latest.get(m.group(1), m.group(1)) + ".", value)
    if isinstance(value, list):
        return [_rewrite(v, latest) for v in value]
    if isinstance(value, dict):
        return {k: _rewrite(v, latest) for k, v in value.items()}
    return value
