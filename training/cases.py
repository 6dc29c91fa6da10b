"""User-facing evaluation cases: load them, plan them in batches, score the plans.

A case (one JSON line; ``tao/domains/reference/eval_sets/independent.jsonl`` is the reference
domain's set, its README describes how it was written)::

    {"id": "zh-002", "request": "…", "lang": "zh", "family": "chain", "variant": "traditional",
     "session": {"user_id": "U71820364", "now": "2026-02-03T15:20:00+08:00", "timezone": "Asia/Shanghai"},
     "expect": {"kind": "plan", "steps": [{"tool": "find_user", "args": {"name": "林佳玲"}},
                                          {"tool": "get_user_profile", "args": {"user_id": "${t1.user_id}"}}]}}

``expect.kind`` is ``plan`` (``steps``: tool + args, dates written resolved, ``${tK.x}`` = the
K-th step) or ``insufficient_context`` (``missing``: the required argument names). ``id``,
``lang``, ``family``, ``variant`` are optional labels the report splits by.

Comparison (:func:`compare`), after both sides are normalized the same way:

* the model's plan is resolved first with :func:`tao.loop.resolve.resolve_plan` (time symbols
  against the case's session, multi-day expansion: the runtime's own resolution step);
* JSON-Schema defaults of omitted optional arguments are filled on both sides (weather's
  ``date`` = ``@today`` = the session's today), then time symbols resolved;
* steps are compared as a sequence (order matters, step ids do not); a reference ``${tK.x}`` is
  compared by the position of the step it points to and the output name;
* strings: Unicode NFKC, traditional Chinese folded to simplified (OpenCC ``t2s``, what
  perception does to the request), trimmed, case-folded, punctuation and symbols replaced by a
  space and whitespace runs collapsed to one space (``"Q3 Report!"`` == ``"q3 report"``); a whole month ``YYYY-MM`` equals its
  first..last-day period and a one-day period ``D/D`` equals ``D``;
* numbers numerically (``90`` == ``90.0``); a list of strings as a multiset (attendees);
* ``insufficient_context``: same kind and the same *set* of missing fields.

Reported (:class:`CaseReport`): exact match overall, by family, variant and language, single- vs
multi-step expected plans, tool-sequence accuracy, insufficient-context precision and recall
(separately, as :mod:`training.metrics` does), typed errors, and the first failures.
"""

from __future__ import annotations

import calendar
import json
import re
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, SessionState, ThoughtPlan, ToolSpec
from tao.contracts.plan import REF_PATTERN
from tao.loop.resolve import ResolveError, arg_schemas, fill_defaults, is_time_symbol, resolve_plan

Output = ThoughtPlan | InsufficientContext | ErrorInfo
PlanFn = Callable[[Sequence[tuple[str, SessionState]]], list[Output]]
"""Plans a batch of (request, session) pairs: one output (plan, insufficiency or typed error) each."""

_REF = re.compile(REF_PATTERN)
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_PERIOD = re.compile(r"^(\d{4}-\d{2}(?:-\d{2})?)/(\d{4}-\d{2}(?:-\d{2})?)$")
_WS = re.compile(r"\s+")


@dataclass
class Case:
    request: str
    session: SessionState
    expect: dict[str, Any]
    id: str = ""
    lang: str = ""
    family: str = ""
    variant: str = ""

    @property
    def kind(self) -> str:
        return self.expect.get("kind", "plan")

    @property
    def n_steps(self) -> int:
        return len(self.expect.get("steps") or [])


class CaseFormatError(ValueError):
    """A case line that does not follow the case format (names the line)."""


def case_session(d: dict[str, Any] | None) -> SessionState:
    d = dict(d or {})
    if isinstance(d.get("now"), str):
        d["now"] = datetime.fromisoformat(d["now"])
    return SessionState.model_validate(d)


