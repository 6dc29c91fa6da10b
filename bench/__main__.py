"""``python -m bench [SUITE ...] [--quick]`` (also ``tao bench``): run benchmark suites, record
machine/versions/commit with each result, write ``bench/results/<suite>.json`` and regenerate
``bench/REPORT.md`` with its plots.

Each suite runs in its own process (``bench.worker``) under a timeout. A suite module that does
not exist yet is reported as *missing*; one that raises, returns a malformed result or times out
is recorded as *failed* (its JSON says why and the report shows it) and the runner exits 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import (
    PLOTS_DIR,
    REPORT_PATH,
    RESULTS_DIR,
    ROOT,
    git_info,
    machine_info,
    read_json,
    utc_now,
    versions,
    write_json,
)
from bench.worker import EXIT_MISSING, EXIT_OK, SUITES_PATH_ENV, extend_suite_path

SUITES = ("validator", "plan", "estimator", "router", "load", "chaos", "routing")
RESERVED = ("suite", "status", "meta", "error")


@dataclass
class RunConfig:
    """What to run and where to write it."""

    suites: tuple[str, ...] = SUITES
    quick: bool = False
    results_dir: Path = RESULTS_DIR
    report_path: Path = REPORT_PATH
    plots_dir: Path = PLOTS_DIR
    make_report: bool = True
    timeout_s: float | None = None  # per suite; default 240 s quick, 3 h full
    explicit: bool = False  # suites were named on the command line (missing ones then fail the run)


@dataclass
class SuiteOutcome:
    name: str
    status: str  # ok | failed | timeout | missing
    duration_s: float = 0.0
    detail: str = ""
    path: Path | None = None
    stderr_tail: list[str] = field(default_factory=list)


def suite_exists(name: str) -> bool:
    """Whether ``bench.suites.<name>`` can be found (without importing it)."""
    extend_suite_path()
    return importlib.util.find_spec(f"bench.suites.{name}") is not None


def _exit_detail(rc: int) -> str:
    """Human wording of a worker's exit status (negative = killed by a signal)."""
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "unknown signal"
        why = {
            "SIGSEGV": " — a crash in native code",
            "SIGBUS": " — a crash in native code",
            "SIGABRT": " — an abort in native code",
            "SIGKILL": " — e.g. the OOM killer",
        }.get(name, "")
        return f"worker killed by signal {-rc} ({name}){why}"
    return f"worker exit code {rc}"


def _pump(stream, tail: deque, echo: bool) -> None:
    for line in iter(stream.readline, ""):
        tail.append(line.rstrip("\n"))
        if echo:
            sys.stderr.write(line)
            sys.stderr.flush()
    stream.close()


def run_suite(name: str, cfg: RunConfig, echo: bool = True) -> SuiteOutcome:
    """Run one suite in a worker process and write its result JSON (also on failure)."""
    if not suite_exists(name):
        return SuiteOutcome(name, "missing", detail=f"bench/suites/{name}.py does not exist yet")
    timeout = cfg.timeout_s or (240.0 if cfg.quick else 3 * 3600.0)
    meta = {
        "quick": cfg.quick,
        "started_at": utc_now(),
        "machine": machine_info(),
        "versions": versions(),
        "git": git_info(),
        "timeout_s": timeout,
    }
    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, "-m", "bench.worker", name, "--out", str(out)] + (
            ["--quick"] if cfg.quick else []
        )
        tail: deque[str] = deque(maxlen=40)
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=sys.stderr if echo else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        pump = threading.Thread(target=_pump, args=(proc.stderr, tail, echo), daemon=True)
        pump.start()
        try:
            rc = proc.wait(timeout=timeout)
            status = {EXIT_OK: "ok", EXIT_MISSING: "missing"}.get(rc, "failed")
            detail = "" if rc == EXIT_OK else _exit_detail(rc)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            rc, status, detail = None, "timeout", f"killed after the {timeout:.0f} s suite timeout"
        pump.join(timeout=5)
        duration = time.perf_counter() - t0
        result = read_json(out) if (status == "ok" and out.exists()) else {}
    if status == "ok" and not result:
        status, detail = "failed", "worker exited 0 without writing a result"
    if status == "missing":
        return SuiteOutcome(name, "missing", duration, "\n".join(tail)[-300:] or "suite module missing")
    meta.update(
        finished_at=utc_now(),
        duration_s=round(duration, 3),
        exit_code=rc,
        loadavg_at_end=[round(x, 2) for x in os.getloadavg()],
    )
    record = {"suite": name, "status": status, "meta": meta}
    if status != "ok":
        record["error"] = {"detail": detail, "stderr_tail": list(tail)}
        record["summary"] = {}
    record.update({k: v for k, v in result.items() if k not in RESERVED})
    path = write_json(cfg.results_dir / f"{name}.json", record)
    return SuiteOutcome(name, status, duration, detail, path, list(tail))


