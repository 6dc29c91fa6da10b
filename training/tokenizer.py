"""Byte-level BPE tokenizer trained on the generated corpus (the ``tokenizers`` library).

Digits are always split into single tokens; slot tokens (``<ORDER1>``) and the prompt's
special tokens are kept whole. Saved as ``tokenizer.json`` + ``tokenizer_config.json`` for
``PreTrainedTokenizerFast`` so transformers, xgrammar and vLLM load it.

Two versions (:class:`TokenizerVersion`, recorded as ``tao_tokenizer_version`` in
``tokenizer_config.json`` and as ``tokenizer_version`` in ``train_config.json``):

* ``1`` (legacy; the default checkpoint's): no pre-split, so merges cross spaces and punctuation
  (``file an normal`` can be one token, ``，开个`` another) and a word has no stable token;
* ``2`` (what ``tao train`` trains now): a regex pre-split before BPE, as GPT-2 / tiktoken do
  (:data:`PRESPLIT_PATTERN`): a Latin word with its leading space, a digit, a punctuation run, a
  run of Han characters; a JSON key with its quotes and colon (``","tool":"``) stays one piece so
  the fixed plan format stays short. Merges never cross a word boundary: ``high`` is the same
  token after ``file an`` as after ``,``.

A saved tokenizer carries its own pre-tokenizer in ``tokenizer.json``: loading an old checkpoint
gives the same ids whatever this module trains today.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from enum import IntEnum
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from thought_model.prompt import ADDED_TOKENS, BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, SPECIAL_TOKENS


class TokenizerVersion(IntEnum):
    """How the BPE tokenizer splits text before merging (see the module docstring)."""

    LEGACY = 1
    PRESPLIT = 2


CURRENT_VERSION = TokenizerVersion.PRESPLIT
"""The version ``tao train`` trains (a ``train_config.json`` without the field is version 1)."""

VERSION_KEY = "tao_tokenizer_version"
"""The key of ``tokenizer_config.json`` that records the version."""

PRESPLIT_PATTERN = (
    r'"?[}\]]*[{,]*"[A-Za-z_]+":\[?"?'  # a JSON key with its punctuation: ","tool":"  {"steps":[
    r"| ?[A-Za-z_]+"  # a Latin word (identifiers with _ included) with its leading space
    r"| ?\p{N}"  # one digit
    r"| ?[^\s\p{L}\p{N}]+"  # a punctuation run
    r"|\p{Han}+"  # a run of Han characters (Chinese has no spaces)
    r"|\p{L}+"  # letters of other scripts
    r"|\s+"
)
"""The version-2 pre-split (isolated pieces; BPE merges only inside one piece)."""


def _pre_tokenizer(version: TokenizerVersion) -> pre_tokenizers.PreTokenizer:
    steps: list[pre_tokenizers.PreTokenizer] = [
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ]
    if version == TokenizerVersion.PRESPLIT:
        steps.insert(0, pre_tokenizers.Split(Regex(PRESPLIT_PATTERN), behavior="isolated"))
    return pre_tokenizers.Sequence(steps)


def train_tokenizer(
    texts: Iterable[str],
    vocab_size: int = 3072,
    min_frequency: int = 2,
    added_tokens: Sequence[str] | None = None,
    version: TokenizerVersion | int = TokenizerVersion.LEGACY,
) -> PreTrainedTokenizerFast:
    """Train the BPE tokenizer and wrap it for transformers; ``added_tokens``: the domain's slot
    tokens (``thought_model.entities.slot_tokens(lexicon)``; default the reference domain's);
    ``version``: the pre-split (``tao train`` passes ``TrainConfig.tokenizer_version``)."""
    version = TokenizerVersion(version)
    added = list(added_tokens) if added_tokens is not None else list(ADDED_TOKENS)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = _pre_tokenizer(version)
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
    fast.init_kwargs[VERSION_KEY] = int(version)
    return fast


def save_tokenizer(tok: PreTrainedTokenizerFast, out_dir: Path) -> None:
    """Save ``tokenizer.json`` + ``tokenizer_config.json`` (class ``PreTrainedTokenizerFast``,
    ``tao_tokenizer_version``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(str(out_dir))
    cfg_path = out_dir / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["tokenizer_class"] = "PreTrainedTokenizerFast"
    cfg[VERSION_KEY] = int(tok.init_kwargs.get(VERSION_KEY, TokenizerVersion.LEGACY))
    cfg_path.write_text(json.dumps(cfg, indent=2, ensure_ascii=False))


def tokenizer_version(tok_dir: Path | str) -> TokenizerVersion:
    """The version a saved tokenizer was trained with (1 when its config does not say)."""
    cfg = json.loads((Path(tok_dir) / "tokenizer_config.json").read_text())
    return TokenizerVersion(int(cfg.get(VERSION_KEY, TokenizerVersion.LEGACY)))


def padded_vocab_size(tok: PreTrainedTokenizerFast, multiple: int = 128) -> int:
    """The model's vocabulary size: the tokenizer's, rounded up to a multiple of 128."""
    n = len(tok)
    return (n + multiple - 1) // multiple * multiple
