"""Slot value pools for synthetic data, each split into a training part and a held-out part.

Every sampler returns ``(surface text, value)``: the surface goes into the request, the value is
what the plan must contain (for enum-like slots, the enum literal). Held-out values (cities,
names, free texts, id prefixes) never appear in training rows.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tao.domains.reference.lexicon import EN_CITIES, ZH_CITIES

ZH_NAMES = (
    "张伟 王芳 李娜 刘洋 陈静 杨磊 黄敏 赵强 吴婷 周杰 徐丽 孙浩 马超 朱琳 胡斌 郭敏 何平 高翔 林峰 罗琳 "
    "郑爽 梁宇 谢娜 宋佳 唐宁 许晴 韩雪 冯刚 邓超 曹颖 彭飞 曾黎 肖战 田甜 董洁 袁泉 潘越 蒋欣 蔡明 余晖 "
    "杜鹃 叶青 程远 苏畅 魏来 吕红 丁一 任重 沈腾 姚晨 卢伟 姜文 崔健 钟鸣 谭晶 陆毅 汪涵 范伟 金星 石磊 "
    "欧阳娜 司马光 上官云 诸葛亮"
).split()
EN_NAMES = (
    "Alice Chen|Bob Smith|Carol White|David Lee|Emma Brown|Frank Miller|Grace Kim|Henry Wang|Ivy Zhang|"
    "Jack Wilson|Kate Liu|Leo Martin|Mia Davis|Noah Clark|Olivia Hall|Peter Young|Quinn Adams|Rose Baker|"
    "Sam Turner|Tina Scott|Uma Patel|Victor Green|Wendy Hill|Xavier Ross|Yara Stone|Zack Price|Amy Wu|"
    "Ben Carter|Chloe Evans|Dan Ford|Ella Gray|Finn Hayes|Gina Lopez|Hugo Reed|Iris Ward|Jon Ortiz|"
    "Kim Lane|Luke Shaw|Maya Ng|Nina Cole|Oscar Diaz|Paula Fox|Ryan Moss|Sara Webb|Tom Burke|Vera Nash"
).split("|")

ZH_REASONS = (
    "不想要了 买错了 尺码不合适 重复下单 价格太高 发货太慢 地址填错了 颜色选错了 临时不需要了 质量有问题 "
    "和描述不符 找到更便宜的 商品缺货 误操作下单 计划有变"
).split()
EN_REASONS = (
    "ordered by mistake|wrong size|duplicate order|found a cheaper one|shipping too slow|wrong address|"
    "no longer needed|changed my mind|wrong color|item is damaged|not as described|plans changed|"
    "price too high|arrived too late|ordered the wrong model"
).split("|")
ZH_TITLES = (
    "上海云帆科技有限公司 北京星河网络有限公司 深圳蓝海贸易有限公司 杭州青木文化传媒 个人 张伟 "
    "广州启明教育科技 成都锦程物流有限公司 南京和光设计工作室 武汉长江数据服务 苏州恒信电子 西安丝路文旅"
).split()
EN_TITLES = (
    "Acme Corp|Globex Ltd|Initech Inc|Umbrella Trading|Stark Industries|Wayne Enterprises|Hooli LLC|"
    "Vandelay Imports|Soylent Foods|Cyberdyne Systems|Tyrell Group|Wonka Industries|personal"
).split("|")
ZH_SUBJECTS = (
    "项目进度 周报 会议纪要 报价单 合同续签 发票已开 订单发货通知 面试安排 预算审批 出差安排 产品上线 "
    "季度总结 培训通知 客户反馈 需求评审"
).split()
EN_SUBJECTS = (
    "project update|weekly report|meeting notes|quote|contract renewal|invoice issued|shipping notice|"
    "interview schedule|budget approval|travel plan|product launch|quarterly review|training notice|"
    "customer feedback|design review"
).split("|")
ZH_BODIES = (
    "请查收附件 明天上午十点开会 订单已经发货了 请尽快确认 报销已经提交 发票已经开好 会议改到下周 "
    "方案已更新请过目 请回复是否参加 合同已寄出 预算已批准 欢迎加入团队"
).split()
EN_BODIES = (
    "please see the attachment|the meeting moved to next week|your order has shipped|please confirm soon|"
    "the invoice is ready|budget approved|welcome to the team|please reply if you can join|"
    "the contract was sent|the plan has been updated"
).split("|")
ZH_DESCS = (
    "客户拜访打车 出差住宿 团队聚餐 购买办公用品 高铁票 机票 项目午餐 会议室茶歇 培训交通 展会差旅"
).split()
EN_DESCS = (
    "taxi to client visit|hotel for business trip|team dinner|office supplies|train ticket|flight ticket|"
    "project lunch|conference travel|airport transfer|training course"
).split("|")
ZH_EVENT_TITLES = (
    "周会 项目评审 需求讨论 一对一沟通 产品复盘 客户会议 技术分享 预算讨论 面试 季度规划"
).split()
EN_EVENT_TITLES = (
    "weekly sync|project review|design discussion|one on one|retro|client call|tech talk|"
    "budget review|interview|quarterly planning"
).split("|")

STATUS = {
    "pending": (["待付款", "未付款", "待支付"], ["pending", "unpaid"]),
    "paid": (["已付款", "已支付"], ["paid"]),
    "shipped": (["已发货", "发了货"], ["shipped"]),
    "in_transit": (["运输中", "在路上"], ["in transit", "on the way"]),
    "delivered": (["已签收", "已送达"], ["delivered"]),
    "cancelled": (["已取消"], ["cancelled", "canceled"]),
    "refunded": (["已退款"], ["refunded"]),
}
INVOICE_STATUS: dict[str, tuple[list[str], list[str]]] = {
    "issued": (["已开具", "已开出", "已开好"], ["issued"]),
    "pending": (["待开具", "待开票", "未开出"], ["pending", "unissued"]),
    "void": (["已作废", "作废"], ["void", "voided"]),
}
"""Invoice status (``list_invoices.status``): canonical -> (zh surfaces, en surfaces)."""
EXPENSE_STATUS: dict[str, tuple[list[str], list[str]]] = {
    "submitted": (["已提交", "待审批", "审批中"], ["submitted", "pending approval", "under review"]),
    "approved": (["已批准", "审批通过", "已通过"], ["approved"]),
    "rejected": (["被驳回", "已驳回", "被拒"], ["rejected", "declined"]),
    "paid": (["已打款", "已到账", "已付款"], ["paid", "paid out", "reimbursed"]),
}
"""Expense claim status (``list_expenses.status``)."""
CATEGORY = {
    "travel": (["差旅", "出差"], ["travel", "business trip"]),
    "meal": (["餐费", "餐饮", "吃饭"], ["meal", "food"]),
    "hotel": (["住宿", "酒店"], ["hotel", "lodging"]),
    "transport": (["交通", "打车", "车费"], ["transport", "taxi"]),
    "office": (["办公用品", "办公"], ["office supplies", "office"]),
    "other": (["其他", "杂项"], ["other", "misc"]),
}
FIELD = {
    "phone": (["手机号", "电话", "手机号码"], ["phone", "phone number", "mobile"]),
    "email": (["邮箱", "电子邮箱", "邮件地址"], ["email", "email address"]),
    "city": (["城市", "所在城市"], ["city"]),
    "name": (["名字", "姓名"], ["name", "display name"]),
}


def _split(pool: list[str], heldout: bool, frac: float = 0.2) -> list[str]:
    cut = max(1, int(len(pool) * frac))
    return pool[-cut:] if heldout else pool[:-cut]


@dataclass
class ValueSampler:
    """Samples slot values for one language, from the training or the held-out pools."""

    lang: str
    heldout: bool
    rng: random.Random

    def pool(self, zh: Sequence[str], en: Sequence[str]) -> list[str]:
        return _split(list(zh if self.lang == "zh" else en), self.heldout)

    def digits(self, n: int) -> str:
        return str(self.rng.randint(1, 9)) + "".join(str(self.rng.randint(0, 9)) for _ in range(n - 1))

    def sample(self, kind: str) -> tuple[str, object]:
        fn: Callable[[], tuple[str, object]] = getattr(self, f"_s_{kind.rstrip('0123456789')}")
        return fn()

    # ids: held-out ids use a different leading digit range so they never collide with training ones
    def _s_order(self):
        v = (
            (str(self.rng.randint(5, 9)) if self.heldout else str(self.rng.randint(1, 4)))
            + self.digits(17)[1:]
            + self.digits(1)
        )
        v = v[:18]
        return v, v

    def _s_user(self):
        v = "U" + self.digits(8)
        return (v.lower() if self.rng.random() < 0.1 else v), v

    def _s_inv(self):
        v = "INV" + self.digits(10)
        return v, v

    def _s_exp(self):
        v = "EXP" + self.digits(8)
        return v, v

    def _s_room(self):
        v = "R" + str(self.rng.randint(1, 9)) + f"{self.rng.randint(0, 99):02d}"
        return v, v

    def _s_email(self):
        first = self.rng.choice(
            [
                "alice",
                "bob",
                "li.na",
                "wang",
                "zhang.wei",
                "kate",
                "sam",
                "hr",
                "ops",
                "chen88",
                "lucy",
                "tom",
                "finance",
                "sales",
                "mike",
                "yuki",
                "leo.w",
            ]
        )
        dom = self.rng.choice(
            ["example.com", "corp.cn", "mail.com", "company.org", "qq.com", "163.com", "acme.io"]
        )
        v = f"{first}{self.rng.randint(1, 99) if self.rng.random() < 0.4 else ''}@{dom}"
        return v, v

    def _s_phone(self):
        v = "1" + str(self.rng.choice([3, 5, 7, 8, 9])) + self.digits(9)
        return v, v

    def _s_amount(self):
        amt = self.rng.choice(
            [
                self.rng.randint(5, 5000),
                round(self.rng.uniform(5, 3000), 2),
                self.rng.choice([50, 99, 100, 199, 200, 299, 500, 1000]),
            ]
        )
        s = f"{amt:g}" if isinstance(amt, float) else str(amt)
        if self.lang == "zh":
            surf = self.rng.choice([f"{s}元", f"{s}块", f"¥{s}", f"{s}块钱", f"{s} 元"])
        else:
            surf = self.rng.choice([f"${s}", f"{s} yuan", f"¥{s}", f"{s} RMB", f"{s} dollars"])
        return surf, float(amt)

    def _s_dur(self):
        mins = self.rng.choice([15, 30, 45, 60, 60, 90, 120, 180])
        h = mins // 60
        if self.lang == "zh":
            opts = [f"{mins}分钟"]
            if mins % 60 == 0:
                opts += [
                    f"{h}小时",
                    f"{h}个小时",
                    *{1: ["一小时", "一个小时"], 2: ["两小时", "两个小时"]}.get(h, []),
                ]
            opts += {30: ["半小时", "半个小时"], 90: ["一个半小时", "1个半小时"]}.get(mins, [])
        else:
            opts = [f"{mins} minutes", f"{mins} mins"]
            if mins % 60 == 0:
                opts += [f"{h} hours" if h > 1 else "1 hour", f"{h}h"] + (
                    ["an hour", "one hour"] if h == 1 else []
                )
            opts += {30: ["half an hour"], 90: ["1.5 hours"]}.get(mins, [])
        return self.rng.choice(opts), mins

    def _s_count(self):
        n = self.rng.choice([2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30])
        if self.lang == "zh":
            surf = self.rng.choice([f"{n}人", f"{n}个人", f"{n}位"])
        else:
            surf = self.rng.choice([f"{n} people", f"{n} persons", f"{n} attendees"])
        return surf, n

    def _s_city(self):
        pool = _split(
            list(ZH_CITIES) if self.lang == "zh" else [c for c in EN_CITIES if c != "Xi'an"], self.heldout
        )
        c = self.rng.choice(pool)
        return c, c

    def _s_name(self):
        n = self.rng.choice(self.pool(ZH_NAMES, EN_NAMES))
        if self.lang == "en" and self.rng.random() < 0.3:
            n = n.split()[0]
        return n, n

    def _text(self, zh: Sequence[str], en: Sequence[str]):
        t = self.rng.choice(self.pool(zh, en))
        if self.rng.random() < 0.3:
            q = self.rng.choice(['"{}"', "“{}”", "「{}」"] if self.lang == "zh" else ['"{}"', "'{}'"])
            return q.format(t), t
        return t, t

    def _s_reason(self):
        return self._text(ZH_REASONS, EN_REASONS)

    def _s_title(self):
        return self._text(ZH_TITLES, EN_TITLES)

    def _s_subject(self):
        return self._text(ZH_SUBJECTS, EN_SUBJECTS)

    def _s_body(self):
        return self._text(ZH_BODIES, EN_BODIES)

    def _s_desc(self):
        return self._text(ZH_DESCS, EN_DESCS)

    def _s_etitle(self):
        return self._text(ZH_EVENT_TITLES, EN_EVENT_TITLES)

    def _enum(self, table: dict[str, tuple[list[str], list[str]]]):
        canon = self.rng.choice(sorted(table))
        zh, en = table[canon]
        return self.rng.choice(zh if self.lang == "zh" else en), canon

    def _s_status(self):
        return self._enum(STATUS)

    def _s_category(self):
        return self._enum(CATEGORY)

    def _s_invstatus(self):
        return self._enum(INVOICE_STATUS)

    def _s_expstatus(self):
        return self._enum(EXPENSE_STATUS)
