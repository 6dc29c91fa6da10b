"""Typed training configuration: CLI flags and an optional JSON config file map onto it."""

from __future__ import annotations

import argparse
import json
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any


@dataclass
class FieldWeights:
    """Loss weight of target tokens by the JSON field they belong to."""

    step_id: float = 0.4
    dependencies: float = 0.3
    arguments: float = 0.2  # tool, intent, argument keys/values, required_fields
    format: float = 0.1  # braces, quotes, fixed keys, version
    eos: float = 0.2


@dataclass
class TrainConfig:
    """Everything one training run needs; saved as ``train_config.json`` beside the weights."""

    out_dir: str = "runs/plan-model"
    registry: str | None = None  # tool domain MODULE:ATTR (default: TAO_REGISTRY, else the reference domain)
    data_dir: str | None = None  # existing generated data; default: generate into out_dir/data
    n_train: int = 100_000
    n_eval: int = 400
    seed: int = 1234
    # tokenizer / model
    vocab_size: int = 3072
    hidden_size: int = 256
    intermediate_size: int = 512
    num_layers: int = 3
    num_heads: int = 4
    max_len: int = 192
    base_model: str | None = None  # fine-tune an existing HF causal LM + tokenizer from this folder
    # optimisation
    batch_size: int = 64
    lr: float = 2e-3
    min_lr_ratio: float = 0.05
    weight_decay: float = 0.01
    warmup_steps: int = 200
    max_steps: int = 3000
    time_budget_min: float | None = None  # if set: after 30 steps, cap max_steps to fit this many minutes
    grad_clip: float = 1.0
    weights: FieldWeights = field(default_factory=FieldWeights)
    # bookkeeping
    eval_every: int = 500
    eval_rows: int = 256  # teacher-forced eval rows for periodic evaluation
    save_every: int = 500
    resume: bool = False
    num_threads: int | None = None
    final_eval: bool = True
    final_eval_rows: int = 200  # generated plans per split in the final evaluation
    progress: bool = True

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        if isinstance(kw.get("weights"), dict):
            kw["weights"] = FieldWeights(**kw["weights"])
        return cls(**kw)


def _flag_type(f) -> Any:
    t = str(f.type)
    if t.startswith("int"):
        return int
    if t.startswith("float"):
        return float
    return str


_HELP = {
    "registry": "tool domain as MODULE:ATTR (default: $TAO_REGISTRY, else tao.domains.reference:domain); "
    "recorded in the checkpoint's train_config.json with a domain.json snapshot",
}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tao train", description="Train the plan model: data, tokenizer, model, eval."
    )
    ap.add_argument("--config", type=Path, help="JSON file with TrainConfig fields (flags override it)")
    for f in fields(TrainConfig):
        if f.name == "weights":
            continue
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not MISSING else None
        if isinstance(default, bool):
            ap.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None)
        else:
            ap.add_argument(flag, dest=f.name, type=_flag_type(f), default=None, help=_HELP.get(f.name))
    return ap


def config_from_args(argv: list[str]) -> TrainConfig:
    """Parse flags (and ``--config FILE``) into a :class:`TrainConfig`."""
    args = build_parser().parse_args(argv)
    base: dict[str, Any] = {}
    if args.config is not None:
        base = json.loads(Path(args.config).read_text())
    for k, v in vars(args).items():
        if k != "config" and v is not None:
            base[k] = v
    return TrainConfig.from_json(base)
