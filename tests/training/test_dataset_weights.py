"""Field classes of target characters and the per-token loss weights (training/dataset.py): literal
argument values (enum values, constants) are their own class, weighed like the other arguments
unless ``FieldWeights.literals`` says otherwise."""

from __future__ import annotations

import json

from training.config import FieldWeights
from training.dataset import ARGS, DEPS, FORMAT, LITERAL, STEP, char_classes, encode_rows
from training.tokenizer import TokenizerVersion, train_tokenizer

TARGET = json.dumps(
    {
        "version": "1.0",
        "intent": "create_ticket_me",
        "steps": [
            {
                "step_id": "t1",
                "tool": "create_ticket",
                "arguments": {
                    "employee_id": "<ME>",
                    "summary": "<TEXT1>",
                    "priority": "low",
                    "n": [2, "<X1>"],
                },
                "dependencies": [],
            },
            {
                "step_id": "t2",
                "tool": "get_ticket",
                "arguments": {"ticket_id": "${t1.ticket_id}"},
                "dependencies": ["t1"],
            },
        ],
    },
    ensure_ascii=False,
    separators=(",", ":"),
)


def _classes_of(sub: str) -> set[int]:
    i = TARGET.index(sub)
    return set(char_classes(TARGET)[i : i + len(sub)])


def test_char_classes() -> None:
    assert _classes_of('"low"') == {LITERAL}
    assert _classes_of("2,") == {LITERAL, FORMAT}  # a number inside a list of arguments
    assert _classes_of('"<ME>"') == {ARGS} and _classes_of('"<TEXT1>"') == {ARGS}
    assert _classes_of('"${t1.ticket_id}"') == {ARGS}  # a reference is no literal
    assert _classes_of('"priority":') == {ARGS}
    assert _classes_of('"create_ticket_me"') == {ARGS}  # the intent and the tool stay arguments
    assert _classes_of('"create_ticket"') == {ARGS}
    assert _classes_of('"t1"') == {STEP} and _classes_of('["t1"]') == {FORMAT, DEPS}
    assert _classes_of('"version":"1.0"') == {FORMAT}


def test_literal_weights() -> None:
    prompt = "<|bos|>file a low priority ticket, laptop broken<|me|><ME><|plan|>"
    rows = [{"prompt": prompt, "target": TARGET, "request": ""}] * 2
    tok = train_tokenizer([prompt + TARGET] * 30, vocab_size=400, version=TokenizerVersion.PRESPLIT)
    [enc, _] = encode_rows(rows, tok, FieldWeights(), 400)
    low = tok.convert_tokens_to_ids("low")
    pos = [i for i, t in enumerate(enc.input_ids) if t == low and enc.labels[i] != -100]
    assert len(pos) == 1
    assert enc.weights[pos[0]] == FieldWeights().arguments  # the default recipe: unchanged
    assert set(enc.weights) <= {0.0, 0.1, 0.2, 0.3, 0.4}
    [enc3, _] = encode_rows(rows, tok, FieldWeights(literals=3.0), 400)
    assert enc3.weights[pos[0]] == 3.0
    me = tok.convert_tokens_to_ids("<ME>")
    me_pos = [i for i, t in enumerate(enc3.input_ids) if t == me and enc3.labels[i] != -100]
    assert me_pos and all(enc3.weights[i] == FieldWeights().arguments for i in me_pos)
