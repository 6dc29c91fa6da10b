"""Extra request templates per intent (zh, en), merged into :data:`tao.domains.reference.phrasing.intents.INTENTS`.

They are inserted *before* each list's last template, so the original held-out template stays the
last one (and stays held out). A template starting with ``~`` is held out too (the marker is
stripped when expanding): every language of an intent with extras gets one new held-out phrasing,
so the held-out-template split keeps measuring phrasings never trained on.
"""

from __future__ import annotations

HELD_MARK = "~"

EXTRA: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "query_order_status": (
        (
            "我的订单[现在|][怎么样了|什么状态]",
            "[帮我|]看下订单[处理|]到哪一步了",
            "我想知道订单{order}[现在|]的状态",
            "{order}[这单|这笔订单][处理|弄]得[咋样|怎么样]了",
            "[能不能|可以]帮我看看{order}[这个订单|]的状态吗",
            "订单{order}[发货|处理]了没有",
            "~请问单号{order}的订单眼下是什么情况",
        ),
        (
            "how is order {order} doing[?|]",
            "how is my order doing?",
            "~has my order been processed yet",
            "can you tell me the status of order {order}",
            "any news on order {order}?",
            "I'd like to know where order {order} stands",
            "~status check on order {order} please",
        ),
    ),
    "track_logistics": (
        (
            "我的[包裹|快递|货][到哪了|发了没|什么时候到]",
            "~快递怎么还没到，帮我查查",
            "订单{order}[发货了吗|寄出了没|到哪儿了]",
            "[帮我|]看看{order}的包裹[走到哪了|现在在哪]",
            "{order}[什么时候|几号]能送到",
            "~{order}这单的货运到哪个城市了",
        ),
        (
            "has order {order} shipped yet?",
            "has my parcel shipped?",
            "where is my delivery at",
            "where's the package for order {order}",
            "what's the delivery status of {order}?",
            "is order {order} out for delivery",
            "~how close is order {order} to arriving",
        ),
    ),
    "list_my_orders": (
        (
            "我{period}[下了几单|买过哪些东西|都下了啥单]",
            "[帮我|]把我{period}的订单[列出来|拉出来]",
            "~翻一下我{period}的购买记录",
        ),
        (
            "what have I ordered {period}?",
            "can you list my orders from {period}",
            "show me everything I bought {period}",
            "~pull my purchase history for {period}",
        ),
    ),
    "cancel_order": (
        (
            "[我要|帮我]取消[一个|一笔|刚才的]订单",
            "~刚下的单不想要了，撤了吧",
            "订单{order}[帮我|]取消[掉|]吧，[因为|原因：]{reason}",
            "[我不想要|不要]订单{order}了",
            "~把{order}退掉，理由：{reason}",
        ),
        (
            "please call off order {order}, reason: {reason}",
            "I want to cancel an order",
            "cancel it please, reason: {reason}",
            "~call off my purchase",
            "I don't want order {order} anymore",
            "can you cancel {order}? reason: {reason}",
            "~scrap order {order} because {reason}",
        ),
    ),
    "refund_order": (
        (
            "[我要|申请|帮我]退[钱|款]",
            "订单{order}[能|可以]退款吗",
            "[帮|]订单{order}[办理|处理一下]退款，金额{amount}",
            "{order}这单退{amount}[吧|]",
            "~订单{order}给买家返还{amount}",
        ),
        (
            "please refund {amount} to order {order}",
            "I want my money back",
            "can I get a refund for order {order}",
            "~please reimburse {amount} to me",
            "can you process a {amount} refund for {order}",
            "~send {amount} back to the buyer of order {order}",
        ),
    ),
    "query_weather": (
        (
            "{day}天气[怎么样|如何|好不好]",
            "~{day}外面冷吗",
            "{day}{city}[下不下雨|热不热|有没有雨]",
            "想知道{city}{day}的[天气|气温]",
            "{city}{day}[要不要带伞|天气好吗]",
            "~{day}去{city}需要带伞吗",
        ),
        (
            "is it going to rain in {city} {day}?",
            "will it rain {day}?",
            "what's the weather in {city}?",
            "what's the forecast for {city} {day}",
            "tell me the weather in {city} {day}",
            "do I need an umbrella in {city} {day}?",
            "~how hot will {city} be {day}",
        ),
    ),
    "book_meeting_room": (
        (
            "[帮我|]约个会议室",
            "{when}[帮我|]订个会议室",
            "[麻烦|请]帮我[定|订]一间{when}的会议室，{count}，开{dur}",
            "{when}[我们|]{count}开会{dur}，[订|约]个会议室",
            "~{when}要一间会议室，{count}，{dur}，帮我锁定",
        ),
        (
            "please reserve a conference room for {count} {when} for {dur}",
            "reserve a room {when}",
            "can you book me a conference room",
            "can you book us a room {when} for {dur}? we are {count}",
            "~set aside a room for {count} {when}, {dur}",
        ),
    ),
    "find_meeting_room": (
        (
            "{when}[还有|有]空会议室吗？{count}，{dur}",
            "~看下{when}哪间会议室能容纳{count}，用{dur}",
        ),
        (
            "are any rooms free {when} for {count}, {dur}?",
            "~check room availability {when} for {count} for {dur}",
        ),
    ),
    "list_calendar_events": (
        (
            "{day}我[都|]有什么会",
            "[帮我|]看一下我{day}的[日历|日程]",
            "~{day}的行程帮我过一遍",
        ),
        (
            "what meetings do I have {day}?",
            "anything on my schedule {day}?",
            "~what's my agenda looking like {day}",
        ),
    ),
    "send_email": (
        (
            "[帮我|]发个邮件",
            "[帮我|]写封邮件，内容是{body}",
            "[请|麻烦]给{email}发封邮件，主题：{subject}，内容：{body}",
            "~用邮件告诉{email}，主题{subject}，正文{body}",
        ),
        (
            "please email {email}, subject: {subject}, body: {body}",
            "send an email for me",
            "write an email saying {body}",
            "~fire off a mail to {email}, subject: {subject}, body: {body}",
        ),
    ),
    "get_my_profile": (
        (
            "[看看|查下]我的资料",
            "~我的账户详情给我看看",
        ),
        (
            "can you show me my account info",
            "~what does my profile say",
        ),
    ),
    "query_invoice": (
        (
            "[我想知道|请问]发票{inv}[的情况|开了没有]",
            "~{inv}号发票处理到哪一步了",
        ),
        (
            "has invoice {inv} been issued?",
            "~any update on invoice {inv}",
        ),
    ),
    "query_expense": (
        (
            "报销单{exp}[批了吗|审核通过没有]",
            "~{exp}的报销钱到账了吗",
        ),
        (
            "is expense {exp} approved yet?",
            "~any news on reimbursement {exp}",
        ),
    ),
}


def merge(name: str, lang: str, base: tuple[str, ...]) -> tuple[str, ...]:
    """``base`` with the extras of ``name``/``lang`` inserted before its last (held-out) template."""
    extra = EXTRA.get(name)
    if not extra:
        return base
    add = extra[0] if lang == "zh" else extra[1]
    return base[:-1] + add + base[-1:]
