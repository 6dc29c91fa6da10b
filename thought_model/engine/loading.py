"""A checkpoint's parts for the CPU engine: the tokenizer (loaded without torch), the model's
limits from ``config.json``, the lean model, and the compiled-grammar cache. The decode process's
parent uses only the first two; the child and the in-process engine all four."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import xgrammar as xgr

    from thought_model.engine.lean import LeanLlama


def load_tokenizer(checkpoint: Path):
    """The checkpoint's tokenizer. The project's checkpoints name ``PreTrainedTokenizerFast`` (or,
    saved by transformers 5, ``TokenizersBackend``: the same class): it is loaded directly, the
    object ``AutoTokenizer`` returns, without the torch import ``AutoTokenizer`` makes (a decode
    process's parent never loads torch). Any other class goes through ``AutoTokenizer``."""
    try:
        cls = json.loads((checkpoint / "tokenizer_config.json").read_text()).get("tokenizer_class")
    except (OSError, ValueError):
        cls = None
    if cls in ("PreTrainedTokenizerFast", "TokenizersBackend"):
        from transformers import PreTrainedTokenizerFast

        return PreTrainedTokenizerFast.from_pretrained(str(checkpoint))
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(checkpoint))


@dataclass(frozen=True)
class ModelLimits:
    """What the request side needs to know of the model (``config.json``, no weights)."""

    vocab_size: int
    eos_id: int
    max_positions: int


def model_limits(checkpoint: Path, tokenizer: Any) -> ModelLimits:
    """Vocabulary size, EOS id and context window from ``config.json`` (as ``load_model`` and
    :class:`~thought_model.engine.lean.LeanLlama` read them)."""
    cfg = json.loads((checkpoint / "config.json").read_text())
    eos = cfg.get("eos_token_id")
    eos = tokenizer.eos_token_id if eos is None else eos
    return ModelLimits(
        vocab_size=int(cfg["vocab_size"]),
        eos_id=int(eos[0] if isinstance(eos, list) else eos),
        max_positions=int(cfg["max_position_embeddings"]),
    )


def load_model(checkpoint: Path, dtype: str = "float32") -> tuple[LeanLlama, Any, int, int]:
    """The lean model, tokenizer, vocabulary size and EOS id of a checkpoint (the engine and its
    decode process load the same way)."""
    import torch
    from transformers import LlamaForCausalLM

    from thought_model.engine.lean import LeanLlama

    hf = LlamaForCausalLM.from_pretrained(str(checkpoint), dtype=getattr(torch, dtype)).eval()
    tokenizer = load_tokenizer(checkpoint)
    vocab_size = hf.config.vocab_size
    eos = hf.config.eos_token_id if hf.config.eos_token_id is not None else tokenizer.eos_token_id
    eos_id = int(eos[0] if isinstance(eos, list) else eos)
    model = LeanLlama(hf)
    del hf
    return model, tokenizer, vocab_size, eos_id


_ANCHOR_START = re.compile(r"(?<=[(|])\^")
_ANCHOR_END = re.compile(r"(?<!\\)\$(?=[)|])")


def _strip_inner_anchors(node):
    """xgrammar ignores (and loudly warns about) ``^``/``$`` inside alternations; drop them."""
    if isinstance(node, dict):
        out = {k: _strip_inner_anchors(v) for k, v in node.items()}
        if isinstance(out.get("pattern"), str):
            out["pattern"] = _ANCHOR_END.sub("", _ANCHOR_START.sub("", out["pattern"]))
        return out
    if isinstance(node, list):
        return [_strip_inner_anchors(v) for v in node]
    return node


class GrammarCache:
    """Compiles each distinct JSON Schema once per tokenizer and keeps it."""

    def __init__(self, tokenizer, vocab_size: int, eos_id: int) -> None:
        import xgrammar as xgr

        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size, stop_token_ids=[eos_id])
        self._compiler = xgr.GrammarCompiler(info, max_threads=1)
        self._cache: dict[str, xgr.CompiledGrammar] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._cache)

    def get(self, schema: dict) -> xgr.CompiledGrammar:
        key = json.dumps(schema, sort_keys=True, ensure_ascii=False)
        with self._lock:
            hit = self._cache.get(key)
            if hit is None:
                clean = json.dumps(_strip_inner_anchors(schema), ensure_ascii=False)
                hit = self._compiler.compile_json_schema(clean, any_whitespace=False, separators=(",", ":"))
                if len(self._cache) >= 1024:  # bounded (per-request grammars vary by slot set)
                    self._cache.pop(next(iter(self._cache)))
                self._cache[key] = hit
            return hit
