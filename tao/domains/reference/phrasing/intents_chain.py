"""Chain intents of the reference domain: a step whose output feeds the next one, in the patterns
the tool contracts' ``extract`` -> argument graph allows (templates zh, en).

* find a person by email or phone (``find_user`` takes ``email`` / ``phone`` as well as ``name``),
  then read the profile, the orders or the calendar; find a person by name, then change their city
  or phone (``update_user_profile`` with a fixed ``field``);
* "my latest / my <status> order" (``list_orders(<ME>)``, optional ``{status}``), then its status,
  cancel it or invoice it;
* my latest invoice / expense claim (``list_invoices`` / ``list_expenses`` of ``<ME>``, optional
  ``{invstatus}`` / ``{expstatus}``), then its detail;
* act, then look at the result: issue an invoice and read it; read an order, then refund its full
  amount (``amount=${t1.amount}``);
* me as the source of a value: my profile's email as the recipient (``to=${t1.email}``).

Same format and conventions as :mod:`.intents_new` (read its docstring): ``[a|b|]``
alternatives, ``{kind}`` slots, ``<ME>``, ``${tN.x}`` references to outputs the tool's contract
extracts; the LAST template of each language is held out; templates after a ``# missing`` comment
omit a required user-supplied slot (the generator labels them insufficient_context). Intents whose
only required values are ``<ME>`` or a ``find_user`` key (no required argument) have no
``# missing`` block. Templates of the "latest" intents always say latest / most recent / last
(最新/最近/最后), so they stay apart from the single-tool intents' ``# missing`` templates ("my
order", "我的订单"); the full-refund templates always say full / whole / 全额 / 付了多少退多少, apart
from ``refund_order`` without an amount.

(Written for the plan-model chain round from the tool contracts only; merged into
:data:`tao.domains.reference.phrasing.intents.INTENTS`.)
"""

from __future__ import annotations

from tao.contracts.domain import IntentSpec
from tao.domains.reference.phrasing.intents import S

_TY = "[. thanks|. thank you|. cheers|. ty]"  # polite endings after trailing free text
_ID = ("t1",)
_ME_ORDERS = S("list_orders", {"user_id": "<ME>", "status": "{status}"})

