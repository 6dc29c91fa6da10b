"""Plan benchmark (``python -m bench plan`` or ``python -m bench.suites.plan``).

On the default checkpoint and the held-out splits, all in one run and one process: our CPU engine
(constrained; with and without jump-forward; batch 1 and batch 8), vLLM-CPU (constrained, same
checkpoint and grammar), and unconstrained transformers ``generate``. Per configuration: P50/P99
latency per plan, plans/s, forward passes per plan, valid-plan rate (parsed and passing
``check_plan``) and exact-match accuracy. The INT4 export is checked through its dequantizing
reference forward (accuracy within 1 point of the original). vLLM runs last: it binds the
process's threads.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import (
    RESULTS_DIR,
    git_info,
    latency_summary,
    machine_info,
    ratio,
    utc_now,
    versions,
    write_json,
)
from thought_model.checkpoint import CHECKPOINTS, DEFAULT_CHECKPOINT

TINY_CHECKPOINT = CHECKPOINTS / "tiny"


def _score(results, cases, wall_s: float, validator) -> dict[str, Any]:
    from bench.heldout import is_correct

    valid = 0
    for r in results:
        if r.ok and getattr(r.output, "steps", None) is not None:
            plan = r.output.model_dump(mode="json", exclude={"thought_id", "created_at"})
            valid += bool(validator.check(plan)["valid"])
        elif r.ok:  # insufficient-context output: valid by its own contract
            valid += 1
    lat = [r.stats.ms for r in results]
    n = max(1, len(results))
    return {
        "n": len(results),
        **{f"{k}_ms": v for k, v in latency_summary(lat).items() if k != "n"},
        "plans_per_s": round(len(results) / wall_s, 3) if wall_s else None,
        "forward_passes_per_plan": sum(r.stats.forward_passes for r in results) / n,
        "generated_tokens_per_plan": sum(r.stats.generated_tokens for r in results) / n,
        "jump_forward_tokens_per_plan": sum(r.stats.jump_forward_tokens for r in results) / n,
        "valid_rate": valid / n,
        "accuracy": sum(is_correct(r, c.expected) for r, c in zip(results, cases, strict=False)) / n,
    }


def _run_batches(gen, cases, batch: int):
    reqs = [c.request for c in cases]
    gen(reqs[: min(batch, len(reqs))])  # warm-up (grammar compile, allocator)
    out = []
    t0 = time.perf_counter()
    for i in range(0, len(reqs), batch):
        chunk = reqs[i : i + batch]
        t = time.perf_counter()
        res = gen(chunk)
        ms = (time.perf_counter() - t) * 1000.0
        for r in res:
            r.stats.ms = ms  # per-plan latency = the latency of the batch it was in
        out.extend(res)
    return out, time.perf_counter() - t0


def _hf_unconstrained(checkpoint: Path, codec, cases, max_new: int):
    """transformers ``generate`` (greedy, no grammar), batch 1 — the plain baseline."""
    import torch
    from transformers import AutoTokenizer, LlamaForCausalLM

    from thought_model.engine.base import GenerationStats, PlanResult
    from thought_model.engine.codec import error_info_from

    tok = AutoTokenizer.from_pretrained(str(checkpoint))
    model = LlamaForCausalLM.from_pretrained(str(checkpoint)).eval()
    eos = model.config.eos_token_id
    results = []
    t0 = time.perf_counter()
    for c in cases:
        ids = torch.tensor([tok.encode(codec.prompt(c.request), add_special_tokens=False)])
        t = time.perf_counter()
        with torch.inference_mode():
            # transformers types generate()'s self as a protocol its own models do not satisfy
            out = model.generate(  # pyright: ignore[reportAttributeAccessIssue]
                ids,
                max_new_tokens=max_new,
                do_sample=False,
                eos_token_id=eos,
                pad_token_id=eos,
                attention_mask=torch.ones_like(ids),
            )
        gen = out[0, ids.shape[1] :].tolist()
        text = tok.decode([t for t in gen if t != eos])
        st = GenerationStats(
            prompt_tokens=ids.shape[1],
            generated_tokens=len(gen),
            forward_passes=len(gen),
            ms=(time.perf_counter() - t) * 1000.0,
        )
        try:
            results.append(PlanResult(output=codec.parse(text, c.request), stats=st, text=text))
        except Exception as exc:
            results.append(PlanResult(error=error_info_from(exc), stats=st, text=text))
    return results, time.perf_counter() - t0


def _checkpoint(tmp: Path, explicit: Path | None = None):
    """(checkpoint, codec, label): the given or default model, else the trained tiny one, else a
    random tiny one (recorded as such)."""
    from thought_model.engine.codec import GenericCodec, default_codec

    if explicit is not None:
        return explicit, default_codec(), str(explicit)
    for path, label in (
        (DEFAULT_CHECKPOINT, "default"),
        (TINY_CHECKPOINT, "tiny (default checkpoint missing)"),
    ):
        if (path / "config.json").is_file():
            return path, default_codec(), label
    from thought_model.engine.testing import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp / "tiny"), GenericCodec(), "random-tiny (default checkpoint missing)"


def run(quick: bool = False, checkpoint: Path | None = None) -> dict[str, Any]:
    import torch

    from bench.heldout import heldout_cases
    from tao.loop.plancheck import PlanValidator
    from thought_model import int4
    from thought_model.engine.cpu import CpuEngine, CpuEngineConfig
    from thought_model.engine.decode import DecodeConfig

    t_start = time.perf_counter()
    torch.set_num_threads(1)
    tmp = Path(tempfile.mkdtemp(prefix="bench_plan_"))
    ckpt, codec, label = _checkpoint(tmp, checkpoint)
    cases = heldout_cases(8 if quick else 60)
    if label.startswith("random"):  # the generic codec's random model: keep to tools with bounded fields
        for c in cases:
            c.request.tools = ["get_weather", "get_order_status", "get_user_profile", "get_invoice"]
    max_new = 384
    validator = PlanValidator()
    configs: dict[str, Any] = {}
    eng = CpuEngine(
        ckpt, CpuEngineConfig(threads=1, decode=DecodeConfig(max_new_tokens=max_new)), codec=codec
    )
    try:
        for jf in (True, False):
            eng.decoder.cfg.jump_forward = jf
            for batch in (1, 8):
                res, wall = _run_batches(eng.generate_batch, cases, batch)
                configs[f"cpu_{'jf' if jf else 'nojf'}_b{batch}"] = _score(res, cases, wall, validator)
    finally:
        eng.close()

    # INT4: export, dequantize, and evaluate with the same engine settings (reference forward)
    int4_info: dict[str, Any] = {}
    try:
        import json as _json

        mc = _json.loads((ckpt / "config.json").read_text())
        dims = (
            mc["hidden_size"],
            mc["intermediate_size"],
            mc["num_attention_heads"]
            * (mc.get("head_dim") or mc["hidden_size"] // mc["num_attention_heads"]),
        )
        gs = next(g for g in (128, 64, 32) if all(d % g == 0 for d in dims))
        dst = int4.export(ckpt, tmp / "w4a16", int4.Int4Config(group_size=gs))
        int4_info["group_size"] = gs
        errs = int4.weight_errors(ckpt, dst)
        deq = int4.save_dequantized(dst, tmp / "w4a16_deq")
        e4 = CpuEngine(
            deq, CpuEngineConfig(threads=1, decode=DecodeConfig(max_new_tokens=max_new)), codec=codec
        )
        try:
            res, wall = _run_batches(e4.generate_batch, cases, 8)
        finally:
            e4.close()
        configs["cpu_jf_b8_int4_dequantized"] = _score(res, cases, wall, validator)
        int4_info |= {
            "max_err_in_scales": max(r["max_err_in_scales"] for r in errs.values()),
            "max_rel_rms": max(r["rel_rms"] for r in errs.values()),
            "accuracy_delta_points": 100
            * (configs["cpu_jf_b8_int4_dequantized"]["accuracy"] - configs["cpu_jf_b8"]["accuracy"]),
        }
    except Exception as exc:
        int4_info = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"}

    res, wall = _hf_unconstrained(ckpt, codec, cases, max_new)
    configs["hf_generate_unconstrained_b1"] = _score(res, cases, wall, validator)

    vllm_info: dict[str, Any] = {"status": "ok"}
    try:
        os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
        from thought_model.engine.vllm_engine import VllmEngine, VllmEngineConfig, vllm_available

        ok, why = vllm_available()
        if not ok:
            raise RuntimeError(why)
        import json as _json

        ctx_len = min(
            1024, _json.loads((ckpt / "config.json").read_text()).get("max_position_embeddings", 1024)
        )
        ve = VllmEngine(
            ckpt,
            VllmEngineConfig(
                dtype="float32", max_new_tokens=min(max_new, ctx_len // 2), max_model_len=ctx_len
            ),
            codec=codec,
        )
        try:
            for batch in (1, 8):
                res, wall = _run_batches(ve.generate, cases, batch)
                configs[f"vllm_cpu_b{batch}"] = _score(res, cases, wall, validator)
        finally:
            ve.close()
    except Exception as exc:
        vllm_info = {"status": "unavailable", "reason": f"{type(exc).__name__}: {exc}"[:500]}

    jf1, nojf1 = configs["cpu_jf_b1"], configs["cpu_nojf_b1"]
    vl1 = configs.get("vllm_cpu_b1", {})
    summary = {
        "valid_rate": jf1["valid_rate"],
        "p99_ms_batch1": jf1["p99_ms"],
        "throughput_vs_vllm_cpu": ratio(jf1["plans_per_s"], vl1.get("plans_per_s")),
        "forward_pass_reduction": 1.0 - jf1["forward_passes_per_plan"] / nojf1["forward_passes_per_plan"],
        "plans_per_s_batch8": configs["cpu_jf_b8"]["plans_per_s"],
        "accuracy": jf1["accuracy"],
        "int4_accuracy_delta_points": int4_info.get("accuracy_delta_points"),
        "p99_vs_vllm_cpu": ratio(vl1.get("p99_ms"), jf1["p99_ms"]),
    }
    return {
        "summary": summary,
        "configs": configs,
        "int4": int4_info,
        "vllm": vllm_info,
        "checkpoint": label,
        "requests": len(cases),
        "max_new_tokens": max_new,
        "threads": 1,
        "gpu": "none in this run (CPU-only machine)",
        "quick": quick,
        "duration_s": round(time.perf_counter() - t_start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.suites.plan", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR / "plan.json")
    ap.add_argument("--checkpoint", type=Path, default=None, help="default: checkpoints/default, else tiny")
    a = ap.parse_args(argv)
    result = run(a.quick, a.checkpoint)
    result["meta"] = {"time": utc_now(), "machine": machine_info(), "versions": versions(), "git": git_info()}
    write_json(a.out, result)
    for k, v in result["summary"].items():
        print(f"{k:<32}{v if v is not None else '-'}")
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
