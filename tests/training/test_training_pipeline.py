"""End to end on a tiny model: generate data, train, export, evaluate, resume, fine-tune."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.config import TrainConfig
from training.evaluate import EvalConfig, evaluate_checkpoint
from training.generate import GenConfig, write_splits
from training.train import train


def _cfg(tmp: Path, data: Path, **kw) -> TrainConfig:
    base = dict(
        out_dir=str(tmp),
        data_dir=str(data),
        vocab_size=512,
        hidden_size=128,
        intermediate_size=256,
        num_layers=1,
        num_heads=2,
        batch_size=16,
        max_steps=30,
        warmup_steps=5,
        lr=3e-3,
        eval_every=20,
        save_every=10,
        eval_rows=16,
        final_eval=False,
        final_eval_rows=4,
        progress=False,
        num_threads=1,
    )
    base.update(kw)
    return TrainConfig(**base)


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_tiny_pipeline(tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

    data = tmp_path / "data"
    write_splits(data, GenConfig(n_train=320, n_eval=4, seed=3), progress=False)
    ckpt = train(_cfg(tmp_path / "run", data))
    evaluate_checkpoint(
        EvalConfig(checkpoint=str(ckpt), data_dir=str(data), n=4, progress=False, max_new_tokens=48)
    )
    for name in (
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "generation_config.json",
        "train_config.json",
        "eval.json",
    ):
        assert (ckpt / name).exists(), name
    conf = json.loads((ckpt / "config.json").read_text())
    assert conf["architectures"] == ["LlamaForCausalLM"]
    assert conf["hidden_size"] % 128 == 0 and conf["intermediate_size"] % 128 == 0
    model = AutoModelForCausalLM.from_pretrained(str(ckpt))
    tok = PreTrainedTokenizerFast(tokenizer_file=str(ckpt / "tokenizer.json"))
    assert tok.convert_tokens_to_ids("<ORDER1>") < model.config.vocab_size
    assert tok.tokenize("123")[:3] == ["1", "2", "3"]  # digits are split

    log = [json.loads(x) for x in (tmp_path / "run" / "train_log.jsonl").read_text().splitlines()]
    assert log[-1]["loss"] < log[0]["loss"]  # it learns
    assert 0.0 <= log[-1]["eval_token_acc"] <= 1.0

    report = json.loads((ckpt / "eval.json").read_text())
    assert set(report["splits"]) == {
        "test",
        "heldout_templates",
        "heldout_values",
        "heldout_combos",
        "handwritten",
        "independent",  # the reference domain's independent hand-written set
    }
    for name, s in report["splits"].items():
        if name == "independent":  # scored whole, in the case format (its own report keys)
            assert s["n"] == 420 and 0.0 <= s["exact_match"] <= 1.0
            continue
        assert s["n"] == 4
        for key in (
            "exact_match",
            "intent_accuracy",
            "tool_sequence_accuracy",
            "dependency_accuracy",
            "argument_accuracy",
            "insufficient_precision",
            "insufficient_recall",
            "schema_valid_constrained",
            "schema_valid_unconstrained",
        ):
            assert s[key] is None or 0.0 <= s[key] <= 1.0, key
        assert s["exact_match"] is not None and s["schema_valid_constrained"] is not None
        assert s["tokens_per_plan"] > 0

    # resume from the saved state (step 30) and continue to 36
    ckpt2 = train(_cfg(tmp_path / "run", data, max_steps=36, resume=True))
    assert json.loads((ckpt2 / "train_config.json").read_text())["steps"] == 36

    # fine-tune the exported checkpoint as a base model
    ft = train(_cfg(tmp_path / "ft", data, base_model=str(ckpt), max_steps=3))
    meta = json.loads((ft / "train_config.json").read_text())
    assert meta["config"]["base_model"] == str(ckpt) and meta["steps"] == 3
    assert AutoModelForCausalLM.from_pretrained(str(ft)).config.vocab_size == model.config.vocab_size
