"""Intents of the reference domain: the plan each one needs and its request templates (zh, en).

Template syntax: ``[a|b|]`` picks one alternative (an empty one makes the part optional);
``{kind}`` / ``{kind2}`` is a slot filled by :class:`tao.domains.reference.phrasing.values.ValueSampler`.
An argument written as ``"{kind}"`` is present only when the template uses that slot; when a
*required* argument's slot is missing (or ``<ME>`` is used without a known session user) the
generator emits ``insufficient_context`` with the missing fields instead of a plan, so partial
templates double as insufficient-context cases. The LAST template of each language list is held
out of training (the held-out-template split).
"""

from __future__ import annotations

from tao.contracts.domain import IntentSpec


def S(tool: str, args: dict, deps: tuple[str, ...] = ()) -> tuple[str, dict, tuple[str, ...]]:
    return (tool, args, deps)


_Q = "[查询|查一下|查查|帮我查一下|看看|看一下|帮忙查下|我想知道|麻烦查一下]"
_QE = "[check|look up|show me|can you check|please check|find|tell me|I want to know|get]"

INTENTS: list[IntentSpec] = [
    IntentSpec(
        "query_order_status",
        (S("get_order_status", {"order_id": "{order}"}),),
        zh=(
            _Q + "订单{order}的[状态|进度|情况]",
            "订单{order}[现在|目前|][怎么样了|到哪一步了|是什么状态]？",
            "[我的|]订单号{order}，[状态是啥|帮我看下状态|处理得怎么样了]",
            "{order}这个订单[现在|]什么状态[了|]",
            _Q + "[我的|一下|]订单[状态|进度]",
            "帮我确认一下{order}[这笔|这个]订单的处理[进度|状态]",
        ),
        en=(
            _QE + " the status of order {order}",
            "what's the status of [my |]order {order}[?|]",
            "order {order}[ -|:|,] [status please|what is its status|where is it at]",
            "[is|has] order {order} [been processed|paid|ready] yet?",
            _QE + " [my |the |]order status",
            "could you confirm how order {order} is doing",
        ),
    ),
    IntentSpec(
        "track_logistics",
        (S("get_logistics", {"order_id": "{order}"}),),
        zh=(
            _Q + "订单{order}的[物流|快递|配送][信息|进度|]",
            "[我的|]订单{order}[到哪了|发到哪里了|快递到哪儿了|什么时候能到]？",
            "{order}的快递[现在|]在哪[里|]",
            _Q + "[我的|]快递到哪了",
            "跟踪一下订单{order}的运输[轨迹|情况]",
        ),
        en=(
            "[track|trace] [my |]order {order}",
            "where is [my |]order {order}[ now|]?",
            _QE + " the [shipping|delivery|logistics] [info|status] for order {order}",
            "when will order {order} [arrive|be delivered]?",
            "where is my package[?|]",
            "any tracking update on the parcel for order {order}",
        ),
    ),
    IntentSpec(
        "list_orders",
        (S("list_orders", {"user_id": "{user}", "period": "{period}", "status": "{status}"}),),
        zh=(
            _Q + "用户{user}[的订单|的所有订单|下的订单]",
            _Q + "用户{user}{period}的订单",
            "用户{user}{period}有哪些{status}的订单",
            "[列出|列一下|拉一下]{user}{period}的订单",
            "{user}[这个用户|]有没有{status}的订单",
            "帮我把用户{user}{period}{status}的订单[找出来|列出来]",
        ),
        en=(
            "list [all |the |]orders [of|for] user {user}",
            _QE + " orders [of|for|from] user {user} [from |in |]{period}",
            "which {status} orders does user {user} have {period}?",
            "show {status} orders for {user}",
            "pull up the orders placed by user {user} {period}",
        ),
    ),
    IntentSpec(
        "list_my_orders",
        (S("list_orders", {"user_id": "<ME>", "period": "{period}", "status": "{status}"}),),
        zh=(
            _Q + "[我|我自己|]{period}的订单[状态|]",
            _Q + "我[的|]{status}[的|]订单",
            "我{period}[买了什么|下了哪些单|都买了啥]",
            "[列出|看看]我{period}{status}的订单",
            "我的订单[有哪些|列表]",
            "我{period}有没有{status}的订单",
        ),
        en=(
            "[show|list] [my |the |]orders [from |in |]{period}",
            "[show|list] my {status} orders",
            "what did I [buy|order] {period}?",
            "my orders {period}[ please|]",
            "list my orders",
            "do I have any {status} orders from {period}",
        ),
    ),
    IntentSpec(
        "list_orders_by_name",
        (
            S("find_user", {"name": "{name}"}),
            S(
                "list_orders",
                {"user_id": "${t1.user_id}", "period": "{period}", "status": "{status}"},
                ("t1",),
            ),
        ),
        zh=(
            _Q + "[用户|客户|]{name}的订单",
            _Q + "[用户|客户]{name}{period}的订单",
            "{name}{period}[买了什么|下了哪些订单|有什么订单]",
            "帮我看看[客户|]{name}有没有{status}的订单",
            "[客户|用户]{name}{period}{status}的订单[有哪些|帮我列一下]",
        ),
        en=(
            _QE + " the orders of {name}",
            "what did {name} order {period}?",
            "[list|show] {status} orders for customer {name}",
            _QE + " orders placed by {name} {period}",
            "has {name} got any {status} orders from {period}",
        ),
    ),
    IntentSpec(
        "cancel_order",
        (S("cancel_order", {"order_id": "{order}", "reason": "{reason}"}),),
        zh=(
            "[帮我|请|麻烦|]取消订单{order}，[原因是|理由是|因为]{reason}",
            "订单{order}不要了，[原因是|因为]{reason}，[帮我取消|取消掉吧]",
            "[我想|我要]取消{order}这个订单，原因：{reason}",
            "[帮我|]取消订单{order}",
            "取消[我的|]订单，因为{reason}",
            "{order}这单麻烦撤销一下，理由是{reason}",
        ),
        en=(
            "[please |]cancel order {order} because {reason}",
            "I want to cancel [my |]order {order}, reason: {reason}",
            "cancel {order}[,|] reason: {reason}",
            "cancel order {order}",
            "cancel my order because {reason}",
            "kill order {order}, reason: {reason}",
        ),
    ),
    IntentSpec(
        "refund_order",
        (S("refund_payment", {"order_id": "{order}", "amount": "{amount}"}),),
        zh=(
            "[给|帮]订单{order}退款{amount}",
            "订单{order}[申请|要]退[款|钱]{amount}",
            "退{amount}给订单{order}",
            "订单{order}[帮我|]退[款|钱]",
            "[我要|申请]退款{amount}",
            "{order}这笔单子退回{amount}给客户",
        ),
        en=(
            "refund {amount} for order {order}",
            "[please |]issue a refund of {amount} on order {order}",
            "order {order}: refund {amount}",
            "refund order {order}",
            "I want a refund of {amount}",
            "give the customer {amount} back for order {order}",
        ),
    ),
    IntentSpec(
        "create_invoice",
        (S("create_invoice", {"order_id": "{order}", "title": "{title}"}),),
        zh=(
            "[给|帮我给]订单{order}开[张|个|]发票，抬头是{title}",
            "订单{order}[需要|要]开发票，抬头：{title}",
            "开发票，订单号{order}，抬头为{title}",
            "[帮我|]给订单{order}开发票",
            "[帮我|]开[张|]发票，抬头是{title}",
            "{order}这单的票开一下，抬头为{title}",
        ),
        en=(
            "[create|issue] an invoice for order {order}[,|] title: {title}",
            "invoice order {order} with header: {title}",
            "I need an invoice for order {order} titled {title}",
            "[create|issue] an invoice for order {order}",
            "issue an invoice titled {title}",
            "bill order {order} to title: {title}",
        ),
    ),
    IntentSpec(
        "query_invoice",
        (S("get_invoice", {"invoice_id": "{inv}"}),),
        zh=(
            _Q + "发票{inv}[的状态|的情况|]",
            "发票{inv}[开好了吗|现在什么状态|作废了没]？",
            _Q + "[我的|]发票[状态|]",
            "{inv}这张发票[怎么样了|是什么状态]",
        ),
        en=(
            _QE + " invoice {inv}",
            "what's the status of invoice {inv}?",
            _QE + " my invoice",
            "is invoice {inv} issued or void?",
        ),
    ),
    IntentSpec(
        "submit_expense",
        (
            S(
                "submit_expense",
                {"amount": "{amount}", "category": "{category}", "date": "{day}", "description": "{desc}"},
            ),
        ),
        zh=(
            "[帮我|我要|]报销{day}的{category}费用{amount}，事由是{desc}",
            "提交[一笔|]报销：{category}，{amount}，{day}，说明：{desc}",
            "{day}[花了|产生了]{amount}{category}费，[申请报销|帮我报一下]，用途是{desc}",
            "[帮我|]报销{category}费{amount}",
            "[我想|我要]报销，事由是{desc}",
            "把{day}那笔{amount}的{category}报掉，备注：{desc}",
        ),
        en=(
            "submit an expense of {amount} for {category} on {day}, description: {desc}",
            "[please |]file a {category} expense: {amount}, {day}, description: {desc}",
            "I spent {amount} on {category} {day}[,|] reason: {desc}",
            "submit a {category} expense of {amount}",
            "I want to file an expense, description: {desc}",
            "claim {amount} {category} from {day} for the purpose of {desc}",
        ),
    ),
    IntentSpec(
        "query_expense",
        (S("get_expense_status", {"expense_id": "{exp}"}),),
        zh=(
            _Q + "报销单{exp}[的状态|的进度|批了没有|]",
            "报销{exp}[审批通过了吗|到哪一步了|打款了吗]？",
            _Q + "[我的|]报销[进度|状态]",
            "{exp}这个报销单[现在|]是什么状态",
        ),
        en=(
            _QE + " [the status of |]expense {exp}",
            "[has|was] expense claim {exp} [been |]approved[?|]",
            "what's happening with my expense claim",
            "where is reimbursement {exp} at?",
        ),
    ),
    IntentSpec(
        "query_weather",
        (S("get_weather", {"city": "{city}", "date": "{day}"}),),
        zh=(
            _Q + "{city}{day}的天气",
            "{city}{day}[天气怎么样|会下雨吗|冷不冷|多少度]？",
            "{day}{city}[天气如何|什么天气|适合出门吗]",
            _Q + "{city}的天气",
            _Q + "{day}的天气",
            "[出差去|要去]{city}，{day}那边天气咋样",
        ),
        en=(
            "what's the weather in {city} {day}?",
            "[weather|forecast] [for|in] {city} {day}",
            "will it rain in {city} {day}?",
            "how's the weather in {city}",
            "what's the weather like {day}?",
            "is it going to be cold in {city} {day}",
        ),
    ),
    IntentSpec(
        "find_meeting_room",
        (S("find_meeting_room", {"start": "{when}", "duration_min": "{dur}", "capacity": "{count}"}),),
        zh=(
            "[找|查|看看有没有]{when}[可用的|空的|]会议室，{count}，{dur}",
            "{when}有没有能坐{count}的会议室？[开|用]{dur}",
            "[帮我|]找个{count}的会议室，{when}，{dur}",
            "[找|查]一下{when}的空会议室",
            "[找|查]一下能容纳{count}的会议室",
            "{when}需要一间能坐{count}的屋子开会{dur}，哪间空着",
        ),
        en=(
            "find a [free |]meeting room for {count} {when} for {dur}",
            "is there a room for {count} {when}? [we need it for |]{dur}",
            "[any|find] free rooms {when} for {dur}, {count}",
            "find a meeting room {when}",
            "find a meeting room for {count}",
            "which rooms are open {when} that fit {count} for {dur}",
        ),
    ),
    IntentSpec(
        "book_meeting_room",
        (
            S("find_meeting_room", {"start": "{when}", "duration_min": "{dur}", "capacity": "{count}"}),
            S(
                "book_meeting_room",
                {"room_id": "${t1.room_id}", "start": "{when}", "duration_min": "{dur}"},
                ("t1",),
            ),
        ),
        zh=(
            "[帮我|]订[一个|个|间]{when}的会议室，{count}，{dur}",
            "{when}[要|想]开会，{count}，{dur}，帮我[订|定|预订]个会议室",
            "预订会议室：{when}，{dur}，{count}",
            "帮我订个会议室",
            "[订|预订]个{count}的会议室",
            "{when}给{count}安排一间会议室开{dur}的会，直接订下",
        ),
        en=(
            "book a meeting room for {count} {when} for {dur}",
            "[reserve|book] a room {when}, {count}, {dur}",
            "I need a room for {count} {when} for {dur}[, please book it|]",
            "book a meeting room",
            "book a room for {count}",
            "grab us a room that seats {count} {when} for {dur}",
        ),
    ),
    IntentSpec(
        "book_room_by_id",
        (S("book_meeting_room", {"room_id": "{room}", "start": "{when}", "duration_min": "{dur}"}),),
        zh=(
            "[帮我|]订{room}会议室，{when}，{dur}",
            "{when}[用|借用]{room}，{dur}，帮我预订",
            "[预订|预定]{room}",
            "把{room}订下来，{when}开始，用{dur}",
        ),
        en=(
            "book room {room} {when} for {dur}",
            "reserve {room} {when} for {dur}",
            "book room {room}",
            "lock in room {room} starting {when} for {dur}",
        ),
    ),
    IntentSpec(
        "list_calendar_events",
        (S("list_calendar_events", {"date": "{day}"}),),
        zh=(
            "[我|]{day}有[哪些|什么][安排|日程|会议]",
            _Q + "{day}的日程",
            "{day}[的日历|的安排][是什么|有哪些]",
            _Q + "我的日程",
            "{day}忙不忙，日历上都排了啥",
        ),
        en=(
            "what's on my calendar {day}?",
            "[list|show] my [events|meetings|schedule] {day}",
            "do I have any meetings {day}?",
            "show my calendar",
            "how busy am I {day}, what's scheduled",
        ),
    ),
    IntentSpec(
        "create_calendar_event",
        (
            S(
                "create_calendar_event",
                {
                    "title": "{etitle}",
                    "start": "{when}",
                    "duration_min": "{dur}",
                    "attendees": ["{name}", "{name2}"],
                },
            ),
        ),
        zh=(
            "[帮我|]创建[一个|个|]日程，主题是{etitle}，{when}，{dur}，邀请{name}和{name2}",
            "{when}和{name}开{dur}的会，标题是{etitle}",
            "安排[一个|个]会议：标题：{etitle}，{when}开始，{dur}，参加人{name}、{name2}",
            "[帮我|]约{name}{when}开会，主题是{etitle}，{dur}",
            "[帮我|]建个日程，主题是{etitle}",
            "在日历上加个{dur}的会，{when}，主题为{etitle}，拉上{name}",
        ),
        en=(
            "schedule a meeting titled {etitle} {when} for {dur} with {name} and {name2}",
            "create an event, title: {etitle}, {when}, {dur}, invite {name}",
            "set up {etitle} {when} for {dur} with {name}",
            "create a calendar event titled {etitle}",
            "schedule a meeting with {name}",
            "put a {dur} slot on my calendar {when}, subject: {etitle}, and invite {name}",
        ),
    ),
    IntentSpec(
        "send_email",
        (S("send_email", {"to": "{email}", "subject": "{subject}", "body": "{body}"}),),
        zh=(
            "[给|帮我给|发邮件给]{email}[发|发一封]邮件，主题是{subject}，内容是{body}",
            "发邮件到{email}，标题：{subject}，正文：{body}",
            "[写|发]封邮件给{email}，主题为{subject}，内容：{body}",
            "[给|帮我给]{email}发[封|个|]邮件",
            "发[一封|个]邮件，主题是{subject}",
            "通知一下{email}，邮件主题{subject}，内容是{body}",
        ),
        en=(
            "[send|write] an email to {email} with subject: {subject} body: {body}",
            "email {email}, subject: {subject}, saying {body}",
            "send {email} a mail titled {subject}, body: {body}",
            "send an email to {email}",
            "send an email, subject: {subject}",
            "drop a note to {email}, subject: {subject}, body: {body}",
        ),
    ),
    IntentSpec(
        "email_user_by_name",
        (
            S("find_user", {"name": "{name}"}),
            S("get_user_profile", {"user_id": "${t1.user_id}"}, ("t1",)),
            S("send_email", {"to": "${t2.email}", "subject": "{subject}", "body": "{body}"}, ("t2",)),
        ),
        zh=(
            "给{name}发[封|个|一封]邮件，主题是{subject}，内容是{body}",
            "[帮我|]发邮件给[用户|同事|客户]{name}，标题：{subject}，正文：{body}",
            "[通知|告诉]{name}，邮件主题{subject}，内容是{body}",
            "给{name}发封邮件",
            "写邮件给{name}说一下，主题为{subject}，内容：{body}",
        ),
        en=(
            "email {name} with subject: {subject} body: {body}",
            "send {name} an email titled {subject}, saying {body}",
            "write to {name}, subject: {subject}, body: {body}",
            "send an email to {name}",
            "shoot {name} a message, subject: {subject}, body: {body}",
        ),
    ),
    IntentSpec(
        "find_user",
        (S("find_user", {"name": "{name}", "email": "{email}", "phone": "{phone}"}),),
        zh=(
            "[查找|找一下|搜一下|查一下]用户{name}",
            "[手机号|电话]{phone}是哪个用户",
            "邮箱{email}[对应的用户|是谁|的用户id是多少]",
            "找[一下|]叫{name}的[用户|客户]",
            "{phone}这个号码[对应哪个用户|是谁的]",
        ),
        en=(
            "find [the |]user {name}",
            "who is the user with [phone|mobile] {phone}?",
            "look up the user with email {email}",
            "search for a customer named {name}",
            "which account owns {phone}",
        ),
    ),
    IntentSpec(
        "get_user_profile",
        (S("get_user_profile", {"user_id": "{user}"}),),
        zh=(
            _Q + "用户{user}的[资料|信息|档案]",
            "{user}[这个用户|]的[个人资料|详细信息|基本信息][是什么|给我看看]",
            "[打开|调出]用户{user}的档案",
            _Q + "用户[资料|信息]",
            "{user}是什么会员等级，资料调一下",
        ),
        en=(
            "[show|get|pull up] the profile of user {user}",
            _QE + " user {user}'s [details|info|profile]",
            "what are the details of {user}?",
            "show a user profile",
            "which tier is {user} on, open their profile",
        ),
    ),
    IntentSpec(
        "get_my_profile",
        (S("get_user_profile", {"user_id": "<ME>"}),),
        zh=(
            _Q + "我的[个人资料|资料|账户信息|会员等级]",
            "我的[账户|账号][信息|资料]是什么",
            "我是什么会员[等级|]",
        ),
        en=(
            "show my profile",
            "what's in my [account|profile] [details|info]?",
            "what membership tier am I",
        ),
    ),
    IntentSpec(
        "get_profile_by_name",
        (S("find_user", {"name": "{name}"}), S("get_user_profile", {"user_id": "${t1.user_id}"}, ("t1",))),
        zh=(
            _Q + "{name}的[资料|信息|个人信息]",
            "[用户|客户]{name}的[邮箱|手机号|资料]是什么",
            "帮我查下{name}的[档案|联系方式]",
            "把[客户|]{name}的会员资料调出来",
        ),
        en=(
            "[show|get] {name}'s profile",
            "what's {name}'s [email|phone|contact info]?",
            "pull up the profile for {name}",
            "I need the account details of {name}",
        ),
    ),
    IntentSpec(
        "update_my_phone",
        (S("update_user_profile", {"user_id": "<ME>", "field": "phone", "value": "{phone}"}),),
        zh=(
            "[把|帮我把]我的[手机号|电话|手机号码][改成|更新为|换成]{phone}",
            "我[换号了|的新手机号是]{phone}，[帮我改一下|更新下资料]",
            "[修改|更改]我的手机号",
            "以后联系我请用{phone}，资料里的电话也改掉",
        ),
        en=(
            "[change|update] my phone [number |]to {phone}",
            "my new [phone|mobile] is {phone}, please update it",
            "update my phone number",
            "from now on reach me at {phone}, fix my profile",
        ),
    ),
    IntentSpec(
        "update_my_email",
        (S("update_user_profile", {"user_id": "<ME>", "field": "email", "value": "{email}"}),),
        zh=(
            "[把|帮我把]我的邮箱[改成|更新为|换成]{email}",
            "我的新邮箱是{email}，[帮我|]更新[一下|]",
            "[修改|更改]我的邮箱",
            "资料里的邮件地址请替换成{email}",
        ),
        en=(
            "[change|update] my email to {email}",
            "my new email address is {email}",
            "update my email",
            "please swap the email on my account for {email}",
        ),
    ),
    IntentSpec(
        "update_my_city",
        (S("update_user_profile", {"user_id": "<ME>", "field": "city", "value": "{city}"}),),
        zh=(
            "[把|帮我把]我的[城市|所在城市][改成|更新为]{city}",
            "我搬到{city}了，[更新一下资料|帮我改下城市]",
            "资料里的城市请改为{city}",
        ),
        en=(
            "[change|update] my city to {city}",
            "I moved to {city}, update my profile",
            "set my home city to {city}",
        ),
    ),
    IntentSpec(
        "update_user_phone",
        (S("update_user_profile", {"user_id": "{user}", "field": "phone", "value": "{phone}"}),),
        zh=(
            "把用户{user}的手机号改成{phone}",
            "用户{user}的电话更新为{phone}",
            "{user}换了新号码{phone}，资料同步改一下",
        ),
        en=(
            "change the phone of user {user} to {phone}",
            "update user {user}'s phone number to {phone}",
            "{user} has a new mobile {phone}, sync the profile",
        ),
    ),
    IntentSpec(
        "latest_order_logistics",
        (
            S("find_user", {"name": "{name}"}),
            S("list_orders", {"user_id": "${t1.user_id}"}, ("t1",)),
            S("get_logistics", {"order_id": "${t2.order_id}"}, ("t2",)),
        ),
        zh=(
            _Q + "{name}最新[一个|一笔|]订单的物流",
            "{name}最近[买|下]的[那单|订单|东西][到哪了|物流怎么样]",
            "[用户|客户]{name}的最新订单[发货了吗|快递到哪里了]",
            "看下{name}最后一笔订单的配送进度",
        ),
        en=(
            "where is {name}'s latest order?",
            "track the most recent order of {name}",
            _QE + " the shipping status of {name}'s newest order",
            "how far along is delivery of the last thing {name} ordered",
        ),
    ),
    IntentSpec(
        "my_latest_order_logistics",
        (S("list_orders", {"user_id": "<ME>"}), S("get_logistics", {"order_id": "${t1.order_id}"}, ("t1",))),
        zh=(
            _Q + "我最新[一个|一笔|]订单的物流",
            "我最近[买|下]的[那单|东西|订单][到哪了|什么时候到]",
            "我最后一笔订单的快递[到哪里了|进度]",
        ),
        en=(
            "where is my latest order?",
            "track my most recent order",
            "how is delivery of my last purchase going",
        ),
    ),
    IntentSpec(
        "cancel_and_refund",
        (
            S("cancel_order", {"order_id": "{order}", "reason": "{reason}"}),
            S("refund_payment", {"order_id": "{order}", "amount": "{amount}"}, ("t1",)),
        ),
        zh=(
            "取消订单{order}并退款{amount}，原因是{reason}",
            "订单{order}不要了，[原因是|因为]{reason}，取消后退{amount}",
            "[帮我|]把{order}取消掉再退款{amount}，理由是{reason}",
            "先撤销{order}（理由是{reason}），然后给客户退回{amount}",
        ),
        en=(
            "cancel order {order} and refund {amount} because {reason}",
            "cancel {order}, reason: {reason}, then refund {amount}",
            "please cancel order {order} (reason: {reason}) and give back {amount}",
            "void {order}, reason: {reason}, and return {amount} to the buyer",
        ),
    ),
    IntentSpec(
        "submit_and_check_expense",
        (
            S(
                "submit_expense",
                {"amount": "{amount}", "category": "{category}", "date": "{day}", "description": "{desc}"},
            ),
            S("get_expense_status", {"expense_id": "${t1.expense_id}"}, ("t1",)),
        ),
        zh=(
            "报销{day}的{category}费用{amount}，事由是{desc}，提交后查一下状态",
            "提交{category}报销{amount}（{day}，说明：{desc}）然后看看审批进度",
            "把{day}那笔{amount}的{category}报了，备注：{desc}，顺便告诉我状态",
        ),
        en=(
            "submit a {category} expense of {amount} on {day}, description: {desc}, then check its status",
            "file {amount} for {category} from {day} (description: {desc}) and tell me the status",
            "claim {amount} {category} {day} for the purpose of {desc} and track the approval",
        ),
    ),
    IntentSpec(
        "profile_then_email",
        (
            S("get_user_profile", {"user_id": "{user}"}),
            S("send_email", {"to": "${t1.email}", "subject": "{subject}", "body": "{body}"}, ("t1",)),
        ),
        zh=(
            "给用户{user}发邮件，主题是{subject}，内容是{body}",
            "查到用户{user}的邮箱后发封邮件，标题：{subject}，正文：{body}",
            "通知{user}这个用户，邮件主题{subject}，内容是{body}",
        ),
        en=(
            "email user {user} with subject: {subject} body: {body}",
            "look up user {user}'s email and send subject: {subject}, body: {body}",
            "notify account {user} by mail, subject: {subject}, saying {body}",
        ),
    ),
]

