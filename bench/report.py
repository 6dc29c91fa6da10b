"""Builds ``bench/REPORT.md`` and the PNG plots under ``bench/plots/`` from ``bench/results/*.json``.

Ratios come first (every peer against the baseline measured in the same run), absolute numbers
follow as context. The report reads whatever a suite wrote: its ``summary``, its optional
``comparisons`` and ``plots`` (format in ``bench/suites/__init__.py`` and docs/bench.md), and
the runner's ``meta`` (machine, versions, commit, timestamps). ``python -m bench --report-only``
regenerates it without running anything.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import PLOTS_DIR, REPORT_PATH, RESULTS_DIR, read_json, utc_now
from bench.report_adapters import derive


@dataclass
class ReportConfig:
    results_dir: Path = RESULTS_DIR
    report_path: Path = REPORT_PATH
    plots_dir: Path = PLOTS_DIR
    expected: tuple[str, ...] = ()
    missing_now: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- formatting
def fmt(v: Any) -> str:
    """Compact human formatting of a summary value."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        a = abs(v)
        if a == 0:
            return "0"
        if a >= 1000:
            return f"{v:,.0f}"
        if a >= 10:
            return f"{v:.1f}"
        if a >= 0.01:
            return f"{v:.3g}"
        return f"{v:.2e}"
    if isinstance(v, (list, tuple)):
        return ", ".join(fmt(x) for x in v[:8]) + (" …" if len(v) > 8 else "")
    if isinstance(v, dict):
        return ", ".join(f"{k}={fmt(x)}" for k, x in list(v.items())[:8])
    return str(v).replace("|", "\\|").replace("\n", " ")


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def ratio_phrase(value: float | None, base: float | None, lower_is_better: bool) -> str:
    """'12.3× faster' / '1.5× slower' / 'baseline' wording of value against base."""
    if value is None or base is None or value == 0 or base == 0:
        return "–"
    r = (base / value) if lower_is_better else (value / base)
    if abs(r - 1) < 0.005:
        return "1.00× (same)"
    good, bad = ("better", "worse")
    return f"**{r:.2f}×** {good}" if r > 1 else f"{1 / r:.2f}× {bad}"


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")[:60] or "plot"


# ---------------------------------------------------------------------------- plots
def _bars(ax, series: dict) -> int:
    """Grouped bars: ``{group: {peer: value}}`` — one group per x position, one colour per peer."""
    groups = [g for g, v in series.items() if isinstance(v, dict)]
    peers = list(dict.fromkeys(p for g in groups for p in series[g]))
    if not groups or not peers:
        return 0
    width = 0.8 / len(peers)
    for i, peer in enumerate(peers):
        xs = [j + i * width for j in range(len(groups))]
        ys = [_num(series[g].get(peer)) or 0.0 for g in groups]
        ax.bar(xs, ys, width=width, label=str(peer))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(groups))], [str(g) for g in groups], fontsize=8)
    return len(peers)


