"""New intents of the reference domain for the four added tools (list_invoices, list_expenses,
get_order_invoice, list_user_calendar_events), with their plans and request templates (zh, en).

Same format as :data:`tao.domains.reference.phrasing.intents.INTENTS`: ``[a|b|]``
alternatives, ``{kind}`` slots from :class:`training.values.ValueSampler`, ``<ME>`` for the session
user, ``${tN.x}`` step references. The LAST template of each language list is held out (the
held-out-template split); templates after a ``# missing`` comment omit a required slot on purpose
(the generator labels them insufficient_context). Intents whose only required value is ``<ME>`` or
a step reference have no ``# missing`` block: their insufficient_context rows come from sessions
without a known user (``<ME>``), and a request without a name cannot be labelled by a
``find_user`` chain (``find_user`` has no required argument); "his/that user's invoices" is covered
by the ``# missing`` block of the explicit-id intents instead.

Conventions kept (see the docstrings of :mod:`training.templates.orders_en` and
:mod:`training.templates.office_en`): an en template starts with a word perception does not take
for a name when noise capitalizes it (i, the, please, can, show, list, what, is, order, ...); no
apostrophes in the fixed text except ``{name}'s``; no time words (now, currently); no ``in {day}``;
no date right after a digit-final slot (``{user}``, ``{order}``): a word or a comma goes between;
free-text slots (``{subject}`` ``{body}``) follow a cue word and are followed by punctuation. A zh
``{name}`` has a cue before it (同事/用户/客户/员工/联系人/查下/看看/给/跟/叫/把/…, never a bare
start of the template) and one after it (的/在/老师/经理/总/，/最近/…), and ``{user}`` is never
glued to a date (``用户{user}在{day}``), so a digit date cannot merge with the id.

Slot kinds: only kinds of :mod:`training.values` plus two new enum kinds, ``{invstatus}`` (invoice
status: issued|pending|void) and ``{expstatus}`` (expense claim status:
submitted|approved|rejected|paid), defined in :data:`NEW_VALUE_KINDS` at the bottom (wired: ``ValueSampler._s_invstatus`` /
``_s_expstatus`` and the phrasing's ``ENUM_KINDS``). The order
``{status}`` kind cannot be used: its enum (pending, paid, shipped, ...) is not the invoice or the
expense enum. To wire them in: add ``_s_invstatus``/``_s_expstatus`` (``self._enum(table)``) to
``ValueSampler`` and both names to ``training.generate.ENUM_KINDS``. Dates of a single day use the
existing ``{day}`` kind (there is no ``{date}`` kind), periods ``{period}``.

(Written for the plan-model round 6 by the domain-coverage brief; merged into
:data:`tao.domains.reference.phrasing.intents.INTENTS`.)
"""

from __future__ import annotations

from tao.contracts.domain import IntentSpec
from tao.domains.reference.phrasing.intents import S
from tao.domains.reference.phrasing.values import EXPENSE_STATUS, INVOICE_STATUS

_Q = "[查一下|查查|看看|帮我查下|麻烦查一下|帮忙看看]"
_TY = "[. thanks|. thank you|. cheers|. ty]"  # polite endings after trailing free text

