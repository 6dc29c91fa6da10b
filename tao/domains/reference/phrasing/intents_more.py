"""Round-6 phrasing of the reference domain: profile -> weather chains, and request shapes that the
newly wired perception produces but earlier rounds never trained on.

* :data:`MORE_INTENTS`: ``get_user_profile`` -> ``get_weather(city=${t1.city})`` (a user's city,
  then the weather there), for an explicit user id and for the session user.
* :data:`MORE_TEMPLATES`: extra templates for existing intents (prepended, so the held-out last
  template of each intent is unchanged): after the :mod:`.templates` extras, before the base ones:

  - ``{range}`` — a clock range ("明天下午2点到4点", "tomorrow from 9 to 11am"): one slot that
    fills both the start (``{when}``) and the duration (``{dur}``) of the plan;
  - body before subject ("正文写…，标题是…", "body: …, subject: …");
  - ``{wkend}`` (a weekend; fills ``{day}``) and ``{span}`` (last / next N days; fills
    ``{period}``); the ``{day}`` and ``{period}`` kinds of training rows also draw them sometimes
    (:mod:`training.dates`).

Training rows only: none of these templates is the last of its list, so the held-out-template
split is unchanged by them. Written for this round; not taken from any evaluation set.
"""

from __future__ import annotations

from tao.contracts.domain import IntentSpec
from tao.domains.reference.phrasing.intents import S

MORE_INTENTS: list[IntentSpec] = [
    IntentSpec(
        "profile_city_weather",
        (
            S("get_user_profile", {"user_id": "{user}"}),
            S("get_weather", {"city": "${t1.city}", "date": "{day}"}, ("t1",)),
        ),
        zh=(
            "用户{user}在哪个城市？[顺便|再|]看看那里{day}的天气",
            "查下用户{user}住哪，[然后|再]查[一下|]那边{day}天气",
            "{user}这个用户所在城市{day}[天气怎么样|会不会下雨|冷不冷]",
            "先看用户{user}的资料，再[查|看]他所在城市{day}的天气",
            "客户{user}那边{day}天气[如何|咋样]？先查他在哪个城市",
            "帮我看看账号{user}的城市，[以及|和]当地{day}的天气",
            "用户{user}的所在地{day}[下雨吗|多少度]",
            # missing
            "这个用户所在城市{day}天气怎么样",
            # held out (last)
            "先弄清楚用户{user}人在哪座城市，再告诉我那儿{day}的天气",
        ),
        en=(
            "which city is user {user} in? [and |also |]check the weather there {day}",
            "look up user {user}, then the weather in their city {day}",
            "what is the weather {day} where user {user} lives",
            "find the city of account {user} and get the forecast there {day}",
            "get user {user}'s profile, then tell me the weather in that city {day}",
            "is it raining {day} in the city of customer {user}?",
            "check where user {user} is based and [how the weather is|the forecast] there {day}",
            # missing
            "what is the weather {day} in that user's city",
            # held out (last)
            "pull up user {user} and report the weather for wherever they live, {day}",
        ),
    ),
    IntentSpec(
        "my_city_weather",
        (
            S("get_user_profile", {"user_id": "<ME>"}),
            S("get_weather", {"city": "${t1.city}", "date": "{day}"}, ("t1",)),
        ),
        zh=(
            "我所在城市{day}的天气[怎么样|如何]",
            "按我资料里的城市查[一下|]{day}天气",
            "我住的城市{day}[会下雨吗|多少度|天气咋样]",
            "看看我的城市，再查那里{day}的天气",
            "我这边{day}天气如何？城市按我的资料来",
            # held out (last)
            "根据我个人资料上的城市，帮我报一下{day}当地天气",
        ),
        en=(
            "what is the weather {day} in my city",
            "check my profile city and the forecast there {day}",
            "will it rain {day} where I live",
            "look up my city, then the weather there {day}",
            "weather {day} for the city on my profile",
            # held out (last)
            "use the city from my profile and give me the forecast for {day}",
        ),
    ),
]