CHAIN_INTENTS: list[IntentSpec] = [
    # ------------------------------------------------------------------ A. find a person, then act
    IntentSpec(
        "profile_by_email",
        (S("find_user", {"email": "{email}"}), S("get_user_profile", {"user_id": "${t1.user_id}"}, _ID)),
        zh=(
            "查一下邮箱{email}对应的用户资料",
            "邮箱是{email}的那个用户，把他的资料调出来",
            "先按邮箱{email}找到用户，再看看他的个人信息",
            "{email}这个邮箱是谁的？把他的档案给我看看",
            "麻烦您帮我查询一下邮箱为{email}的客户资料，谢谢",
            "用邮箱{email}找一下人，然后打开他的资料",
            "帮我看看{email}的用户信息",
            "邮件地址{email}，查下这个人的会员等级",
            "通过{email}查用户，再查他的手机号和城市",
            "{email}对应账户的个人资料[是什么|给我看看]",
            "邮箱{email}的客户是哪个城市的？资料调一下",
            "查邮箱{email}，顺便把这人的资料拉出来",
            "邮箱{email}是哪位？他的联系方式和等级都看看",
            "找到邮箱{email}的用户后，把他的详细资料给我看下",
            # held out (last)
            "劳驾按{email}这个邮箱把对应用户的档案翻出来",
        ),
        en=(
            "look up the user with email {email} and show their profile",
            "who owns {email}? pull up their profile",
            "find the account for {email}, then get the full profile",
            "show me the profile of the user whose email is {email}",
            "could you please find {email} and open their profile? thanks",
            "the profile for email {email}[ please|]",
            "what tier is the customer with email {email}?",
            "get the user behind {email} and show their details",
            "I need the contact details of whoever uses {email}",
            "search users by email {email}, then show the profile",
            "which city is the user with email {email} in? check the profile",
            "find the user by email {email} and tell me their phone number",
            "please look up {email} and give me the info of that user",
            "can you pull the account details for the email {email}",
            # held out (last)
            "track down whoever is registered under {email} and read me their profile",
        ),
    ),
    IntentSpec(
        "profile_by_phone",
        (S("find_user", {"phone": "{phone}"}), S("get_user_profile", {"user_id": "${t1.user_id}"}, _ID)),
        zh=(
            "查一下手机号{phone}对应的用户资料",
            "电话{phone}是哪个客户？把他的资料调出来",
            "先用手机号{phone}找到用户，再看他的个人信息",
            "{phone}这个号码是谁的，档案给我看看",
            "麻烦您帮我查询一下手机号为{phone}的用户信息，谢谢",
            "按电话{phone}找人，然后打开他的资料",
            "手机{phone}的用户是什么会员等级",
            "号码{phone}，查下这个人的邮箱和城市",
            "帮我看看{phone}的机主资料",
            "通过手机号{phone}查用户，再把详细资料列出来",
            "用{phone}注册的那个客户，资料调一下",
            "{phone}对应的账户信息[是什么|给我看看]",
            "手机号码{phone}是哪位？顺便看看他的档案",
            "查手机号{phone}，接着把这个用户的资料拉出来",
            # held out (last)
            "劳驾根据{phone}这个号码把机主的个人档案翻出来",
        ),
        en=(
            "look up the user with phone {phone} and show their profile",
            "who has the number {phone}? pull up their profile",
            "find the account for mobile {phone}, then get the full profile",
            "show me the profile of the user whose phone is {phone}",
            "could you please find {phone} and open the profile? thanks",
            "the profile for phone number {phone}[ please|]",
            "what tier is the customer with mobile {phone}?",
            "get the user behind {phone} and show their details",
            "I need the email address of whoever owns {phone}",
            "search users by phone {phone}, then show the profile",
            "which city is the customer with number {phone} in? check the profile",
            "please look up {phone} and give me the info of that user",
            "can you pull the account details for phone {phone}",
            "tell me whose number {phone} is and show me their profile",
            # held out (last)
            "track down whoever registered with {phone} and read me their profile",
        ),
    ),
    IntentSpec(
        "orders_by_phone",
        (S("find_user", {"phone": "{phone}"}), S("list_orders", {"user_id": "${t1.user_id}"}, _ID)),
        zh=(
            "查一下手机号{phone}的用户下过哪些订单",
            "电话{phone}的客户，他的订单列一下",
            "先按手机号{phone}找到用户，再列出他的订单",
            "{phone}这个号码的机主买过什么",
            "麻烦您帮我查查手机号为{phone}的客户的所有订单，谢谢",
            "用{phone}找到人，然后看看他的订单",
            "手机{phone}名下有哪些订单",
            "号码{phone}，这位客户的订单记录拉一下",
            "帮我看看{phone}的用户都下了啥单",
            "通过电话{phone}查用户，再查他的订单列表",
            "{phone}对应的账户有几个订单",
            "手机号码{phone}是哪位客户？顺便把他的订单列出来",
            "查手机号{phone}，接着拉这个人的购买记录",
            "用手机号{phone}注册的那个客户，订单有哪些",
            # held out (last)
            "劳驾凭{phone}这个号码把机主的下单记录翻一遍",
        ),
        en=(
            "find the user with phone {phone} and list their orders",
            "what has the customer with mobile {phone} ordered?",
            "look up {phone}, then show the orders of that account",
            "show me the orders of whoever owns the number {phone}",
            "could you please list the orders for the customer with phone {phone}? thanks",
            "the orders for phone number {phone}[ please|]",
            "how many orders does the user with mobile {phone} have?",
            "get the account behind {phone} and pull up its orders",
            "I need the order history of the customer with number {phone}",
            "search users by phone {phone}, then list the orders",
            "which orders belong to the customer whose phone is {phone}?",
            "please find {phone} and tell me what they bought",
            "can you list everything the owner of {phone} has ordered",
            "who is {phone}, and what orders do they have?",
            # held out (last)
            "track down the account tied to {phone} and run through its purchase history",
        ),
    ),
    IntentSpec(
        "calendar_by_email",
        (
            S("find_user", {"email": "{email}"}),
            S("list_user_calendar_events", {"user_id": "${t1.user_id}", "date": "{day}"}, _ID),
        ),
        zh=(
            "看看邮箱{email}的同事{day}有什么安排",
            "邮箱是{email}的那个人，{day}忙不忙",
            "先用邮箱{email}找到这位同事，再查他{day}的日程",
            "{day}，邮箱{email}的用户有哪些会",
            "麻烦您帮我看一下邮箱为{email}的同事在{day}的日程安排，谢谢",
            "按{email}找人，然后看看他{day}的日历",
            "想约{email}这位同事，先看下他{day}有没有空",
            "邮件地址{email}，查下这个人{day}排了几个会",
            "{email}的日程，{day}的",
            "通过邮箱{email}查到用户后，再看他在{day}的会议",
            "帮我查{email}这位同事在{day}的行程",
            "{day}邮箱{email}那位有空吗？看看他的日历",
            "查一下{email}，接着看他{day}的安排",
            # missing
            "看看邮箱{email}的同事有什么安排",
            "帮我查下{email}这位同事的日程",
            # held out (last)
            "替我瞄一眼{email}这位同事{day}的档期",
        ),
        en=(
            "what is on the calendar of {email} for {day}?",
            "find the user with email {email} and show their schedule for {day}",
            "is the person with email {email} busy {day}?",
            "look up {email}, then list their meetings {day}",
            "could you please check the calendar of {email} for {day}? thanks",
            "the schedule of {email}, {day}[ please|]",
            "what meetings does the owner of {email} have {day}",
            "I want to meet {email}, is that person free {day}?",
            "get the events of whoever uses {email}, {day}",
            "search users by email {email} and check their agenda for {day}",
            "how busy is {email} {day}?",
            "show me the meetings {email} has {day}",
            "does {email} have anything scheduled {day}?",
            # missing
            "what is on the calendar of {email}?",
            "check whether the user with email {email} is busy",
            # held out (last)
            "can you peek at the diary of the colleague at {email} for {day}",
        ),
    ),
    IntentSpec(
        "update_city_by_name",
        (
            S("find_user", {"name": "{name}"}),
            S(
                "update_user_profile",
                {"user_id": "${t1.user_id}", "field": "city", "value": "{city}"},
                _ID,
            ),
        ),
        zh=(
            "把客户{name}的城市改成{city}",
            "同事{name}，所在城市更新为{city}",
            "用户{name}，他搬到{city}了，资料里的城市改一下",
            "先找到员工{name}，再把他的城市改为{city}",
            "麻烦您把客户{name}女士资料里的城市更新成{city}，谢谢",
            "查下{name}，然后把他的城市换成{city}",
            "员工{name}的工作城市调到{city}了，资料同步改一下",
            "联系人{name}，城市：{city}，帮忙更新",
            "客户{name}女士的城市设为{city}",
            "客户{name}，所在地改为{city}",
            "找一下同事{name}，他的城市应该是{city}，改下资料",
            "帮我把{name}经理的城市信息更新成{city}",
            "用户{name}在资料里的城市不对，改成{city}",
            # missing
            "把客户{name}的城市改一下",
            "同事{name}的所在城市要更新",
            # held out (last)
            "员工{name}在档案里的常驻城市，请改登记为{city}",
        ),
        en=(
            "change the city of {name} to {city}",
            "update {name}'s city to {city}",
            "{name} moved to {city}, please update the profile",
            "find {name} and set their city to {city}",
            "could you please update the city on the profile of {name} to {city}? thanks",
            "look up customer {name}, then change the city to {city}",
            "set the home city of {name} to {city}",
            "please switch {name}'s city to {city}",
            "the city for {name} should be {city}, fix it",
            "I need {name}'s profile city changed to {city}",
            "my colleague {name} relocated to {city}, update the city field",
            "can you change where {name} is based to {city}",
            "update the profile of employee {name}: city {city}",
            # missing
            "change the city of {name}",
            "update {name}'s city on the profile",
            # held out (last)
            "go into the account of {name} and record {city} as their new home city",
        ),
    ),
    IntentSpec(
        "update_phone_by_name",
        (
            S("find_user", {"name": "{name}"}),
            S(
                "update_user_profile",
                {"user_id": "${t1.user_id}", "field": "phone", "value": "{phone}"},
                _ID,
            ),
        ),
        zh=(
            "把客户{name}的手机号改成{phone}",
            "同事{name}，电话更新为{phone}",
            "用户{name}，他换了新号码{phone}，资料帮忙改一下",
            "先找到员工{name}，再把他的手机号改为{phone}",
            "麻烦您把客户{name}女士的联系电话更新成{phone}，谢谢",
            "查下{name}，然后把他的电话换成{phone}",
            "联系人{name}在资料里的手机号码改成{phone}",
            "员工{name}的新手机是{phone}，资料同步一下",
            "用户{name}，手机号：{phone}，帮忙更新",
            "客户{name}女士的电话设为{phone}",
            "客户{name}，号码改成{phone}吧",
            "找一下同事{name}，把他资料里的手机号换成{phone}",
            "帮我把{name}经理的电话更新成{phone}",
            # missing
            "把客户{name}的手机号改一下",
            "同事{name}的电话要更新",
            # held out (last)
            "员工{name}在档案里登记的手机，请换成{phone}",
        ),
        en=(
            "change the phone number of {name} to {phone}",
            "update {name}'s phone to {phone}",
            "{name} has a new mobile, {phone}, please update the profile",
            "find {name} and set their phone to {phone}",
            "could you please update the phone on the profile of {name} to {phone}? thanks",
            "look up customer {name}, then change the number to {phone}",
            "set the mobile of {name} to {phone}",
            "please switch {name}'s number to {phone}",
            "the phone for {name} should be {phone}, fix it",
            "I need {name}'s profile phone changed to {phone}",
            "my colleague {name} got a new number {phone}, update the profile",
            "can you put {phone} as the phone number of {name}",
            "update the profile of employee {name}: phone {phone}",
            # missing
            "change the phone number of {name}",
            "update {name}'s mobile on the profile",
            # held out (last)
            "go into the account of {name} and record {phone} as their new contact number",
        ),
    ),
    # ------------------------------------------------------------------ B. my latest order, then act
    IntentSpec(
        "my_latest_order_status",
        (_ME_ORDERS, S("get_order_status", {"order_id": "${t1.order_id}"}, _ID)),
        zh=(
            "我最新那单什么状态",
            "查一下我最近一笔订单的状态",
            "我最后下的那个订单处理得怎么样了",
            "我最新的订单到哪一步了",
            "麻烦您帮我看看我最近一个订单的进度，谢谢",
            "先列出我的订单，再查最新那一单的状态",
            "我最新一笔{status}的订单，帮我看下详细状态",
            "看下我最近买的那单怎么样了",
            "我最后一笔订单的状态给我查查",
            "我最近那一单，状态？",
            "把我的订单拉一下，看看最新那笔处理到哪了",
            "我最近下的{status}订单里，最新那笔是什么状态",
            "我最新的一个订单有进展了吗",
            "我的最新订单状态",
            # held out (last)
            "帮我盯一下我最末一笔订单走到哪个环节了",
        ),
        en=(
            "what is the status of my latest order?",
            "check my most recent order",
            "how is my last order doing?",
            "is my newest order processed yet?",
            "could you please look up the status of my most recent order? thanks",
            "list my orders and check the status of the latest one",
            "what is the status of my latest order that is {status}?",
            "status of my last order[ please|]",
            "i want to know how my newest order is going",
            "what stage is my most recent order at?",
            "the last thing I ordered, what is its status?",
            "pull up my orders and tell me the status of the newest",
            "check the status of my most recent order marked {status}",
            "did my latest order go through?",
            # held out (last)
            "can you see where my freshest order stands",
        ),
    ),
    IntentSpec(
        "cancel_my_latest_order",
        (_ME_ORDERS, S("cancel_order", {"order_id": "${t1.order_id}", "reason": "{reason}"}, _ID)),
        zh=(
            "把我最新那单取消掉，原因是{reason}",
            "取消我最近一笔订单，因为{reason}",
            "我最后下的那个订单不要了，理由是{reason}，帮我取消",
            "先查一下我的订单，再把最新那单撤销，原因：{reason}",
            "麻烦您帮我取消我最近的一个订单，原因是{reason}，谢谢",
            "我最新那笔{status}的订单帮我取消，因为{reason}",
            "我最近买的那单撤掉吧，理由是{reason}",
            "我最新的订单[不想要了|不要了]，原因是{reason}，撤了吧",
            "最新那单，我的，取消，原因：{reason}",
            "把我最近那笔{status}的单子取消了，理由：{reason}",
            "我最后一笔订单取消一下，因为{reason}",
            "我的订单里最新那个，帮我取消，原因是{reason}",
            "能不能把我最近下的那单取消？原因是{reason}",
            # missing
            "把我最新那单取消掉",
            "取消我最近一笔{status}的订单",
            # held out (last)
            "我最末那一单不打算要了，麻烦撤销，理由是{reason}",
        ),
        en=(
            "cancel my latest order because {reason}",
            "please cancel my most recent order, reason: {reason}",
            "I want to cancel the last order I placed, reason: {reason}",
            "find my newest order and cancel it because {reason}",
            "could you please cancel my most recent order? reason: {reason}. thanks",
            "list my orders, then cancel the latest one, reason: {reason}",
            "cancel my latest order that is {status}, reason: {reason}",
            "my last order, cancel it, reason: {reason}",
            "kill my newest order because {reason}",
            "the last thing I ordered, please cancel it because {reason}",
            "can you cancel my most recent order that is {status}? reason: {reason}",
            "cancel whatever I ordered last, reason: {reason}",
            "i no longer want my latest order, cancel it because {reason}",
            # missing
            "cancel my latest order",
            "please cancel my most recent order that is {status}",
            # held out (last)
            "scrap the newest purchase on my account, reason: {reason}",
        ),
    ),
    IntentSpec(
        "invoice_my_latest_order",
        (_ME_ORDERS, S("create_invoice", {"order_id": "${t1.order_id}", "title": "{title}"}, _ID)),
        zh=(
            "给我最新那单开张发票，抬头是{title}",
            "我最近一笔订单要开发票，抬头：{title}",
            "帮我给我最后下的那个订单开票，抬头为{title}",
            "先查我的订单，再给最新那单开发票，抬头是{title}",
            "麻烦您给我最近的一个订单开个发票，抬头是{title}，谢谢",
            "我最新那笔{status}的订单开一下发票，抬头：{title}",
            "我最近买的那单开票，抬头为{title}",
            "最新那单，我的，开发票，抬头为{title}",
            "我最后一笔订单需要发票，抬头是{title}",
            "把我最近那笔{status}的订单开成发票，抬头是{title}",
            "能不能给我最新下的单开张票？抬头：{title}",
            "我订单里最新的那个，开票，抬头是{title}",
            "我最近那一单还没开发票，帮忙开一下，抬头为{title}",
            # missing
            "给我最新那单开张发票",
            "我最近一笔订单要开发票",
            # held out (last)
            "替我最后下的那一单补开一张票，抬头为{title}",
        ),
        en=(
            "issue an invoice for my latest order, title: {title}",
            "create an invoice for my most recent order titled {title}",
            "I need an invoice for the last order I placed, header: {title}",
            "find my newest order and invoice it, title: {title}",
            "could you please bill my most recent order to title: {title}? thanks",
            "list my orders, then issue an invoice for the latest one titled {title}",
            "invoice my latest order that is {status}, header: {title}",
            "my last order needs an invoice, title: {title}",
            "please create an invoice for my newest order, title: {title}",
            "the last thing I bought, can you invoice it? title: {title}",
            "can you issue an invoice for my most recent order that is {status}? title: {title}",
            "i want an invoice on my latest order with the header: {title}",
            "get me an invoice for my most recent order, title: {title}",
            # missing
            "issue an invoice for my latest order",
            "I need an invoice for my most recent order",
            # held out (last)
            "please raise a bill for whatever I ordered last, header: {title}",
        ),
    ),
    # ------------------------------------------------------------------ C. my latest invoice / claim
    IntentSpec(
        "my_latest_invoice_detail",
        (
            S("list_invoices", {"user_id": "<ME>", "status": "{invstatus}"}),
            S("get_invoice", {"invoice_id": "${t1.invoice_id}"}, _ID),
        ),
        zh=(
            "我最新那张发票的详情",
            "查一下我最近一张发票的状态",
            "我最后开的那张发票开好了吗",
            "先列出我的发票，再看看最新那张的详细信息",
            "麻烦您帮我看看我最近一张发票的金额和状态，谢谢",
            "我最新一张{invstatus}的发票，具体信息给我看看",
            "我最近开的那张票是什么情况",
            "把我最新的那张发票调出来看看",
            "我最后一张发票金额是多少",
            "我的发票里最新那张，抬头和金额是什么",
            "看下我最近那张{invstatus}的发票详情",
            "我最新的发票，作废了没",
            "拉一下我的发票，然后查最新那张",
            "我新开的那张发票怎么样了",
            # held out (last)
            "帮我把名下最末一张票据的明细翻出来",
        ),
        en=(
            "show me the details of my latest invoice",
            "what is the status of my most recent invoice?",
            "is my newest invoice issued yet?",
            "list my invoices and open the latest one",
            "could you please check the amount on my last invoice? thanks",
            "my most recent {invstatus} invoice, show me the details",
            "how much is my latest invoice?",
            "pull up the newest invoice on my account",
            "check my last invoice[ please|]",
            "what does my most recent invoice say?",
            "the latest invoice I have, what state is it in?",
            "find my newest {invstatus} invoice and show it",
            "i want the full details of my latest invoice",
            "get my invoice list, then check the most recent one",
            # held out (last)
            "can you dig out the freshest bill on my account and walk me through it",
        ),
    ),
    IntentSpec(
        "my_latest_expense_status",
        (
            S("list_expenses", {"user_id": "<ME>", "status": "{expstatus}"}),
            S("get_expense_status", {"expense_id": "${t1.expense_id}"}, _ID),
        ),
        zh=(
            "我最新那笔报销批了没",
            "查一下我最近一张报销单的状态",
            "我最后提交的那个报销到哪一步了",
            "先列出我的报销，再看看最新那笔的进度",
            "麻烦您帮我看看我最近一笔报销的审批情况，谢谢",
            "我最新一笔{expstatus}的报销，状态再确认一下",
            "我最近报的那笔钱到账了吗",
            "把我最新的报销单调出来看看状态",
            "我最后一笔报销审批通过了没有",
            "我的报销里最新那笔，啥进度了",
            "看下我最近那笔{expstatus}的报销进展如何",
            "我最新的报销单，批下来没有",
            "拉一下我的报销记录，然后查最新那笔的状态",
            "我新交的那张报销单怎么样了",
            # held out (last)
            "帮我盯一下名下最末一笔报账走到哪个环节了",
        ),
        en=(
            "has my latest expense claim been approved?",
            "what is the status of my most recent expense claim?",
            "check my last reimbursement",
            "list my expense claims and check the newest one",
            "could you please see how my most recent claim is doing? thanks",
            "check the status of my most recent claim marked {expstatus}",
            "where is my newest reimbursement at?",
            "is my last expense claim paid yet?",
            "pull up my latest expense report and tell me the status",
            "the last claim I submitted, what state is it in?",
            "i want to know if my most recent claim went through",
            "find my newest expense claim that is {expstatus} and check it",
            "get my claims, then the status of the latest one",
            "how is my latest reimbursement request going?",
            # held out (last)
            "can you chase up the freshest claim on my account and tell me where it is",
        ),
    ),
    # ------------------------------------------------------------------ D. act, then look at the result
    IntentSpec(
        "create_invoice_then_get",
        (
            S("create_invoice", {"order_id": "{order}", "title": "{title}"}),
            S("get_invoice", {"invoice_id": "${t1.invoice_id}"}, _ID),
        ),
        zh=(
            "给订单{order}开张发票，抬头是{title}，开好后把发票详情给我看看",
            "订单{order}开发票，抬头为{title}，然后查一下这张发票的状态",
            "先给{order}这单开票，抬头：{title}；再看看开出来的发票",
            "帮我给订单{order}开发票，抬头是{title}，开完确认一下发票开好了没",
            "麻烦您为订单{order}开具发票，抬头为{title}，并把发票信息给我看下，谢谢",
            "订单号{order}，开票，抬头是{title}，开完查下发票金额",
            "给订单{order}开个发票（抬头是{title}），接着看看发票的状态",
            "订单{order}需要发票，抬头：{title}，开了之后帮我核对一下",
            "{order}这单开张票，抬头为{title}，顺便把新发票调出来",
            "为订单{order}开发票，抬头是{title}，完了看下这张票的详情",
            "开发票：订单{order}，抬头为{title}，开好告诉我发票状态",
            "订单{order}的发票帮我开了，抬头是{title}，再查查开出来没有",
            "请给订单{order}开票，抬头是{title}，并查看这张发票",
            # missing
            "给订单{order}开张发票，开好后把发票详情给我看看",
            "开张发票，抬头是{title}，开完查一下发票状态",
            # held out (last)
            "替订单{order}出一张票，抬头为{title}，出完把票面信息核一遍",
        ),
        en=(
            "issue an invoice for order {order}, title: {title}, then show me the invoice",
            "create an invoice for order {order} titled {title}, and check its status",
            "invoice order {order} with header: {title}, after that pull up the new invoice",
            "could you please bill order {order} to title: {title}, then tell me the invoice details? thanks",
            "I need an invoice for order {order}, title: {title}. show it to me once it is issued",
            "order {order}: create an invoice, title: {title}, then check the invoice",
            "please create an invoice for order {order}, header: {title}, and confirm it went through",
            "make an invoice for {order} and look it up afterwards, title: {title}",
            "get order {order} invoiced, title: {title}, and show me the result",
            "can you invoice order {order} titled {title}, then check the amount on it",
            "issue an invoice for order {order}, title: {title}, and tell me if it is issued",
            "bill order {order} and then fetch the invoice, title: {title}",
            "please invoice order {order}, header: {title}, and read the invoice back to me",
            # missing
            "issue an invoice for order {order}, then show me the invoice",
            "create an invoice titled {title}, then check its status",
            # held out (last)
            "please raise a bill on order {order}, header: {title}, and read me back what got issued",
        ),
    ),
    IntentSpec(
        "email_myself",
        (
            S("get_user_profile", {"user_id": "<ME>"}),
            S("send_email", {"to": "${t1.email}", "subject": "{subject}", "body": "{body}"}, _ID),
        ),
        zh=(
            "给我自己发封邮件，主题是{subject}，内容是{body}",
            "发一封邮件到我自己的邮箱，标题：{subject}，正文：{body}",
            "查一下我的邮箱，然后给我发封邮件，主题为{subject}，内容：{body}",
            "帮我给自己写封邮件提个醒，主题是{subject}，内容是{body}",
            "麻烦您往我的邮箱发一封邮件，主题是{subject}，内容是{body}，谢谢",
            "发邮件给我自己：主题：{subject}；内容：{body}",
            "按我资料里的邮箱发个邮件，标题是{subject}，正文是{body}",
            "邮件发到我邮箱就行，主题为{subject}，内容为{body}",
            "先看看我的邮箱地址，再发封邮件过去，主题是{subject}，内容是{body}",
            "给我发个邮件备忘，主题：{subject}，内容：{body}",
            "把这个发到我自己邮箱：主题是{subject}，正文是{body}",
            "我要给自己发邮件，内容是{body}，主题是{subject}",
            "自己给自己发封邮件，标题为{subject}，内容是{body}",
            # missing
            "给我自己发封邮件，主题是{subject}",
            "发一封邮件到我的邮箱，内容是{body}",
            # held out (last)
            "往我本人的邮箱里投一封信，主题是{subject}，正文是{body}",
        ),
        en=(
            "email myself with subject: {subject}, body: {body}" + _TY,
            "send an email to my own address, subject: {subject}, body: {body}" + _TY,
            "look up my email and send me a mail titled {subject}, saying {body}" + _TY,
            "could you please send me an email? subject: {subject}, body: {body}. thanks",
            "drop a note to my own inbox, subject: {subject}, body: {body}" + _TY,
            "send a reminder email to myself, subject: {subject}, body: {body}" + _TY,
            "write to me at the email on my profile, subject: {subject}, body: {body}" + _TY,
            "mail me a copy, title: {subject}, body: {body}" + _TY,
            "I want an email in my inbox with subject: {subject}, body: {body}" + _TY,
            "get my email address and send a message there, subject: {subject}, body: {body}" + _TY,
            "email me, body: {body}, subject: {subject}" + _TY,
            "please send myself an email titled {subject}, saying {body}" + _TY,
            "shoot me an email, subject: {subject}, body: {body}" + _TY,
            # missing
            "email myself with subject: {subject}" + _TY,
            "send an email to my own address saying {body}" + _TY,
            # held out (last)
            "please fire off a mail to my own inbox, subject: {subject}, body: {body}" + _TY,
        ),
    ),
]