NEW_INTENTS: list[IntentSpec] = [
    # ------------------------------------------------------------------ invoices (list)
    IntentSpec(
        "list_my_invoices",
        (S("list_invoices", {"user_id": "<ME>", "period": "{period}", "status": "{invstatus}"}),),
        zh=(
            _Q + "我{period}的[所有|全部|]发票",
            "我{period}开过哪些发票",
            "我名下有哪些{invstatus}的发票",
            "[列出|拉一下|列一下]我的发票[列表|清单]",
            "我{period}{invstatus}的发票有几张",
            "麻烦您帮我把我{period}的发票都列出来，谢谢",
            "我的发票里有没有{invstatus}的",
            "我的发漂列表给我看下",
            "我{period}的发票记录[调出来|翻一下]",
            "我账户下{invstatus}的发票[都|]有哪些",
            "发票清单，我的，{period}",
            "我{period}到底开了啥票来着",
            "我{period}总共有多少张发票",
            "统计一下我{period}{invstatus}的发票[数量|张数]",
            "[看看|瞧瞧]我都有哪些发票",
            "我{period}的发票[有哪些|都有啥]？",
            # held out (last)
            "把我{period}名下{invstatus}的票据清单拉给我瞧瞧",
        ),
        en=(
            "[show|list] my invoices [from |for |]{period}",
            "what invoices do I have {period}?",
            "list my {invstatus} invoices",
            "I need a list of all my invoices",
            "how many invoices did I get {period}?",
            "could you please pull up my {invstatus} invoices from {period}? thanks",
            "any {invstatus} invoices on my account?",
            "my invoices {period}[ pls|]",
            "show me all my invocies",
            "which of my invoices are {invstatus}?",
            "give me the invoice list for my account, {period}",
            "do I have any {invstatus} invoices from {period}",
            "i wanna see every invoice on my account {period}",
            "my invoice history please",
            "list invoices for me, {invstatus} only",
            "how many {invstatus} invoices have I got",
            # held out (last)
            "can you run through what my invoice list looks like for {period}",
        ),
    ),
    IntentSpec(
        "list_invoices",
        (S("list_invoices", {"user_id": "{user}", "period": "{period}", "status": "{invstatus}"}),),
        zh=(
            _Q + "用户{user}的[所有|全部|]发票",
            "用户{user}在{period}开了哪些发票",
            "{user}[这个账号|名下]有哪些{invstatus}的发票",
            "帮我拉一下客户{user}的发票清单",
            "用户{user}，{period}，{invstatus}的发票",
            "麻烦您查询一下账号{user}在{period}的发票记录，谢谢",
            "{user}的发票里有没有{invstatus}的",
            "用户{user}的发飘列表调一下",
            "看下{user}在{period}总共有几张发票",
            "账号{user}下{invstatus}的发票都列出来",
            "客户{user}最近开的发票有哪些",
            "{user}这用户在{period}的票开了多少张啊",
            "统计用户{user}的{invstatus}发票",
            "[列出|列一下]{user}的发票",
            # missing
            "这个用户在{period}的发票有哪些",
            "帮我查下客户的发票列表",
            "他名下有哪些{invstatus}的发票",
            "列一下用户的所有发票",
            # held out (last)
            "请把用户{user}名下{period}的开票记录整理给我",
        ),
        en=(
            "list [all |the |]invoices [of|for] user {user}",
            "show invoices for account {user} from {period}",
            "which {invstatus} invoices does user {user} have?",
            "how many invoices did user {user} get {period}?",
            "pull up the invoice history of customer {user}",
            "could you please list the {invstatus} invoices for {user}? thanks",
            "the invoices for {user}, {period}",
            "user {user}: invoices from {period}[ pls|]",
            "does customer {user} have any {invstatus} invoices",
            "get me the invioce list for account {user}",
            "what invoices does user {user} have from {period}",
            "I need every invoice on account {user} from {period}",
            "show the {invstatus} invoices of user {user} from {period}",
            "list {user} invoices",
            # missing
            "list the invoices of this customer",
            "show the {invstatus} invoices for that user",
            "which invoices does the customer have from {period}?",
            "I need the invoice list of a user",
            # held out (last)
            "can you dig out every invoice billed to account {user} during {period}",
        ),
    ),
    IntentSpec(
        "list_invoices_by_name",
        (
            S("find_user", {"name": "{name}"}),
            S(
                "list_invoices",
                {"user_id": "${t1.user_id}", "period": "{period}", "status": "{invstatus}"},
                ("t1",),
            ),
        ),
        zh=(
            "看看[客户|用户|同事]{name}的[所有|全部]发票",
            "查下{name}，他{period}开了哪些发票",
            "客户{name}有没有{invstatus}的发票",
            "帮我列一下用户{name}的所有发票",
            "找下叫{name}的客户，看看他在{period}的发票",
            "同事{name}的{invstatus}发票有哪些",
            "麻烦您帮忙查询客户{name}女士{period}的开票记录，多谢",
            "员工{name}，把他的发漂清单拉一下",
            "叫{name}的那个客户，{invstatus}的发票有几张",
            "把{name}的所有发票都调出来",
            "客户{name}，{period}有几张{invstatus}的发票",
            "用户{name}的票开了多少张了",
            "查询联系人{name}的全部发票",
            "帮我查一下{name}最近的发票",
            "客户{name}，{period}，发票[列一下|有哪些]",
            # held out (last)
            "替客户{name}老师把{period}的发票明细列个表",
        ),
        en=(
            "[show|list] the invoices of {name}",
            "what invoices does {name} have from {period}?",
            "list {invstatus} invoices for customer {name}",
            "find {name} and show their invoices",
            "{name}'s invoices {period}[, please|]",
            "could you please check how many invoices {name} got {period}? thanks",
            "does {name} have any {invstatus} invoices?",
            "pull up the invioce history for {name}",
            "the {invstatus} invoices of {name} from {period}",
            "look up customer {name}, then list their invoices",
            "I need a list of invoices for my colleague {name}",
            "get me every invoice {name} has on file",
            "how many {invstatus} invoices does {name} have",
            "show invoices billed to {name} from {period}",
            "is {name} holding any {invstatus} invoices from {period}?",
            # held out (last)
            "can you dig up whatever invoices {name} racked up {period}",
        ),
    ),
    # ------------------------------------------------------------------ expenses (list)
    IntentSpec(
        "list_my_expenses",
        (S("list_expenses", {"user_id": "<ME>", "period": "{period}", "status": "{expstatus}"}),),
        zh=(
            _Q + "我{period}的报销[单|记录|]",
            "我{period}提交过哪些报销",
            "我有哪些{expstatus}的报销单",
            "我的报销单[列表|清单]给我看看",
            "我{period}{expstatus}的报销有几笔",
            "麻烦您帮我把我{period}的所有报销申请列一下，谢谢",
            "我的报销里有没有{expstatus}的",
            "看下我{period}的报消记录",
            "我{period}总共报了几笔",
            "把我{expstatus}的报销单都找出来",
            "我{period}报的那些账都啥情况了",
            "统计一下我{period}的报销单数量",
            "我名下{expstatus}的报销申请",
            "列一下我最近的报销",
            "报销列表，我的，{expstatus}",
            "我{period}[交了|提了]几张报销单啊",
            # held out (last)
            "帮我盘点一下我{period}名下{expstatus}的报账单据",
        ),
        en=(
            "[show|list] my expense claims [from |for |]{period}",
            "what expenses did I submit {period}?",
            "list my {expstatus} expense claims",
            "I need a list of all my reimbursement requests",
            "how many expense claims have I filed {period}?",
            "could you please pull up my {expstatus} expenses from {period}? thanks",
            "any {expstatus} reimbursements on my account?",
            "my expense reports {period}[ pls|]",
            "show me all my expnse claims",
            "which of my expense claims are {expstatus}?",
            "do I have any {expstatus} expenses from {period}",
            "give me my reimbursement history {period}",
            "list every claim I have put in {period}",
            "my {expstatus} expense claims[ please|]",
            "how many of my claims are {expstatus}",
            "i wanna see my expense claims {period}",
            # held out (last)
            "please run through the reimbursements I lodged {period} that are {expstatus}",
        ),
    ),
    IntentSpec(
        "list_expenses",
        (S("list_expenses", {"user_id": "{user}", "period": "{period}", "status": "{expstatus}"}),),
        zh=(
            _Q + "用户{user}的[所有|全部|]报销单",
            "员工{user}在{period}提交了哪些报销",
            "{user}名下有哪些{expstatus}的报销",
            "帮我拉一下账号{user}的报销记录",
            "用户{user}，{period}，{expstatus}的报销",
            "麻烦您查询一下员工{user}在{period}的报销申请，谢谢",
            "{user}的报销里有没有{expstatus}的",
            "员工{user}的报消单列一下",
            "看下{user}在{period}总共报了几笔",
            "账号{user}下{expstatus}的报销单都列出来",
            "{user}这人在{period}报了几次销啊",
            "统计用户{user}的{expstatus}报销单",
            "用户{user}最近的报销记录",
            "[列出|列一下]员工{user}的报销清单",
            # missing
            "这个员工在{period}的报销单有哪些",
            "帮我查下他的报销记录",
            "列一下那位同事{expstatus}的报销",
            "员工的报销清单调出来",
            # held out (last)
            "把员工{user}在{period}名下的报账明细汇总给我",
        ),
        en=(
            "list [all |the |]expense claims [of|for] user {user}",
            "show reimbursements for account {user} from {period}",
            "which {expstatus} expenses does employee {user} have?",
            "how many expense claims did user {user} file {period}?",
            "pull up the expense history of user {user}",
            "could you please list the {expstatus} claims for {user}? thanks",
            "user {user}: expenses from {period}[ pls|]",
            "does employee {user} have any {expstatus} reimbursements",
            "get me the expnse list for account {user}",
            "what claims has user {user} put in {period}",
            "I need every expense report of account {user} from {period}",
            "show the {expstatus} expense claims of user {user} from {period}",
            "the reimbursement requests of {user}[?|]",
            "list {user} expenses",
            # missing
            "list the expense claims of this employee",
            "show the {expstatus} reimbursements for that user",
            "which expenses has the employee filed {period}?",
            "I need the expense list of a user",
            # held out (last)
            "can you round up every claim account {user} lodged during {period}",
        ),
    ),
    IntentSpec(
        "list_expenses_by_name",
        (
            S("find_user", {"name": "{name}"}),
            S(
                "list_expenses",
                {"user_id": "${t1.user_id}", "period": "{period}", "status": "{expstatus}"},
                ("t1",),
            ),
        ),
        zh=(
            "看看同事{name}的报销单",
            "员工{name}，他{period}报了哪些账",
            "同事{name}有没有{expstatus}的报销",
            "帮我列一下员工{name}的所有报销",
            "找下叫{name}的同事，看看他在{period}的报销记录",
            "麻烦您帮忙查询同事{name}的报销申请，只看{period}的，多谢",
            "员工{name}的报消单拉一下",
            "叫{name}的那个同事，{expstatus}的报销有几笔",
            "把{name}的报销都调出来",
            "同事{name}，{period}有几笔{expstatus}的报销",
            "查询员工{name}的报销列表",
            "帮我查一下{name}最近的报销",
            "看看{name}的{expstatus}报销单",
            "用户{name}的报销记录给我看下",
            "员工{name}，{period}，报销[列一下|有哪些]",
            # held out (last)
            "替同事{name}，把{period}报过的账列个清单",
        ),
        en=(
            "[show|list] the expense claims of {name}",
            "what expenses has {name} filed {period}?",
            "list {expstatus} reimbursements for my colleague {name}",
            "find {name} and show their expense claims",
            "{name}'s expenses {period}[, please|]",
            "could you please check how many claims {name} submitted {period}? thanks",
            "does {name} have any {expstatus} expense claims?",
            "pull up the expnse history for {name}",
            "the {expstatus} expenses of {name} from {period}",
            "look up employee {name}, then list their reimbursements",
            "I need a list of expense reports for {name}",
            "how many {expstatus} claims does {name} have",
            "show reimbursement requests filed by {name} from {period}",
            "get me every expense claim {name} has on record",
            "is {name} sitting on any {expstatus} claims from {period}?",
            # held out (last)
            "can you dig up the reimbursements {name} lodged {period}",
        ),
    ),
    # ------------------------------------------------------------------ invoice of an order
    IntentSpec(
        "get_order_invoice",
        (S("get_order_invoice", {"order_id": "{order}"}),),
        zh=(
            _Q + "订单{order}的发票",
            "订单{order}的发票开了吗？",
            "{order}这单的[发票是哪张|发票号是多少]",
            "订单号{order}，发票[状态|情况]怎么样",
            "订单{order}[开没开|有没有开]发票",
            "麻烦您帮我查询一下订单{order}对应的发票，谢谢",
            "{order}的发漂开出来没",
            "订单{order}开的票多少钱",
            "订单{order}的发票作废了没有",
            "想看下订单{order}关联的发票信息",
            "订单{order}，发票号给我一下",
            "{order}这单票开了没啊",
            "请提供订单{order}的发票详情",
            "订单{order}发票金额是多少",
            "订单{order}的票",
            # missing
            "我这个订单的发票开了吗",
            "查下订单对应的发票",
            "那笔订单的发票号是多少",
            "订单的发票[状态|情况]帮我看看",
            # held out (last)
            "单号{order}名下那张发票啥状况了",
        ),
        en=(
            "[check|show me] the invoice for order {order}",
            "is order {order} invoiced yet?",
            "what is the invoice number for order {order}?",
            "order {order}: invoice status[?|]",
            "is there an invoice for order {order}",
            "could you please look up the invoice attached to order {order}? thanks",
            "the invoice of {order}[ pls|]",
            "how much is the invoice on order {order}?",
            "was the invoice for order {order} voided?",
            "get me the invioce for order {order}",
            "I need the invoice details of order {order}",
            "which invoice belongs to order {order}?",
            "order {order}, did the invoice go out?",
            "find the invoice that was issued for order {order}",
            "invoice for {order}?",
            # missing
            "check the invoice for my order",
            "is the order invoiced yet?",
            "what is the invoice number of that order?",
            "I need the invoice for an order",
            # held out (last)
            "please pull the billing document tied to order {order}",
        ),
    ),
    IntentSpec(
        "my_latest_order_invoice",
        (
            S("list_orders", {"user_id": "<ME>"}),
            S("get_order_invoice", {"order_id": "${t1.order_id}"}, ("t1",)),
        ),
        zh=(
            _Q + "我最新[一笔|一个|]订单的发票",
            "我最近[买|下]的那单发票开了吗",
            "我最后一笔订单[开发票了没|的发票号是多少]",
            "我刚下的单，发票[开好了吗|是什么状态]",
            "麻烦您帮我查查我最近一个订单的发票情况，谢谢",
            "我最新那单的票开出来没",
            "我最近买的东西发漂开了没",
            "看下我最新订单的发票金额",
            "我最后下的那个单有没有开发票",
            "我最近一单的发票作废了吗",
            "帮我找找我最新那笔订单的发票",
            "我最近的订单，发票号给我",
            "最新订单的发票，我的",
            "我刚买的那个东西开票了吗？",
            # held out (last)
            "我前脚刚下的那单，票据那边有动静没",
        ),
        en=(
            "show me the invoice for my latest order",
            "is my most recent order invoiced yet?",
            "what is the invoice number of my last order?",
            "I just ordered something, is there an invoice yet?",
            "could you please check the invoice on my newest order? thanks",
            "my latest order, invoice status?",
            "get the invioce for my most recent purchase",
            "how much is the invoice for my last order",
            "is the invoice for my newest order issued",
            "find the invoice that goes with the last thing I bought",
            "I need the invoice of my most recent order",
            "check whether my latest order has an invoice",
            "which invoice belongs to my newest order?",
            "my last purchase, did it get an invoice?",
            # held out (last)
            "can you fish out the billing paper for my freshest order",
        ),
    ),
    # ------------------------------------------------------------------ another person's calendar
    IntentSpec(
        "person_calendar_by_name",
        (
            S("find_user", {"name": "{name}"}),
            S("list_user_calendar_events", {"user_id": "${t1.user_id}", "date": "{day}"}, ("t1",)),
        ),
        zh=(
            "看看同事{name}的日程，要{day}的",
            "{day}同事{name}有什么安排",
            "帮我查下{name}，他{day}忙不忙",
            "{day}，同事{name}有哪些会",
            "麻烦您帮忙看看{name}老师{day}的日程安排，谢谢",
            "找下叫{name}的同事，看看他{day}的日历",
            "{day}员工{name}的日成安排",
            "想约{name}，先看下他在{day}有什么会",
            "{day}，{name}经理都排了啥会",
            "查询联系人{name}的日程，日期是{day}",
            "同事{name}的日历，{day}",
            "看看{name}经理{day}忙不忙",
            "帮我看看{name}老师{day}要开几个会",
            "{day}，{name}老师的行程是啥",
            # missing
            "看看同事{name}的日程",
            "看看{name}老师的日历",
            "帮我查下员工{name}的会议安排",
            "同事{name}都有哪些会",
            # held out (last)
            "替我瞄一眼{day}同事{name}的档期",
        ),
        en=(
            "what is on {name}'s calendar {day}?",
            "show me {name}'s schedule for {day}",
            "is {name} busy {day}?",
            "what meetings does {name} have {day}",
            "could you please check my colleague {name}'s calendar for {day}? thanks",
            "find {name} and list their events {day}",
            "check {name}'s agenda {day}",
            "how packed is {name}'s calendar {day}",
            "{name}'s calender {day}[?|]",
            "does {name} have anything scheduled {day}?",
            "look up {name} and tell me what meetings they have {day}",
            "I want to see the calendar of {name} for {day}",
            "any events on {name}'s calendar {day}?",
            "is {name} free {day}?",
            # missing
            "what is on {name}'s calendar?",
            "show me the schedule of {name}",
            "what meetings does {name} have coming up",
            "check whether {name} is busy",
            # held out (last)
            "can you peek at {name}'s diary for {day}",
        ),
    ),
    IntentSpec(
        "person_calendar_by_id",
        (S("list_user_calendar_events", {"user_id": "{user}", "date": "{day}"}),),
        zh=(
            "看看用户{user}在{day}的日程",
            "{day}用户{user}有什么安排",
            "查一下{user}在{day}的日历",
            "员工{user}在{day}有哪些会",
            "麻烦您帮忙看一下账号{user}在{day}的日程安排，谢谢",
            "{user}在{day}忙不忙",
            "用户{user}的日成，{day}",
            "{day}，{user}这位同事都排了啥会",
            "查询{user}在{day}的会议",
            "帮我瞅瞅{user}在{day}有空没",
            "{user}，{day}的日历",
            "用户{user}在{day}要开几个会",
            "看下账号{user}在{day}的行程",
            "{day}的日程，用户{user}的",
            # missing
            "看看用户{user}的日程",
            "{day}这位同事有什么会",
            "查一下他在{day}的日历",
            "用户{user}都有哪些会",
            # held out (last)
            "替我翻翻{user}在{day}的档期",
        ),
        en=(
            "show the calendar of user {user} for {day}",
            "what is on the schedule of {user} for {day}?",
            "list the events of user {user} for {day}",
            "is user {user} busy {day}?",
            "could you please check the calendar of account {user} for {day}? thanks",
            "what meetings does {user} have {day}",
            "user {user}: calender for {day}",
            "how busy is the calendar of user {user} for {day}?",
            "does user {user} have any meetings {day}",
            "check the agenda of {user} for {day}",
            "I need the events on account {user} for {day}",
            "is {user} free {day}?",
            "pull up the schedule for user {user}, {day}",
            "what does user {user} have going on {day}",
            # missing
            "show the calendar of user {user}",
            "what is on the calendar of this colleague {day}?",
            "is that user busy {day}?",
            "list the meetings of account {user}",
            # held out (last)
            "can you peek at the diary of account {user} for {day}",
        ),
    ),
    # ------------------------------------------------------------------ invoice, then email
    IntentSpec(
        "invoice_then_email",
        (
            S("get_order_invoice", {"order_id": "{order}"}),
            S("send_email", {"to": "{email}", "subject": "{subject}", "body": "{body}"}, ("t1",)),
        ),
        zh=(
            "查一下订单{order}的发票，然后发邮件给{email}，主题是{subject}，内容是{body}",
            "订单{order}的发票查到后，发封邮件到{email}，标题：{subject}，正文：{body}",
            "先看看{order}这单的发票，再给{email}写封邮件，主题为{subject}，内容：{body}",
            "帮我查订单{order}的发票情况，查完发邮件通知{email}，主题是{subject}；内容是{body}。谢谢",
            "麻烦您先查询订单{order}对应的发票，再给{email}发一封邮件，主题：{subject}，内容是{body}。辛苦了",
            "订单{order}发票开了没？看完给{email}发个邮件，主题是{subject}，正文是{body}",
            "查下{order}的发漂，然后邮件{email}，标题是{subject}，内容：{body}",
            "{order}的发票查一下，结果发邮件到{email}，主题为{subject}，内容为{body}",
            "拿到订单{order}的发票信息后，给{email}发邮件：主题：{subject}；内容：{body}。就这样",
            "订单{order}，查发票，发邮件给{email}，主题：{subject}，内容：{body}",
            "看一下订单{order}有没有开票，然后写信给{email}，标题为{subject}，正文：{body}",
            "请查询订单{order}的发票，并给{email}发送邮件，主题是{subject}，内容是{body}。多谢",
            "订单{order}的票查一下，查完跟{email}发邮件说一声，主题：{subject}，内容：{body}",
            "查订单{order}发票，再发封邮件到{email}（主题是{subject}，内容是{body}）",
            # missing
            "查一下订单{order}的发票，然后发邮件，主题是{subject}，内容是{body}",
            "查下订单的发票，再发邮件给{email}，主题是{subject}，内容是{body}",
            "订单{order}的发票查好后给{email}发封邮件",
            "查一下订单{order}的发票，然后给{email}发邮件，内容是{body}",
            # held out (last)
            "把{order}这单发票的情况核一下，再用邮件知会{email}，主题是{subject}，内容是{body}",
        ),
        en=(
            "check the invoice for order {order}, then email {email} with subject: {subject}, body: {body}"
            + _TY,
            "look up the invoice of order {order} and send {email} a mail titled {subject}, saying {body}"
            + _TY,
            "get the invoice for {order}, then send an email to {email}, subject: {subject}, body: {body}"
            + _TY,
            "could you please find the invoice on order {order} and then mail {email}? subject: {subject}, "
            "body: {body}. thanks",
            "pull up the invoice of order {order}, after that email {email}, subject: {subject}, body: {body}"
            + _TY,
            "order {order}: check the invoice, then email {email}, title: {subject}, body: {body}" + _TY,
            "find the invioce for order {order} and email {email}, subject: {subject}, saying {body}" + _TY,
            "is there an invoice for order {order}? then write to {email}, subject: {subject}, body: {body}"
            + _TY,
            "see what invoice order {order} has and drop a note to {email}, subject: {subject}, body: {body}"
            + _TY,
            "check the invoice status of order {order} and notify {email} by email, subject: {subject}, "
            "body: {body}" + _TY,
            "get me the invoice of order {order}, and email {email} titled {subject}, saying {body}" + _TY,
            "I need the invoice of order {order} checked, then a mail to {email} with subject: {subject}, "
            "body: {body}" + _TY,
            "look up the order {order} invoice, then email {email}, header: {subject}, body: {body}" + _TY,
            "invoice check on order {order}, then mail {email}, subject: {subject}, body: {body}" + _TY,
            # missing
            "check the invoice for order {order}, then send an email, subject: {subject}, body: {body}" + _TY,
            "look up the invoice of my order and email {email}, subject: {subject}, body: {body}" + _TY,
            "get the invoice for order {order} and email {email} about it",
            "find the invoice for order {order}, then email {email} saying {body}" + _TY,
            # held out (last)
            "please grab the invoice of order {order} and fire off a mail to {email}, subject: {subject}, "
            "body: {body}" + _TY,
        ),
    ),
]

# New enum slot kinds (same shape as values.STATUS: canonical -> (zh surfaces, en surfaces)); the
# sampler's tables (ValueSampler._s_invstatus / _s_expstatus) are the one definition.
NEW_VALUE_KINDS: dict[str, dict[str, tuple[list[str], list[str]]]] = {
    "invstatus": INVOICE_STATUS,
    "expstatus": EXPENSE_STATUS,
}
