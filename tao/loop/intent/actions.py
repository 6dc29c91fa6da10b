"""Actions a request asks for that no tool it is routed to performs: the fallback branch, not a plan.

The classifier routes by *what a request is about*: an invoice id pulls a request to the invoice
tools whatever it asks of the invoice. Users ask next to the tools — void the invoice, approve
someone's leave, close the ticket, change the order's delivery address — and the classifier's
"none" class, trained on generated negatives, misses most of them (docs/routing.md). This module
names the action instead:

* :func:`requested` finds the *explicit* actions of a request, in English and Chinese (an
  imperative verb: ``void``, ``approve``, ``作废``, ``驳回``; past participles and nouns —
  "was it approved?", "any update?" — are status questions, not asks);
* :func:`performed` derives what a set of tools can do from their names' verbs (``cancel_order``
  cancels, ``update_user_profile`` and ``reset_password`` change something), so a user registry
  gets the same check with no list to maintain;
* :func:`unserved` is what the request asks that none of the tools does — an action *covered*
  by a tool's verb counts as served (deleting or withdrawing a leave request is what
  ``cancel_leave_request`` does; renaming or rescheduling is a change).

The router (``RouterConfig.action_check``) sends a request whose unserved actions are not empty
to the fallback branch, checked against the groups the request is about (the best tool's and each
clause's best tool's), never against groups only a low margin widened in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum


class Action(str, Enum):
    CANCEL = "cancel"
    CHANGE = "change"
    APPROVE = "approve"
    REJECT = "reject"
    VOID = "void"
    DELETE = "delete"
    CLOSE = "close"
    WITHDRAW = "withdraw"
    MERGE = "merge"
    SPLIT = "split"
    RENAME = "rename"
    ATTACH = "attach"
    NOTE = "note"
    ESCALATE = "escalate"
    TRANSFER = "transfer"
    REVIEW = "review"
    RESCHEDULE = "reschedule"
    PAY = "pay"
    CHECK_IN = "check_in"


# a Chinese verb that asks, not one that reports a state: not after 已/被 ("已作废的票据", "被驳回的
# 报销"), not before 的/了吗/了没 ("作废的发票", "取消了吗")
_ASK = r"(?<![已被]){}(?!的|了|吗|没)"
# an English verb at the head of an ask ("void invoice X", "please check me in"), not a modifier
# ("my newest void invoice", "plane check in")
_HEAD = r"(?:^|[,.;!?，。；！？]\s*|\b(?:please|pls|can you|could you|would you|to|and|then|also|help me|i want to|i'd like to|go ahead and) )"
# explicit asks only: base-form English verbs (no "approved", "cancelled"), Chinese verbs in the
# shapes that ask (帮我批准 / 把…作废), not the ones that report (批准了吗 is a status question)
_PATTERNS: dict[Action, str] = {
    Action.CANCEL: r"\bcancel\b|\bcall off\b|" + _ASK.format("取消"),
    Action.CHANGE: r"\b(?:change|modify|edit|amend)\b(?! ?(?:log|history|s\b))|改成|改为|改一下|改下|改个|"
    + _ASK.format("(?:修改|更改)"),
    Action.APPROVE: r"\bapprove\b|\bsign off on\b|帮我批准|批准一下|把.{0,16}批(?:准|了)|给.{0,10}批了|审批通过一下|帮我审批",
    Action.REJECT: r"\b(?:reject|decline|deny)\b|打回去|拒绝(?:掉|他|她|这)|" + _ASK.format("驳回"),
    Action.VOID: _HEAD
    + r"void\b(?! (?:only|ones|status|invoices)\b)|"
    + _ASK.format("(?:作废|冲红)(?!发票|票|单)"),
    Action.DELETE: r"\b(?:delete|erase)\b|\bremove\b(?! (?:from )?(?:the )?(?:waitlist|queue))|删掉|删除|删了|移除",
    Action.CLOSE: r"\bclose\b(?! to\b)|关掉|结掉|" + _ASK.format("关闭"),
    Action.WITHDRAW: r"\b(?:withdraw|retract|unsend)\b|\brecall (?:the|that|this|my)\b|"
    + _ASK.format("撤回"),
    Action.MERGE: r"\b(?:merge|combine)\b|合并",
    Action.SPLIT: r"\bsplit\b|拆成|拆分",
    Action.RENAME: r"\brename\b|改名|重命名|名字改",
    Action.ATTACH: r"\b(?:attach|upload)\b|附到|附上|上传",
    Action.NOTE: r"\badd (?:a |an )?(?:note|comment|remark)\b|加(?:个|一条|一个)?备注|添加备注|备注一下",
    Action.ESCALATE: r"\bescalate\b|\bbump\b.{0,40}\b(?:priority|urgent)\b|\braise the priority\b|提高优先级|升级(?:成|为)?紧急",
    Action.TRANSFER: (
        r"(?<!airport )(?<!hotel )\btransfer (?:\d|my|the|this|that|it|money|funds|to|ownership|\$|¥)|转账|转给|过户|转让"
    ),
    Action.REVIEW: r"\b(?:leave|write|post|give) (?:a |an )?(?:\d[- ]star )?(?:review|rating)\b|好评|差评|评价一下",
    Action.RESCHEDULE: (
        r"\b(?:reschedule|postpone)\b|\bpush (?:it |this |that )?(?:back|out)\b|\bmove (?:my|the|our|it|this|that)\b"
        r"|改期|挪到|改到|" + _ASK.format("(?:推迟|延期)")
    ),
    Action.PAY: r"\bpay (?:for|off|the|my|this|it)\b|付掉|帮我付|支付一下|充值|缴费",
    Action.CHECK_IN: _HEAD + r"check (?:me |us )?in\b(?!-)|帮我值机|办理值机|值个机",
}
_COMPILED = {a: re.compile(p, re.IGNORECASE) for a, p in _PATTERNS.items()}

# a tool name's verb -> the actions its tool performs
TOOL_VERBS: dict[str, frozenset[Action]] = {
    "cancel": frozenset({Action.CANCEL}),
    "update": frozenset({Action.CHANGE}),
    "reset": frozenset({Action.CHANGE}),
    "change": frozenset({Action.CHANGE}),
    "edit": frozenset({Action.CHANGE}),
    "modify": frozenset({Action.CHANGE}),
    "reschedule": frozenset({Action.RESCHEDULE, Action.CHANGE}),
    "delete": frozenset({Action.DELETE, Action.CANCEL}),
    "remove": frozenset({Action.DELETE}),
    "approve": frozenset({Action.APPROVE}),
    "reject": frozenset({Action.REJECT}),
    "close": frozenset({Action.CLOSE}),
    "void": frozenset({Action.VOID}),
    "merge": frozenset({Action.MERGE}),
    "transfer": frozenset({Action.TRANSFER}),
    "pay": frozenset({Action.PAY}),
    "attach": frozenset({Action.ATTACH}),
    "upload": frozenset({Action.ATTACH}),
}

# an asked action a performed one covers: withdrawing a leave request is cancelling it
COVERED_BY: dict[Action, frozenset[Action]] = {
    Action.DELETE: frozenset({Action.CANCEL}),
    Action.CLOSE: frozenset({Action.CANCEL}),
    Action.WITHDRAW: frozenset({Action.CANCEL}),
    Action.VOID: frozenset({Action.CANCEL}),
    Action.RENAME: frozenset({Action.CHANGE}),
    Action.RESCHEDULE: frozenset({Action.CHANGE}),
    Action.ESCALATE: frozenset({Action.CHANGE}),
}


# what the request quotes or dictates (an email's body, a title) is not asked of the tools:
# quoted spans, and everything after a content marker
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|《[^》]*》|\"[^\"]*\"")
_CONTENT = re.compile(
    r"(?:内容(?:是|为|写)?|正文(?:是|为)?|写上|body|message|saying|that says|content)\s*[:：是为]?.*$",
    re.IGNORECASE | re.DOTALL,
)


def action_text(text: str) -> str:
    """``text`` as the patterns read it: full-width folded, traditional Chinese simplified — not
    the perception's keyword typo fixes, which read an imperative "approve" as "approved"."""
    from thought_model.perception.normalize import fold_width, to_simplified

    return to_simplified(fold_width(text))


def asked_text(text: str) -> str:
    """``text`` without what it quotes or dictates."""
    return _CONTENT.sub(" ", _QUOTED.sub(" ", text))


def requested(text: str) -> frozenset[Action]:
    """The actions ``text`` explicitly asks for (normalized text: simplified Chinese, ASCII)."""
    text = asked_text(text).strip()
    return frozenset(a for a, rx in _COMPILED.items() if rx.search(text))


def performed(tool_names: Iterable[str]) -> frozenset[Action]:
    """The actions the tools named can perform, from their names' verbs (``cancel_order``)."""
    out: set[Action] = set()
    for name in tool_names:
        out |= TOOL_VERBS.get(name.split("_", 1)[0].lower(), frozenset())
    return frozenset(out)


def unserved(text: str, tool_names: Iterable[str]) -> frozenset[Action]:
    """What ``text`` asks that none of ``tool_names`` does (nor covers)."""
    asked = requested(text)
    if not asked:
        return frozenset()
    can = performed(tool_names)
    return frozenset(a for a in asked if a not in can and not (COVERED_BY.get(a, frozenset()) & can))
