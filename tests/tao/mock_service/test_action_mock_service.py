"""The mock tool service as a process (``python -m tao.mock_service``): serves the reference
tools, injects faults reproducibly from a seed, exposes counters and admin endpoints."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tao.domains.reference.mock import HANDLERS
from tao.domains.reference.registry import reference_registry

ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*args: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tao.mock_service", "--port", str(port), *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz", timeout=0.5).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("mock service did not start: " + proc.stderr.read().decode()[-500:])


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    if proc.stderr:
        proc.stderr.close()


def test_every_reference_tool_is_served() -> None:
    assert set(HANDLERS) == set(reference_registry())


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_process_with_seeded_fault_rates() -> None:
    seqs = []
    for _ in range(2):
        proc, url = _start("--malformed-rate", "0.3", "--error-rate", "0.2", "--seed", "11")
        try:
            with httpx.Client(base_url=url, timeout=5) as c:
                seq = []
                for _ in range(40):
                    r = c.post("/tools/get_invoice", json={"invoice_id": "INV0000000001"})
                    seq.append(
                        "500"
                        if r.status_code == 500
                        else "ok"
                        if r.headers["content-type"].startswith("application/json") and _is_json(r.content)
                        else "malformed"
                    )
                stats = c.get("/_stats").json()
                # per-request header wins over the configured rates
                assert (
                    c.post(
                        "/tools/get_invoice",
                        json={"invoice_id": "INV0000000001"},
                        headers={"X-Mock-Fault": "503"},
                    ).status_code
                    == 503
                )
                assert c.post("/tools/nope", json={}).status_code == 404
                assert c.post("/tools/get_invoice", content=b"not json").status_code == 400
                assert c.post("/_config", json={"no_such": 1}).status_code == 400
                assert c.post("/_config", json={"error_rate": 0.0, "malformed_rate": 0.0}).status_code == 200
                assert c.post("/tools/get_invoice", json={"invoice_id": "INV0000000001"}).status_code == 200
                assert (
                    c.post("/_patch", json={"tool": "get_invoice", "patch": {"title": "X"}}).status_code
                    == 200
                )
                assert (
                    c.post("/tools/get_invoice", json={"invoice_id": "INV0000000001"}).json()["title"] == "X"
                )
                assert c.post("/_reset").json() == {"ok": True} and c.get("/_stats").json()["calls"] == {}
        finally:
            _stop(proc)
        seqs.append(seq)
        assert stats["faults"]["malformed"] == seq.count("malformed") and stats["faults"]["500"] == seq.count(
            "500"
        )
    assert seqs[0] == seqs[1]  # same seed, same faults
    n = len(seqs[0])
    assert 0.1 * n <= seqs[0].count("malformed") <= 0.5 * n and 0.05 * n <= seqs[0].count("500") <= 0.4 * n


def _is_json(raw: bytes) -> bool:
    import orjson

    try:
        orjson.loads(raw)
        return True
    except orjson.JSONDecodeError:
        return False


@pytest.mark.slow
def test_bad_arguments_exit_cleanly() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "tao.mock_service", "--timeout-rate", "0.8", "--error-rate", "0.5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "sum to at most 1" in r.stderr and "Traceback" not in r.stderr
