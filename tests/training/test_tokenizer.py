"""Tokenizer versions: the default checkpoint's legacy tokenizer loads and encodes as before; the
pre-split version (what ``tao train`` trains) gives a word the same token wherever it stands."""

from __future__ import annotations

import json
from pathlib import Path

from transformers import AutoTokenizer

from training.config import PRESETS, Preset, TrainConfig, config_from_args
from training.tokenizer import (
    VERSION_KEY,
    TokenizerVersion,
    save_tokenizer,
    tokenizer_version,
    train_tokenizer,
)

DEFAULT = Path(__file__).resolve().parents[2] / "thought_model" / "checkpoints" / "default"

CORPUS = [
    "<|bos|>file an high ticket for <ME>, thanks<|me|><ME><|plan|>"
    '{"version":"1.0","intent":"create_ticket","steps":[]}<|eos|>',
    "<|bos|>open a ticket about the printer, high priority<|me|>none<|plan|>"
    '{"version":"1.0","intent":"create_ticket","steps":[]}<|eos|>',
    "<|bos|>file an normal ticket, laptop broken<|me|><ME><|plan|>"
    '{"error":"insufficient_context","required_fields":["summary"]}<|eos|>',
    "<|bos|>帮我开个工单，优先级高，问题是电脑开不了机<|me|><ME><|plan|>{}<|eos|>",
] * 20


def _pre(tok) -> dict:
    return json.loads(tok.backend_tokenizer.to_str())["pre_tokenizer"]


def test_default_checkpoint_is_legacy_and_encodes_as_before() -> None:
    tok = AutoTokenizer.from_pretrained(str(DEFAULT))
    assert tokenizer_version(DEFAULT) == TokenizerVersion.LEGACY  # its config has no version key
    ids = tok(
        "<|bos|>file an normal ticket for <ORDER1>, 查询上个月的订单<|me|><ME><|plan|>",
        add_special_tokens=False,
    )
    assert ids["input_ids"][:16] == [
        0,
        376,
        947,
        82,
        288,
        81,
        448,
        394,
        377,
        79,
        349,
        895,
        225,
        3015,
        525,
        1742,
    ]
    assert ids["input_ids"][16:] == [368, 237, 611, 569, 235, 1015, 3, 3071, 4]
    target = tok('{"version":"1.0","intent":"x","steps":[]}', add_special_tokens=False)["input_ids"]
    assert target == [270, 337, 342, 21, 18, 20, 339, 92, 343, 281]
    # the legacy version still trains the default checkpoint's pre-tokenizer
    legacy = train_tokenizer(CORPUS, vocab_size=400, version=TokenizerVersion.LEGACY)
    assert _pre(legacy) == _pre(tok)


def _tokens(tok, text: str) -> list[str]:
    return tok.convert_ids_to_tokens(tok(text, add_special_tokens=False)["input_ids"])


def test_presplit_merges_never_cross_a_word(tmp_path) -> None:
    tok = train_tokenizer(CORPUS, vocab_size=400, version=TokenizerVersion.PRESPLIT)
    legacy = train_tokenizer(CORPUS, vocab_size=400, version=TokenizerVersion.LEGACY)
    # legacy: merges cross the space after a word ('anĠ', then 'high' without its space)
    old = _tokens(legacy, "file an high ticket")
    assert any(len(t) > 1 and t.endswith("Ġ") for t in old) and "Ġhigh" not in old
    for text in ("file an high ticket", "open a ticket about the printer, high priority"):
        toks = _tokens(tok, text)
        assert all("Ġ" not in t[1:] for t in toks), toks  # a space only at a token's start
        assert "Ġhigh" in toks
    zh = _tokens(tok, "帮我开个工单，优先级高")
    assert "ï¼Į" in zh  # the full-width comma is its own piece, never merged with the characters
    # JSON keys stay whole pieces: the plan format stays short
    assert len(_tokens(tok, '{"version":"1.0","intent":"create_ticket","steps":[]}')) <= 14
    save_tokenizer(tok, tmp_path / "tok")
    assert json.loads((tmp_path / "tok" / "tokenizer_config.json").read_text())[VERSION_KEY] == 2
    assert tokenizer_version(tmp_path / "tok") == TokenizerVersion.PRESPLIT
    back = AutoTokenizer.from_pretrained(str(tmp_path / "tok"))
    text = "<|bos|>file an high ticket for <ME><|me|><ME><|plan|>"
    assert back(text)["input_ids"] == tok(text)["input_ids"]
    save_tokenizer(legacy, tmp_path / "old")
    assert tokenizer_version(tmp_path / "old") == TokenizerVersion.LEGACY


def test_config_versions() -> None:
    assert TrainConfig().tokenizer_version == TokenizerVersion.PRESPLIT
    assert config_from_args([]).tokenizer_version == TokenizerVersion.PRESPLIT
    assert config_from_args(["--preset", "quick"]).tokenizer_version == TokenizerVersion.PRESPLIT
    assert config_from_args(["--tokenizer-version", "1"]).tokenizer_version == TokenizerVersion.LEGACY
    # a train_config.json written before the field: the legacy tokenizer it was trained with
    saved = json.loads((DEFAULT / "train_config.json").read_text())
    assert "tokenizer_version" not in saved
    assert TrainConfig.from_json(saved).tokenizer_version == TokenizerVersion.LEGACY


def test_quick_preset_weighs_decisions() -> None:
    cfg = config_from_args(["--preset", "quick"])
    assert cfg.weights.arguments == 1.0 and cfg.weights.arguments > cfg.weights.step_id
    assert cfg.weights.format > TrainConfig().weights.format  # the step / stop choice is a format token
    assert isinstance(PRESETS[Preset.QUICK]["weights"], dict)