def run(cfg: RunConfig, echo: bool = True) -> tuple[int, list[SuiteOutcome]]:
    """Run the configured suites, then the report. Returns (exit code, outcomes)."""
    outcomes: list[SuiteOutcome] = []
    for name in cfg.suites:
        print(f"[bench] {name}: running{' (quick)' if cfg.quick else ''} ...", file=sys.stderr, flush=True)
        o = run_suite(name, cfg, echo=echo)
        outcomes.append(o)
        msg = f"[bench] {name}: {o.status} in {o.duration_s:.1f} s"
        if o.status != "ok":
            msg += f" ({o.detail})"
        print(msg, file=sys.stderr, flush=True)
    failed = [
        o for o in outcomes if o.status in ("failed", "timeout") or (o.status == "missing" and cfg.explicit)
    ]
    code = 1 if failed else 0
    if cfg.make_report:
        from bench.report import ReportConfig, build_report  # matplotlib only when reporting

        missing = [o.name for o in outcomes if o.status == "missing"]
        try:
            path = build_report(
                ReportConfig(
                    results_dir=cfg.results_dir,
                    report_path=cfg.report_path,
                    plots_dir=cfg.plots_dir,
                    expected=SUITES,
                    missing_now=missing,
                )
            )
            print(f"[bench] report: {path}", file=sys.stderr)
        except Exception as exc:
            print(f"[bench] report failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            code = 1
    return code, outcomes


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench", description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument(
        "suites", nargs="*", metavar="SUITE", help=f"suites to run (default: all of {', '.join(SUITES)})"
    )
    ap.add_argument("--quick", action="store_true", help="short versions of the suites (smoke test)")
    ap.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    ap.add_argument("--report", type=Path, default=REPORT_PATH, dest="report_path")
    ap.add_argument("--plots-dir", type=Path, default=PLOTS_DIR)
    ap.add_argument("--no-report", action="store_true", help="only write the results JSON")
    ap.add_argument("--report-only", action="store_true", help="regenerate the report from existing results")
    ap.add_argument("--timeout", type=float, default=None, help="per-suite timeout in seconds")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    unknown = [
        s
        for s in args.suites
        if s not in SUITES and not (os.environ.get(SUITES_PATH_ENV) and s.isidentifier() and suite_exists(s))
    ]
    if unknown:
        print(
            f"python -m bench: unknown suite(s) {', '.join(unknown)}; choose from {', '.join(SUITES)}",
            file=sys.stderr,
        )
        return 2
    if args.timeout is not None and args.timeout <= 0:
        print("python -m bench: --timeout must be positive", file=sys.stderr)
        return 2
    cfg = RunConfig(
        suites=tuple(dict.fromkeys(args.suites)) or SUITES,
        quick=args.quick,
        results_dir=args.results_dir,
        report_path=args.report_path,
        plots_dir=args.plots_dir,
        make_report=not args.no_report,
        timeout_s=args.timeout,
        explicit=bool(args.suites),
    )
    if args.report_only:
        cfg.suites = ()
    code, _ = run(cfg)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
