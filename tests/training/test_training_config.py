"""Typed config: flags and a JSON file map onto TrainConfig; bad values give a clear error."""

from __future__ import annotations

import json

import pytest

from training.cli import main
from training.config import TrainConfig, config_from_args


def test_flags_override_file(tmp_path) -> None:
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"hidden_size": 384, "lr": 0.001, "weights": {"step_id": 0.5}}))
    cfg = config_from_args(["--config", str(f), "--lr", "0.01", "--no-progress", "--num-threads", "1"])
    assert isinstance(cfg, TrainConfig)
    assert cfg.hidden_size == 384 and cfg.lr == 0.01 and cfg.progress is False and cfg.num_threads == 1
    assert cfg.weights.step_id == 0.5 and cfg.weights.dependencies == 0.3


def test_bad_config_is_a_clear_error(tmp_path, capsys) -> None:
    assert main(["--config", str(tmp_path / "missing.json")]) == 2
    assert "bad configuration" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        config_from_args(["--hidden-size", "abc"])


def test_sizes_must_be_multiples_of_128() -> None:
    from transformers import PreTrainedTokenizerFast

    from training.modeling import build_model
    from training.tokenizer import train_tokenizer

    tok: PreTrainedTokenizerFast = train_tokenizer(["<|bos|>abc<|plan|>{}<|eos|>"] * 10, vocab_size=300)
    with pytest.raises(ValueError, match="multiple of 128"):
        build_model(TrainConfig(hidden_size=200), tok)