def load_cases(path: str | Path, limit: int | None = None) -> list[Case]:
    """Read a case file (JSON Lines); raises :class:`CaseFormatError` naming the bad line."""
    cases: list[Case] = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            exp = d["expect"]
            if exp.get("kind", "plan") not in ("plan", "insufficient_context"):
                raise ValueError(f"unknown expect.kind {exp.get('kind')!r}")
            if exp.get("kind", "plan") == "plan" and not exp.get("steps"):
                raise ValueError("a plan case needs expect.steps")
            if exp.get("kind") == "insufficient_context" and not exp.get("missing"):
                raise ValueError("an insufficient_context case needs expect.missing")
            cases.append(
                Case(
                    request=d["request"],
                    session=case_session(d.get("session")),
                    expect=exp,
                    id=str(d.get("id", i)),
                    lang=d.get("lang", ""),
                    family=d.get("family", ""),
                    variant=d.get("variant", ""),
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise CaseFormatError(f"{path}:{i}: {type(exc).__name__}: {exc}") from None
        if limit is not None and len(cases) >= limit:
            break
    return cases


# --------------------------------------------------------------------------- normalization
def _simplified(s: str) -> str:
    try:
        from thought_model.perception.normalize import to_simplified
    except ImportError:  # pragma: no cover - perception extras not installed
        return s
    return to_simplified(s)


def norm_text(s: str) -> str:
    """NFKC, traditional -> simplified Chinese (OpenCC t2s), trimmed, case-folded, punctuation and
    symbols dropped, whitespace runs collapsed."""
    s = _simplified(unicodedata.normalize("NFKC", s)).casefold()
    s = "".join(" " if unicodedata.category(c).startswith(("P", "S")) and c not in "@+" else c for c in s)
    return _WS.sub(" ", s).strip()


def _norm_period(s: str) -> str | None:
    m = _MONTH.match(s)
    if m:
        y, mo = int(m.group(1)), int(m.group(2))
        if 1 <= mo <= 12:
            return f"{y:04d}-{mo:02d}-01/{y:04d}-{mo:02d}-{calendar.monthrange(y, mo)[1]:02d}"
    m = _PERIOD.match(s)
    if m:
        a, b = (_norm_period(x) or x for x in (m.group(1), m.group(2)))
        a = a.split("/")[0]
        b = b.split("/")[-1]
        return a if a == b else f"{a}/{b}"
    return None


def norm_value(v: Any, positions: dict[str, int]) -> Any:
    """A comparable form of one argument value (``positions``: step id -> 1-based position)."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        m = _REF.match(v.strip())
        if m:
            return ("ref", positions.get(m.group(1), -1), m.group(2))
        p = _norm_period(v.strip())
        return ("str", p if p is not None else norm_text(v))
    if isinstance(v, list):
        items = [norm_value(x, positions) for x in v]
        if all(isinstance(x, tuple) and x[0] == "str" for x in items):
            return ("list", tuple(sorted(items)))
        return ("list", tuple(repr(x) for x in items))
    if isinstance(v, dict):
        return ("dict", tuple(sorted((k, repr(norm_value(x, positions))) for k, x in v.items())))
    return repr(v)


def _norm_steps(steps: Iterable[tuple[str, str, dict[str, Any]]]) -> list[tuple[str, tuple]]:
    steps = list(steps)
    positions = {sid: i + 1 for i, (sid, _, _) in enumerate(steps)}
    return [
        (tool, tuple(sorted((k, repr(norm_value(v, positions))) for k, v in args.items())))
        for _, tool, args in steps
    ]


def _resolve_times_in(v: Any, session: SessionState) -> Any:
    from tao.contracts.timeexpr import TimeSymbolError, resolve_symbol

    if is_time_symbol(v):
        try:
            return resolve_symbol(v, session)
        except TimeSymbolError:
            return v
    if isinstance(v, dict):
        return {k: _resolve_times_in(x, session) for k, x in v.items()}
    if isinstance(v, list):
        return [_resolve_times_in(x, session) for x in v]
    return v


def expected_steps(case: Case, schemas: dict[str, dict]) -> list[tuple[str, tuple]]:
    """The case's expected steps, normalized (defaults filled, symbols resolved, refs by position)."""
    rows = []
    for i, s in enumerate(case.expect.get("steps") or []):
        args = fill_defaults(schemas.get(s["tool"], {}), s.get("args") or {}, "all")
        rows.append((f"t{i + 1}", s["tool"], _resolve_times_in(args, case.session)))
    return _norm_steps(rows)


def predicted_steps(plan: ThoughtPlan, case: Case, schemas: dict[str, dict]) -> list[tuple[str, tuple]]:
    """The model's plan, resolved by the runtime's resolution step, then normalized."""
    try:
        plan = resolve_plan(plan, case.session, schemas, defaults="all")
    except ResolveError:
        pass  # compared unresolved: it will not match a resolved label
    return _norm_steps((s.step_id, s.tool, s.arguments) for s in plan.steps)


@dataclass
class Verdict:
    exact: bool
    tools_ok: bool
    predicted_kind: str  # plan | insufficient_context | error
    detail: str = ""


def compare(case: Case, output: Output, schemas: dict[str, dict]) -> Verdict:
    """Score one output against one case (see the module doc for the normalization)."""
    exp_kind = case.kind
    if isinstance(output, ErrorInfo) or output is None:
        msg = f"{output.error_type.value}: {output.message}" if output is not None else "no output"
        return Verdict(False, False, "error", msg)
    if isinstance(output, InsufficientContext):
        if exp_kind != "insufficient_context":
            return Verdict(False, False, "insufficient_context", f"missing {output.required_fields}")
        ok = set(output.required_fields) == set(case.expect.get("missing") or [])
        return Verdict(ok, True, "insufficient_context", "" if ok else f"missing {output.required_fields}")
    if exp_kind != "plan":
        return Verdict(False, False, "plan", "a plan where the request lacks a value")
    exp = expected_steps(case, schemas)
    got = predicted_steps(output, case, schemas)
    tools_ok = [t for t, _ in exp] == [t for t, _ in got]
    return Verdict(exp == got, tools_ok, "plan", "" if exp == got else "steps differ")


# --------------------------------------------------------------------------- report
def _rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


@dataclass
class _Group:
    n: int = 0
    exact: int = 0

    def add(self, ok: bool) -> None:
        self.n += 1
        self.exact += int(ok)

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "exact_match": _rate(self.exact, self.n)}


@dataclass
class CaseReport:
    n: int = 0
    exact: int = 0
    tools: int = 0
    errors: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    by_family: dict[str, _Group] = field(default_factory=lambda: defaultdict(_Group))
    by_variant: dict[str, _Group] = field(default_factory=lambda: defaultdict(_Group))
    by_lang: dict[str, _Group] = field(default_factory=lambda: defaultdict(_Group))
    by_steps: dict[str, _Group] = field(default_factory=lambda: defaultdict(_Group))
    failures: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    max_failures: int = 40

    def add(self, case: Case, output: Output, verdict: Verdict) -> None:
        self.n += 1
        self.exact += int(verdict.exact)
        self.tools += int(verdict.tools_ok)
        self.errors += int(verdict.predicted_kind == "error")
        exp_ins = case.kind == "insufficient_context"
        pred_ins = verdict.predicted_kind == "insufficient_context"
        self.tp += int(exp_ins and pred_ins)
        self.fp += int(pred_ins and not exp_ins)
        self.fn += int(exp_ins and not pred_ins)
        for groups, key in (
            (self.by_family, case.family),
            (self.by_variant, case.variant),
            (self.by_lang, case.lang),
            (self.by_steps, _steps_key(case)),
        ):
            if key:
                groups[key].add(verdict.exact)
        got = _dump(output)
        self.results.append({"id": case.id, "exact": verdict.exact, "got": got})
        if not verdict.exact and len(self.failures) < self.max_failures:
            self.failures.append(
                {
                    "id": case.id,
                    "family": case.family,
                    "request": case.request,
                    "expect": case.expect,
                    "got": got,
                    "why": verdict.detail,
                }
            )

    def summary(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "exact_match": _rate(self.exact, self.n),
            "tool_sequence_accuracy": _rate(self.tools, self.n),
            "typed_errors": self.errors,
            "insufficient_precision": _rate(self.tp, self.tp + self.fp),
            "insufficient_recall": _rate(self.tp, self.tp + self.fn),
            "insufficient_support": self.tp + self.fn,
            "by_family": {k: g.as_dict() for k, g in sorted(self.by_family.items())},
            "by_variant": {k: g.as_dict() for k, g in sorted(self.by_variant.items())},
            "by_lang": {k: g.as_dict() for k, g in sorted(self.by_lang.items())},
            "by_steps": {k: g.as_dict() for k, g in sorted(self.by_steps.items())},
            "failures": self.failures,
        }


def _steps_key(case: Case) -> str:
    if case.kind != "plan":
        return "insufficient"
    return "single_step" if case.n_steps == 1 else "multi_step"


def _dump(output: Output) -> Any:
    if output is None:
        return None
    return output.model_dump(mode="json", exclude_none=True, exclude={"thought_id", "created_at"})


# --------------------------------------------------------------------------- planners
def engine_plan_fn(engine: Any) -> PlanFn:
    """A :data:`PlanFn` over a :class:`~thought_model.engine.base.PlanEngine` (typed errors kept)."""
    from thought_model.engine.base import PlanRequest

    def run(batch: Sequence[tuple[str, SessionState]]) -> list[Output]:
        results = engine.generate([PlanRequest(text=t, session=s) for t, s in batch])
        return [r.error if r.error is not None else r.output for r in results]

    return run


def generator_plan_fn(gen: Any, tools: Sequence[ToolSpec], lexicon: Any = None) -> PlanFn:
    """A :data:`PlanFn` over :class:`thought_model.hf_planner.HFPlanGenerator` (constrained)."""
    from thought_model.grammar import PlanParseError
    from thought_model.output_parse import parse_output

    def run(batch: Sequence[tuple[str, SessionState]]) -> list[Output]:
        prepared = [gen.prepare(t, s) for t, s in batch]
        outs = gen.generate_prepared(prepared, constrained=True)
        res: list[Output] = []
        for (text, _), p, (_, s) in zip(outs, prepared, batch):
            try:
                res.append(parse_output(text, p.perception, s, tools, lexicon))
            except PlanParseError as exc:
                res.append(ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message=str(exc)[:300]))
        return res

    return run


