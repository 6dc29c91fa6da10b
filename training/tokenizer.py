"""Byte-level BPE tokenizer trained on the generated corpus (the ``tokenizers`` library).

Digits are always split into single tokens; slot tokens (``<ORDER1>``) and the prompt's
special tokens are kept whole. Saved as ``tokenizer.json`` + ``tokenizer_config.json`` for
``PreTrainedTokenizerFast`` so transformers, xgrammar and vLLM load it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from thought_model.prompt import ADDED_TOKENS, BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, SPECIAL_TOKENS


def train_tokenizer(
    texts: Iterable[str],
    vocab_size: int = 3072,
    min_frequency: int = 2,
    added_tokens: Sequence[str] | None = None,
) -> PreTrainedTokenizerFast:
    """Train the BPE tokenizer and wrap it for transformers; ``added_tokens``: the domain's slot
    tokens (``thought_model.entities.slot_tokens(lexicon)``; default the reference domain's)."""
    added = list(added_tokens) if added_tokens is not None else list(ADDED_TOKENS)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(added),
        min_frequency=min_frequency,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
        max_token_length=16,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    tok.add_tokens(added)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=BOS_TOKEN,
        eos_token=EOS_TOKEN,
        pad_token=PAD_TOKEN,
        unk_token=None,
        clean_up_tokenization_spaces=False,
        additional_special_tokens=[t for t in SPECIAL_TOKENS if t not in (BOS_TOKEN, EOS_TOKEN, PAD_TOKEN)],
    )
    fast.model_max_length = 512
    return fast


def save_tokenizer(tok: PreTrainedTokenizerFast, out_dir: Path) -> None:
    """Save ``tokenizer.json`` + ``tokenizer_config.json`` (class ``PreTrainedTokenizerFast``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(str(out_dir))
    cfg_path = out_dir / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["tokenizer_class"] = "PreTrainedTokenizerFast"
    cfg_path.write_text(json.dumps(cfg, indent=2, ensure_ascii=False))


def padded_vocab_size(tok: PreTrainedTokenizerFast, multiple: int = 128) -> int:
    """The model's vocabulary size: the tokenizer's, rounded up to a multiple of 128."""
    n = len(tok)
    return (n + multiple - 1) // multiple * multiple
