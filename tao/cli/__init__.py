"""The ``tao`` command. Each subcommand lives in the module that owns the feature; this file
only dispatches, so ``tao --help`` stays fast (no torch import)."""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> (module, function, one-line help). The function takes argv (list[str]) -> int.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "train": ("training.cli", "main", "train the plan model (tokenizer, data, model, eval)"),
    "plan": ("tao.cli.plan_cli", "main", "print a resolved ThoughtPlan for a request"),
    "run": ("tao.cli.run_cli", "main", "run the whole TAO loop for a request and print the trajectory"),
    "serve": ("tao.server.cli", "main", "start the HTTP serving binary"),
    "bench": ("bench.__main__", "main", "run the benchmark suites and write the report"),
    "schemas": ("tao.contracts.export", "main", "export the contracts' JSON Schemas to schemas/"),
    "eval": ("training.cases", "main", "score a plan model on a case file (docs/model.md)"),
    "upstream-mock": ("router.testing.upstream", "main", "a local OpenAI-compatible upstream (port 9100)"),
    "mcp": ("tao.server.mcp_server", "main", "serve the runtime as an MCP server (stdio or streamable HTTP)"),
}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tao", description="TAO Runtime: Thought-Action-Observation loop runtime"
    )
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, _, help_) in COMMANDS.items():
        sub.add_parser(name, help=help_, add_help=False)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = _parser()
    if not argv or argv[0] not in COMMANDS:
        ap.parse_args(argv)  # prints help / errors for unknown commands
        ap.print_help()
        return 2
    name, rest = argv[0], argv[1:]
    module_name, func_name, _ = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
        func = getattr(module, func_name)
    except (ImportError, AttributeError) as exc:
        if getattr(exc, "name", None) not in (module_name, func_name):
            raise
        print(f"tao {name}: not implemented yet ({module_name}.{func_name} is missing)", file=sys.stderr)
        return 2
    return int(func(rest) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
