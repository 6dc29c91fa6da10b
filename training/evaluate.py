"""Evaluate a plan-model checkpoint on the generated splits (``python -m training.evaluate``).

For each split, plans are generated greedily with Hugging Face ``generate`` twice: constrained by
the output grammar (xgrammar logits processor) and unconstrained. Metrics come from the
constrained run (what the runtime uses); the unconstrained run gives the schema-valid rate
without constraints. Results go to ``<checkpoint>/eval.json`` and are printed as a table.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from tao.domains import reference_domain
from thought_model.checkpoint import checkpoint_domain
from thought_model.grammar import PlanParseError, output_json_schema
from thought_model.hf_planner import HFPlanGenerator
from thought_model.output_parse import parse_output
from training.dataset import read_jsonl, row_session
from training.generate import SPLITS
from training.metrics import SplitMetrics

EXTERNAL_SPLITS = ("handwritten", "independent")
"""Hand-written evaluation sets a domain ships (``Domain.eval_sets``; the reference domain's live in
``tao/domains/reference/eval_sets/``), not generated from templates. ``handwritten`` is in the
generated-row format; ``independent`` in the case format, scored by :mod:`training.cases` (all its
rows, ``--n`` does not cut it)."""
CASE_SPLITS = ("independent",)
EVAL_SPLITS = [s for s in SPLITS if s != "train"] + list(EXTERNAL_SPLITS)


def split_path(data_dir: str | Path, split: str, eval_sets: Mapping[str, Path] | None = None) -> Path:
    """Where a split's rows are: ``data_dir/<split>.jsonl``, or the domain's file for an external set
    (``eval_sets`` default: the reference domain's)."""
    path = Path(data_dir) / f"{split}.jsonl"
    if not path.exists() and split in EXTERNAL_SPLITS:
        sets = reference_domain().eval_sets if eval_sets is None else eval_sets
        return Path(sets.get(split, path))
    return path


@dataclass
class EvalConfig:
    checkpoint: str = "thought_model/checkpoints/default"
    data_dir: str = "runs/default-data"
    n: int = 200  # rows per split
    batch_size: int = 48
    unconstrained: bool = True
    unconstrained_n: int = 64  # rows per split also decoded without the grammar (slow: no early stop)
    out: str | None = None  # default: <checkpoint>/eval.json
    splits: tuple[str, ...] = tuple(EVAL_SPLITS)
    progress: bool = True
    num_threads: int | None = None
    max_new_tokens: int = 160
    composed: bool = True  # case sets also through the composing engine (what tao serve / tao run plan with)


def _validator(schema: dict[str, Any]):
    import jsonschema_rs

    v = jsonschema_rs.validator_for(schema)

    def ok(text: str) -> bool:
        try:
            return bool(v.is_valid(json.loads(text)))
        except (json.JSONDecodeError, ValueError):
            return False

    return ok


def evaluate_checkpoint(cfg: EvalConfig) -> dict[str, Any]:
    """Run the evaluation and write ``eval.json``; returns the report."""
    if cfg.num_threads:
        torch.set_num_threads(cfg.num_threads)
    domain = checkpoint_domain(cfg.checkpoint, full=True)
    tools = domain.tools
    gen = HFPlanGenerator.load(cfg.checkpoint, tools=tools, domain=domain)
    gen.max_new_tokens = cfg.max_new_tokens
    valid = _validator(output_json_schema(tools, gen.intents, lexicon=domain.lexicon))
    report: dict[str, Any] = {"checkpoint": cfg.checkpoint, "config": asdict(cfg), "splits": {}}
    t0 = time.time()
    for split in cfg.splits:
        path = split_path(cfg.data_dir, split, domain.eval_sets)
        if not path.exists():
            continue
        if split in CASE_SPLITS:
            report["splits"][split] = _case_split(path, gen, domain, cfg)
            continue
        rows = read_jsonl(path, limit=cfg.n)
        m = SplitMetrics()
        t_split = time.time()
        for i in range(0, len(rows), cfg.batch_size):
            chunk = rows[i : i + cfg.batch_size]
            sessions = [row_session(r) for r in chunk]
            prepared = [gen.prepare(r["request"], s) for r, s in zip(chunk, sessions)]
            outs = gen.generate_prepared(prepared, constrained=True)
            for r, s, p, (text, ntok) in zip(chunk, sessions, prepared, outs):
                try:
                    pred = parse_output(text, p.perception, s, tools, domain.lexicon).model_dump(mode="json")
                except PlanParseError:
                    pred = None
                m.add(r["expected"], pred, valid(text), ntok, r["request"], text)
            if cfg.unconstrained and i < cfg.unconstrained_n:
                sub = prepared[: max(0, cfg.unconstrained_n - i)]
                for text, _ in gen.generate([p.text for p in sub], constrained=False):
                    m.add_unconstrained(valid(text))
            if cfg.progress:
                print(f"  {split}: {min(i + cfg.batch_size, len(rows))}/{len(rows)}", flush=True)
        summary = m.summary()
        summary["seconds"] = round(time.time() - t_split, 1)
        summary["failures"] = m.failures[:8]
        report["splits"][split] = summary
    report["seconds"] = round(time.time() - t0, 1)
    out = Path(cfg.out) if cfg.out else Path(cfg.checkpoint) / "eval.json"
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print_table(report)
    return report


def _case_split(path: Path, gen: HFPlanGenerator, domain: Any, cfg: EvalConfig) -> dict[str, Any]:
    """A case-format set scored by :func:`training.cases.score_cases` (constrained decoding)."""
    from training.cases import generator_plan_fn, load_cases, score_cases

    cases = load_cases(path)

    def progress(i: int, n: int) -> None:
        if cfg.progress:
            print(f"  {path.stem}: {i}/{n}", flush=True)

    summary = score_cases(
        cases,
        generator_plan_fn(gen, domain.tools, domain.lexicon),
        domain.tools,
        batch_size=cfg.batch_size,
        progress=progress,
    )
    summary.pop("results", None)
    summary["failures"] = summary["failures"][:8]
    summary["format"] = "cases"
    if cfg.composed:
        summary["composed"] = _composed(cases, domain, cfg)
    return summary


COMPOSED_KEYS = (
    "n",
    "exact_match",
    "tool_sequence_accuracy",
    "insufficient_precision",
    "insufficient_recall",
    "by_family",
)


def _composed(cases: list, domain: Any, cfg: EvalConfig) -> dict[str, Any]:
    """The same cases through ``load_engine(compose=True)`` (the engine ``tao serve`` plans with for
    this checkpoint: its own lexicon, intent plans and enum words); aggregates only."""
    from thought_model.engine import load_engine
    from thought_model.engine.loader import EngineLoadError
    from training.cases import engine_plan_fn, score_cases

    try:
        engine = load_engine("cpu", cfg.checkpoint, compose=True)
    except EngineLoadError as e:
        return {"error": str(e)}
    s = score_cases(cases, engine_plan_fn(engine), domain.tools, batch_size=cfg.batch_size)
    return {k: s[k] for k in COMPOSED_KEYS if k in s}


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    cols = [
        ("exact_match", "exact"),
        ("intent_accuracy", "intent"),
        ("tool_sequence_accuracy", "tools"),
        ("dependency_accuracy", "deps"),
        ("argument_accuracy", "args"),
        ("insufficient_precision", "ins P"),
        ("insufficient_recall", "ins R"),
        ("schema_valid_constrained", "valid(c)"),
        ("schema_valid_unconstrained", "valid(u)"),
        ("tokens_per_plan", "tok/plan"),
    ]
    t = Table(title=f"plan model eval: {report['checkpoint']}")
    t.add_column("split")
    t.add_column("n", justify="right")
    for _, name in cols:
        t.add_column(name, justify="right")
    for split, s in report["splits"].items():
        vals = []
        for key, _ in cols:
            v = s.get(key)
            vals.append("-" if v is None else (f"{v:.1f}" if key == "tokens_per_plan" else f"{100 * v:.1f}%"))
        t.add_row(split, str(s["n"]), *vals)
    console = Console(width=160)
    console.print(t)
    for split, s in report["splits"].items():
        if s.get("format") != "cases":
            continue
        for key in ("by_family", "by_variant", "by_lang", "by_steps"):
            parts = [f"{k} {_pct(g['exact_match'])} ({g['n']})" for k, g in s[key].items()]
            console.print(f"  {split} exact {key[3:]}: " + "  ".join(parts))
        c = s.get("composed")
        if c and "exact_match" in c:
            fam = "  ".join(f"{k} {_pct(g['exact_match'])} ({g['n']})" for k, g in c["by_family"].items())
            console.print(
                f"  {split} composed (tao serve's engine): exact {_pct(c['exact_match'])}  tools "
                f"{_pct(c.get('tool_sequence_accuracy'))}  ins P {_pct(c.get('insufficient_precision'))}  "
                f"ins R {_pct(c.get('insufficient_recall'))}  family: {fam}"
            )
        elif c:
            console.print(f"  {split} composed: {c.get('error')}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=(__doc__ or "").splitlines()[0]
    )
    ap.add_argument("--checkpoint", default=EvalConfig.checkpoint)
    ap.add_argument("--data-dir", default=EvalConfig.data_dir)
    ap.add_argument("--n", type=int, default=EvalConfig.n)
    ap.add_argument("--batch-size", type=int, default=EvalConfig.batch_size)
    ap.add_argument("--no-unconstrained", action="store_true")
    ap.add_argument(
        "--unconstrained-n",
        type=int,
        default=EvalConfig.unconstrained_n,
        help="rows per split also decoded without the grammar",
    )
    ap.add_argument("--out")
    ap.add_argument("--splits", nargs="*", default=EVAL_SPLITS)
    ap.add_argument("--num-threads", type=int)
    a = ap.parse_args(argv)
    if not Path(a.checkpoint, "config.json").exists():
        print(f"evaluate: no checkpoint at {a.checkpoint}", flush=True)
        return 2
    if not any(split_path(a.data_dir, s).exists() for s in a.splits):
        print(
            f"evaluate: no generated data at {a.data_dir} (run python -m training.generate --out {a.data_dir})"
        )
        return 2
    evaluate_checkpoint(
        EvalConfig(
            checkpoint=a.checkpoint,
            data_dir=a.data_dir,
            n=a.n,
            batch_size=a.batch_size,
            unconstrained=not a.no_unconstrained,
            unconstrained_n=a.unconstrained_n,
            out=a.out,
            splits=tuple(a.splits),
            num_threads=a.num_threads,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
