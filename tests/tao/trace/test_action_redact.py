"""PII redaction on a labelled corpus (129 samples, 141 PII strings) and business-id negatives."""

from __future__ import annotations

from collections import Counter

from action_helpers import load_jsonl

from tao.trace.redact import luhn_ok, redact, redact_text, valid_cn_id

CORPUS = load_jsonl("pii_corpus.jsonl")
NEGATIVES = load_jsonl("pii_negatives.jsonl")


def test_corpus_is_large_and_covers_every_kind() -> None:
    assert len(CORPUS) >= 100
    kinds = Counter(r["kind"] for r in CORPUS)
    assert {"PHONE", "CN_ID", "BANK_CARD", "EMAIL", "API_KEY"} <= set(kinds)
    assert all(kinds[k] >= 20 for k in ("PHONE", "CN_ID", "BANK_CARD", "EMAIL", "API_KEY"))


def test_every_labelled_pii_string_is_masked() -> None:
    leaks = [(r["text"], p) for r in CORPUS for p in r["pii"] if p in redact_text(r["text"])]
    assert leaks == []


def test_masks_name_the_kind() -> None:
    for r in CORPUS:
        if r["kind"] != "MIXED":
            assert f"[REDACTED:{r['kind']}]" in redact_text(r["text"]), r["text"]


def test_business_ids_survive() -> None:
    lost = [(r["text"], k) for r in NEGATIVES for k in r["keep"] if k not in redact_text(r["text"])]
    assert lost == []


def test_checksums() -> None:
    assert valid_cn_id("11010519491231002X") and not valid_cn_id("110105194912310021")
    assert not valid_cn_id("202611051234567890")  # an order id: no valid birth date
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")


def test_nested_values_are_walked() -> None:
    out = redact(
        {"a": ["mail me at x.y@example.com"], "b": {"c": 13812345678, "d": "13812345678"}, "e": None}
    )
    assert out == {
        "a": ["mail me at [REDACTED:EMAIL]"],
        "b": {"c": 13812345678, "d": "[REDACTED:PHONE]"},
        "e": None,
    }


def test_uuids_are_ids_not_cards_and_cards_beside_them_are_still_masked() -> None:
    # a real task id from a CI run: its first 18 digits (dash groups) pass Luhn and a card range
    task = "59531844-0012-4098-96b5-615fa44c7014"
    assert redact_text(task) == task
    assert redact_text(f"reader_task_id={task}") == f"reader_task_id={task}"
    out = redact_text(f"task {task} paid with 4111 1111 1111 1111")
    assert task in out and "4111" not in out and "[REDACTED:BANK_CARD]" in out
    assert redact_text("4111-1111-1111-1111") == "[REDACTED:BANK_CARD]"  # dashes alone are no UUID
