"""Model construction and the field-weighted loss."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM

from thought_model.prompt import ADDED_TOKENS, BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, SPECIAL_TOKENS
from training.config import TrainConfig
from training.tokenizer import padded_vocab_size


def build_model(cfg: TrainConfig, tokenizer: Any) -> LlamaForCausalLM:
    """A fresh Llama sized by ``cfg`` (hidden/intermediate sizes must be multiples of 128)."""
    for name in ("hidden_size", "intermediate_size"):
        if getattr(cfg, name) % 128:
            raise ValueError(f"{name}={getattr(cfg, name)} must be a multiple of 128")
    conf = LlamaConfig(
        vocab_size=padded_vocab_size(tokenizer),
        hidden_size=cfg.hidden_size,
        intermediate_size=cfg.intermediate_size,
        num_hidden_layers=cfg.num_layers,
        num_attention_heads=cfg.num_heads,
        num_key_value_heads=cfg.num_heads,
        max_position_embeddings=max(256, cfg.max_len),
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.convert_tokens_to_ids(BOS_TOKEN),
        eos_token_id=tokenizer.convert_tokens_to_ids(EOS_TOKEN),
        pad_token_id=tokenizer.convert_tokens_to_ids(PAD_TOKEN),
    )
    conf.architectures = ["LlamaForCausalLM"]
    return LlamaForCausalLM(conf)


def load_base(path: str | Path) -> tuple[Any, Any]:
    """Load an existing HF causal LM + tokenizer from disk and teach it the prompt's tokens."""
    tok = AutoTokenizer.from_pretrained(str(path))
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32)
    vocab = tok.get_vocab()
    missing_special = [t for t in SPECIAL_TOKENS if t not in vocab]
    if missing_special:
        tok.add_special_tokens({"additional_special_tokens": missing_special})
    missing_added = [t for t in ADDED_TOKENS if t not in vocab]
    if missing_added:
        tok.add_tokens(missing_added)
    tok.bos_token, tok.eos_token, tok.pad_token = BOS_TOKEN, EOS_TOKEN, PAD_TOKEN
    if len(tok) > cast(torch.Tensor, model.get_input_embeddings().weight).shape[0]:
        model.resize_token_embeddings(padded_vocab_size(tok))
    model.config.eos_token_id = tok.convert_tokens_to_ids(EOS_TOKEN)
    model.config.pad_token_id = tok.convert_tokens_to_ids(PAD_TOKEN)
    model.config.bos_token_id = tok.convert_tokens_to_ids(BOS_TOKEN)
    return model, tok


def target_loss(model: Any, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Field-weighted loss computing the LM head only at target positions (single process)."""
    hidden = model.model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
    ).last_hidden_state
    labels = batch["labels"][:, 1:]
    sel = labels != -100
    logits = model.lm_head(hidden[:, :-1][sel]).float()
    ce = F.cross_entropy(logits, labels[sel], reduction="none")
    w = batch["weights"][:, 1:][sel]
    return (ce * w).sum() / w.sum().clamp_min(1e-8)


def weighted_loss(logits: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of next-token predictions, weighted per target token by its field."""
    logits = logits[:, :-1].float()
    labels = labels[:, 1:]
    weights = weights[:, 1:] * (labels != -100)
    ce = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100, reduction="none"
    )
    return (ce * weights.reshape(-1)).sum() / weights.sum().clamp_min(1e-8)


@torch.no_grad()
def teacher_forced_metrics(model: Any, batch: dict[str, torch.Tensor]) -> tuple[float, float, int]:
    """(unweighted loss sum, correct target tokens, target tokens) for one batch."""
    out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
    logits = out.logits[:, :-1].float()
    labels = batch["labels"][:, 1:]
    mask = labels != -100
    ce = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100, reduction="sum"
    )
    correct = ((logits.argmax(-1) == labels) & mask).sum().item()
    return float(ce.item()), int(correct), int(mask.sum().item())
