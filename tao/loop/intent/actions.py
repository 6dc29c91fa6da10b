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

Besides verbs, some asks are named by a noun or by the request's shape (round 4): a policy or
process question, a question about records and statistics, a flight's live status, a service next
to the travel tools (a taxi, a train), a whole request of thanks or goodbyes. A question *about* an
action ("did finance approve …?") asks nothing. A change of a field the update tool does not list
is :mod:`.fields`' check.

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
    EXPEDITE = "expedite"
    EXCHANGE = "exchange"
    ADD = "add"
    """Add something to an existing record (a breakfast to the hotel of a trip, a tax id to an
    invoice, a person to a booked meeting): an edit of that record."""
    STATISTICS = "statistics"
    """Records, averages and history ("the highest temperature ever recorded", "过去十年的平均气温"):
    no tool aggregates."""
    READ_INBOX = "read_inbox"
    SCHEDULE_SEND = "schedule_send"
    EXPORT = "export"
    """Print, download or export a document or a list: the tools return data, not files."""
    TEXT_MESSAGE = "text_message"
    FLIGHT_STATUS = "flight_status"
    OUTSIDE_SERVICE = "outside_service"
    """A service next to the registry's travel tools that none offers: a taxi or ride, a train."""
    SMALL_TALK = "small_talk"
    """A whole request that is only thanks, greetings or goodbyes asks nothing of a tool."""
    POLICY = "policy"
    """A question about the rules or the process (what is the difference, what does the policy
    say, how long does it usually take): answered by no tool call."""


