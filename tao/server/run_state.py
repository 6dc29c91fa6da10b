"""The state of a run waiting for approval, kept on the shared backend so any replica resumes it.

Record ``record_key("runstate", tenant, run_id)`` (Redis with ``TAO_REDIS_URL``, else in-process;
TTL ``TAO_RUN_STATE_TTL_S``, default 3600 s): the request, the bound session, the plan as run
(its thought id, so a resumed run carries the same idempotency keys and a side effect already
done is not repeated), the approved call digests, the pending approvals and, once the run has
ended, its final reply (a repeated approval answers it again).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from tao.action.idempotency import IdempotencyBackend, record_key
from tao.action.permissions import BoundApprover
from tao.contracts import RunStatus

PUBLIC_PENDING = ("step_id", "tool", "arguments", "digest")


@dataclass
class RunState:
    run_id: str
    tenant: str
    request: str
    session: dict[str, Any]
    plan: dict[str, Any]
    approved: list[str] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    write_tools: list[str] = field(default_factory=list)
    final: dict[str, Any] | None = None

    @staticmethod
    def key(tenant: str, run_id: str) -> str:
        return record_key("runstate", tenant, run_id)

    async def save(self, backend: IdempotencyBackend, ttl_s: float) -> None:
        await backend.put(self.key(self.tenant, self.run_id), orjson.dumps(asdict(self)), int(ttl_s * 1000))

    @classmethod
    async def load(cls, backend: IdempotencyBackend, tenant: str, run_id: str) -> RunState | None:
        raw = await backend.get(cls.key(tenant, run_id))
        if raw is None:
            return None
        st = cls(**orjson.loads(raw))
        return st if st.tenant == tenant and st.run_id == run_id else None


def reply(report: Any, run_id: str, approver: BoundApprover) -> dict[str, Any]:
    """The /v1/run body: the report plus ``run_id`` and ``pending_approvals``."""
    out = report.to_dict()
    out["run_id"] = run_id
    waiting = out["status"] == RunStatus.NEEDS_APPROVAL
    out["pending_approvals"] = (
        [{k: p[k] for k in PUBLIC_PENDING} for p in approver.pending] if waiting else []
    )
    return out
