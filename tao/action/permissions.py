"""Permission gate, enforced in code before any call whatever the plan says.

* ``read`` runs automatically;
* ``write`` runs automatically when the call touches at most ``write_limit`` records (the
  longest list argument counts its items, otherwise one record), else it needs approval;
* ``high_risk`` (payments, bulk deletes, outbound messages) runs only when an approval callback
  answers yes for this exact call.

A ``write`` call that **changes contact data** (an argument named ``email`` / ``phone`` /
``mobile``, or a ``field`` argument naming one, as ``update_user_profile(field="email", …)`` of the
reference domain) is high-risk whatever its contract says: a changed contact address is an
account-takeover path.

Text inside tool results never reaches this gate as an instruction: approval comes only from the
caller's callback. For ``/v1/run`` that is :class:`BoundApprover`: a high-risk call runs only
when the digest of *this* call (run id, step id, tool, resolved arguments; :func:`call_digest`)
was approved through ``POST /v1/runs/{run_id}/approve``; every call it refuses is listed as a
pending approval.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from tao.contracts import ErrorInfo, ErrorType, Permission, ToolSpec


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approver is asked about."""

    tool: str
    permission: Permission
    arguments: dict[str, Any]
    records: int
    reason: str
    thought_id: str | None = None
    step_id: str | None = None


Approver = Callable[[ApprovalRequest], bool | Awaitable[bool]]


def approve_tools(names: list[str] | set[str] | tuple[str, ...]) -> Approver:
    """An approver that says yes exactly for the named tools (the ``approve`` list of /v1/run)."""
    allowed = frozenset(names)

    def _approve(req: ApprovalRequest) -> bool:
        return req.tool in allowed

    return _approve


CONTACT_FIELDS = frozenset({"email", "phone", "mobile", "phone_number"})


def changes_contact(args: dict[str, Any]) -> str | None:
    """The contact field a write call sets (``email``, ``phone``…), or None."""
    for k in args:
        if k.lower() in CONTACT_FIELDS:
            return k.lower()
    f = args.get("field")
    if isinstance(f, str) and f.lower() in CONTACT_FIELDS:
        return f.lower()
    return None


def call_digest(run_id: str, step_id: str | None, tool: str, args: dict[str, Any]) -> str:
    """SHA-256 of one call: what an approval is bound to (a different argument, step or run is a
    different digest)."""
    doc = {"run_id": run_id, "step_id": step_id or "", "tool": tool, "arguments": args}
    return hashlib.sha256(
        orjson.dumps(doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    ).hexdigest()


@dataclass
class BoundApprover:
    """Approves exactly the calls whose :func:`call_digest` is in ``approved``; ``write_tools``
    (the legacy per-tool list, only from a caller allowed to approve) covers over-limit writes,
    never a high-risk call. Every refused call is recorded in ``pending``."""

    run_id: str
    approved: set[str] = field(default_factory=set)
    write_tools: frozenset[str] = frozenset()
    pending: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, req: ApprovalRequest) -> bool:
        digest = call_digest(self.run_id, req.step_id, req.tool, req.arguments)
        if digest in self.approved:
            return True
        if req.permission is Permission.WRITE and req.tool in self.write_tools:
            return True
        if not any(p["digest"] == digest for p in self.pending):
            self.pending.append(
                {
                    "step_id": req.step_id,
                    "tool": req.tool,
                    "arguments": req.arguments,
                    "digest": digest,
                    "reason": req.reason,
                }
            )
        return False

    @classmethod
    def of(cls, run_id: str, approved: Iterable[str] = (), write_tools: Iterable[str] = ()) -> BoundApprover:
        return cls(run_id, set(approved), frozenset(write_tools))


def record_count(args: dict[str, Any]) -> int:
    """Records a write call touches: the longest list argument, else one."""
    lengths = [len(v) for v in args.values() if isinstance(v, list)]
    return max([1, *lengths])


async def check_permission(
    spec: ToolSpec,
    args: dict[str, Any],
    approver: Approver | None,
    *,
    thought_id: str | None = None,
    step_id: str | None = None,
) -> ErrorInfo | None:
    """None when the call may run; else a PERMISSION_DENIED error saying why."""
    if spec.permission is Permission.READ:
        return None
    records = record_count(args)
    permission = spec.permission
    contact = changes_contact(args) if permission is Permission.WRITE else None
    if contact is not None:
        permission = Permission.HIGH_RISK
        reason = f"{spec.name} changes contact data ({contact}): high-risk"
    elif permission is Permission.WRITE:
        limit = spec.write_limit
        if limit is None or records <= limit:
            return None
        reason = f"write of {records} records exceeds the automatic limit of {limit}"
    else:
        reason = f"{spec.name} is high-risk ({spec.description.split('.')[0].lower()})"
    if approver is not None:
        req = ApprovalRequest(spec.name, permission, args, records, reason, thought_id, step_id)
        try:
            answer = approver(req)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # a broken approver never approves
            reason += f"; approver failed: {type(exc).__name__}"
            answer = False
        if answer is True:
            return None
    return ErrorInfo(
        error_type=ErrorType.PERMISSION_DENIED,
        message=f"approval required: {reason}",
        field=None,
        expected="approval from the caller",
        received="no approval",
    )
