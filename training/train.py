"""The training loop: AdamW with warm-up + cosine decay, field-weighted loss, periodic
evaluation, resumable checkpoints, fixed seeds, CPU or CUDA (bf16), DDP under torchrun.

The run folder (``out_dir``) holds ``data/`` (generated unless ``data_dir`` is given),
``state/`` (resumable: weights, optimizer, scheduler, step, RNG), ``train_log.jsonl`` (the
training curve) and ``checkpoint/``: the Hugging Face model folder with ``train_config.json``
and, after the final evaluation, ``eval.json``.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from transformers import AutoTokenizer, GenerationConfig, LlamaForCausalLM

from tao.contracts.domain import Domain, Lexicon
from tao.domains import load_domain
from thought_model.checkpoint import DOMAIN_SNAPSHOT
from thought_model.entities import slot_tokens
from thought_model.prompt import EOS_TOKEN, PAD_TOKEN, PROMPT_FORMAT_VERSION, target_text
from training.config import TrainConfig
from training.dataset import batches, collate, encode_rows, read_jsonl, row_prompt
from training.derive import with_phrasing
from training.generate import SPLITS, GenConfig, write_splits
from training.modeling import build_model, load_base, target_loss, teacher_forced_metrics, weighted_loss
from training.tokenizer import save_tokenizer, train_tokenizer

TOKENIZER_ROWS = 40_000


@dataclass
class Dist:
    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        return self.rank == 0


def _setup_dist() -> Dist:
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return Dist()
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    dist.init_process_group(backend=backend)
    d = Dist(
        rank=dist.get_rank(), world=dist.get_world_size(), local_rank=int(os.environ.get("LOCAL_RANK", "0"))
    )
    if torch.cuda.is_available():
        torch.cuda.set_device(d.local_rank)
    return d


def _seed_all(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def lr_lambda(cfg: TrainConfig):
    def f(step: int) -> float:
        if step < cfg.warmup_steps:
            return (step + 1) / max(1, cfg.warmup_steps)
        t = min(1.0, (step - cfg.warmup_steps) / max(1, cfg.max_steps - cfg.warmup_steps))
        return cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * t))

    return f


BUDGET_EVERY = 100
"""With a time budget, the remaining steps are re-estimated every this many steps from the pace of
the last ones (the machine's load changes during a run; one estimate at step 31 under a passing
load spike once cut a run to 65 steps). The cosine schedule reads ``cfg.max_steps`` at each step,
so it stretches or shrinks with the estimate."""


def budget_steps(
    cfg: TrainConfig, step: int, per_step_s: float, t_train: float, cap: int, now: float | None = None
) -> int:
    """The step count that ends training within ``cfg.time_budget_min`` at ``per_step_s`` seconds a
    step. The budget counts **training time** from ``t_train`` (the first optimisation step), not
    the process start: data generation and tokenizer training slow down on a loaded machine too,
    and once ate a whole quick budget before step 32. Never above ``cap``, never below
    ``cfg.min_steps`` (a loaded machine takes longer rather than exporting an under-trained model)
    nor the next step."""
    left = (cfg.time_budget_min or 0.0) * 60 - ((time.time() if now is None else now) - t_train)
    fit = step + int(left / max(per_step_s, 1e-6))
    return max(step + 1, min(cap, max(cfg.min_steps, fit)))


def _ensure_data(cfg: TrainConfig, out: Path, d: Dist, domain: Domain) -> Path:
    if cfg.data_dir:
        return Path(cfg.data_dir)
    data = out / "data"
    if d.main and not (data / "train.jsonl").exists():
        if cfg.teacher:
            domain = _taught(cfg, data, domain)
        write_splits(
            data,
            GenConfig(
                n_train=cfg.n_train,
                n_eval=cfg.n_eval,
                seed=cfg.seed,
                compose_prob=cfg.compose_prob,
                user_known_prob=cfg.user_known_prob,
                three_prob=cfg.three_prob,
                list_prob=cfg.list_prob,
            ),
            progress=cfg.progress,
            domain=domain,
        )
    if d.world > 1:
        dist.barrier()
    return data


def _taught(cfg: TrainConfig, data: Path, domain: Domain) -> Domain:
    """The domain with the teacher's accepted paraphrases (``--teacher``); the counts go to
    ``data/teacher.json`` and the log."""
    from training.teacher import TeacherConfig, teach

    tcfg = TeacherConfig(
        url=str(cfg.teacher),
        model=cfg.teacher_model,
        api_key=os.environ.get("TAO_TEACHER_API_KEY") or "none",
        per_template=cfg.teacher_per_template,
        max_templates=cfg.teacher_templates,
        seed=cfg.seed,
        progress=cfg.progress,
    )
    taught, report = teach(domain, tcfg)
    data.mkdir(parents=True, exist_ok=True)
    (data / "teacher.json").write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    print(
        f"teacher {cfg.teacher}: {report.accepted} paraphrases accepted, {report.dropped_markers} dropped "
        f"(markers), {report.dropped_other} dropped (other), {report.failed_requests}/{report.requests} "
        "requests failed"
    )
    return taught


def _tokenizer(cfg: TrainConfig, data: Path, out: Path, d: Dist, lexicon: Lexicon | None = None) -> Any:
    tok_dir = out / "tokenizer"
    if d.main and not (tok_dir / "tokenizer.json").exists():
        rows = read_jsonl(data / "train.jsonl", limit=TOKENIZER_ROWS)
        tok = train_tokenizer(
            (row_prompt(r) + target_text(r["target"]) for r in rows),
            vocab_size=cfg.vocab_size,
            added_tokens=slot_tokens(lexicon),
            version=cfg.tokenizer_version,
        )
        save_tokenizer(tok, tok_dir)
    if d.world > 1:
        dist.barrier()
    return AutoTokenizer.from_pretrained(str(tok_dir))


def _optimizer(model: torch.nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    decay = [p for n, p in model.named_parameters() if p.requires_grad and p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and p.dim() < 2]
    return torch.optim.AdamW(
        [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=cfg.lr,
        betas=(0.9, 0.95),
    )


def _evaluate_tf(model: Any, data: list, pad_id: int, device: torch.device, bs: int = 64) -> dict[str, float]:
    model.eval()
    loss = correct = total = 0.0
    for i in range(0, len(data), bs):
        b = {k: v.to(device) for k, v in collate(data[i : i + bs], pad_id).items()}
        l_, c_, t_ = teacher_forced_metrics(model, b)
        loss, correct, total = loss + l_, correct + c_, total + t_
    model.train()
    return {"eval_loss": loss / max(total, 1), "eval_token_acc": correct / max(total, 1)}


def _save_state(state_dir: Path, model: Any, opt: Any, sched: Any, step: int, py_rng: random.Random) -> None:
    tmp = state_dir.with_suffix(".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(),
            "step": step,
            "py_rng": py_rng.getstate(),
            "torch_rng": torch.get_rng_state(),
        },
        tmp / "state.pt",
    )
    if state_dir.exists():
        shutil.rmtree(state_dir)
    tmp.rename(state_dir)


def train(cfg: TrainConfig, command: str | None = None) -> Path:
    """Run training; returns the exported checkpoint folder."""
    d = _setup_dist()
    _seed_all(cfg.seed)
    if cfg.num_threads:
        torch.set_num_threads(cfg.num_threads)
    device = torch.device(f"cuda:{d.local_rank}" if torch.cuda.is_available() else "cpu")
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.time()
    domain = with_phrasing(load_domain(cfg.registry), cfg.seed)  # derived from the contracts if needed
    data_dir = _ensure_data(cfg, out, d, domain)
    if cfg.base_model:
        model, tok = load_base(cfg.base_model)
        if d.main:
            save_tokenizer(tok, out / "tokenizer")
    else:
        tok = _tokenizer(cfg, data_dir, out, d, domain.lexicon)
        model = build_model(cfg, tok)
    pad_id = tok.convert_tokens_to_ids(PAD_TOKEN)
    train_rows = encode_rows(read_jsonl(data_dir / "train.jsonl"), tok, cfg.weights, cfg.max_len)
    eval_rows = encode_rows(
        read_jsonl(data_dir / "test.jsonl", limit=cfg.eval_rows), tok, cfg.weights, cfg.max_len
    )
    model.to(device)  # pyright: ignore[reportArgumentType]  # transformers' functools.wraps(Module.to)
    opt = _optimizer(model, cfg)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(cfg))
    py_rng = random.Random(cfg.seed)
    step = 0
    state_dir = out / "state"
    if cfg.resume and (state_dir / "state.pt").exists():
        st = torch.load(state_dir / "state.pt", map_location=device, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["optimizer"])
        sched.load_state_dict(st["scheduler"])
        step = int(st["step"])
        py_rng.setstate(st["py_rng"])
        torch.set_rng_state(st["torch_rng"])
    ddp_model = torch.nn.parallel.DistributedDataParallel(model) if d.world > 1 else model
    use_bf16 = device.type == "cuda"
    log_path = out / "train_log.jsonl"
    log = open(log_path, "a", encoding="utf-8") if d.main else None
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("step {task.completed}/{task.total}"),
        BarColumn(),
        TextColumn("loss {task.fields[loss]:.4f}  {task.fields[tps]:.0f} tok/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        disable=not (cfg.progress and d.main),
    )
    model.train()
    t_last, tok_count, ema = time.time(), 0, None
    t_first = t_mark = t_train = time.time()
    step_mark, max_steps0 = step, cfg.max_steps
    with bar:
        task = bar.add_task("train", total=cfg.max_steps, completed=step, loss=0.0, tps=0.0)
        while step < cfg.max_steps:
            for batch in batches(train_rows, cfg.batch_size, py_rng, pad_id, d.rank, d.world):
                if step >= cfg.max_steps:
                    break
                batch = {k: v.to(device) for k, v in batch.items()}
                ctx = torch.autocast("cuda", dtype=torch.bfloat16) if use_bf16 else nullcontext()
                with ctx:
                    if d.world > 1 or not hasattr(model, "lm_head") or not hasattr(model, "model"):
                        logits = ddp_model(
                            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
                        ).logits
                        loss = weighted_loss(logits, batch["labels"], batch["weights"])
                    else:
                        loss = target_loss(model, batch)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
                opt.step()
                sched.step()
                step += 1
                if step == 1:
                    t_first = time.time()
                if cfg.time_budget_min and not cfg.resume:
                    if step == 31:
                        t_mark, step_mark = time.time(), step
                        cfg.max_steps = budget_steps(cfg, step, (t_mark - t_first) / 30, t_train, max_steps0)
                        bar.update(task, total=cfg.max_steps)
                    elif step > 31 and step % BUDGET_EVERY == 0:
                        per_step = (time.time() - t_mark) / max(1, step - step_mark)
                        t_mark, step_mark = time.time(), step
                        cfg.max_steps = budget_steps(cfg, step, per_step, t_train, max_steps0)
                        bar.update(task, total=cfg.max_steps)
                tok_count += int(batch["attention_mask"].sum().item())
                ema = loss.item() if ema is None else 0.95 * ema + 0.05 * loss.item()
                now = time.time()
                tps = tok_count * d.world / max(now - t_last, 1e-6)
                bar.update(task, completed=step, loss=ema, tps=tps)
                rec: dict[str, Any] = {
                    "step": step,
                    "loss": round(loss.item(), 5),
                    "lr": sched.get_last_lr()[0],
                }
                if step % cfg.eval_every == 0 or step == cfg.max_steps:
                    rec.update(_evaluate_tf(model, eval_rows, pad_id, device))
                    rec["tokens_per_s"] = round(tps)
                    rec["elapsed_s"] = round(now - t_start, 1)
                    t_last, tok_count = time.time(), 0
                if log is not None and (step % 10 == 0 or "eval_loss" in rec):
                    log.write(json.dumps(rec) + "\n")
                    log.flush()
                if d.main and (step % cfg.save_every == 0):
                    _save_state(state_dir, model, opt, sched, step, py_rng)
    if log is not None:
        log.close()
    ckpt = Path(cfg.checkpoint_dir) if cfg.checkpoint_dir else out / "checkpoint"
    if d.main:
        _export(model, tok, cfg, ckpt, time.time() - t_start, step, command, log_path, domain)
    if d.world > 1:
        dist.barrier()
        dist.destroy_process_group()
    if d.main and cfg.final_eval:
        from training.evaluate import EvalConfig, evaluate_checkpoint

        evaluate_checkpoint(
            EvalConfig(
                checkpoint=str(ckpt),
                data_dir=str(data_dir),
                n=cfg.final_eval_rows,
                progress=cfg.progress,
                unconstrained=cfg.final_eval_unconstrained,
                splits=final_eval_splits(domain),
            )
        )
    return ckpt


def final_eval_splits(domain: Domain) -> tuple[str, ...]:
    """What the final evaluation scores: the generated splits and the hand-written sets of the
    trained domain only (never another domain's set, e.g. the reference one's for a helpdesk model)."""
    from training.evaluate import EXTERNAL_SPLITS

    generated = tuple(s for s in SPLITS if s != "train")
    return generated + tuple(s for s in EXTERNAL_SPLITS if s in domain.eval_sets)


def _export(
    model: LlamaForCausalLM,
    tok: Any,
    cfg: TrainConfig,
    ckpt: Path,
    seconds: float,
    step: int,
    command: str | None,
    log_path: Path,
    domain: Domain,
) -> None:
    ckpt.mkdir(parents=True, exist_ok=True)
    model.to("cpu").to(torch.float32)  # pyright: ignore[reportArgumentType]  # functools.wraps(Module.to)
    eos = tok.convert_tokens_to_ids(EOS_TOKEN)
    model.generation_config = GenerationConfig(
        bos_token_id=model.config.bos_token_id,
        eos_token_id=eos,
        pad_token_id=model.config.pad_token_id,
        do_sample=False,
        max_new_tokens=160,
    )
    model.save_pretrained(str(ckpt), safe_serialization=True)
    save_tokenizer(tok, ckpt)
    last = (
        [json.loads(x) for x in log_path.read_text().splitlines() if x.strip()] if log_path.exists() else []
    )
    last_eval = next((r for r in reversed(last) if "eval_loss" in r), {})
    meta = {
        "config": cfg.to_json(),
        "command": command or " ".join(["python -m training", *sys.argv[1:]]),
        "seed": cfg.seed,
        "train_seconds": round(seconds, 1),
        "steps": step,
        "parameters": sum(p.numel() for p in model.parameters()),
        "prompt_format": PROMPT_FORMAT_VERSION,
        "registry": domain.ref,
        "intents": sorted(
            {i.name for i in (domain.phrasing.intents if domain.phrasing else ())} | {"multi_task"}
        ),
        "intent_steps": {  # the composer's sufficiency check grounds these plans (a user registry's)
            i.name: [[tool, args] for tool, args, _ in i.steps]
            for i in (domain.phrasing.intents if domain.phrasing else ())
        },
        "value_words": {a: {v: list(ws) for v, ws in vals.items()} for a, vals in domain.value_words.items()},
        "device": "cuda" if torch.cuda.is_available() else "cpu",
        "torch_threads": torch.get_num_threads(),
        "final_teacher_forced": last_eval,
    }
    (ckpt / "train_config.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False))
    (ckpt / DOMAIN_SNAPSHOT).write_text(json.dumps(domain.snapshot(), indent=1, ensure_ascii=False))
    if log_path.exists():
        shutil.copy(log_path, ckpt / "train_log.jsonl")
