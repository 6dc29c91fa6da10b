"""Typed training configuration: CLI flags and an optional JSON config file map onto it."""

from __future__ import annotations

import argparse
import json
from dataclasses import MISSING, asdict, dataclass, field, fields
from enum import Enum
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
    literals: float | None = None  # literal argument values (enum values, constants); None: ``arguments``


@dataclass
class TrainConfig:
    """Everything one training run needs; saved as ``train_config.json`` beside the weights."""

    out_dir: str = "runs/plan-model"
    registry: str | None = None  # tool domain MODULE:ATTR (default: TAO_REGISTRY, else the reference domain)
    data_dir: str | None = None  # existing generated data; default: generate into out_dir/data
    checkpoint_dir: str | None = None  # where the exported checkpoint goes (default: out_dir/checkpoint)
    n_train: int = 100_000
    n_eval: int = 400
    seed: int = 1234
    # data generation (training.generate.GenConfig)
    compose_prob: float = 0.15
    user_known_prob: float = 0.6
    three_prob: float = 0.0
    list_prob: float = 0.0
    # optional teacher (training.teacher): paraphrases from an OpenAI-compatible endpoint
    teacher: str | None = None  # base URL (e.g. http://127.0.0.1:8080/v1); None: no teacher
    teacher_model: str = "auto"
    teacher_per_template: int = 3
    teacher_templates: int = 200  # training templates sent (picked with the seed); 0 = all
    # tokenizer / model
    vocab_size: int = 3072
    # training.tokenizer.TokenizerVersion: 2 pre-split, 1 legacy (the default checkpoint's)
    tokenizer_version: int = 2
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
    time_budget_min: float | None = None  # if set: after 30 steps, cap max_steps to fit (minutes of training)
    min_steps: int = 0  # a time budget never caps max_steps below this many steps
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
    final_eval_unconstrained: bool = True  # also decode some rows without the grammar (slow on CPU)
    progress: bool = True

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        kw.setdefault("tokenizer_version", 1)  # a config saved before the field: the legacy tokenizer
        if isinstance(kw.get("weights"), dict):
            kw["weights"] = FieldWeights(**kw["weights"])
        return cls(**kw)


class Preset(str, Enum):
    """Named starting points (``--preset``); flags and ``--config`` override their values."""

    QUICK = "quick"
    FULL = "full"
    GPU = "gpu"


PRESETS: dict[Preset, dict[str, Any]] = {
    Preset.QUICK: dict(  # <= 20 minutes on 2 CPU cores, data generation and final evaluation included
        n_train=24_000,
        n_eval=60,
        vocab_size=2048,
        # every decision token weighs 1 (argument values, the step/stop choice after a step, the end):
        # the default weights (arguments 0.2 < step ids 0.4) under-weighted the argument values
        # (FieldWeights.literals, e.g. 3 for enum values, is not set: its quick run was lost to load)
        weights=dict(step_id=0.5, dependencies=1.0, arguments=1.0, format=0.5, eos=1.0),
        hidden_size=256,
        intermediate_size=512,
        num_layers=3,
        num_heads=4,
        max_len=160,
        batch_size=48,
        lr=2e-3,
        warmup_steps=100,
        max_steps=2500,
        # minutes of training (from the first step; data generation, tokenizer and final evaluation
        # take 1-3 more on an idle machine), never fewer than min_steps: on a loaded machine the run
        # takes longer instead of exporting an under-trained model (one lost run stopped at step 32)
        time_budget_min=12.0,
        min_steps=1200,
        eval_every=500,
        save_every=1000,
        eval_rows=128,
        final_eval_rows=60,
        final_eval_unconstrained=False,
        compose_prob=0.2,
        user_known_prob=0.75,
        three_prob=0.1,
        list_prob=0.1,
    ),
    Preset.FULL: dict(  # the default checkpoint's recipe (about an hour on 2 CPU cores)
        n_train=100_000,
        max_steps=6000,
        compose_prob=0.2,
        three_prob=0.1,
        list_prob=0.1,
    ),
    Preset.GPU: dict(  # one accelerator: a bigger model, more data and steps
        n_train=200_000,
        vocab_size=4096,
        hidden_size=512,
        intermediate_size=1024,
        num_layers=6,
        num_heads=8,
        batch_size=128,
        lr=1e-3,
        max_steps=8000,
        compose_prob=0.2,
        three_prob=0.1,
        list_prob=0.1,
    ),
}
"""TrainConfig overrides per preset (typed: every key is a TrainConfig field, checked by a test)."""


def _flag_type(f) -> Any:
    t = str(f.type)
    if t.startswith("int"):
        return int
    if t.startswith("float"):
        return float
    return str


