"""Several profile fields changed in one request: one ``update_user_profile`` per field.

"Change my city to Shenzhen and my name to Lily Zhang", "我的资料要改两处：城市改成南京，名字改成王小明",
"Set my phone to <PHONE1> and my email to <EMAIL1>": the model plans one update, or reads the new
name as a person to look up (``find_user(name=Lily Zhang)`` + one update of that user).
:func:`profile_updates`:

* the masked request's **field → value pairs**: a field word (phone / email / city / name, zh
  and en) followed within a few characters by a set-verb (to, 改成, 变更为…) and a slot of that
  field's kind (``city to <CITY1>``, ``城市改成<CITY1>``);
* a ``find_user`` step whose argument is one of the new values is no person to look up: it is
  dropped and the steps that used its ``user_id`` take the session user's id;
* with at least one update step planned, each pair no update step covers gets a copy of the first
  update step (same user) with that field and value, in the order the request names them.
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.plan_edit import Draft, build, drafts, ref_of

FIELD_WORDS = {
    "phone": (r"phone|mobile|cell|number|手机号码|手机号|手机|电话", "PHONE"),
    "email": (r"e-?mail|mail|邮箱|电邮", "EMAIL"),
    "city": (r"city|town|城市|所在地|常住地", "CITY"),
    "name": (r"name|名字|姓名|改名", "NAME"),
}


_TO = r"(?:\bto\b|\bas\b|\binto\b|改成|改为|换成|换为|变更为|变为|更新为|更新成|设为|设置为|设成|写成|为|成)"
"""A set-verb between the field word and the value ("手机号<PHONE1>对应的用户" is a lookup)."""


_SEND_BEFORE = re.compile(r"(?:\ban?|\bsend|\bwrite|\bshoot|\bdrop|发|写)\s*$", re.I)


def field_pairs(masked: str, slots: dict[str, Any]) -> list[tuple[str, Any]]:
    """(field, value) pairs the request asks to set, in text order."""
    found: list[tuple[int, str, Any]] = []
    for name, (words, kind) in FIELD_WORDS.items():
        rx = re.compile(rf"(?:{words})[^<，,。;；]{{0,8}}?{_TO}\s*(?:the\s+|new\s+)*(<{kind}[1-9]>)", re.I)
        for m in rx.finditer(masked):
            value = slots.get(m.group(1))
            if name == "email" and _SEND_BEFORE.search(masked, 0, m.start()):
                continue  # "send an email to <EMAIL1>": a recipient, not a new address
            if value is not None:
                found.append((m.start(), name, value))
    found.sort(key=lambda x: x[0])
    out: list[tuple[str, Any]] = []
    for _, name, value in found:
        if all(v != value for _, v in out):
            out.append((name, value))
    return out


def profile_updates(plan: ThoughtPlan, masked: str, slots: dict[str, Any], me: str | None) -> ThoughtPlan:
    """``plan`` with one update per asked field (module doc); ``plan`` itself when unchanged."""
    pairs = field_pairs(masked, slots)
    if not pairs:
        return plan
    steps = drafts(plan)
    values = [v for _, v in pairs]
    changed = _drop_key_updates(steps, values)
    changed = _person_not_value(steps, values, slots, me) or changed
    looked_up_value = not any(d.tool == "update_user_profile" for d in steps) and any(
        d.tool == "find_user" and any(v in values for v in d.arguments.values()) for d in steps
    )  # "把我的名字改成<NAME1>" planned as a lookup of the new name
    if len(pairs) < 2 and not changed and not looked_up_value:
        return plan
    for d in list(steps):
        if d.tool == "find_user" and any(v in values for v in d.arguments.values()) and me:
            for o in steps:
                o.arguments = {
                    a: (me if (r := ref_of(v)) is not None and r[0] == d.key else v)
                    for a, v in o.arguments.items()
                }
                o.dependencies = [k for k in o.dependencies if k != d.key]
            steps.remove(d)
            changed = True
    updates = [d for d in steps if d.tool == "update_user_profile"]
    if not updates and changed and me:
        # "把我的名字改成<NAME1>": the new name was looked up as a person and nothing was updated
        steps += [
            Draft(f"upd{n}", "update_user_profile", {"user_id": me, "field": name, "value": value}, [])
            for n, (name, value) in enumerate(pairs)
        ]
        return build(plan, steps) or plan
    if not updates:
        return plan if not changed else (build(plan, steps) or plan)
    have = {(d.arguments.get("field"), d.arguments.get("value")) for d in updates}
    template = updates[0]
    at = max(i for i, d in enumerate(steps) if d.tool == "update_user_profile") + 1
    for n, (name, value) in enumerate(pairs):
        if (name, value) in have or any(d.arguments.get("value") == value for d in updates):
            continue
        args = {**template.arguments, "field": name, "value": value}
        steps.insert(at, Draft(f"upd{n}", "update_user_profile", args, list(template.dependencies)))
        at += 1
        changed = True
    if not changed:
        return plan
    order = {v: i for i, v in enumerate(values)}
    ups = sorted(
        (d for d in steps if d.tool == "update_user_profile"),
        key=lambda d: order.get(d.arguments.get("value"), 99),
    )
    it = iter(ups)
    steps = [next(it) if d.tool == "update_user_profile" else d for d in steps]
    out = build(plan, steps)
    return out if out is not None else plan


_PERSON_KINDS = {"EMAIL": "email", "PHONE": "phone", "NAME": "name"}
_KEY_USES = {"find_user": ("email", "phone", "name"), "send_email": ("to",)}
"""Arguments that use a person value as a key: whom to look up, whom to write to."""


def _drop_key_updates(steps: list[Draft], values: list[Any]) -> bool:
    """An update writing a value no field pair sets that another step uses as a key ("the customer on
    <PHONE1> moved, change their city to <CITY1>": the phone finds the customer; "email <EMAIL1> …,
    then update my phone to <PHONE1>": the address is the recipient) is dropped. True when changed."""
    keys = {v for d in steps for a in _KEY_USES.get(d.tool, ()) if isinstance(v := d.arguments.get(a), str)}
    odd = [
        d
        for d in steps
        if d.tool == "update_user_profile"
        and (v := d.arguments.get("value")) in keys
        and v not in values
        and not any(o is not d and d.key in o.dependencies for o in steps)
    ]
    if not odd or all(d in odd for d in steps if d.tool == "update_user_profile"):
        return False  # the only update: the model's reading of the ask, left alone
    for d in odd:
        steps.remove(d)
    return True


def _person_not_value(steps: list[Draft], values: list[Any], slots: dict[str, Any], me: str | None) -> bool:
    """A person, not a new value ("my colleague <EMAIL1> moved, set his city to <CITY1>"): an
    update of the session user whose value is a person value (email, phone, name) no field pair
    sets is the person whose profile changes: it becomes ``find_user`` on that value, first, and
    the other updates of the session user take its ``user_id``. True when ``steps`` changed."""
    if not me:
        return False
    kinds = {
        v: _PERSON_KINDS[k] for tok, v in slots.items() if (k := re.sub(r"[0-9<>]", "", tok)) in _PERSON_KINDS
    }
    odd = [
        d
        for d in steps
        if d.tool == "update_user_profile"
        and d.arguments.get("user_id") == me
        and (v := d.arguments.get("value")) in kinds
        and v not in values
    ]
    rest = [
        d
        for d in steps
        if d.tool == "update_user_profile" and d.arguments.get("user_id") == me and d not in odd
    ]
    if len(odd) != 1 or not rest:
        return False
    who = odd[0]
    value = who.arguments["value"]
    finder = Draft(who.key, "find_user", {kinds[value]: value}, [])
    steps[steps.index(who)] = finder
    steps.remove(finder)
    steps.insert(0, finder)
    for d in rest:
        d.arguments["user_id"] = f"${{{finder.key}.user_id}}"
        if finder.key not in d.dependencies:
            d.dependencies.append(finder.key)
    return True
