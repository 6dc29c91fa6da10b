"""Shared-object and same-tool coordinations of the reference domain: two independent steps in one
request, no step references ("伦敦和巴黎明天的天气", "订单X的状态和物流", "把我的手机号和城市都改了").

Same format and conventions as :mod:`tao.domains.reference.phrasing.intents_new` (read its module
docstring): ``[a|b|]`` alternatives, ``{kind}`` slots, ``<ME>`` for the session user, templates
after a ``# missing`` comment omit a required slot, the LAST template of each language is held out.
Intents whose only required value is ``<ME>`` (:data:`PAIR_INTENTS`' last one) have no
``# missing`` block.

* A second value of a kind is ``{kind2}`` (``{city2}``, ``{order2}``, ``{inv2}``): the generator
  (:func:`training.generate._fill`) samples it distinct from ``{kind}`` and maps it to the same
  perception slot type (``city2`` -> ``CITY``), so the two steps get two different slots.
* A value shared by both steps (the order of "状态和物流", the day of "天气和日程", the period of
  "发票和报销") is written once in the template and used by both steps; a template never repeats
  ``{day}`` (the second mention is "那天" / "that day").
* The steps are compared as a sequence (:mod:`training.cases`), so every template mentions the two
  asks in the order of the intent's steps (status before logistics, phone before city, ``{inv}``
  before ``{inv2}``, weather before calendar, invoices before expenses).

(Written for the plan-model chain round; merged into
:data:`tao.domains.reference.phrasing.intents.INTENTS`.)
"""

from __future__ import annotations

from tao.contracts.domain import IntentSpec
from tao.domains.reference.phrasing.intents import S

_Q = "[查一下|查查|看看|帮我查下|麻烦查一下|帮忙看看]"

