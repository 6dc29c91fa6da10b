"""INT4 (W4A16) export of a plan checkpoint in the compressed-tensors ``pack-quantized`` format.

    python -m thought_model.int4 export SRC DST [--group-size 128]
    python -m thought_model.int4 verify SRC DST          # dequantized weights vs originals

Data-free, symmetric, per-group quantization of every ``Linear`` except ``lm_head`` (scales from
the weights alone, as llm-compressor's data-free W4A16 path does), written with the
compressed-tensors library so vLLM's ``compressed-tensors`` loader reads it on a GPU. Each group's
scale is the one of a clipping search (``Int4Config.clip_search``, the default): the group's
min/max shrunk by each factor of a grid (1.0 down to ``min_shrink``), the factor whose
round-to-nearest copy has the least squared error kept — llm-compressor's ``mse`` observer and
AWQ's clip search do the same. Plain min-max (``clip_search=False``) is the grid's first factor,
so the search never does worse on any group. For CPU
verification, :func:`load_dequantized` rebuilds a float model from the packed file (the
reference dequantizing forward): ``w = q * scale`` per group, with ``q`` in [-8, 7].
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "generation_config.json",
)


@dataclass
class Int4Config:
    group_size: int = 128
    ignore: tuple[str, ...] = ("lm_head",)
    clip_search: bool = True  # per-group MSE-optimal clipping (else plain min-max scales)
    min_shrink: float = 0.5  # the smallest clipping factor tried
    shrink_steps: int = 26  # factors 1.0 .. min_shrink, evenly spaced


def _qparams(g: torch.Tensor, args, cfg: Int4Config) -> tuple[torch.Tensor, torch.Tensor]:
    """Scale and zero point of each group of ``g`` ``[out, groups, group_size]``: min-max, or the
    clipping factor with the least squared round-to-nearest error (see module docstring)."""
    from compressed_tensors.quantization.utils.helpers import calculate_qparams

    lo, hi = g.amin(-1), g.amax(-1)
    if not cfg.clip_search:
        return calculate_qparams(lo, hi, args)

    def error(scale: torch.Tensor) -> torch.Tensor:
        step = scale.float().unsqueeze(-1)
        q = torch.clamp(torch.round(g / step), -8, 7)  # compressed-tensors' own rounding and range
        return (q * step - g).pow(2).sum(-1)

    best_scale, best_zp = calculate_qparams(lo, hi, args)  # factor 1.0: min-max
    best_err = error(best_scale)
    for p in torch.linspace(1.0, cfg.min_shrink, cfg.shrink_steps).tolist()[1:]:
        scale, zp = calculate_qparams(lo * p, hi * p, args)
        err = error(scale)
        better = err < best_err
        best_scale = torch.where(better, scale, best_scale)
        best_zp = torch.where(better, zp, best_zp)
        best_err = torch.where(better, err, best_err)
    return best_scale, best_zp


def _import_ct():
    """Import compressed-tensors (its import triggers torch.compile/jit deprecation warnings)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        import compressed_tensors
        import compressed_tensors.compressors
        import compressed_tensors.quantization
        import compressed_tensors.quantization.utils.helpers  # noqa: F401


def _scheme(group_size: int):
    _import_ct()
    from compressed_tensors.quantization import (
        QuantizationArgs,
        QuantizationScheme,
        QuantizationStrategy,
        QuantizationType,
    )

    return QuantizationScheme(
        targets=["Linear"],
        weights=QuantizationArgs(
            num_bits=4,
            type=QuantizationType.INT,
            symmetric=True,
            strategy=QuantizationStrategy.GROUP,
            group_size=group_size,
            dynamic=False,
        ),
    )


def _check_group_size(model, group_size: int, ignore: tuple[str, ...]) -> None:
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.Linear) and name.split(".")[-1] not in ignore:
            if mod.in_features % group_size:
                raise ValueError(
                    f"{name}: in_features {mod.in_features} is not a multiple of group size {group_size}"
                )