CONNECTORS = {
    "zh": ["，然后", "，再", "；另外", "。还有，", "，顺便", "，同时", "，并且", "。另外帮我"],
    "en": [" and then ", ", also ", ". Also, ", "; then ", " and ", ". After that, ", ", plus "],
}
TRAIN_CONNECTORS = {
    "zh": [
        "？另外",
        "，还有",
        "。然后",
        "，以及",
        "，接着",
        "；再帮我",
        "，另外再",
        "。顺便",
        "？还有，",
        "。再",
        "，外加",
        "；还有个事，",
        "。第二件事，",
        "，完了再",
        "和",
        "，和",
        "以及",
        "，再",
        "，并",
        "，同时也",
        "；",
    ],
    "en": [
        "? Also ",
        ", and also ",
        ". Then ",
        " and after that ",
        ". Plus ",
        "; also ",
        ", then ",
        " then ",
        ". And ",
        "? And ",
        " plus ",
        ". Second thing: ",
        ", and while you're at it ",
        ". One more: ",
        ", as well as ",
        " and also ",
        ", and ",
        "; and ",
    ],
}
"""Extra connectors for composed *training* rows only (evaluation splits use :data:`CONNECTORS`)."""


def _with_extras(specs: list[IntentSpec]) -> list[IntentSpec]:
    from dataclasses import replace

    from tao.domains.reference.phrasing.intents_extra import merge
    from tao.domains.reference.phrasing.intents_more import more_templates as round6
    from tao.domains.reference.phrasing.templates import more_templates

    return [
        replace(
            s,
            zh=more_templates(s.name, "zh") + round6(s.name, "zh") + merge(s.name, "zh", s.zh),
            en=more_templates(s.name, "en") + round6(s.name, "en") + merge(s.name, "en", s.en),
        )
        for s in specs
    ]


def _all_intents(specs: list[IntentSpec]) -> list[IntentSpec]:
    """The base intents, the four new tools' intents (:mod:`.intents_new`) and the round-6 chains
    (:mod:`.intents_more`)."""
    from tao.domains.reference.phrasing.intents_chain import CHAIN_INTENTS
    from tao.domains.reference.phrasing.intents_more import MORE_INTENTS
    from tao.domains.reference.phrasing.intents_new import NEW_INTENTS
    from tao.domains.reference.phrasing.intents_pairs import PAIR_INTENTS

    return specs + NEW_INTENTS + MORE_INTENTS + PAIR_INTENTS + CHAIN_INTENTS


INTENTS = _with_extras(_all_intents(INTENTS))