# a Chinese verb that asks, not one that reports a state: not after 已/被/没/未 ("已作废的票据", "被驳回的
# 报销"), not before 的/了吗/了没 ("作废的发票", "取消了吗")
_ASK = r"(?<![已被没未]){}(?!的|了|吗|没)"
# an English verb at the head of an ask ("void invoice X", "please check me in"), not a modifier
# ("my newest void invoice", "plane check in")
_HEAD = r"(?:^|[,.;!?，。；！？]\s*|\b(?:please|pls|can you|could you|would you|to|and|then|also|help me|i want to|i'd like to|go ahead and) )"
# explicit asks only: base-form English verbs (no "approved", "cancelled"), Chinese verbs in the
# shapes that ask (帮我批准 / 把…作废), not the ones that report (批准了吗 is a status question)
_PATTERNS: dict[Action, str] = {
    Action.CANCEL: (
        r"\bcancel\b|\bcall off\b|\brelease (?:my|the|our|this|that) (?:booking|reservation|room|seat)\b"
        r"|退掉(?!款|钱)|" + _ASK.format("取消")
    ),
    Action.CHANGE: r"\b(?:change|modify|edit|amend)\b(?! ?(?:log|history|s\b))|改成|改为|改一下|改下|改个|换成|换个(?!新)|"
    r"\bupdate (?:my|the|his|her|our|their|its|this|that)\b|" + _ASK.format("(?:修改|更改|更新)"),
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
    Action.ESCALATE: (
        r"\bescalate\b|\bbump\b.{0,40}\b(?:priority|urgent)\b|\braise the priority\b|提高优先级|升级(?:成|为)?紧急"
        r"|优先级(?:调|改|提)|调(?:成|为|到)(?:紧急|高优)"
    ),
    Action.TRANSFER: (
        r"(?<!airport )(?<!hotel )\btransfer (?:\d|my|the|this|that|it|money|funds|to|ownership|employee|staff|him|her|them"
        r"|\$|¥)|转账|转给|过户|转让|调到(?:\w{0,6})部"
    ),
    Action.REVIEW: r"\b(?:leave|write|post|give) (?:a |an )?(?:\d[- ]star )?(?:review|rating)\b|好评|差评|评价一下",
    Action.RESCHEDULE: (
        r"\b(?:reschedule|postpone)\b|\bpush (?:it |this |that )?(?:back|out)\b|\bmove (?:my|the|our|it|this|that)\b"
        r"|改期|改签|挪到|改到|" + _ASK.format("(?:推迟|延期)")
    ),
    Action.PAY: r"\bpay (?:for|off|the|my|this|it)\b|付掉|帮我付|支付一下|充值|缴费",
    Action.CHECK_IN: _HEAD + r"check (?:me |us )?in\b(?!-)|帮我值机|办理值机|值个机",
    Action.EXPEDITE: r"\b(?:expedite|rush (?:the|my|this|it)|speed up (?:the )?(?:delivery|shipping))\b|加急(?:发货|配送|送|寄|处理一下)|催一下发货|尽快发货",
    Action.EXCHANGE: r"\b(?:swap|exchange)\b.{0,60}\b(?:for|size|colou?r)\b|换货|换(?:个|一个)?(?:尺码|颜色|码)",
    Action.ADD: (
        r"\badd\b.{1,40}\bto (?:(?:the|my|this|that|our) )?(?:(?:hotel|flight|order|trip|invoice|ticket|booking"
        r"|reservation|claim|expense|booked)\b|[a-z]{2,4}-?\d{4})"
        r"|(?:里|上)的[^，,。]{0,12}(?:加个|加一个|加上|添加|追加)(?!备注)"
    ),
    Action.STATISTICS: (
        r"\bever recorded\b|\brecord (?:high|low)\b|\bhistorical(?:ly)?\b|\baverage (?:temperature|rainfall)\b"
        r"|\b(?:which|what) month (?:usually|typically)\b|历史最|有记录以来|平均气温|平均温度|往年|过去(?:十|几|\d+)年"
        r"|\beveryone(?:'s| in)\b|\ball (?:employees|staff)\b|\bwho works in\b|\bfull list of (?:employees|staff|people)\b"
        r"|所有人的|每个人的|全员的|全部员工的"
    ),
    Action.READ_INBOX: r"\b(?:check|read|open|search) (?:my |the )?(?:inbox|unread|mailbox)\b|\bhas \w+ replied\b|收件箱|未读邮件|回邮件了没|回复了没",
    Action.SCHEDULE_SEND: r"\bschedule (?:an? |the )?(?:email|e-mail|mail|message)\b|定时发送|定时发",
    Action.EXPORT: r"\b(?:download|export|print)\b|\bprint ?out\b|下载|导出|打印",
    Action.TEXT_MESSAGE: (
        r"\btext (?:him|her|them|me|the|my|our|this|that|\+?\d)|\bsend (?:an? )?(?:sms|text)\b|\bsms\b"
        r"|发(?:个|条|一条)?短信|短信(?:通知|告诉|发)"
    ),
    Action.FLIGHT_STATUS: (
        r"\b[a-z]{2}\d{3,4}\b.{0,30}\b(?:delayed|on time|late|landed|taken off|departed)\b|\bflight status\b"
        r"|[a-z]{2}\d{3,4}.{0,12}(?:延误|晚点|起飞了|落地了|到了没)|航班.{0,10}(?:延误|晚点|动态)"
    ),
    Action.OUTSIDE_SERVICE: (
        r"\b(?:book|get|call|order|arrange|reserve|grab|need|want)(?: me| us)? (?:an? |the |two |\d )?"
        r"(?:taxi|cab|uber|lyft|didi|ride|car to|chauffeur|high-speed (?:train|rail)|bullet train|train(?: tickets?)?)\b"
        r"|(?:帮我|给我|我要|我想)(?:打车|打个车)|(?:叫|约|订)(?:个|辆|一辆)?(?:车|专车|出租车|网约车|滴滴)"
        r"|(?:订|买|预订|预定|抢)[^，,。]{0,20}(?:高铁|动车|火车)"
    ),
    Action.SMALL_TALK: (
        r"^(?:\W|(?:ok|okay|thanks|thank you|thx|ty|great|cool|got it|bye|goodbye|see you|hi|hello|hey|good (?:morning|night)"
        r"|that'?s all|that is all|nothing else|for (?:now|today)|no more|all good|you'?re welcome)\b|谢谢|多谢|好的|好|行|再见|拜拜|你好|"
        r"您好|早上好|晚安|没(?:别的|其他的?)事了?|没事了|就这些|就这样|辛苦了?|了|啦|吧|哈|嗯)+$"
    ),
    Action.POLICY: (
        r"\bwhat(?:'s| is) the difference\b|\bdifference between\b|\b(?:policy|policies)\b|\bam i allowed\b"
        r"|\bis (?:it|that|this) allowed\b|\bhow long does (?:it|a|an|the) \w+ (?:usually |normally )?take\b"
        r"|区别|有什么不同|流程是|什么流程|规定|政策|标准是|允许吗|能报吗|可以报吗|一般多久|通常多久|一般要多久"
    ),
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
    Action.EXCHANGE: frozenset({Action.CHANGE}),
    Action.ADD: frozenset({Action.CHANGE}),
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


# asks named by a noun or a question's shape, not by a verb an auxiliary could turn into a question
_NOT_VERBS = frozenset(
    {
        Action.STATISTICS,
        Action.POLICY,
        Action.SMALL_TALK,
        Action.READ_INBOX,
        Action.FLIGHT_STATUS,
        Action.OUTSIDE_SERVICE,
    }
)
# "did finance approve …?", "has she cancelled …" ask about an action, they do not ask for it
_AUX = re.compile(r"\b(?:did|does|do|has|have|had|was|were)\s+(?:[a-z]+\s+){0,2}$", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never) for\s+$|不(?:用|适用)于$", re.IGNORECASE)
_ASKING = re.compile(r"\b(?:can|could|would|will) (?:you|u)\b|\bplease\b|\bpls\b", re.IGNORECASE)


def _asks(rx: re.Pattern[str], text: str, verb: bool = True) -> bool:
    for m in rx.finditer(text):
        if _NEGATED.search(text[max(0, m.start() - 12) : m.start()]):
            continue  # "not for historical climate", "不用于…": a limit stated, nothing asked
        if not verb:
            return True
        before = text[max(0, m.start() - 40) : m.start()]
        if _AUX.search(before) and not _ASKING.search(before):
            continue
        return True
    return False


def requested(text: str) -> frozenset[Action]:
    """The actions ``text`` explicitly asks for (normalized text: simplified Chinese, ASCII)."""
    text = asked_text(text).strip()
    return frozenset(a for a, rx in _COMPILED.items() if _asks(rx, text, a not in _NOT_VERBS))


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
