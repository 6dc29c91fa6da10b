"""Deterministic, realistic demo data for the reference domain's mock tools (users, orders, invoices, ...)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from tao.contracts.ids import luhn_ok, valid_cn_id
from tao.domains.reference.lexicon import HOME_CITIES

_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高"
_GIVEN = [
    "伟",
    "芳",
    "娜",
    "敏",
    "静",
    "磊",
    "强",
    "洋",
    "艳",
    "勇",
    "军",
    "杰",
    "娟",
    "涛",
    "明",
    "超",
    "秀英",
    "华",
    "丹",
    "平",
]
_PINYIN = [
    "wei",
    "fang",
    "na",
    "min",
    "jing",
    "lei",
    "qiang",
    "yang",
    "yan",
    "yong",
    "jun",
    "jie",
    "juan",
    "tao",
    "ming",
    "chao",
    "xiuying",
    "hua",
    "dan",
    "ping",
]
STATUSES = ["pending", "paid", "shipped", "in_transit", "delivered", "cancelled", "refunded"]
CARRIERS = ["顺丰速运", "京东物流", "中通快递", "圆通速递", "EMS"]


def _order_id(rng: random.Random, day: date) -> str:
    """18 digits, date-prefixed; never shaped like a resident ID or a card (so redaction keeps it)."""
    while True:
        oid = day.strftime("%Y%m%d") + "".join(rng.choice("0123456789") for _ in range(10))
        if not valid_cn_id(oid) and not luhn_ok(oid):
            return oid


@dataclass
class MockData:
    today: date
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    orders: dict[str, dict[str, Any]] = field(default_factory=dict)
    invoices: dict[str, dict[str, Any]] = field(default_factory=dict)
    expenses: dict[str, dict[str, Any]] = field(default_factory=dict)
    rooms: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def generate(cls, seed: int = 7, today: date | None = None) -> MockData:
        rng = random.Random(seed)
        d = cls(today=today or date.today())
        for i in range(1, 31):
            uid = f"U{i:08d}"
            g = rng.randrange(len(_GIVEN))
            d.users[uid] = {
                "user_id": uid,
                "name": rng.choice(_SURNAMES) + _GIVEN[g],
                "email": f"{_PINYIN[g]}.{i:02d}@example.com",
                "phone": "1" + rng.choice("3456789") + "".join(rng.choice("0123456789") for _ in range(9)),
                "city": rng.choice(HOME_CITIES),
                "tier": rng.choice(["basic", "silver", "gold", "platinum"]),
            }
            # every 7th user has no orders at all (the "input never arrives" case)
            n_orders = 0 if i % 7 == 0 else rng.randint(3, 9)
            if i == 1:
                n_orders = 8
            for k in range(n_orders):
                # user 1 always has orders last month (the demo request)
                back = 20 + 9 * k if i == 1 else rng.randint(0, 120)
                created = datetime.combine(d.today - timedelta(days=back), datetime.min.time()) + timedelta(
                    hours=rng.randint(8, 22), minutes=rng.randint(0, 59)
                )
                oid = _order_id(rng, created.date())
                status = rng.choice(STATUSES)
                d.orders[oid] = {
                    "order_id": oid,
                    "user_id": uid,
                    "status": status,
                    "amount": round(rng.uniform(9.9, 3999), 2),
                    "created_at": created.strftime("%Y-%m-%dT%H:%M:%S+08:00"),
                    "updated_at": (created + timedelta(days=rng.randint(0, 5))).strftime(
                        "%Y-%m-%dT%H:%M:%S+08:00"
                    ),
                    "carrier": rng.choice(CARRIERS),
                    "tracking_no": "SF" + "".join(rng.choice("0123456789") for _ in range(12)),
                }
        for j, oid in enumerate(list(d.orders)[:20]):
            iid = f"INV{j + 1:010d}"
            d.invoices[iid] = {
                "invoice_id": iid,
                "status": rng.choice(["issued", "pending", "void"]),
                "amount": d.orders[oid]["amount"],
                "title": "杭州示例科技有限公司",
            }
        for j in range(1, 21):
            eid = f"EXP{j:08d}"
            d.expenses[eid] = {
                "expense_id": eid,
                "status": rng.choice(["submitted", "approved", "rejected", "paid"]),
                "amount": round(rng.uniform(20, 3000), 2),
            }
        _link_invoices_and_expenses(d, seed)
        d.rooms = [
            {"room_id": f"R{100 + n:03d}", "capacity": c, "floor": 1 + n // 4}
            for n, c in enumerate([4, 6, 8, 10, 12, 16, 20, 30, 50, 100])
        ]
        return d


def _link_invoices_and_expenses(d: MockData, seed: int) -> None:
    """Give each invoice its order, user and date, and each expense claim a user and date (for
    ``list_invoices`` / ``get_order_invoice`` / ``list_expenses``). A separate random stream, so
    the data drawn before is unchanged."""
    rng = random.Random(f"{seed}:links")
    oids = list(d.orders)
    uids = list(d.users)
    for oid, inv in zip(oids, d.invoices.values(), strict=False):
        o = d.orders[oid]
        inv.setdefault("order_id", oid)
        inv.setdefault("user_id", o["user_id"])
        inv.setdefault("created_at", o["updated_at"])
    for j, e in enumerate(d.expenses.values()):
        e.setdefault("user_id", uids[j % min(len(uids), 10)] if uids else "")
        back = rng.randint(0, 90)
        created = datetime.combine(d.today - timedelta(days=back), datetime.min.time()) + timedelta(
            hours=rng.randint(8, 20)
        )
        e.setdefault("created_at", created.strftime("%Y-%m-%dT%H:%M:%S+08:00"))
