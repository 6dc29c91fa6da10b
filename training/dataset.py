"""Tokenized training rows with per-token field weights, and length-bucketed batches."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import torch

from tao.contracts import SessionState
from thought_model.prompt import EOS_TOKEN, prepare_prompt
from training.config import FieldWeights

FORMAT, STEP, DEPS, ARGS, LITERAL = 0, 1, 2, 3, 4
"""Field classes of target characters; ``LITERAL``: a literal argument value (an enum value, a
constant), not a slot token or a step reference (``FieldWeights.literals``)."""
_IN_ARGS = -1  # context: inside "arguments" (keys and slot values ARGS, literal scalars LITERAL)


def _literal(value: Any) -> bool:
    if isinstance(value, str):
        return not (value.startswith("<") and value.endswith(">")) and not value.startswith("${")
    return value is not None


def read_jsonl(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


def row_session(row: dict[str, Any]) -> SessionState:
    """The session a generated row was labelled under (its user and date)."""
    return SessionState(user_id=row.get("user_id"), now=datetime.fromisoformat(row["today"]).replace(hour=9))


def row_prompt(row: dict[str, Any]) -> str:
    """The model's prompt for a generated row: the ``prompt`` the generator stored (perception is
    ~3 ms a row, minutes for a training set), else perception run again on ``request``."""
    stored = row.get("prompt")
    return stored if isinstance(stored, str) else prepare_prompt(row["request"], row_session(row)).text


def _pieces(obj: Any, ctx: int) -> Iterator[tuple[str, int]]:
    """Compact-JSON pieces of ``obj`` with a field class per piece (matches dumps_compact)."""
    if isinstance(obj, dict):
        yield "{", FORMAT
        for i, (k, v) in enumerate(obj.items()):
            if i:
                yield ",", FORMAT
            inside = ctx in (ARGS, _IN_ARGS)
            key_cls = ARGS if inside else FORMAT
            yield json.dumps(k, ensure_ascii=False) + ":", key_cls
            if k == "step_id":
                child = STEP
            elif k == "dependencies":
                child = DEPS
            elif k == "arguments":
                child = _IN_ARGS
            elif k in ("tool", "intent", "required_fields"):
                child = ARGS
            else:
                child = ctx if inside else FORMAT
            yield from _pieces(v, child)
        yield "}", FORMAT
    elif isinstance(obj, list):
        yield "[", FORMAT
        for i, v in enumerate(obj):
            if i:
                yield ",", FORMAT
            yield from _pieces(v, ctx)
        yield "]", FORMAT
    else:
        cls = (LITERAL if _literal(obj) else ARGS) if ctx == _IN_ARGS else ctx
        yield json.dumps(obj, ensure_ascii=False, separators=(",", ":")), cls


def char_classes(target: str) -> list[int]:
    """Field class of every character of a compact JSON target."""
    out: list[int] = []
    text = []
    for piece, cls in _pieces(json.loads(target), FORMAT):
        text.append(piece)
        out.extend([cls] * len(piece))
    if "".join(text) != target:
        raise ValueError("target is not compact JSON in canonical form")
    return out


@dataclass
class Encoded:
    input_ids: list[int]
    labels: list[int]
    weights: list[float]


def encode_rows(
    rows: Iterable[dict[str, Any]], tokenizer: Any, fw: FieldWeights, max_len: int
) -> list[Encoded]:
    """Tokenize prompt + target; labels only on the target; weights by field class."""
    rows = list(rows)
    prompts = [row_prompt(r) for r in rows]
    targets = [r["target"] for r in rows]
    literals = fw.arguments if fw.literals is None else fw.literals
    cls_w = {
        FORMAT: fw.format,
        STEP: fw.step_id,
        DEPS: fw.dependencies,
        ARGS: fw.arguments,
        LITERAL: literals,
    }
    p_enc = tokenizer(prompts, add_special_tokens=False)["input_ids"]
    t_enc = tokenizer(targets, add_special_tokens=False, return_offsets_mapping=True)
    eos = tokenizer.convert_tokens_to_ids(EOS_TOKEN)
    out: list[Encoded] = []
    for p_ids, t_ids, offs, tgt in zip(p_enc, t_enc["input_ids"], t_enc["offset_mapping"], targets):
        classes = char_classes(tgt)
        w = [max((cls_w[c] for c in classes[a:b]), default=fw.format) for a, b in offs]
        ids = p_ids + t_ids + [eos]
        if len(ids) > max_len:
            continue
        labels = [-100] * len(p_ids) + t_ids + [eos]
        weights = [0.0] * len(p_ids) + w + [fw.eos]
        out.append(Encoded(ids, labels, weights))
    return out


def batches(
    data: list[Encoded], batch_size: int, rng: random.Random, pad_id: int, rank: int = 0, world: int = 1
) -> Iterator[dict[str, torch.Tensor]]:
    """One epoch of length-bucketed, shuffled batches (this rank's share)."""
    idx = list(range(len(data)))
    rng.shuffle(idx)
    chunk = batch_size * 50
    groups: list[list[int]] = []
    for i in range(0, len(idx), chunk):
        block = sorted(idx[i : i + chunk], key=lambda j: len(data[j].input_ids))
        groups += [block[k : k + batch_size] for k in range(0, len(block), batch_size)]
    rng.shuffle(groups)
    for g_i, g in enumerate(groups):
        if g_i % world == rank:
            yield collate([data[j] for j in g], pad_id)


def collate(items: list[Encoded], pad_id: int) -> dict[str, torch.Tensor]:
    n = max(len(e.input_ids) for e in items)
    ids = torch.full((len(items), n), pad_id, dtype=torch.long)
    labels = torch.full((len(items), n), -100, dtype=torch.long)
    weights = torch.zeros((len(items), n), dtype=torch.float32)
    mask = torch.zeros((len(items), n), dtype=torch.long)
    for i, e in enumerate(items):
        k = len(e.input_ids)
        ids[i, :k] = torch.tensor(e.input_ids)
        labels[i, :k] = torch.tensor(e.labels)
        weights[i, :k] = torch.tensor(e.weights)
        mask[i, :k] = 1
    return {"input_ids": ids, "labels": labels, "weights": weights, "attention_mask": mask}
