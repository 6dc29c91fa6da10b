"""A user registry's tool words (thought_model.tool_cues) and the evidence rule with them: derived
from the contracts, enum words and one-step examples; shared and function words are no cues; a step
of a user registry the masked request has no word for, and that no later step needs, is dropped."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from tao.domains import load_domain
from thought_model.entities import perceive
from thought_model.evidence import prune_unasked
from thought_model.tool_cues import derive_cues, words

DOMAIN = load_domain("tao.domains.helpdesk:registry")
CUES = derive_cues(DOMAIN.tools, DOMAIN.examples, DOMAIN.value_words)
ME = "E100630"


def _plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [
                {"step_id": f"t{i}", "tool": t, "arguments": a, "dependencies": []}
                for i, (t, a) in enumerate(steps, 1)
            ],
        }
    )


def _tools(text: str, plan: ThoughtPlan) -> list[str]:
    p = perceive(text, lexicon=DOMAIN.lexicon)
    return [s.tool for s in prune_unasked(plan, text, dict(p.slots), cues=CUES, masked=p.masked).steps]


def test_words_fold_plurals_traditional_and_drop_slots_and_function_words() -> None:
    assert words("show the Laptops of <EMPLOYEE1>") == {"show", "laptop"}
    assert "设备" in words("我名下的設備") and not any("的" in w for w in words("我名下的設備"))


def test_cues_are_distinctive() -> None:
    assert "laptop" in CUES.cues["list_devices"] and "设备" in CUES.cues["list_devices"]
    assert "vpn" in CUES.cues["reset_password"]  # an enum value word
    assert not any("employee" in c for c in CUES.cues.values())  # shared by most tools
    assert CUES.evidenced("nonexistent_tool", "anything")  # no cues: always evidenced


def test_an_unasked_step_of_a_user_registry_is_dropped() -> None:
    e = "E604418"
    plan = _plan(("get_employee", {"employee_id": e}), ("list_devices", {"employee_id": e}))
    assert _tools(f"what's the email and department of {e}?", plan) == ["get_employee"]
    assert _tools(f"show the record and the laptops of {e}", plan) == ["get_employee", "list_devices"]
    mixed = _plan(("list_devices", {"employee_id": ME}), ("list_tickets", {"employee_id": ME}))
    assert _tools("我还有多少个处理中的工单", mixed) == ["list_tickets"]
    assert _tools("我的工单和设备都列一下", mixed) == ["list_devices", "list_tickets"]


def test_a_step_whose_words_are_all_another_planned_tools_is_dropped() -> None:
    e = "E604418"
    three = _plan(
        ("find_employee", {"name": "Ana Ruiz"}),
        ("list_tickets", {"employee_id": e}),
        ("list_devices", {"employee_id": e}),
    )
    # "find" and "list" are words of list_tickets too, but of the other two steps as well
    assert _tools("Find Ana Ruiz and list the devices assigned to her", three) == [
        "find_employee",
        "list_devices",
    ]
    # a word of its own ("tickets": its name) keeps it
    assert _tools("Find Ana Ruiz and list her devices and tickets", three) == [
        "find_employee",
        "list_tickets",
        "list_devices",
    ]
    both = _plan(("list_tickets", {"employee_id": ME}), ("list_devices", {"employee_id": ME}))
    assert _tools("list my tickets and my devices", both) == ["list_tickets", "list_devices"]
    assert CUES.explained(
        "list_tickets", "find <NAME1> and list the devices", ["find_employee", "list_devices"]
    )
    assert not CUES.explained("list_tickets", "list my tickets", ["list_devices"])
    assert not CUES.explained("list_tickets", "hello there", ["list_devices"])  # unevidenced: not explained


def test_a_free_text_word_evidences_nothing() -> None:
    plan = _plan(
        ("create_ticket", {"employee_id": ME, "category": "hardware", "summary": "laptop screen cracked"}),
        ("list_devices", {"employee_id": ME}),
    )
    text = "open a hardware ticket for me: laptop screen cracked"
    assert _tools(text, plan) == ["create_ticket"]


def test_a_stray_speaker_chain_is_dropped_with_the_registrys_own_person_fields() -> None:
    from thought_model.plan_clean import clean_plan

    e = "E512094"
    plan = ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [
                {"step_id": "t1", "tool": "get_employee", "arguments": {"employee_id": e}},
                {"step_id": "t2", "tool": "get_employee", "arguments": {"employee_id": ME}},
                {
                    "step_id": "t3",
                    "tool": "get_employee",
                    "arguments": {"employee_id": "${t2.manager_id}"},
                    "dependencies": ["t2"],
                },
            ],
        }
    )
    text = f"who is {e} and which department and office are they in?"
    out = clean_plan(plan, ME, text, "employee_id", "find_employee")
    assert [s.arguments for s in out.steps] == [{"employee_id": e}]
    assert clean_plan(plan, ME, text) is plan  # the reference domain's fields: nothing to drop
    assert clean_plan(plan, ME, f"who is {e}, and my manager?", "employee_id", "find_employee") is plan


def test_cued_tools_keep_the_best_supported() -> None:
    assert CUES.cued_tools("請幫我重設VPN密碼") == ["reset_password"]
    assert CUES.cued_tools("我要开一个软件工单") == ["create_ticket"]
    assert CUES.cued_tools("hello there") == []


class _Codec:
    lexicon = DOMAIN.lexicon


class _Reroutable:
    """Plans an empty find_employee unless the tools are restricted; then the first allowed tool."""

    name = "fake"
    codec = _Codec()
    ready = True

    def __init__(self) -> None:
        self.asked: list[list[str] | None] = []

    def generate(self, requests):
        from thought_model.engine.base import PlanResult

        out = []
        for r in requests:
            self.asked.append(r.tools)
            if r.tools:
                args = {"employee_id": "<ME>", "system": "vpn"}
                p = _plan((r.tools[0], args))
            else:
                p = _plan(("find_employee", {}))
            out.append(PlanResult(output=p, text=p.model_dump_json()))
        return out

    def close(self) -> None:
        pass


def test_a_plan_of_unevidenced_tools_is_redecoded_over_the_evidenced_ones() -> None:
    from tao.contracts import SessionState
    from thought_model.compose import ComposerConfig, ComposingEngine
    from thought_model.engine.base import PlanRequest

    inner = _Reroutable()
    eng = ComposingEngine(inner, DOMAIN.tools, examples=DOMAIN.examples, value_words=DOMAIN.value_words)
    [res] = eng.generate([PlanRequest("請幫我重設VPN密碼", session=SessionState(user_id=ME))])
    assert [s.tool for s in res.output.steps] == ["reset_password"]
    assert ["reset_password"] in inner.asked
    off = ComposingEngine(
        _Reroutable(), DOMAIN.tools, ComposerConfig(reroute=False), examples=DOMAIN.examples
    )
    [res] = off.generate([PlanRequest("請幫我重設VPN密碼", session=SessionState(user_id=ME))])
    assert [s.tool for s in res.output.steps] == ["find_employee"]
