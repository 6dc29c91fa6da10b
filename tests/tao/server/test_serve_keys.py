"""``tao serve`` start-up rules for keys: a non-loopback bind needs keys; a bad keys file stops
start-up with a message (exit 2) before anything listens."""

from __future__ import annotations

import json

import pytest

from tao.server.auth import is_loopback
from tao.server.cli import main


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch):
    monkeypatch.delenv("TAO_API_KEY", raising=False)
    monkeypatch.delenv("TAO_KEYS_FILE", raising=False)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "example.org"])
def test_non_loopback_bind_without_keys_is_refused(host, capsys) -> None:
    assert main(["--host", host, "--no-model", "--port", "0"]) == 2
    assert "refusing to bind" in capsys.readouterr().err


def test_bad_keys_file_stops_start_up(tmp_path, capsys) -> None:
    bad = tmp_path / "keys.json"
    bad.write_text(json.dumps({"keys": [{"sha256": "nothex", "tenant": "a", "roles": ["run"]}]}))
    assert main(["--keys-file", str(bad), "--no-model", "--port", "0"]) == 2
    assert "sha256" in capsys.readouterr().err
    assert main(["--keys-file", str(tmp_path / "missing.json"), "--no-model", "--port", "0"]) == 2


def test_loopback_detection() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.8.9.1", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.2", "localhost.evil"))
