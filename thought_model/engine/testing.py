"""Build a tiny random Llama checkpoint with a trained byte-level BPE tokenizer.

Used by the engine/server tests and the quick benchmark so they do not depend on a trained model:
the engine must be generic over (checkpoint, schema, prompt). The tokenizer is trained with the
``tokenizers`` library on a few hundred synthetic JSON plan strings, so JSON keys and punctuation
merge into multi-character tokens as they would for a real plan model.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import cast

EOS = "<|eos|>"
BOS = "<|bos|>"
PAD = "<|pad|>"

TINY_TOOLS = ("get_weather", "list_orders", "get_order_status", "send_email", "find_user")


def plan_corpus(n: int = 400, seed: int = 0) -> list[str]:
    """Synthetic compact JSON plans (and prompts) to train the test tokenizer on."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        steps = []
        for s in range(rng.randint(1, 3)):
            tool = rng.choice(TINY_TOOLS)
            args = (
                {"city": rng.choice(["Beijing", "上海", "Paris"])}
                if tool == "get_weather"
                else {"user_id": f"U{rng.randint(0, 99999999):08d}"}
            )
            steps.append(
                {
                    "step_id": f"t{s + 1}",
                    "tool": tool,
                    "arguments": args,
                    "dependencies": [f"t{s}"] if s else [],
                }
            )
        plan = {
            "version": "1.0",
            "intent": rng.choice(["query_weather", "order_status", "notify"]),
            "steps": steps,
        }
        out.append(json.dumps(plan, ensure_ascii=False, separators=(",", ":")))
        out.append(f"request: 查询订单 {i} weather in Paris tomorrow\nplan:")
    return out


def train_tokenizer(vocab_size: int = 512):
    """A byte-level BPE ``PreTrainedTokenizerFast`` with bos/eos/pad special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(plan_corpus(), trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD)


def build_tiny_checkpoint(
    dst: Path,
    *,
    hidden: int = 128,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    seed: int = 0,
    max_positions: int = 2048,
) -> Path:
    """Write a random ``LlamaForCausalLM`` + tokenizer in HF format to ``dst`` and return it."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    tok = train_tokenizer()
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden,
        intermediate_size=hidden * 3,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=max_positions,
        # the tokenizer's special-token ids are ints here (trained with PAD/BOS/EOS above)
        bos_token_id=cast(int, tok.bos_token_id),
        eos_token_id=cast(int, tok.eos_token_id),
        pad_token_id=cast(int, tok.pad_token_id),
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(cfg)
    with torch.no_grad():  # a larger init spread makes greedy choices less tie-prone
        model.lm_head.weight.mul_(4.0)
    model.save_pretrained(dst)
    tok.save_pretrained(dst)
    return dst
