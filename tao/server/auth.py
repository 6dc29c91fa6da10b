"""API keys → tenants and roles. The tenant of a request comes from its key, never from its body
or a header.

Keys file (``tao serve --keys-file PATH`` or ``TAO_KEYS_FILE``), hashed at rest::

    {"keys": [{"sha256": "<hex sha256 of the key>", "tenant": "acme", "roles": ["run"]},
              {"sha256": "...", "tenant": "acme", "roles": ["run", "approve"]}]}

Roles: ``run`` (every ``/v1`` endpoint except approvals) and ``approve`` (``POST
/v1/runs/{run_id}/approve``). A tenant is any printable string of 1-128 characters (``:``
included; every store encodes it unambiguously). ``TAO_API_KEY`` / ``--api-key`` stays the
one-tenant shortcut: that key is tenant ``default`` with both roles. Clients send
``Authorization: Bearer KEY`` or ``X-API-Key: KEY``. A file that does not parse stops start-up.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson

_HEX = re.compile(r"^[0-9a-f]{64}$")
APPROVE_PATH = re.compile(r"^/v1/runs/[^/]+/approve$")


class Role(StrEnum):
    RUN = "run"
    APPROVE = "approve"


class KeysFileError(ValueError):
    """The keys file is missing or malformed (the server refuses to start)."""


def check_tenant(tenant: Any) -> str:
    if not isinstance(tenant, str) or not 1 <= len(tenant) <= 128 or not tenant.isprintable():
        raise ValueError(f"invalid tenant {tenant!r}: 1-128 printable characters")
    return tenant


@dataclass(frozen=True)
class Principal:
    tenant: str
    roles: frozenset[Role]
    key_id: str  # the first 12 hex digits of the key's hash (for logs; never the key)


class KeyRing:
    def __init__(self, principals: dict[str, Principal]) -> None:
        self._by_hash = dict(principals)

    def __len__(self) -> int:
        return len(self._by_hash)

    @staticmethod
    def digest(key: bytes | str) -> str:
        return hashlib.sha256(key.encode() if isinstance(key, str) else key).hexdigest()

    @classmethod
    def single(cls, api_key: str) -> KeyRing:
        h = cls.digest(api_key)
        return cls({h: Principal("default", frozenset(Role), h[:12])})

    @classmethod
    def load(cls, path: Path | str) -> KeyRing:
        try:
            doc = orjson.loads(Path(path).read_bytes())
        except (OSError, orjson.JSONDecodeError) as exc:
            raise KeysFileError(f"keys file {path}: {exc}") from None
        entries = doc.get("keys") if isinstance(doc, dict) else None
        if not isinstance(entries, list) or not entries:
            raise KeysFileError(f'keys file {path}: expected {{"keys": [...]}} with at least one key')
        out: dict[str, Principal] = {}
        for i, e in enumerate(entries):
            where = f"keys file {path}: /keys/{i}"
            if not isinstance(e, dict) or set(e) - {"sha256", "tenant", "roles", "note"}:
                raise KeysFileError(f"{where}: an object with sha256, tenant, roles")
            h = e.get("sha256")
            if not isinstance(h, str) or not _HEX.match(h.lower()):
                raise KeysFileError(f"{where}/sha256: 64 hex digits (the SHA-256 of the key)")
            h = h.lower()
            try:
                tenant = check_tenant(e.get("tenant"))
                roles = frozenset(Role(r) for r in e.get("roles") or [])
            except (ValueError, TypeError) as exc:
                raise KeysFileError(f"{where}: {exc} (roles: run, approve)") from None
            if not roles:
                raise KeysFileError(f"{where}/roles: at least one of run, approve")
            if h in out:
                raise KeysFileError(f"{where}/sha256: listed twice")
            out[h] = Principal(tenant, roles, h[:12])
        return cls(out)

    def merged(self, other: KeyRing) -> KeyRing:
        return KeyRing({**self._by_hash, **other._by_hash})

    def authenticate(self, key: bytes) -> Principal | None:
        if not key:
            return None
        return self._by_hash.get(self.digest(key))


def keyring_for(api_key: str | None, keys_file: str | Path | None = None) -> KeyRing | None:
    """The server's keys: ``keys_file`` (else ``TAO_KEYS_FILE``) plus the one-tenant ``api_key``;
    None when neither is configured (open mode: loopback only, tenant ``default``)."""
    ring: KeyRing | None = None
    path = keys_file or os.environ.get("TAO_KEYS_FILE") or None
    if path:
        ring = KeyRing.load(path)
    if api_key:
        single = KeyRing.single(api_key)
        ring = single if ring is None else ring.merged(single)
    return ring


def required_role(path: str) -> Role:
    return Role.APPROVE if APPROVE_PATH.match(path) else Role.RUN


def given_key(headers: dict[bytes, bytes]) -> bytes:
    auth = headers.get(b"authorization", b"")
    if auth[:7].lower() == b"bearer ":
        return auth[7:].strip()
    return headers.get(b"x-api-key", b"").strip()


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    import ipaddress

    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