def score_cases(
    cases: Sequence[Case],
    plan_fn: PlanFn,
    tools: Sequence[ToolSpec] | dict[str, dict],
    *,
    batch_size: int = 32,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Plan every case in batches and score it; returns :meth:`CaseReport.summary` plus
    ``seconds`` and per-case ``results`` (id, exact, output)."""
    schemas = arg_schemas(tools)
    report = CaseReport()
    t0 = time.time()
    for i in range(0, len(cases), batch_size):
        chunk = list(cases[i : i + batch_size])
        outs = plan_fn([(c.request, c.session) for c in chunk])
        for c, o in zip(chunk, outs):
            report.add(c, o, compare(c, o, schemas))
        if progress:
            progress(min(i + batch_size, len(cases)), len(cases))
    out = report.summary()
    out["seconds"] = round(time.time() - t0, 1)
    out["results"] = report.results
    return out


def format_report(name: str, s: dict[str, Any]) -> str:
    """A plain-text table of one report (for the CLI)."""

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}%"

    lines = [
        f"{name}: n={s['n']} exact {pct(s['exact_match'])}  tools {pct(s['tool_sequence_accuracy'])}  "
        f"insufficient P {pct(s['insufficient_precision'])} R {pct(s['insufficient_recall'])}  "
        f"typed errors {s['typed_errors']}  ({s.get('seconds', 0)} s)"
    ]
    for key in ("by_family", "by_variant", "by_lang", "by_steps"):
        parts = [f"{k} {pct(g['exact_match'])} ({g['n']})" for k, g in s[key].items()]
        lines.append(f"  {key[3:]:<8} " + "  ".join(parts))
    return "\n".join(lines)


# --------------------------------------------------------------------------- tao eval
def _load_engine(kind: str, checkpoint: str | None, registry: str | None, compose: bool | None) -> Any:
    from thought_model.engine import load_engine

    try:
        return load_engine(kind, checkpoint, registry=registry, compose=compose)
    except TypeError:  # a loader without the compose hook: wrap here
        from thought_model.compose import maybe_composing

        return maybe_composing(load_engine(kind, checkpoint, registry=registry), compose)


def main(argv: list[str] | None = None) -> int:
    """``tao eval --checkpoint DIR --cases FILE.jsonl [--json OUT] [--compose|--no-compose]``."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="tao eval", description="score a plan model on a case file")
    ap.add_argument("--checkpoint", default=None, help="model folder (default: the embedded default)")
    ap.add_argument("--cases", required=True, type=Path, help="case file (JSON Lines, see docs/model.md)")
    ap.add_argument("--json", type=Path, default=None, help="write the full report (per case) here")
    ap.add_argument("--engine", default="cpu", choices=("auto", "cpu", "vllm"))
    ap.add_argument(
        "--registry", default=None, metavar="MODULE:ATTR", help="tool domain (default: the checkpoint's)"
    )
    ap.add_argument(
        "--compose", dest="compose", action="store_true", default=None, help="hybrid ComposingEngine"
    )
    ap.add_argument("--no-compose", dest="compose", action="store_false", help="end-to-end model only")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--limit", type=int, default=None, help="only the first N cases")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        cases = load_cases(a.cases, a.limit)
    except (OSError, CaseFormatError) as exc:
        print(f"tao eval: {exc}", file=sys.stderr)
        return 2
    from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain

    ckpt = a.checkpoint or str(DEFAULT_CHECKPOINT)
    try:
        domain = checkpoint_domain(ckpt, a.registry)
        engine = _load_engine(a.engine, ckpt, a.registry, a.compose)
    except Exception as exc:  # no checkpoint, domain mismatch, engine unavailable
        print(f"tao eval: cannot load the model: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    try:
        report = score_cases(cases, engine_plan_fn(engine), domain.tools, batch_size=a.batch_size)
    finally:
        engine.close()
    report["checkpoint"], report["cases"], report["engine"] = ckpt, str(a.cases), engine.name
    print(format_report(f"{a.cases.name} ({engine.name})", report))
    if a.json:
        a.json.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