NUMERIC_REF_PENDING: list[IntentSpec] = [
    IntentSpec(
        "refund_full_amount",
        (
            S("get_order_status", {"order_id": "{order}"}),
            S("refund_payment", {"order_id": "{order}", "amount": "${t1.amount}"}, _ID),
        ),
        zh=(
            "订单{order}付了多少退多少",
            "给订单{order}全额退款",
            "查一下订单{order}的金额，然后全部退给客户",
            "订单{order}按原价全额退回",
            "麻烦您把订单{order}的钱全额退了，谢谢",
            "先看看{order}这单付了多少钱，再原数退款",
            "订单号{order}，全款退掉",
            "{order}这笔订单的钱全部退回去",
            "订单{order}要全额退款，金额按订单来",
            "帮我给订单{order}退全款",
            "把订单{order}付的钱原路全退",
            "订单{order}退款，付了多少就退多少",
            "查下订单{order}的支付金额，接着按这个数全额退款",
            # missing
            "这个订单付了多少退多少",
            "帮我给那笔订单全额退款",
            # held out (last)
            "单号{order}那笔，客户付了几块就如数退几块",
        ),
        en=(
            "refund order {order} in full",
            "give a full refund for order {order}",
            "check how much order {order} was, then refund the whole amount",
            "please refund everything the customer paid for order {order}",
            "could you please issue a full refund on order {order}? thanks",
            "order {order}: refund the full amount",
            "look up the amount of order {order} and refund all of it",
            "refund the total of order {order}",
            "I want the whole amount of order {order} refunded",
            "please fully refund {order}",
            "for order {order}, refund whatever the customer paid, all of it",
            "get the order total for {order}, then refund that amount",
            "can you refund order {order} for the full price",
            # missing
            "refund my order in full",
            "give a full refund for that order",
            # held out (last)
            "pay back every cent charged on order {order}",
        ),
    ),
    # ------------------------------------------------------------------ E. me as the source of a value
]
"""Chains whose reference lands in a numeric argument (``refund_payment.amount = ${t1.amount}``).
Kept out of ``INTENTS`` until the plan grammar offered references in numeric fields (an ``extract``
output of the same name and type, :func:`thought_model.grammar.numeric_ref_outputs`); merged into
:data:`CHAIN_INTENTS` now. The round-7 checkpoint was trained with these rows (data of commit
7df89d4)."""

CHAIN_INTENTS.extend(NUMERIC_REF_PENDING)
