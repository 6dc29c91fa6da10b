"""A small bilingual lexicon of domain words: surface words (en, zh) -> a concept of the registry.

Every concept is a word of the registry's own texts (a tool name's part, a description's word or
an argument name: ``leave``, ``payslip``, ``ticket``; ``test_lexicon`` checks it), with the English
words and Chinese words a user says for it (``time off`` / ``vacation`` / ``年假`` / ``请假`` ->
``leave``). The router adds one feature ``k:<concept>`` per concept a request mentions, so a Chinese
request and an English tool description share evidence, and an ask in words no example uses
(``my laptop won't turn on``, ``Am I free Thursday afternoon?``) still lands on its tools' concepts.
Id kinds of the lexicon map to concepts too (``slot_trip`` -> ``trip``): an id is strong evidence
of its tool group. Matching runs on the normalized text (simplified Chinese, lower case): English
words at word boundaries with an optional plural/verb ending, Chinese words as substrings.
"""

from __future__ import annotations

import re
from functools import lru_cache

# concept -> (English surface words/phrases, Chinese surface words)
CONCEPTS: dict[str, tuple[str, str]] = {
    "user": ("user|customer|member|account", "用户|客户|会员|账号|账户"),
    "profile": ("profile|details|contact info|personal info|my info|on file", "资料|个人信息|档案|登记的"),
    "name": ("name|called", "名字|姓名|叫什么"),
    "email": ("email|e-mail|mail|inbox|work email", "邮箱|邮件|电邮"),
    "phone": ("phone|mobile|cell|phone number", "手机|电话|手机号"),
    "update": ("change|update|modify|edit|correct|set my", "修改|更改|更新|改成|换成|改一下"),
    "order": ("order|purchase|bought|buy|shopping", "订单|单号|买了|购买|下单|买的"),
    "status": (
        "status|progress|state|stage|update on|how is it going",
        "状态|进度|情况|到哪一步|怎么样了|处理到",
    ),
    "logistics": (
        "shipping|shipped|ship|logistics|tracking|track|delivery|deliver|parcel|package|courier|"
        "carrier|arrive|eta|in transit",
        "物流|快递|发货|包裹|到哪了|送到|配送|运单|签收|到货",
    ),
    "cancel": ("cancel|call off|scrap|withdraw|revoke|abort|drop", "取消|撤回|撤销|不要了|作废|退掉"),
    "refund": ("refund|money back|reimburse me for the order|return the money", "退款|退钱|退货|钱退"),
    "amount": ("amount|money|cost|spent|paid|pay|price|yuan|rmb|dollars|bucks", "金额|钱|花了|元|块|费用"),
    "invoice": ("invoice|bill|billing|receipt|fapiao", "发票|开票|票据"),
    "title": ("title|heading|company name|subject", "抬头|标题|主题"),
    "expense": (
        "expense|reimbursement|reimburse|expense claim|claim|out of pocket",
        "报销|报销单|差旅费|垫付",
    ),
    "submit": ("submit|file|apply|put in|lodge", "提交|申请|报一下|递交"),
    "weather": (
        "weather|forecast|rain|raining|sunny|snow|temperature|umbrella|hot|cold|windy|cloudy|storm|humid",
        "天气|下雨|气温|温度|晴|下雪|带伞|冷不冷|热不热|刮风|预报|雨",
    ),
    "city": ("city|town|slot_city", "城市"),
    "date": (
        "monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|afternoon|evening|"
        "tonight|tomorrow|today|weekend|slot_date|slot_time",
        "周一|周二|周三|周四|周五|周六|周日|星期|上午|下午|晚上|明天|今天|后天|周末",
    ),
    "meeting": ("meeting|meet|sync|standup|call|review|appointment|1:1", "会议|开会|评审|例会|碰个头|约个会"),
    "room": ("room|conference room|meeting room|space", "会议室|房间"),
    "capacity": ("people|persons|seats|head count|headcount|attendees", "几个人|人的|座位|容纳|人开会"),
    "calendar": (
        "calendar|schedule|agenda|event|plans|busy|free|available|booked|diary|what's on",
        "日程|日历|安排|有空|忙不忙|空闲|忙吗",
    ),
    "attendees": ("invite|attendees|participants|with the team", "邀请|参会|叫上"),
    "book": ("book|reserve|grab|lock in|secure", "预订|预定|订下|订一|订个|帮我订|订房|订票|订到"),
    "search": ("find|search|look up|look for|lookup|any|options|which", "找|查|搜|搜索|有没有|有什么|哪些"),
    "send": ("send|tell|notify|write to|message|let know", "发送|发邮件|发给|发个|发一封|通知|告诉|转告"),
    "employee": (
        "employee|staff|colleague|coworker|worker|team member|slot_employee",
        "员工|同事|职员|工号|员工号",
    ),
    "manager": (
        "manager|boss|department|office|supervisor|reports to|record",
        "上级|领导|经理|部门|办公室|主管",
    ),
    "password": (
        "password|passcode|login|log in|sign in|locked out|credentials|can't log|expired",
        "密码|登录|登不上|登陆|锁定|连不上|过期",
    ),
    "reset": ("reset|unlock|recover|restore", "重置|解锁|找回|恢复"),
    "system": ("system|vpn|wifi|wi-fi|sso|erp|portal|network|intranet", "系统|网络|内网|门户"),
    "ticket": (
        "ticket|support|helpdesk|help desk|it support|issue|problem|incident|fix|repair|jammed|"
        "not working|won't work|doesn't work|broken",
        "工单|报修|故障|坏了|修一下|维修|技术支持|不能用|用不了|卡纸",
    ),
    "priority": ("priority|urgent|critical|high priority|low priority", "优先级|紧急|加急"),
    "device": (
        "device|laptop|computer|pc|monitor|screen|keyboard|mouse|equipment|gadget|hardware|asset|"
        "macbook|notebook|slot_asset",
        "设备|电脑|笔记本|显示器|屏幕|键盘|鼠标|资产|硬件",
    ),
    "replacement": (
        "replace|replacement|new one|swap|outdated|won't turn on|dead|cracked|died",
        "换一台|更换|换新|换个|开不了机|老旧|坏掉|碎了",
    ),
    "leave": (
        "leave|vacation|holiday|time off|day off|days off|pto|sick|annual leave|parental|off work|take off|off from",
        "请假|年假|病假|休假|调休|事假|假期|产假|婚假|请个假|假条|请假单|假被|哪些假|的假|放假",
    ),
    "balance": ("balance|remaining|left|how many days", "余额|剩|还有几天|剩余|额度"),
    "payslip": (
        "payslip|pay slip|salary|wage|paycheck|pay stub|payroll|net pay|gross|tax|deductions|income|take-home",
        "工资|工资条|薪资|薪水|到手|扣税|个税|收入|发薪",
    ),
    "flight": ("flight|fly|flying|plane|airline|airfare|plane ticket", "航班|机票|飞|飞机"),
    "hotel": (
        "hotel|stay|nights|accommodation|lodging|check in|check-in|inn",
        "酒店|宾馆|入住|住宿|住几|住一|住两|住三|住晚",
    ),
    "trip": ("trip|travel|business trip|itinerary|journey|slot_trip", "出差|行程|差旅|旅行"),
    "cabin": ("economy|business class|first class|cabin", "经济舱|商务舱|头等舱|舱位"),
    "list": ("list|all my|history|recent|so far|this year|last month", "列出|所有|全部|最近|历史|记录"),
}

