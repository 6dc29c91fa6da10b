"""Free texts put back into the fields the request names them for (thought_model.field_cues)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.field_cues import cued_fields, swap_cued


def _email(subject: str, body: str) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "version": "1.0",
            "intent": "send_email",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "send_email",
                    "arguments": {"to": "a@b.example", "subject": subject, "body": body},
                    "dependencies": [],
                }
            ],
        }
    )


SLOTS = {"<TEXT1>": "Contract signed", "<TEXT2>": "The contract is signed, great work"}


def test_swapped_subject_and_body_are_put_back() -> None:
    masked = "Find <NAME1> and email her. Subject: <TEXT1>. Body: <TEXT2>."
    out = swap_cued(_email(SLOTS["<TEXT2>"], SLOTS["<TEXT1>"]), masked, SLOTS)
    assert out.steps[0].arguments["subject"] == "Contract signed"
    assert out.steps[0].arguments["body"] == "The contract is signed, great work"
    zh = "给 <EMAIL1> 发邮件，正文<TEXT2>，主题<TEXT1>"
    out = swap_cued(_email(SLOTS["<TEXT2>"], SLOTS["<TEXT1>"]), zh, SLOTS)
    assert out.steps[0].arguments["subject"] == "Contract signed"


def test_right_or_uncued_fields_are_left_alone() -> None:
    right = _email(SLOTS["<TEXT1>"], SLOTS["<TEXT2>"])
    assert swap_cued(right, "Subject: <TEXT1>. Body: <TEXT2>.", SLOTS) is right
    swapped = _email(SLOTS["<TEXT2>"], SLOTS["<TEXT1>"])
    assert swap_cued(swapped, "email a@b.example <TEXT1> <TEXT2>", SLOTS) is swapped  # no cue: the model's
    assert cued_fields("subject: <TEXT1>, subject: <TEXT2>", SLOTS, {"subject"}) == {}  # two: unsure
