"""Chinese ask words of the reference domain's tools, for the dropped-ask rule.

:func:`thought_model.tool_cues.derive_cues` reads a registry's words from its contracts, and the
reference contracts are written in English: without these, a Chinese clause never has a word of a
write tool ("给订单 <ORDER1> 退款"), so a Chinese ask the whole-request plan dropped was never noticed.
Each entry is what :func:`~thought_model.tool_cues.words` yields for the usual way of asking (Han
bigrams; traditional input is folded to simplified before matching).
"""

from __future__ import annotations

import re

from thought_model.tool_cues import ToolCues

REFERENCE_ZH_WORDS: dict[str, frozenset[str]] = {
    tool: frozenset(ws.split())
    for tool, ws in {
        "refund_payment": "退款 退钱 退回 退费",
        "cancel_order": "取消 撤销 撤单 退掉",
        "create_invoice": "开票 开具 抬头",
        "get_order_invoice": "发票",
        "list_invoices": "发票",
        "get_invoice": "发票",
        "submit_expense": "报销 打车 车费 餐费 住宿 交通",
        "list_expenses": "报销",
        "get_expense_status": "报销 审批 进度",
        "send_email": "邮件 发信 主题 正文",
        "find_meeting_room": "会议 议室",
        "book_meeting_room": "预订 预定 订上 订会 接订",
        "create_calendar_event": "日程 日历 会议 议程",
        "list_calendar_events": "日程 日历 安排",
        "list_user_calendar_events": "日程 日历 安排",
        "update_user_profile": "改成 改为 更新 修改 换成",
        "get_user_profile": "资料 档案 信息 邮箱 电话 手机 城市",
        "find_user": "用户 同事 客户",
        "get_weather": "天气 气温 温度",
        "get_logistics": "物流 快递 包裹 运输 配送",
        "get_order_status": "状态 进度 情况",
        "list_orders": "订单",
    }.items()
}


def with_reference_zh(cues: ToolCues) -> ToolCues:
    """``cues`` plus :data:`REFERENCE_ZH_WORDS` for the tools it has."""
    return ToolCues({t: ws | REFERENCE_ZH_WORDS.get(t, frozenset()) for t, ws in cues.cues.items()})


REFERENCE_ZH_WRITE_ASKS: dict[str, re.Pattern[str]] = {
    tool: re.compile(rx)
    for tool, rx in {
        "create_invoice": r"开(?:个|张|一张|具|一下)?(?:发票|票)",
        "submit_expense": r"报销|报(?:个|一下|了)",
        "cancel_order": r"取消|撤(?:单|销|掉)",
        "refund_payment": r"退(?:款|钱|费|[0-9 ])",
        "book_meeting_room": r"(?<!订单)(?:预订|预定|订(?:上|下|了|个|掉|一下|吧)|定下来)",
        "create_calendar_event": r"(?:建|创建|新建|加|安排|约)(?:个|一个|一下)?(?:日程|会议|会|事件|日历)",
        "send_email": r"发(?:个|一封|封|一个)?(?:邮件|信)",
        "update_user_profile": r"改成|改为|换成|更新|修改",
    }.items()
}
"""A Chinese write ask by its verb and object ("开个发票", "订上"): what a bigram cannot see."""
