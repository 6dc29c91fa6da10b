"""The run in progress: its trajectory and request, for transports that log into it (A2A).

:class:`~tao.loop.loop.TaoLoop` sets :data:`CURRENT_RUN` for the duration of one run; the steps it
starts inherit it (context variables are copied into tasks). ``state`` is per-run scratch space
for transports (the A2A root conversation lives there, shared by sibling steps).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from tao.trace.trajectory import Trajectory


@dataclass
class RunScope:
    trajectory: Trajectory
    request: str
    state: dict[str, Any] = field(default_factory=dict)


CURRENT_RUN: ContextVar[RunScope | None] = ContextVar("tao_current_run", default=None)


@contextlib.contextmanager
def run_scope(trajectory: Trajectory, request: str) -> Iterator[RunScope]:
    scope = RunScope(trajectory, request)
    token = CURRENT_RUN.set(scope)
    try:
        yield scope
    finally:
        CURRENT_RUN.reset(token)
