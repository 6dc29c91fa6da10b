"""Runs one suite in its own process for the runner (``bench/__main__.py``).

``python -m bench.worker NAME [--quick] --out PATH`` imports ``bench.suites.NAME``, calls its
``run(quick)`` and writes the returned dict to PATH as JSON. Exit codes: 0 ok, 1 the suite raised
or returned something that is not a result (the reason is printed on stderr), 3 no such suite
module. A separate process keeps a crashing or hanging suite from taking the runner down and lets
the runner enforce a timeout.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from pathlib import Path

from bench.common import write_json

EXIT_OK, EXIT_FAILED, EXIT_MISSING = 0, 1, 3
SUITES_PATH_ENV = "BENCH_SUITES_PATH"  # extra folders (os.pathsep-separated) searched for suite modules


def extend_suite_path() -> list[str]:
    """Append the folders in ``$BENCH_SUITES_PATH`` to ``bench.suites.__path__`` (out-of-tree
    suites, e.g. a user's own or the runner's tests); returns the folders added."""
    import bench.suites

    added = [
        d
        for d in os.environ.get(SUITES_PATH_ENV, "").split(os.pathsep)
        if d and d not in bench.suites.__path__
    ]
    bench.suites.__path__.extend(added)
    return added


def check_result(name: str, result: object) -> dict:
    """The suite interface: a dict with a ``summary`` dict. Raises TypeError otherwise."""
    if not isinstance(result, dict):
        raise TypeError(f"bench.suites.{name}.run() returned {type(result).__name__}, expected dict")
    if not isinstance(result.get("summary"), dict):
        raise TypeError(f"bench.suites.{name}.run() result has no 'summary' object")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.worker")
    ap.add_argument("name")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    module_name = f"bench.suites.{args.name}"
    extend_suite_path()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            print(f"suite {args.name!r} is missing ({module_name} does not exist)", file=sys.stderr)
            return EXIT_MISSING
        traceback.print_exc()
        return EXIT_FAILED
    except Exception:
        traceback.print_exc()
        return EXIT_FAILED
    run = getattr(module, "run", None)
    if not callable(run):
        print(f"{module_name} has no run(quick) function", file=sys.stderr)
        return EXIT_FAILED
    try:
        result = check_result(args.name, run(quick=args.quick))
        write_json(args.out, result)
    except Exception:
        traceback.print_exc()
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
