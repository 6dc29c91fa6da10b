"""``tao.server.gc_freeze``: the start-up heap is frozen once every readiness probe passes (never
before), in a real ``tao serve`` process; ``TAO_GC_FREEZE=0`` leaves the collector as it is."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from tao.server.config import ServerConfig
from tao.server.gc_freeze import freeze_when_ready, ready

ROOT = Path(__file__).resolve().parents[3]


def _app(probes: dict) -> SimpleNamespace:
    return SimpleNamespace(state=SimpleNamespace(readiness=probes))


def test_ready_needs_every_probe_and_an_app_without_probes_is_ready() -> None:
    assert ready(SimpleNamespace(state=SimpleNamespace()))
    assert ready(_app({"a": lambda: (True, "ok")}))
    assert not ready(_app({"a": lambda: (True, "ok"), "b": lambda: (False, "loading")}))


def test_freeze_waits_until_the_replica_is_ready() -> None:
    state = {"ok": False}

    async def scenario() -> tuple[int, int, int]:
        app = _app({"engine": lambda: (state["ok"], "loaded" if state["ok"] else "loading")})
        task = asyncio.create_task(freeze_when_ready(app, poll_s=0.01))
        await asyncio.sleep(0.1)
        before = gc.get_freeze_count()
        assert not task.done()  # still loading: nothing frozen yet
        state["ok"] = True
        count = await asyncio.wait_for(task, 5)
        return before, count, gc.get_freeze_count()

    gc.unfreeze()
    try:
        before, count, after = asyncio.run(scenario())
    finally:
        gc.unfreeze()  # the test process's own heap goes back to the collector
    assert before == 0
    assert count > 1000 and after > 1000  # (frozen objects freed by refcount leave the count)


def test_it_freezes_again_what_the_first_traffic_kept() -> None:
    counts: list[int] = []
    kept: list[list[int]] = []

    async def scenario() -> int:
        app = _app({})
        task = asyncio.create_task(
            freeze_when_ready(app, poll_s=0.01, again_after_s=(0.2,), on_freeze=counts.append)
        )
        await asyncio.sleep(0.05)
        first = gc.get_freeze_count()
        kept.extend([i] for i in range(20_000))  # long-lived containers made after the first freeze
        await asyncio.wait_for(task, 5)
        return first

    gc.unfreeze()
    try:
        first = asyncio.run(scenario())
    finally:
        gc.unfreeze()
    assert first > 1000
    assert len(counts) == 1 and counts[0] >= first + 20_000  # the second freeze took them too


def test_config_default_and_env_switch(monkeypatch) -> None:
    assert ServerConfig().gc_freeze is True
    monkeypatch.setenv("TAO_GC_FREEZE", "0")
    assert ServerConfig.from_env().gc_freeze is False
    monkeypatch.setenv("TAO_GC_FREEZE", "1")
    assert ServerConfig.from_env().gc_freeze is True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gauge(port: int) -> float | None:
    try:
        r = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2)
    except httpx.HTTPError:
        return None
    m = re.search(r"^tao_gc_frozen_objects (\S+)$", r.text, re.M)
    return float(m.group(1)) if m else 0.0  # switched off: the gauge is never registered


def _frozen_gauge(env_extra: dict[str, str], settle_s: float) -> float | None:
    """The gauge of a real ``tao serve --no-model`` ``settle_s`` after /metrics first answers
    (or as soon as it is non-zero)."""
    port = _free_port()
    cmd = [sys.executable, "-m", "tao", "serve", "--port", str(port), "--no-model", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **env_extra}, stdout=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 120
        while (value := _gauge(port)) is None:
            assert proc.poll() is None, f"tao serve exited with {proc.returncode}"
            assert time.monotonic() < end, "tao serve did not answer /metrics within 120 s"
            time.sleep(0.2)
        settle = time.monotonic() + settle_s
        while not value and time.monotonic() < settle:
            time.sleep(0.2)
            value = _gauge(port)
        return value
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.slow
def test_a_real_server_freezes_its_start_up_heap_and_the_switch_turns_it_off() -> None:
    on = _frozen_gauge({"TAO_GC_FREEZE": "1"}, settle_s=20)
    assert on is not None and on > 50_000  # modules, contracts, FastAPI: a big start-up heap
    assert _frozen_gauge({"TAO_GC_FREEZE": "0"}, settle_s=3) == 0.0