def _plot(spec: dict, path: Path) -> Path | None:
    """Render one plot spec (cdf / hist / line) to PNG; None if it has no usable data."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind = spec.get("kind")
    series = spec.get("series") or {}
    if kind not in ("cdf", "hist", "line", "bar") or not isinstance(series, dict):
        return None
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    drawn = 0
    try:
        if kind == "bar":
            drawn = _bars(ax, series)
        for label, data in series.items() if kind != "bar" else ():
            if kind in ("cdf", "hist"):
                xs = sorted(x for x in (_num(v) for v in (data or [])) if x is not None)
                if not xs:
                    continue
                if kind == "cdf":
                    ys = [(i + 1) / len(xs) for i in range(len(xs))]
                    ax.step(xs, ys, where="post", label=f"{label} (n={len(xs)})")
                else:
                    ax.hist(
                        xs,
                        bins=min(50, max(5, int(math.sqrt(len(xs))))),
                        alpha=0.55,
                        label=f"{label} (n={len(xs)})",
                    )
            else:
                if not isinstance(data, dict):
                    continue
                pts = [
                    (x, y)
                    for x, y in zip(
                        map(_num, data.get("x") or []), map(_num, data.get("y") or []), strict=False
                    )
                    if x is not None and y is not None
                ]
                if not pts:
                    continue
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=str(label))
            drawn += 1
        if not drawn:
            return None
        if kind == "cdf":
            ax.set_ylabel(spec.get("ylabel", "fraction ≤ x"))
            ax.set_ylim(0, 1.02)
            ax.axhline(0.99, color="grey", lw=0.6, ls=":")
        else:
            ax.set_ylabel(spec.get("ylabel", "count" if kind == "hist" else ""))
        ax.set_xlabel(spec.get("xlabel", ""))
        if spec.get("logx"):
            ax.set_xscale("log")
        if spec.get("logy"):
            ax.set_yscale("log")
        if kind == "line" and spec.get("diagonal"):
            lo, hi = ax.get_xlim()
            ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--", label="y = x")
        ax.set_title(spec.get("title", ""))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path)
        return path
    finally:
        plt.close(fig)


# ---------------------------------------------------------------------------- sections
def _load_results(results_dir: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for p in sorted(results_dir.glob("*.json")):
        try:
            data = read_json(p)
        except Exception as exc:
            data = {"suite": p.stem, "status": "failed", "error": {"detail": f"unreadable result: {exc}"}}
        if isinstance(data, dict):
            if data.get("status", "ok") == "ok":
                data.update(derive(p.stem, data))
            out[p.stem] = data
    return out


def _comparison_rows(comparisons: list) -> list[str]:
    rows: list[str] = []
    for c in comparisons if isinstance(comparisons, list) else []:
        if not isinstance(c, dict) or not isinstance(c.get("values"), dict):
            continue
        base_name = c.get("baseline")
        values = c["values"]
        base = _num(values.get(base_name))
        lib = bool(c.get("lower_is_better", True))
        unit = c.get("unit", "")
        for peer, v in values.items():
            if peer == base_name:
                continue
            rows.append(
                f"| {fmt(c.get('name', ''))} | {fmt(peer)} | {ratio_phrase(_num(v), base, lib)} "
                f"| {fmt(base_name)} | {fmt(v)} {unit} vs {fmt(values.get(base_name))} {unit} |"
            )
    return rows


def _auto_ratio_rows(summary: dict) -> list[str]:
    """Summary keys that already are ratios (``*ratio*``, ``*speedup*``, ``*_x``)."""
    rows = []
    for k, v in summary.items():
        if _num(v) is not None and re.search(r"ratio|speedup|_x$|_vs_", k):
            rows.append(f"| {k} | **{fmt(v)}** |")
    return rows


def _suite_section(name: str, data: dict, cfg: ReportConfig, rel: Path) -> list[str]:
    meta = data.get("meta") or {}
    lines = [f"## {name}", ""]
    status = data.get("status", "ok")
    git = meta.get("git") or {}
    lines.append(
        f"Status **{status}**; {_run_kind(data)} run finished "
        f"{meta.get('finished_at', '?')} in {fmt(meta.get('duration_s'))} s at commit "
        f"`{(git.get('commit') or '?')[:12]}`{' (dirty tree)' if git.get('dirty') else ''}; "
        f"load average {fmt((meta.get('machine') or {}).get('loadavg_at_start'))} at start, "
        f"{fmt(meta.get('loadavg_at_end'))} at end ({fmt((meta.get('machine') or {}).get('cores'))} cores)."
    )
    lines.append("")
    if status != "ok":
        err = data.get("error") or {}
        lines += [f"Failure: {fmt(err.get('detail', 'unknown'))}", "", "```"]
        lines += [str(x) for x in (err.get("stderr_tail") or [])[-15:]]
        lines += ["```", ""]
        return lines
    if data.get("notes"):
        notes = data["notes"]
        lines += [("- " + "\n- ".join(map(str, notes))) if isinstance(notes, list) else str(notes), ""]
    for tab in data.get("tables") or []:
        lines += _table(tab)
    summary = data.get("summary") or {}
    if summary:
        lines += ["| summary | value |", "|---|---|"]
        lines += [f"| {k} | {fmt(v)} |" for k, v in summary.items()]
        lines.append("")
    for i, spec in enumerate(data.get("plots") or []):
        if not isinstance(spec, dict):
            continue
        png = cfg.plots_dir / f"{name}_{i:02d}_{_slug(spec.get('title', ''))}.png"
        if _plot(spec, png):
            lines += [f"![{spec.get('title', '')}]({_relpath(png, rel)})", ""]
    return lines


def _table(tab: Any) -> list[str]:
    """``{"title", "columns": [...], "rows": [[...], ...]}`` as a Markdown table."""
    if (
        not isinstance(tab, dict)
        or not isinstance(tab.get("columns"), list)
        or not isinstance(tab.get("rows"), list)
    ):
        return []
    cols = [fmt(c) for c in tab["columns"]]
    out = [f"**{fmt(tab.get('title', ''))}**", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in tab["rows"]:
        if isinstance(row, list):
            out.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return [*out, ""]


def _run_kind(data: dict) -> str:
    """'quick' / 'full' from the runner's meta, else the suite's own ``quick`` flag, else '?'."""
    q = (data.get("meta") or {}).get("quick", data.get("quick"))
    return "?" if q is None else ("quick" if q else "full")


def _relpath(p: Path, base: Path) -> str:
    try:
        return str(p.resolve().relative_to(base.resolve()))
    except ValueError:
        import os

        return os.path.relpath(p.resolve(), base.resolve())


def build_report(cfg: ReportConfig) -> Path:
    """Write the Markdown report (and its plots); returns its path."""
    results = _load_results(cfg.results_dir)
    names = list(dict.fromkeys([*cfg.expected, *results]))
    rel = cfg.report_path.parent
    for old in cfg.plots_dir.glob("*.png") if cfg.plots_dir.is_dir() else []:
        old.unlink()
    lines = [
        "# TAO Runtime benchmark report",
        "",
        f"Generated {utc_now()} by `python -m bench` from `{_relpath(cfg.results_dir, rel)}/*.json`. "
        "Every ratio compares peers measured in the same run on the same machine; absolute numbers "
        "are context for this machine only.",
        "",
    ]
    lines += [
        "| suite | status | run | commit | finished (UTC) | duration (s) |",
        "|---|---|---|---|---|---|",
    ]
    for n in names:
        d = results.get(n)
        if d is None:
            lines.append(f"| {n} | missing | – | – | – | – |")
            continue
        m = d.get("meta") or {}
        lines.append(
            f"| {n} | {d.get('status', 'ok')} | {_run_kind(d)} | "
            f"`{((m.get('git') or {}).get('commit') or '?')[:12]}` | {m.get('finished_at', '?')} | "
            f"{fmt(m.get('duration_s'))} |"
        )
    lines.append("")
    ratio_lines: list[str] = []
    for n in names:
        d = results.get(n)
        if not d or d.get("status") != "ok":
            continue
        rows = _comparison_rows(d.get("comparisons") or [])
        auto = _auto_ratio_rows(d.get("summary") or {})
        if rows:
            ratio_lines += [
                f"**{n}**",
                "",
                "| comparison | peer | vs baseline | baseline | absolute |",
                "|---|---|---|---|---|",
                *rows,
                "",
            ]
        if auto:
            ratio_lines += [
                f"**{n}** (ratios in its summary)",
                "",
                "| ratio | value |",
                "|---|---|",
                *auto,
                "",
            ]
    lines += ["## Ratios first", ""] + (ratio_lines or ["No suite reported a comparison yet.", ""])
    for n in names:
        if n in results:
            lines += _suite_section(n, results[n], cfg, rel)
        else:
            lines += [f"## {n}", "", f"Missing: `bench/suites/{n}.py` has not produced a result.", ""]
    lines += _machine_section(results)
    cfg.report_path.parent.mkdir(parents=True, exist_ok=True)
    cfg.report_path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    return cfg.report_path


def _machine_section(results: dict[str, dict]) -> list[str]:
    metas = [m for d in results.values() if isinstance(m := d.get("meta"), dict)]
    if not metas:
        return []
    m = metas[-1]
    mach = m.get("machine") or {}
    lines = [
        "## Machine and versions",
        "",
        f"{fmt(mach.get('cpu_model'))}, {fmt(mach.get('cores'))} cores "
        f"({fmt(mach.get('cores_usable'))} usable), {fmt(mach.get('memory_gib'))} GiB, {fmt(mach.get('os'))}; "
        f"load average at start {fmt(mach.get('loadavg_at_start'))}.",
        "",
    ]
    vers = m.get("versions") or {}
    lines += ["| package | version |", "|---|---|"] + [f"| {k} | {fmt(v)} |" for k, v in vers.items() if v]
    commits = {((x.get("git") or {}).get("commit") or "?")[:12] for x in metas}
    if len(commits) > 1:
        lines += [
            "",
            f"Note: results come from {len(commits)} different commits: {', '.join(sorted(commits))}.",
        ]
    return [*lines, ""]
