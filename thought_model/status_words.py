"""Status filters of the list tools decided by the request's words, not guessed.

``list_orders`` / ``list_invoices`` / ``list_expenses`` take an optional ``status`` enum. The
model drops the one the user said ("pending / 待支付", "still in approval / 审批中") or invents
one nobody said ("whatever invoices Sam racked up" -> ``status=issued``). :func:`fix_status`:

* the request's status words for the tool (:data:`STATUS_WORDS`, zh + en; negated and longer
  forms first: "未通过" is rejected, not approved) give at most one enum value;
* one value -> the step's status is that value; none -> a status the step has is dropped;
  words for two different values -> the step is left as the model planned it;
* a list step a later step needs is left alone: it finds the item a status question is about
  ("is my last expense claim paid yet"), the word is the question, not a filter; question forms
  ("shipped yet", "签收了吗") are no filter either.
"""

from __future__ import annotations

import re

from tao.contracts import PlanStep, ThoughtPlan
from thought_model.perception.normalize import to_simplified

STATUS_WORDS: dict[str, list[tuple[str, str]]] = {
    "list_orders": [
        (
            "pending",
            r"\bpending\b|unpaid|not (?:yet )?paid|awaiting payment|待支付|待付款|未付款|没付款|未支付|没支付|没付钱|未付钱|还没付(?!完)|待付",
        ),
        ("refunded", r"\brefunded\b|已退款|退款了的|退过款|退了款"),
        ("cancelled", r"\bcancell?ed\b|已取消|取消了的|取消掉的|被取消|取消了(?:哪些|几)|取消过"),
        (
            "in_transit",
            r"in transit|on (?:the|its|their) way|在途|运输中|运输途中|运送途中|运送中|途中|在路上|配送中",
        ),
        ("delivered", r"\bdelivered\b(?!\s+yet)|已送达|签收(?!了?[吗没])|送到了的|已收货"),
        ("shipped", r"\bshipped\b(?!\s+yet)|已发货(?![吗没])|发货了的|已发出|发出去的"),
        ("paid", r"\bpaid\b(?!\s+yet)|已付款|已支付|付过款|付了款|已付"),
    ],
    "list_invoices": [
        (
            "pending",
            r"\bpending\b|not (?:yet )?issued|待开|未开|还没开|待处理|处理中|开票中|in progress|being processed",
        ),
        ("void", r"\bvoid(?:ed)?\b|作废|已作废|cancell?ed"),
        ("issued", r"\bissued\b|已开|开好|开好了|已开具|开出的|开出来的|开具成功|开成功|已经开"),
    ],
    "list_expenses": [
        (
            "rejected",
            r"\brejected\b|declined|denied|turned down|驳回|被拒|拒绝|没通过|未通过|没批|没有批|打回|退回",
        ),
        (
            "submitted",
            r"in review|under review|awaiting approval|pending approval|still in approval|not (?:yet )?approved"
            r"|\bpending\b|审批中|待审批|审核中|在审|还在审|待审核|未审批|还没批"
            r"|\b(?:my|the|all) submitted\b|\bsubmitted (?:expense|claim|reimbursement)",
        ),
        ("approved", r"\bapproved\b|已批|批了|批下来|已通过|通过了|批准|审批通过|审核通过|批过的"),
        (
            "paid",
            r"\bpaid\b(?!\s+yet)|reimbursed(?!\s+yet)|已报销|已打款|已到账|已支付|已付|报销了的|打款(?!了?[吗没])|打过款|到账了的",
        ),
    ],
}


def _plain(text: str) -> str:
    """Simplified text with ``已经`` read as ``已`` (``已经退款的订单`` is ``已退款``)."""
    return to_simplified(text).replace("已经", "已")


def status_of(tool: str, text: str) -> str | bool | None:
    """The one status value the request's words give for ``tool``; None when it has none; False
    when it names two different ones."""
    rules = STATUS_WORDS.get(tool)
    if rules is None:
        return None
    t = _plain(text)
    found: set[str] = set()
    for value, rx in rules:  # negated / longer forms first, then blanked out
        pat = re.compile(rx, re.I)
        if pat.search(t):
            found.add(value)
            t = pat.sub(" ", t)
    if len(found) > 1:
        return False
    return next(iter(found), None)


def without_status_words(tool: str, text: str) -> str:
    """``text`` (simplified) with the status words of ``tool``'s list filter blanked out: "运输中的订单"
    names a filter of ``list_orders``, not a tracking ask."""
    t = _plain(text)
    for _, rx in STATUS_WORDS.get(tool, []):
        t = re.sub(rx, " ", t, flags=re.I)
    return t


def fix_status(plan: ThoughtPlan, text: str) -> ThoughtPlan:
    """``plan`` with each list step's status set from the request's words (module doc)."""
    steps = []
    changed = False
    needed = {d for s in plan.steps for d in s.dependencies}
    for s in plan.steps:
        want = status_of(s.tool, text)
        if s.step_id in needed:  # "is my last claim paid yet": the list finds the item asked about
            fixed = _selection_status(s, text)
            changed |= fixed is not s
            steps.append(fixed)
            continue
        if s.tool in STATUS_WORDS and want is not False and s.arguments.get("status") != want:
            args = {k: v for k, v in s.arguments.items() if k != "status"}
            if want is not None:
                args["status"] = want
            s = s.model_copy(update={"arguments": args})
            changed = True
        steps.append(s)
    return plan.model_copy(update={"steps": steps}) if changed else plan


_SELECT_EN = re.compile(
    r"\b(?:latest|newest|most\s+recent(?:ly)?|last|recent)\s+(?P<w>[a-z_\- ]{2,24}?)\s+"
    r"(?:orders?|invoices?|expenses?|claims?|reimbursements?)\b",
    re.I,
)
_SELECT_ZH = re.compile(
    r"(?:最新|最近|最后|上一)(?:的)?(?:一|那|这)?(?:笔|张|个|单|份)?(?P<w>[\u4e00-\u9fff]{1,5}?)(?:的)?(?:订单|发票|报销单|报销|单子)"
)


def _selection_status(step: PlanStep, text: str) -> PlanStep:
    """A list step a later step needs ("cancel my latest pending order"): a status word between the
    selection word and the object noun ("latest *pending* order", "最近一笔*已付款*的订单") is its
    filter; a status the request has no word for at all (``cancelled`` read from "cancel it") is
    dropped; otherwise the step is left as planned (the word may be the question)."""
    if step.tool not in STATUS_WORDS:
        return step
    t = _plain(text)
    picked = None
    for rx in (_SELECT_EN, _SELECT_ZH):
        for m in rx.finditer(t):
            v = status_of(step.tool, m.group("w"))
            if isinstance(v, str):
                picked = v
    have = step.arguments.get("status")
    if picked is not None and have != picked:
        return step.model_copy(update={"arguments": {**step.arguments, "status": picked}})
    if picked is None and have is not None and status_of(step.tool, text) is None:
        args = {k: v for k, v in step.arguments.items() if k != "status"}
        return step.model_copy(update={"arguments": args})
    return step