# the id kinds' slot words (features.Masker) -> the concept they are evidence of
ID_CONCEPTS: dict[str, str] = {
    "slot_order": "order",
    "slot_user": "user",
    "slot_inv": "invoice",
    "slot_exp": "expense",
    "slot_room": "room",
    "slot_employee": "employee",
    "slot_ticket": "ticket",
    "slot_asset": "device",
    "slot_leave": "leave",
    "slot_flight": "flight",
    "slot_hotel": "hotel",
    "slot_trip": "trip",
    "slot_email": "email",
    "slot_phone": "phone",
}


_DASH = re.compile(r"(?<=[a-z])[-_/](?=[a-z])")
_HAS_CJK = re.compile(r"[\u3400-\u9fff]")
_HAS_LATIN = re.compile(r"[a-z]{2}")


@lru_cache(maxsize=1)
def _matchers() -> tuple[tuple[tuple[str, re.Pattern[str]], ...], dict[str, tuple[tuple[str, str], ...]]]:
    """Per concept one regex of its English words (word boundaries, optional ending); the Chinese
    words by their first character (each position of a request checks only those)."""
    en = []
    by_first: dict[str, list[tuple[str, str]]] = {}
    for concept, (en_words, zh_words) in CONCEPTS.items():
        words = sorted({w for w in en_words.split("|") if w}, key=len, reverse=True)
        en.append(
            (
                concept,
                re.compile(
                    r"(?<![a-z0-9_])(?:"
                    + "|".join(re.escape(w) for w in words)
                    + r")(?:s|es|ed|ing|d)?(?![a-z0-9_])"
                ),
            )
        )
        for w in zh_words.split("|"):
            if w:
                by_first.setdefault(w[0], []).append((w, concept))
    return tuple(en), {k: tuple(v) for k, v in by_first.items()}


def concepts_of(text: str) -> list[str]:
    """The concepts ``text`` (normalized, masked, lower case) mentions, lexicon order."""
    low = _DASH.sub(" ", text.lower())
    en, by_first = _matchers()
    hit = {c for c, rx in en if rx.search(low)} if _HAS_LATIN.search(low) else set()
    if _HAS_CJK.search(low):
        for i, ch in enumerate(low):
            for w, c in by_first.get(ch, ()):
                if low.startswith(w, i):
                    hit.add(c)
    hit |= {c for slot, c in ID_CONCEPTS.items() if slot in low}
    return [c for c in CONCEPTS if c in hit]


def surface(concept: str, lang: str) -> tuple[str, ...]:
    """The surface words of ``concept`` in ``lang`` (``en``/``zh``), slot words left out."""
    en, zh = CONCEPTS[concept]
    words = (en if lang == "en" else zh).split("|")
    return tuple(w for w in words if w and not w.startswith("slot_"))
