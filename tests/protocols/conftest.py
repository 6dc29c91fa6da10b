"""Fixtures of the protocol tests: real `tao serve` processes and in-thread servers on loopback."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))  # serve_helpers: ServeProcess, ThreadServer, wait_http