def export(src: str | Path, dst: str | Path, config: Int4Config | None = None) -> Path:
    """Write the W4A16 copy of ``src`` to ``dst`` (weights, config with quantization_config, tokenizer)."""
    _import_ct()
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import QuantizationConfig, apply_quantization_config
    from transformers import LlamaForCausalLM

    cfg = config or Int4Config()
    src, dst = Path(src), Path(dst)
    model = LlamaForCausalLM.from_pretrained(str(src)).eval()
    _check_group_size(model, cfg.group_size, cfg.ignore)
    scheme = _scheme(cfg.group_size)
    qconfig = QuantizationConfig(config_groups={"group_0": scheme}, ignore=list(cfg.ignore))
    apply_quantization_config(model, qconfig)
    weights = scheme.weights
    assert weights is not None  # _scheme sets the weight args
    with torch.no_grad():
        for _name, module in model.named_modules():
            if getattr(module, "quantization_scheme", None) is None or not hasattr(module, "weight_scale"):
                continue
            mod: Any = module  # compressed-tensors added weight_scale / weight_zero_point tensors
            w = mod.weight.detach()
            g = w.reshape(w.shape[0], w.shape[1] // cfg.group_size, cfg.group_size)
            scale, zp = _qparams(g, weights, cfg)
            mod.weight_scale.data.copy_(scale.to(mod.weight_scale.dtype).reshape(mod.weight_scale.shape))
            mod.weight_zero_point.data.copy_(
                zp.to(mod.weight_zero_point.dtype).reshape(mod.weight_zero_point.shape)
            )
    compressor = ModelCompressor.from_pretrained_model(model, quantization_format="pack-quantized")
    compressor.compress_model(model)
    dst.mkdir(parents=True, exist_ok=True)
    from safetensors.torch import save_file

    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    state = {
        k: v for k, v in state.items() if not k.endswith("weight_zero_point")
    }  # symmetric: no zero points
    if getattr(model.config, "tie_word_embeddings", False):
        state.pop("lm_head.weight", None)  # tied to embed_tokens (the loader re-ties it)
    save_file(state, str(dst / "model.safetensors"), metadata={"format": "pt"})
    shutil.copy(src / "config.json", dst / "config.json")
    compressor.update_config(str(dst))
    for f in TOKENIZER_FILES:
        if (src / f).is_file():
            shutil.copy(src / f, dst / f)
    return dst


def unpack_int4(packed: torch.Tensor, in_features: int) -> torch.Tensor:
    """int32 words (8 nibbles each, low nibble first, offset by 8) -> int8 values in [-8, 7]."""
    shifts = torch.arange(0, 32, 4, dtype=torch.int32)
    nib = (packed.unsqueeze(-1) >> shifts) & 0xF  # [out, in/8, 8]
    return (nib.reshape(packed.shape[0], -1)[:, :in_features] - 8).to(torch.int8)


def dequantized_state(dst: str | Path) -> dict[str, torch.Tensor]:
    """The float state dict of an INT4 export: packed linears dequantized, the rest as stored."""
    from safetensors.torch import load_file

    raw = load_file(str(Path(dst) / "model.safetensors"))
    out: dict[str, torch.Tensor] = {}
    for k, v in raw.items():
        if k.endswith(".weight_packed"):
            base = k[: -len(".weight_packed")]
            shape = raw[base + ".weight_shape"].tolist()
            scale = raw[base + ".weight_scale"].float()
            q = unpack_int4(v, shape[1]).float()
            group = shape[1] // scale.shape[1]
            w = (q.reshape(shape[0], scale.shape[1], group) * scale.unsqueeze(-1)).reshape(shape)
            out[base + ".weight"] = w.to(scale.dtype if scale.dtype != torch.float32 else torch.float32)
        elif k.endswith((".weight_scale", ".weight_shape", ".weight_zero_point", ".weight_g_idx")):
            continue
        else:
            out[k] = v
    return out


def load_dequantized(dst: str | Path, dtype: torch.dtype = torch.float32):
    """A plain ``LlamaForCausalLM`` whose linear weights are the dequantized INT4 values."""
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = json.loads((Path(dst) / "config.json").read_text())
    cfg.pop("quantization_config", None)
    # transformers declares to() via functools.wraps(Module.to), which pyright reads as unbound
    model = LlamaForCausalLM(LlamaConfig(**cfg)).to(dtype).eval()  # pyright: ignore[reportArgumentType]
    missing, unexpected = model.load_state_dict(
        {k: v.to(dtype) for k, v in dequantized_state(dst).items()}, strict=False
    )
    tied = bool(cfg.get("tie_word_embeddings"))
    missing = [
        m for m in missing if not m.endswith("rotary_emb.inv_freq") and not (tied and m == "lm_head.weight")
    ]
    if missing or unexpected:
        raise ValueError(
            f"INT4 export does not match the model: missing {missing[:5]}, unexpected {unexpected[:5]}"
        )
    if tied:
        model.tie_weights()
    return model


def save_dequantized(dst: str | Path, out: str | Path) -> Path:
    """Write the dequantized model as a normal float checkpoint (for the CPU engine / evaluation)."""
    out = Path(out)
    load_dequantized(dst).save_pretrained(str(out))
    for f in TOKENIZER_FILES:
        if (Path(dst) / f).is_file():
            shutil.copy(Path(dst) / f, out / f)
    return out


def weight_errors(src: str | Path, dst: str | Path) -> dict[str, dict[str, float]]:
    """Per linear: max |clip(w) - deq(w)| relative to its group's scale (round to nearest: must be
    <= 0.5; ``clip`` is the group's range [-8, 7] x scale, what a clipped scale leaves out), the
    share of weights outside that range, and the relative RMS error against the original ``w``."""
    from safetensors.torch import load_file

    orig = load_file(str(Path(src) / "model.safetensors"))
    deq = dequantized_state(dst)
    raw = load_file(str(Path(dst) / "model.safetensors"))
    report = {}
    for k in raw:
        if not k.endswith(".weight_packed"):
            continue
        base = k[: -len(".weight_packed")]
        w, d = orig[base + ".weight"].float(), deq[base + ".weight"].float()
        scale = raw[base + ".weight_scale"].float()
        group = w.shape[1] // scale.shape[1]
        s = scale.unsqueeze(-1)
        wg = w.reshape(w.shape[0], scale.shape[1], group)
        clipped = torch.maximum(torch.minimum(wg, 7 * s), -8 * s)
        err = (clipped - d.reshape(wg.shape)).abs() / s
        report[base] = {
            "max_err_in_scales": float(err.max()),
            "clipped_share": float((clipped != wg).float().mean()),
            "rel_rms": float((w - d).pow(2).mean().sqrt() / w.pow(2).mean().sqrt()),
        }
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m thought_model.int4", description=(__doc__ or "").split("\n\n")[0]
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write a W4A16 compressed-tensors copy")
    e.add_argument("src", type=Path)
    e.add_argument("dst", type=Path)
    e.add_argument("--group-size", type=int, default=128, choices=[32, 64, 128])
    e.add_argument(
        "--no-clip-search", action="store_true", help="plain per-group min-max scales (no clipping search)"
    )
    v = sub.add_parser("verify", help="compare dequantized weights with the originals")
    v.add_argument("src", type=Path)
    v.add_argument("dst", type=Path)
    d = sub.add_parser("dequantize", help="write the dequantized float copy (reference forward)")
    d.add_argument("dst", type=Path)
    d.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "export":
            export(
                args.src,
                args.dst,
                Int4Config(group_size=args.group_size, clip_search=not args.no_clip_search),
            )
            print(f"wrote {args.dst}")
        elif args.cmd == "verify":
            rep = weight_errors(args.src, args.dst)
            worst = max(r["max_err_in_scales"] for r in rep.values())
            rms = max(r["rel_rms"] for r in rep.values())
            print(json.dumps({"linears": len(rep), "max_err_in_scales": worst, "max_rel_rms": rms}))
            return 0 if worst <= 0.5 + 1e-3 else 1
        else:
            save_dequantized(args.dst, args.out)
            print(f"wrote {args.out}")
    except (OSError, ValueError) as exc:
        print(f"int4 {args.cmd}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
