"""The person a later turn's pronoun points at ("his profile", "她下周一的安排", "set their city").

:func:`person_referent` finds the person in the previous turn (a step that found a user by phone,
email or name, or a user id other than the speaker's), :func:`asked_person` in a previous request
that made no plan; :func:`person_request` writes the person into the turn ("他的详细资料呢" ->
"手机号138…的用户的详细资料呢", "their calendar" -> "the calendar of the user with phone …"), and
:func:`substitute_person` puts the person into a plan that used the speaker's own id, the finding
step chained first (``get_user_profile(U_me)`` -> ``find_user(email) -> get_user_profile(${t1.user_id})``).
:func:`address_request` writes the person's email itself for a task that takes an address
("给她发封邮件" -> "给zhou.min@corp.com发封邮件", "a meeting with her" -> "a meeting with …@…").
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import SessionState, ThoughtPlan
from tao.loop.carry_schema import _props, accepts
from tao.loop.followup import is_zh
from tao.loop.snapshot import Snapshot


def person_referent(snap: Snapshot, session: SessionState) -> tuple[dict[str, Any] | None, str | None]:
    """(the step that found the person, its arguments) or (None, a user id other than the
    speaker's) from the previous turn; (None, None) when it names nobody."""
    for st in snap.steps:
        if "user_id" in st.extracted or st.tool.startswith("find_user"):
            args = {k: v for k, v in st.arguments.items() if k in ("phone", "email", "name") and v}
            if args:
                return {"tool": st.tool, "arguments": args}, None
    for st in snap.steps:
        uid = st.arguments.get("user_id")
        if isinstance(uid, str) and uid != session.user_id and not uid.startswith("${"):
            return None, uid
    return None, None


def asked_person(snap: Snapshot, schemas: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """A person the previous request named (a name, phone or email perception reads) when that
    turn made no plan, with the tool that finds people by it (no required arguments)."""
    from thought_model.entities import perceive

    if snap.pending is None and snap.status not in ("failed", "needs_user"):
        return None
    text = snap.effective_request or snap.request
    kinds = {"NAME": "name", "PHONE": "phone", "EMAIL": "email"}
    for e in perceive(text, None, user_known=True).entities:
        key = kinds.get(e.type)
        if key is None or not isinstance(e.value, str):
            continue
        for tool, schema in sorted(schemas.items()):
            if not schema.get("required") and key in _props(schema) and accepts(_props(schema)[key], e.value):
                return {"tool": tool, "arguments": {key: e.value}}
    return None


def _person_text(step: dict[str, Any] | None, uid: str | None, zh: bool) -> str:
    if step is None:
        return f"用户{uid}" if zh else f"user {uid}"
    (k, v), *_ = step["arguments"].items()
    if zh:
        return {"phone": f"手机号{v}的用户", "email": f"邮箱{v}的用户"}.get(k, f"用户{v}")
    return {"phone": f"the user with phone {v}", "email": f"the user with email {v}"}.get(k, str(v))


def person_request(text: str, pron: str, step: dict[str, Any] | None, uid: str | None) -> str:
    """The turn with the pronoun replaced by the person ("their calendar" -> "the calendar of the
    user with phone …")."""
    zh = is_zh(text)
    who = _person_text(step, uid, zh)
    if zh:
        return text.replace(pron, who, 1)
    m = re.search(rf"\b{re.escape(pron)}\s+([A-Za-z]+)", text)
    if m and pron.lower() in ("their", "his", "her"):
        return text[: m.start()] + f"the {m.group(1)} of {who}" + text[m.end() :]
    return re.sub(rf"\b{re.escape(pron)}\b", who, text, count=1)


def substitute_person(
    plan: ThoughtPlan, step: dict[str, Any] | None, uid: str | None, session: SessionState
) -> ThoughtPlan | None:
    """The plan with the speaker's user id replaced by the person (a finding step chained first)."""
    me = session.user_id
    if not me or not any(s.arguments.get("user_id") == me for s in plan.steps):
        return None
    rows: list[dict[str, Any]] = []
    shift = 1 if step is not None else 0
    if step is not None:
        rows.append({"step_id": "t1", "tool": step["tool"], "arguments": dict(step["arguments"])})
    for i, s in enumerate(plan.steps):
        args = {k: _shift_ref(v, shift) for k, v in s.arguments.items()}
        deps = [_shift_id(d, shift) for d in s.dependencies]
        if args.get("user_id") == me:
            args["user_id"] = "${t1.user_id}" if step is not None else uid
            if step is not None and "t1" not in deps:
                deps.append("t1")
        rows.append({"step_id": f"t{i + 1 + shift}", "tool": s.tool, "arguments": args, "dependencies": deps})
    return ThoughtPlan.model_validate({"intent": plan.intent, "steps": rows})


def _shift_id(sid: str, n: int) -> str:
    return f"t{int(sid[1:]) + n}" if re.fullmatch(r"t\d+", sid) else sid


def _shift_ref(v: Any, n: int) -> Any:
    if isinstance(v, str) and n:
        return re.sub(r"\$\{t(\d+)\.", lambda m: "${t" + str(int(m.group(1)) + n) + ".", v)
    return v


def person_email(step: dict[str, Any] | None) -> str | None:
    """The email the finding step looked the person up by, if it did."""
    v = (step or {}).get("arguments", {}).get("email")
    return v if isinstance(v, str) and "@" in v else None


def address_request(text: str, pron: str, email: str) -> str:
    """The turn with the pronoun replaced by the person's email ("email him" -> "email a@b.com";
    "her calendar" is no address: the possessive is written "the … of a@b.com")."""
    if is_zh(text):
        return text.replace(pron, f" {email} ", 1).replace("  ", " ")
    m = re.search(rf"\b{re.escape(pron)}\b(?:\s+([A-Za-z]+))?", text)
    if m is None:
        return text
    if pron.lower() in ("his", "their") or (
        pron.lower() == "her" and m.group(1) and m.group(1).lower() not in _NOT_NOUN
    ):
        return person_request(text, pron, {"tool": "", "arguments": {"name": email}}, None)
    return text[: m.start()] + email + text[m.start() + len(pron) :]  # "with her on Friday": the object


_NOT_NOUN = frozenset(
    "on at in for to about from by with and or tomorrow today tonight next this that the a an".split()
)
