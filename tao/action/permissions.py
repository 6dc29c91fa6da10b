"""Permission gate, enforced in code before any call whatever the plan says.

* ``read`` runs automatically;
* ``write`` runs automatically when the call touches at most ``write_limit`` records (the
  longest list argument counts its items, otherwise one record), else it needs approval;
* ``high_risk`` (payments, bulk deletes, outbound messages) runs only when an approval callback
  answers yes for this exact call.

Text inside tool results never reaches this gate as an instruction: approval comes only from the
caller's callback (for ``/v1/run``, the request's ``approve`` list).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

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
    if spec.permission is Permission.WRITE:
        limit = spec.write_limit
        if limit is None or records <= limit:
            return None
        reason = f"write of {records} records exceeds the automatic limit of {limit}"
    else:
        reason = f"{spec.name} is high-risk ({spec.description.split('.')[0].lower()})"
    if approver is not None:
        req = ApprovalRequest(spec.name, spec.permission, args, records, reason, thought_id, step_id)
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
