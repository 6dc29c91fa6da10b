"""A session store in local files, for ``tao run --session ID`` (one conversation across CLI calls).

One JSON file per (tenant, session): ``{root}/{tenant}/{session_id}.json`` holding the expiry
(epoch seconds) and the SessionState JSON; written atomically (temporary file + rename), so a
killed ``tao run`` leaves the previous snapshot. Tenants and session ids are the same safe keys as
the other stores (``[A-Za-z0-9_.:-]{1,128}``, and never ``.`` or ``..``), so a key cannot leave the
root folder. Default root: ``$TAO_SESSION_DIR``, else ``~/.cache/tao/sessions``.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tao.contracts import SessionState
from tao.loop.session import SessionKeyError

_SAFE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


def default_session_dir() -> Path:
    env = os.environ.get("TAO_SESSION_DIR")
    return Path(env) if env else Path.home() / ".cache" / "tao" / "sessions"


def _key(what: str, v: str) -> str:
    if not isinstance(v, str) or not _SAFE.match(v) or v in (".", ".."):
        raise SessionKeyError(f"invalid {what}: {v!r} (allowed: letters, digits, _ . : -, up to 128)")
    return v


@dataclass
class FileSessionStore:
    root: Path = field(default_factory=default_session_dir)
    ttl_s: float = 7 * 86400.0
    clock: Callable[[], float] = time.time

    def path(self, tenant: str, session_id: str) -> Path:
        return Path(self.root) / _key("tenant", tenant) / (_key("session_id", session_id) + ".json")

    def get(self, tenant: str, session_id: str) -> SessionState | None:
        p = self.path(tenant, session_id)
        try:
            rec = json.loads(p.read_text(encoding="utf-8"))
            if self.clock() >= float(rec["expires"]):
                p.unlink(missing_ok=True)
                return None
            state = SessionState.model_validate(rec["state"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent, unreadable or from another version: a new conversation
        if state.tenant != tenant or state.session_id != session_id:
            return None
        return state

    def put(self, state: SessionState, ttl_s: float | None = None) -> None:
        if not state.session_id:
            raise SessionKeyError("a session snapshot needs a session_id")
        p = self.path(state.tenant, state.session_id)
        p.parent.mkdir(parents=True, exist_ok=True)
        rec = {"expires": self.clock() + (ttl_s or self.ttl_s), "state": state.model_dump(mode="json")}
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(rec, f, ensure_ascii=False)
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def delete(self, tenant: str, session_id: str) -> None:
        self.path(tenant, session_id).unlink(missing_ok=True)
