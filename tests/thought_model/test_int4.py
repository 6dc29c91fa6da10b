"""INT4 (W4A16, compressed-tensors pack-quantized) export: format, weight error, library
round-trip, and the CPU engine on the dequantized reference model."""

from __future__ import annotations

import json
import warnings

import pytest
import torch

from thought_model import int4

pytestmark = pytest.mark.slow  # heavy module: runs in `make test`, not `make test-fast`


@pytest.fixture(scope="module")
def exported(tiny_int4_checkpoint):
    return tiny_int4_checkpoint  # written by `python -m thought_model.int4 export ... --group-size 64`


def test_config_declares_w4a16_pack_quantized(exported):
    q = json.loads((exported / "config.json").read_text())["quantization_config"]
    assert q["quant_method"] == "compressed-tensors" and q["format"] == "pack-quantized"
    w = q["config_groups"]["group_0"]["weights"]
    assert (w["num_bits"], w["type"], w["symmetric"], w["strategy"], w["group_size"]) == (
        4,
        "int",
        True,
        "group",
        64,
    )
    assert q["ignore"] == ["lm_head"]
    assert (exported / "tokenizer.json").is_file()


def test_packed_tensors_and_size(tiny_checkpoint, exported):
    from safetensors.torch import load_file

    raw = load_file(str(exported / "model.safetensors"))
    packed = raw["model.layers.0.mlp.down_proj.weight_packed"]
    assert packed.dtype == torch.int32 and packed.shape == (128, 384 // 8)
    assert raw["model.layers.0.mlp.down_proj.weight_scale"].shape == (128, 384 // 64)
    assert raw["model.layers.0.mlp.down_proj.weight_shape"].tolist() == [128, 384]
    assert "lm_head.weight" in raw and "model.layers.0.mlp.down_proj.weight" not in raw


def test_dequantized_weights_within_half_a_step(tiny_checkpoint, exported):
    rep = int4.weight_errors(tiny_checkpoint, exported)
    assert len(rep) == 2 * 7  # q,k,v,o,gate,up,down per layer
    for name, r in rep.items():
        assert r["max_err_in_scales"] <= 0.5 + 1e-3, name  # round-to-nearest: at most half a step
        assert 0 < r["rel_rms"] < 0.2, name
    assert int4.main(["verify", str(tiny_checkpoint), str(exported)]) == 0


def test_clip_search_never_does_worse_than_min_max(tiny_checkpoint, exported, tmp_path):
    plain = int4.export(
        tiny_checkpoint, tmp_path / "minmax", int4.Int4Config(group_size=64, clip_search=False)
    )
    searched = int4.weight_errors(tiny_checkpoint, exported)  # the default: clipping search
    minmax = int4.weight_errors(tiny_checkpoint, plain)
    # min-max "clips" only the top half step of the positive side ([-8, 7] x max/7.5); the search
    # trades more outliers for finer steps
    assert sum(r["clipped_share"] for r in searched.values()) > sum(
        r["clipped_share"] for r in minmax.values()
    )
    for name in minmax:
        assert searched[name]["rel_rms"] <= minmax[name]["rel_rms"] + 1e-6, name
    total = sum(r["rel_rms"] for r in searched.values()) / sum(r["rel_rms"] for r in minmax.values())
    assert total < 0.97  # a real gain on random weights, not a tie


def test_qparams_pick_the_least_error_scale_per_group():
    from thought_model.int4 import Int4Config, _qparams, _scheme

    torch.manual_seed(0)
    g = torch.distributions.StudentT(3.0).sample((8, 16, 128))  # heavy tails, as trained weights have
    args = _scheme(128).weights

    def err(scale: torch.Tensor) -> torch.Tensor:
        s = scale.float().unsqueeze(-1)
        return (torch.clamp(torch.round(g / s), -8, 7) * s - g).pow(2).sum(-1)

    plain, _ = _qparams(g, args, Int4Config(clip_search=False))
    best, _ = _qparams(g, args, Int4Config())
    assert torch.all(err(best) <= err(plain) + 1e-5)  # never worse, group by group
    assert err(best).sum() < 0.9 * err(plain).sum()  # and better on heavy tails (16 % here)
    assert torch.all(best <= plain + 1e-7)  # shrinking only: never a coarser scale


def test_our_unpacking_equals_compressed_tensors_decompression(exported):
    from transformers import AutoModelForCausalLM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # transformers' notes about the quantization_config override
        from transformers.utils.quantization_config import CompressedTensorsConfig

        lib = AutoModelForCausalLM.from_pretrained(
            str(exported), quantization_config=CompressedTensorsConfig(run_compressed=False)
        ).state_dict()
    mine = int4.dequantized_state(exported)
    for k in ("model.layers.0.self_attn.q_proj.weight", "model.layers.1.mlp.down_proj.weight"):
        assert torch.equal(lib[k].float(), mine[k].float()), k


def test_engine_runs_on_dequantized_reference(exported, tmp_path):
    from tao.loop.plancheck import PlanValidator
    from thought_model.engine.base import PlanRequest
    from thought_model.engine.codec import GenericCodec
    from thought_model.engine.cpu import CpuEngine

    ref = int4.save_dequantized(exported, tmp_path / "deq")
    eng = CpuEngine(ref, codec=GenericCodec())
    try:
        res = eng.generate_batch(
            [PlanRequest("weather in Paris", tools=["get_weather", "get_order_status"])]
        )[0]
    finally:
        eng.close()
    assert res.ok, res.error
    plan = res.output.model_dump(mode="json", exclude={"thought_id", "created_at"})
    assert PlanValidator().check(plan)["valid"]


def test_bad_group_size_is_a_clear_error(tiny_checkpoint, tmp_path, capsys):
    # in_features 128/384 are multiples of 32/64/128; argparse rejects other sizes outright
    with pytest.raises(SystemExit):
        int4.main(["export", str(tiny_checkpoint), str(tmp_path / "x"), "--group-size", "48"])
    assert int4.main(["export", str(tmp_path / "missing"), str(tmp_path / "y")]) == 2
    assert "int4 export" in capsys.readouterr().err