MORE_TEMPLATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "find_meeting_room": (
        (
            "[找|查]一下{range}能坐{count}的空会议室",
            "{range}有没有{count}能用的会议室",
            "看看{range}哪间会议室空着，{count}",
        ),
        (
            "find a free room {range} for {count}",
            "is any room for {count} free {range}?",
            "which meeting rooms are open {range}, {count}",
        ),
    ),
    "book_meeting_room": (
        (
            "{range}[帮我|]订个会议室，{count}",
            "{range}要开会，{count}，[订|定]个会议室",
            "预订会议室：{range}，{count}",
        ),
        (
            "book a meeting room {range} for {count}",
            "we need a room for {count} {range}, [please book it|book one]",
            "reserve a room, {range}, {count}",
        ),
    ),
    "book_room_by_id": (
        ("[帮我|]订{room}，{range}", "{range}借用{room}开会"),
        ("book room {room} {range}", "reserve {room} {range}"),
    ),
    "create_calendar_event": (
        (
            "{range}和{name}开会，标题是{etitle}",
            "[帮我|]建个日程，{range}，主题是{etitle}，邀请{name}",
            "日历上加一个会：{range}，主题为{etitle}，拉上{name}和{name2}",
        ),
        (
            "schedule a meeting titled {etitle}, {range}, with {name}",
            "create an event {range}, title: {etitle}, invite {name} and {name2}",
            "put a meeting on my calendar {range}, subject: {etitle}, with {name}",
        ),
    ),
    "send_email": (
        (
            "给{email}发邮件，正文写{body}，标题是{subject}",
            "发封邮件到{email}，内容：{body}，主题：{subject}",
            "[帮我|]写封邮件给{email}，正文是{body}，主题为{subject}",
        ),
        (
            "email {email}, body: {body}, subject: {subject}",
            "send a mail to {email} saying {body}, subject: {subject}",
            "write to {email}, body: {body}, title: {subject}",
        ),
    ),
    "email_user_by_name": (
        (
            "给{name}发封邮件，正文写{body}，标题是{subject}",
            "发邮件给同事{name}，内容：{body}，主题：{subject}",
        ),
        (
            "email {name}, body: {body}, subject: {subject}",
            "write to {name} saying {body}, subject: {subject}",
        ),
    ),
    "profile_then_email": (
        ("给用户{user}发邮件，正文写{body}，标题是{subject}",),
        ("email user {user}, body: {body}, subject: {subject}",),
    ),
    "query_weather": (
        ("{city}{wkend}[天气怎么样|会下雨吗]", "{wkend}去{city}，那边天气如何"),
        ("weather in {city} {wkend}", "will it rain in {city} {wkend}?"),
    ),
    "list_calendar_events": (
        ("我{wkend}有什么安排", "{wkend}[我|]日程上有啥"),
        ("what is on my calendar {wkend}", "do I have plans {wkend}?"),
    ),
    "list_my_orders": (
        ("我{span}的订单", "{span}我下了哪些单"),
        ("my orders from {span}", "show my orders over {span}"),
    ),
    "list_orders": (
        ("用户{user}{span}的订单", "用户{user}，{span}的订单"),
        ("orders of user {user} in {span}", "list orders for user {user}, {span}"),
    ),
    "list_my_invoices": (
        ("我{span}开的发票", "{span}我有哪些发票"),
        ("my invoices from {span}", "list the invoices I got in {span}"),
    ),
    "list_my_expenses": (
        ("我{span}提交的报销", "{span}我的报销单有哪些"),
        ("my expense claims from {span}", "list my reimbursements over {span}"),
    ),
}


def more_templates(name: str, lang: str) -> tuple[str, ...]:
    """Extra round-6 templates of intent ``name`` (training templates: never last in the list)."""
    zh, en = MORE_TEMPLATES.get(name, ((), ()))
    return zh if lang == "zh" else en