PAIR_INTENTS: list[IntentSpec] = [
    # ------------------------------------------------------------------ weather in two cities
    IntentSpec(
        "weather_two_cities",
        (
            S("get_weather", {"city": "{city}", "date": "{day}"}),
            S("get_weather", {"city": "{city2}", "date": "{day}"}),
        ),
        zh=(
            "{city}和{city2}{day}的天气[怎么样|如何]",
            "{day}{city}跟{city2}[天气咋样|分别什么天气]",
            _Q + "{city}、{city2}两地的天气",
            "帮我对比一下{city}和{city2}{day}的天气",
            "麻烦您查一下{city}以及{city2}{day}的天气预报，谢谢",
            "{city}{day}下雨吗？{city2}呢？",
            "我{day}先去{city}再去{city2}，两边天气都帮我看看",
            "{city}和{city2}哪个{day}更冷",
            "看下{city}的天气，顺便也看下{city2}的",
            "{day}的天气：{city}，{city2}",
            "查{city}{day}的天气，再查{city2}的",
            "{city}和{city2}的气温[各是多少|分别多少度]",
            "出差要跑{city}和{city2}，{day}那两边天气如何",
            # missing
            "{day}这两个城市的天气怎么样",
            "帮我比较一下两地{day}的天气",
            # held out (last)
            "{day}{city}同{city2}两座城市的天儿各自咋样",
        ),
        en=(
            "what is the weather in {city} and {city2} {day}?",
            "weather for {city} and {city2}[ please|]",
            "please check the forecast for {city} and {city2} {day}",
            "how is the weather {day} in {city} and in {city2}?",
            "could you compare the weather in {city} with {city2} {day}? thanks",
            "will it rain in {city} {day}? and in {city2}?",
            "I fly to {city} and then {city2} {day}, so I need the weather in both",
            "is it colder in {city} or {city2} {day}?",
            "show me the weather in {city}, then the weather in {city2}",
            "the forecast {day}: {city}, {city2}",
            "check the {city} weather {day}, and {city2} as well",
            "tell me the temperature in {city} and {city2}",
            "get the weather in both {city} and {city2} {day}",
            # missing
            "what is the weather {day} in both cities?",
            "compare the forecast for the two cities {day}",
            # held out (last)
            "can you give me a side by side of how {city} and {city2} look weather wise {day}",
        ),
    ),
    # ------------------------------------------------------------------ one order: status + logistics
    IntentSpec(
        "order_status_and_logistics",
        (
            S("get_order_status", {"order_id": "{order}"}),
            S("get_logistics", {"order_id": "{order}"}),
        ),
        zh=(
            _Q + "订单{order}的状态和物流",
            "订单{order}是什么状态？物流走到哪了？",
            "{order}这单的进度和快递信息都给我看看",
            "麻烦您帮我查一下订单{order}的状态，顺便看下物流，谢谢",
            "订单号{order}，状态、物流",
            "查下订单{order}处理到哪一步了，再看看快递到哪了",
            "我的订单{order}发货了没？快递走到哪了",
            "订单{order}的订单状态以及物流轨迹",
            "帮忙看看{order}的状态，还有它的物流",
            "{order}这个订单什么情况，包裹在哪",
            "订单{order}：先看状态，然后查物流",
            "看一下订单{order}的状态跟配送进度",
            "订单{order}怎么样了，物流信息也发我一下",
            # missing
            "这个订单的状态和物流帮我查一下",
            "查下订单状态，顺便看看物流",
            # held out (last)
            "单子{order}卡在哪个环节了，快递又跑到哪儿了",
        ),
        en=(
            "check the status and the tracking of order {order}",
            "what is the status of order {order}, and where is the package?",
            "order {order}: status and shipping info[ please|]",
            "could you please look up order {order} and its delivery tracking? thanks",
            "is order {order} shipped yet? where is it",
            "show me the order status of {order}, then the logistics",
            "I need both the status and the tracking for order {order}",
            "what state is order {order} in, and where is it?",
            "look up order {order}, status plus shipment tracking",
            "get the status of order {order} and track it as well",
            "the status of {order}, and the courier location too",
            "tell me how order {order} is doing and where the parcel is",
            "please tell me the status of order {order} and track the parcel",
            # missing
            "check the status and the tracking of this order",
            "what state is the order in, and where is the parcel?",
            # held out (last)
            "can you find out what stage order {order} has reached and where the courier has got to",
        ),
    ),
    # ------------------------------------------------------------------ one order: status + invoice
    IntentSpec(
        "order_status_and_invoice",
        (
            S("get_order_status", {"order_id": "{order}"}),
            S("get_order_invoice", {"order_id": "{order}"}),
        ),
        zh=(
            _Q + "订单{order}的状态和发票",
            "订单{order}什么状态？发票开了没？",
            "{order}这单处理到哪了，发票开出来没有",
            "麻烦您帮我查一下订单{order}的状态，顺便看看它的发票，谢谢",
            "订单号{order}，状态和发票信息",
            "帮忙看下订单{order}的进度，再查下对应的发票",
            "订单{order}的订单状态以及开票情况",
            "{order}这个订单怎么样了，票开了吗",
            "订单{order}：先查状态，接着看发票",
            "看看订单{order}的状态，还有发票号",
            "订单{order}付款了没，发票是哪张",
            "查询订单{order}的状态与关联发票",
            "订单{order}啥情况，发漂也一起查下",
            # missing
            "这个订单的状态和发票帮我看看",
            "查下订单状态，顺便看下发票开了没",
            # held out (last)
            "单号{order}走到哪一步了，票据那边有着落没",
        ),
        en=(
            "check the status and the invoice of order {order}",
            "what is the status of order {order}, and is it invoiced?",
            "order {order}: status and invoice[ please|]",
            "could you please look up order {order} and the invoice that goes with it? thanks",
            "show me the order status of {order}, then its invoice",
            "I need both the status and the invoice number for order {order}",
            "how is order {order} doing, and was an invoice issued?",
            "get the status of order {order} and the invioce as well",
            "is order {order} paid? and which invoice belongs to it",
            "tell me the state of order {order} plus its invoice details",
            "look up order {order}, status first, after that the invoice",
            "the status of {order}, and its invoice too",
            # missing
            "check the status and the invoice of this order",
            "what state is the order in, and is there an invoice?",
            # held out (last)
            "can you see where order {order} stands and whether any billing paper came out for it",
        ),
    ),
    # ------------------------------------------------------------------ two invoices
    IntentSpec(
        "two_invoices",
        (
            S("get_invoice", {"invoice_id": "{inv}"}),
            S("get_invoice", {"invoice_id": "{inv2}"}),
        ),
        zh=(
            _Q + "发票{inv}和{inv2}",
            "发票{inv}、{inv2}的状态分别是什么",
            "帮我看下{inv}跟{inv2}这两张发票",
            "麻烦您查询一下发票{inv}和发票{inv2}的详情，谢谢",
            "{inv}和{inv2}两张票开好了没",
            "发票号{inv}，{inv2}，查一下",
            "先查发票{inv}，再查发票{inv2}",
            "发票{inv}多少钱？{inv2}呢？",
            "看看{inv}这张发票，顺便把{inv2}也查了",
            "这两张发票：{inv}、{inv2}，是不是都作废了",
            "发票{inv}以及{inv2}的金额和状态",
            "帮忙核对下发飘{inv}和{inv2}",
            # missing
            "帮我查下这两张发票的状态",
            "发票{inv}和另一张发票的金额分别多少",
            # held out (last)
            "票据{inv}同{inv2}各是什么状况",
        ),
        en=(
            "check invoices {inv} and {inv2}",
            "what is the status of invoice {inv} and invoice {inv2}?",
            "show me invoice {inv} and also {inv2}",
            "could you please look up invoices {inv} and {inv2}? thanks",
            "invoice {inv}, invoice {inv2}: status[?|]",
            "how much are {inv} and {inv2}?",
            "look up invoice {inv}, then invoice {inv2}",
            "are {inv} and {inv2} both issued?",
            "get me the details of invoice {inv} and of {inv2}",
            "is invoice {inv} voided? and what about {inv2}",
            "I need the amounts on invoices {inv} and {inv2}",
            "pull up {inv} along with {inv2}",
            # missing
            "check the status of these two invoices",
            "show me invoice {inv} and the other invoice too",
            # held out (last)
            "please dig out both bills, {inv} as well as {inv2}, and tell me where each stands",
        ),
    ),
    # ------------------------------------------------------------------ two orders
    IntentSpec(
        "two_order_status",
        (
            S("get_order_status", {"order_id": "{order}"}),
            S("get_order_status", {"order_id": "{order2}"}),
        ),
        zh=(
            _Q + "订单{order}和{order2}的状态",
            "订单{order}、{order2}分别到哪一步了",
            "帮我看下{order}跟{order2}这两单的进度",
            "麻烦您查询一下订单{order}和订单{order2}的状态，谢谢",
            "{order}和{order2}两个订单发货了没",
            "订单号{order}，{order2}，状态查一下",
            "先查订单{order}的状态，再查{order2}的",
            "订单{order}什么状态？{order2}呢？",
            "看看{order}这单，顺便把{order2}也查下",
            "这两个订单：{order}、{order2}，都付款了吗",
            "订单{order}以及订单{order2}处理得怎么样了",
            "帮忙核对下{order}与{order2}的订单状态",
            # missing
            "帮我查下这两个订单的状态",
            "订单{order}和另一个订单都什么状态",
            # held out (last)
            "单子{order}同{order2}各走到哪个环节了",
        ),
        en=(
            "check the status of orders {order} and {order2}",
            "what is the status of order {order} and order {order2}?",
            "show me where orders {order} and {order2} are at",
            "could you please look up orders {order} and {order2}? thanks",
            "order {order}, order {order2}: status[?|]",
            "have {order} and {order2} shipped yet?",
            "look up order {order}, then order {order2}",
            "is order {order} delivered? and what about {order2}",
            "I need the status of two orders, {order} and {order2}",
            "tell me how orders {order} and {order2} are doing",
            "get the order status for {order} as well as {order2}",
            "order status please: {order} and {order2}",
            # missing
            "check the status of these two orders",
            "what is the status of order {order} and the other one?",
            # held out (last)
            "please find out which stage each of orders {order} and {order2} has reached",
        ),
    ),
    # ------------------------------------------------------------------ my profile: two fields
    IntentSpec(
        "update_my_phone_and_city",
        (
            S("update_user_profile", {"user_id": "<ME>", "field": "phone", "value": "{phone}"}),
            S("update_user_profile", {"user_id": "<ME>", "field": "city", "value": "{city}"}),
        ),
        zh=(
            "把我的手机号改成{phone}，城市改成{city}",
            "我换号了，新号码是{phone}，人也搬到{city}了，资料帮我都更新下",
            "帮我把我的电话更新为{phone}，所在城市更新为{city}",
            "麻烦您把我资料里的手机号码改为{phone}，城市改为{city}，谢谢",
            "手机号：{phone}；城市：{city}。帮我改下个人资料",
            "我的手机号换成{phone}，顺便把城市也改成{city}",
            "修改个人信息：电话{phone}，城市{city}",
            "先把我手机号改成{phone}，再把城市改成{city}",
            "号码换成{phone}了，我也搬去{city}了，更新一下我的资料",
            "更新我的资料：手机{phone}，所在城市{city}",
            "我的联系电话改为{phone}并且城市改为{city}",
            "帮我改两项：手机号{phone}，城市{city}",
            # missing
            "把我的手机号和城市都改一下",
            "我的手机号改成{phone}，城市也要改",
            # held out (last)
            "劳驾把我档案里的电话换成{phone}，常住地换成{city}",
        ),
        en=(
            "change my phone to {phone} and my city to {city}",
            "update my phone number to {phone}, and my city to {city}",
            "my new mobile is {phone} and I moved to {city}, please update my profile",
            "could you please set my phone to {phone} and my city to {city}? thanks",
            "phone: {phone}, city: {city}. update my profile",
            "please update my profile: phone {phone}, city {city}",
            "set my phone number to {phone}, then set my city to {city}",
            "I got a new number, {phone}, and I relocated to {city}; fix my profile",
            "change two things on my account: the phone to {phone} and the city to {city}",
            "update my mobile to {phone} and also change my city to {city}",
            "my phone is {phone} and my city is {city}, please save both",
            "the phone on my profile should be {phone}, and the city {city}",
            # missing
            "change my phone number and my city",
            "update my phone to {phone} and change my city too",
            # held out (last)
            "can you swap the number on my account for {phone} and move my home city over to {city}",
        ),
    ),
    IntentSpec(
        "update_my_email_and_city",
        (
            S("update_user_profile", {"user_id": "<ME>", "field": "email", "value": "{email}"}),
            S("update_user_profile", {"user_id": "<ME>", "field": "city", "value": "{city}"}),
        ),
        zh=(
            "把我的邮箱改成{email}，城市改成{city}",
            "我的新邮箱是{email}，另外我搬到{city}了，资料帮我更新",
            "帮我把我的邮箱更新为{email}，所在城市更新为{city}",
            "麻烦您把我资料里的电子邮箱改为{email}，城市改为{city}，谢谢",
            "邮箱：{email}；城市：{city}。帮我改下个人资料",
            "我的邮箱换成{email}，顺便把城市也改成{city}",
            "修改个人信息：邮箱{email}，城市{city}",
            "先把我邮箱改成{email}，再把所在城市改成{city}",
            "更新我的资料：邮件地址{email}，所在城市{city}",
            "我的邮件地址改为{email}并且城市改为{city}",
            "帮我改两项：邮箱{email}，城市{city}",
            "邮箱换成{email}了，我也搬去{city}了，资料同步一下",
            # missing
            "把我的邮箱和城市都改一下",
            "我的邮箱改成{email}，城市也得改",
            # held out (last)
            "劳驾把我档案里的邮件地址换成{email}，常住地换成{city}",
        ),
        en=(
            "change my email to {email} and my city to {city}",
            "update my email address to {email}, and my city to {city}",
            "my new email is {email} and I moved to {city}, please update my profile",
            "could you please set my email to {email} and my city to {city}? thanks",
            "email: {email}, city: {city}. update my profile",
            "please update my profile: email {email}, city {city}",
            "set my email to {email}, then set my city to {city}",
            "I have a new address, {email}, and I relocated to {city}; fix my profile",
            "change two things on my account: the email to {email} and the city to {city}",
            "update my email to {email} and also change my city to {city}",
            "my email is {email} and my city is {city}, please save both",
            "the email on my profile should be {email}, and the city {city}",
            # missing
            "change my email and my city",
            "update my email to {email} and change my city too",
            # held out (last)
            "can you swap the mail address on my account for {email} and move my home city over to {city}",
        ),
    ),
    # ------------------------------------------------------------------ one day: weather + my calendar
    IntentSpec(
        "weather_and_calendar",
        (
            S("get_weather", {"city": "{city}", "date": "{day}"}),
            S("list_calendar_events", {"date": "{day}"}),
        ),
        zh=(
            "{day}{city}的天气和我的日程",
            "{day}{city}天气怎么样？我那天有什么安排？",
            "帮我看下{city}{day}的天气，再看看我那天有哪些会",
            "麻烦您查一下{day}{city}的天气预报，顺便列一下我当天的日程，谢谢",
            "{day}要去{city}，那边天气如何，我日历上都排了啥",
            "{day}：{city}的天气，还有我的会议安排",
            "查{city}{day}的天气，然后看看我那天忙不忙",
            "{day}{city}会下雨吗？另外我那天有几个会",
            "看看{day}的天气（{city}）和我的日程",
            "{city}{day}的天气以及我当天的安排",
            "{day}{city}冷不冷，我当天有啥会",
            "{day}的{city}天气跟我的日历一起给我看看",
            # missing
            "{city}的天气和我的日程",
            "{day}的天气和我的日程",
            # held out (last)
            "{day}{city}那边天儿咋样，顺带瞅瞅我那天的档期",
        ),
        en=(
            "what is the weather in {city} {day}, and what is on my calendar?",
            "show me the forecast for {city} and my meetings {day}",
            "please check the weather in {city} {day} and list my events for that day",
            "could you get the {city} forecast {day} and my schedule for the same day? thanks",
            "I am in {city} {day}: what will the weather be, and what meetings do I have?",
            "weather in {city} plus my agenda, {day}",
            "check the {city} weather {day}, then show my calendar for that day",
            "will it rain in {city} {day}? also, what is scheduled for me that day",
            "tell me the weather in {city} and my events {day}",
            "forecast for {city} {day} and my meetings that day",
            "how cold is {city} going to be {day}, and am I busy that day?",
            "get me {city} weather and my calendar for {day}",
            # missing
            "what is the weather in {city} and what is on my calendar?",
            "show me the weather and my meetings {day}",
            # held out (last)
            "can you give me the {city} outlook {day} alongside whatever my calendar holds that day",
        ),
    ),
    # ------------------------------------------------------------------ my invoices + my expense claims
    IntentSpec(
        "my_invoices_and_expenses",
        (
            S("list_invoices", {"user_id": "<ME>", "period": "{period}", "status": "{invstatus}"}),
            S("list_expenses", {"user_id": "<ME>", "period": "{period}", "status": "{expstatus}"}),
        ),
        zh=(
            _Q + "我的发票和报销单",
            "我{period}的发票和报销记录都列一下",
            "我有哪些{invstatus}的发票，还有哪些{expstatus}的报销",
            "麻烦您帮我把我的发票清单和报销清单都拉出来，谢谢",
            "列出我{invstatus}的发票，再列出我{expstatus}的报销单",
            "我{period}开了哪些票，报了哪些账",
            "看看我名下的发票，顺便看下我的报销",
            "我的发票列表以及报销列表",
            "我{period}{invstatus}的发票和{expstatus}的报销各有几张",
            "发票和报销，我的，{period}",
            "先列我的发票，然后列我的报销申请",
            "我{invstatus}的发票有哪些？{expstatus}的报销呢？",
            "帮我盘一下我{period}的发票跟报销单",
            # held out (last)
            "把我名下的开票记录和报账单据一并调出来",
        ),
        en=(
            "show my invoices and my expense claims",
            "list my invoices and reimbursements from {period}",
            "which of my invoices are {invstatus}, and which expense claims are {expstatus}?",
            "could you please pull up my invoice list and my expense list? thanks",
            "list my {invstatus} invoices, then my {expstatus} expense claims",
            "what invoices and what expenses do I have {period}?",
            "my invoices and claims {period}[ pls|]",
            "I need both my invoice history and my reimbursement history",
            "how many {invstatus} invoices and {expstatus} claims do I have",
            "show me my invoices, and after that my expense reports",
            "get my invoices from {period} plus my claims from the same period",
            "list every invoice and every expense claim on my account",
            "do I have any {invstatus} invoices? and any {expstatus} reimbursements?",
            # held out (last)
            "can you round up my invoices alongside the expense claims I lodged {period}",
        ),
    ),
]
