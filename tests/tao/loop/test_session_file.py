"""The file session store of ``tao run --session`` (tao/loop/session_file.py)."""

from __future__ import annotations

import pytest

from tao.contracts import SessionState
from tao.loop.session import SessionKeyError
from tao.loop.session_file import FileSessionStore


def test_put_get_expiry_and_tenants(tmp_path) -> None:
    t = [1000.0]
    store = FileSessionStore(tmp_path, ttl_s=60, clock=lambda: t[0])
    state = SessionState(session_id="s1", tenant="acme", memory={"conversation": {"turn": 1}})
    store.put(state)
    assert (tmp_path / "acme" / "s1.json").is_file()
    got = store.get("acme", "s1")
    assert got is not None and got.memory == {"conversation": {"turn": 1}}
    assert store.get("globex", "s1") is None  # another tenant, same session id
    t[0] += 61
    assert store.get("acme", "s1") is None  # expired (and removed)
    assert not (tmp_path / "acme" / "s1.json").exists()


def test_bad_keys_and_files(tmp_path) -> None:
    store = FileSessionStore(tmp_path)
    for tenant, sid in (("..", "s"), ("a/b", "s"), ("acme", "../x"), ("acme", "."), ("acme", "")):
        with pytest.raises(SessionKeyError):
            store.path(tenant, sid)
    with pytest.raises(SessionKeyError):
        store.put(SessionState(tenant="acme"))  # no session id
    (tmp_path / "acme").mkdir()
    (tmp_path / "acme" / "s2.json").write_text("{not json")
    assert store.get("acme", "s2") is None  # unreadable: a new conversation, not a crash
    # a file copied under another tenant's folder is refused
    store.put(SessionState(session_id="s3", tenant="acme"))
    (tmp_path / "globex").mkdir()
    (tmp_path / "globex" / "s3.json").write_bytes((tmp_path / "acme" / "s3.json").read_bytes())
    assert store.get("globex", "s3") is None
    store.delete("acme", "s3")
    assert store.get("acme", "s3") is None