_HELP = {
    "out_dir": "run folder: generated data, tokenizer, resumable state, training log",
    "registry": "tool domain as MODULE:ATTR (default: $TAO_REGISTRY, else tao.domains.reference:domain); "
    "a domain without phrasing is derived from its contracts and examples (training.derive); "
    "recorded in the checkpoint's train_config.json with a domain.json snapshot",
    "data_dir": "use already generated data (train.jsonl + eval splits) instead of generating it",
    "checkpoint_dir": "where the exported checkpoint goes (default: OUT_DIR/checkpoint)",
    "n_train": "training rows to generate",
    "n_eval": "rows per generated evaluation split",
    "seed": "seed of data generation, initialisation and batching",
    "compose_prob": "share of generated rows that combine two (or three) intents",
    "user_known_prob": "share of generated rows whose session knows the user (else <ME> is missing)",
    "three_prob": "share of composed training rows with three intents",
    "list_prob": "share of composed training rows written as a list",
    "teacher": "optional: base URL of an OpenAI-compatible endpoint (e.g. the project's gateway, "
    "http://127.0.0.1:8080/v1; key from $TAO_TEACHER_API_KEY) asked for paraphrases of the training "
    "templates with the slot markers kept; a paraphrase that breaks a marker is dropped and counted "
    "(DIR/data/teacher.json); never required",
    "teacher_model": "model name sent to --teacher",
    "teacher_per_template": "paraphrases asked per template from --teacher",
    "teacher_templates": "training templates sent to --teacher (picked with --seed; 0: all)",
    "vocab_size": "BPE vocabulary size (slot and special tokens included)",
    "tokenizer_version": "2: words, digits, punctuation runs and Han runs split before BPE (merges never "
    "cross a space); 1: the legacy tokenizer of the default checkpoint (no pre-split)",
    "hidden_size": "model width",
    "intermediate_size": "MLP width",
    "num_layers": "transformer layers",
    "num_heads": "attention heads",
    "max_len": "longest prompt + target in tokens (longer rows are dropped)",
    "base_model": "fine-tune an existing Hugging Face causal LM + tokenizer from this folder",
    "batch_size": "rows per optimisation step",
    "lr": "peak learning rate (AdamW, warm-up then cosine decay)",
    "min_lr_ratio": "final learning rate as a share of the peak",
    "weight_decay": "AdamW weight decay",
    "warmup_steps": "linear warm-up steps",
    "max_steps": "optimisation steps (capped by --time-budget-min)",
    "time_budget_min": "minutes of training, counted from the first step (not data generation): after "
    "30 steps, and every 100, the step count is capped to fit",
    "min_steps": "a time budget never cuts training below this many steps (a loaded machine then "
    "takes longer)",
    "grad_clip": "gradient norm clip",
    "eval_every": "steps between teacher-forced evaluations",
    "eval_rows": "rows of the teacher-forced evaluation",
    "save_every": "steps between resumable state saves",
    "resume": "continue from OUT_DIR/state if present",
    "num_threads": "torch CPU threads (default: torch's choice)",
    "final_eval": "evaluate the exported checkpoint (generated splits + the domain's own hand-written sets)",
    "final_eval_rows": "generated plans per split in the final evaluation",
    "final_eval_unconstrained": "also decode some rows without the grammar in the final evaluation (slow)",
    "progress": "progress bars",
}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tao train", description="Train the plan model: data, tokenizer, model, eval."
    )
    ap.add_argument("--config", type=Path, help="JSON file with TrainConfig fields (flags override it)")
    ap.add_argument(
        "--preset",
        choices=[p.value for p in Preset],
        help="quick: <= 20 min on 2 CPU cores (the start for a new registry); full: the default "
        "checkpoint's recipe; gpu: a bigger model for one accelerator. --config and flags override it",
    )
    ap.add_argument(
        "--out",
        dest="out",
        metavar="DIR",
        help="write the checkpoint to DIR (the run folder, data and state, goes to DIR/run unless "
        "--out-dir is given); then: tao serve --checkpoint DIR",
    )
    for f in fields(TrainConfig):
        if f.name == "weights":
            continue
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not MISSING else None
        helptext = _HELP.get(f.name, f.name.replace("_", " "))
        if isinstance(default, bool):
            ap.add_argument(
                flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None, help=helptext
            )
        else:
            ap.add_argument(
                flag,
                dest=f.name,
                type=_flag_type(f),
                default=None,
                help=f"{helptext} (default: {default})",
            )
    return ap


def config_from_args(argv: list[str]) -> TrainConfig:
    """Parse flags (and ``--config FILE``) into a :class:`TrainConfig`."""
    args = build_parser().parse_args(argv)
    base: dict[str, Any] = {"tokenizer_version": TrainConfig.tokenizer_version}
    base.update(PRESETS[Preset(args.preset)] if args.preset else {})
    if args.config is not None:
        base.update(json.loads(Path(args.config).read_text()))
    for k, v in vars(args).items():
        if k not in ("config", "preset", "out") and v is not None:
            base[k] = v
    if args.out:
        base["checkpoint_dir"] = args.out
        if args.out_dir is None:
            base["out_dir"] = str(Path(args.out) / "run")
    return TrainConfig.from_json(base)
