"""``python -m tao.mock_service --port P [--timeout-rate R ...]``: serve the mock tools."""

from __future__ import annotations

import argparse
from datetime import date

import uvicorn

from tao.domains import load_domain
from tao.mock_service.app import FaultConfig, MockState, create_app


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tao.mock_service", description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8091)
    ap.add_argument("--timeout-rate", type=float, default=0.0, help="share of calls that hang then 504")
    ap.add_argument("--malformed-rate", type=float, default=0.0, help="share of calls with truncated JSON")
    ap.add_argument("--error-rate", type=float, default=0.0, help="share of calls answered 500")
    ap.add_argument("--slow-rate", type=float, default=0.0, help="share of calls delayed by --slow-s")
    ap.add_argument("--hang-s", type=float, default=10.0)
    ap.add_argument("--slow-s", type=float, default=1.5)
    ap.add_argument("--seed", type=int, default=7, help="seed of the fault draws and the data")
    ap.add_argument(
        "--today", type=date.fromisoformat, default=None, help="date the demo data is built around"
    )
    ap.add_argument(
        "--registry",
        default=None,
        metavar="MODULE:ATTR",
        help="tool domain whose mock handlers to serve (default: $TAO_REGISTRY, else tao.domains.reference:domain)",
    )
    ap.add_argument(
        "--no-dedup",
        action="store_true",
        help="ignore Idempotency-Key: every non-idempotent call performs its side effect",
    )
    a = ap.parse_args(argv)
    rates = (a.timeout_rate, a.malformed_rate, a.error_rate, a.slow_rate)
    if any(r < 0 or r > 1 for r in rates) or sum(rates) > 1:
        ap.error("fault rates must be in [0, 1] and sum to at most 1")
    faults = FaultConfig(
        timeout_rate=a.timeout_rate,
        malformed_rate=a.malformed_rate,
        error_rate=a.error_rate,
        slow_rate=a.slow_rate,
        hang_s=a.hang_s,
        slow_s=a.slow_s,
        seed=a.seed,
    )
    domain = load_domain(a.registry)
    app = create_app(
        MockState(faults=faults, data_seed=a.seed, today=a.today, domain=domain, dedup=not a.no_dedup)
    )
    uvicorn.run(app, host=a.host, port=a.port, log_level="warning", ws="none", timeout_keep_alive=5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
