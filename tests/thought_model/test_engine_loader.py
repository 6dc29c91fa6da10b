"""Engine selection: kind argument, TAO_ENGINE, auto (vLLM only with a GPU), typed load errors."""

from __future__ import annotations

import pytest

from thought_model.engine import loader
from thought_model.engine.loader import EngineLoadError, load_engine, resolve_kind


def test_explicit_kind_wins(monkeypatch):
    monkeypatch.setenv("TAO_ENGINE", "vllm")
    assert resolve_kind("cpu") == "cpu"


def test_env_overrides_auto(monkeypatch):
    monkeypatch.setenv("TAO_ENGINE", "vllm")
    assert resolve_kind("auto") == "vllm"
    assert resolve_kind(None) == "vllm"


def test_auto_without_gpu_is_cpu(monkeypatch):
    monkeypatch.delenv("TAO_ENGINE", raising=False)
    monkeypatch.setattr(loader, "_gpu_present", lambda: False)
    assert resolve_kind("auto") == "cpu"


def test_auto_with_gpu_and_vllm_is_vllm(monkeypatch):
    monkeypatch.delenv("TAO_ENGINE", raising=False)
    monkeypatch.setattr(loader, "_gpu_present", lambda: True)
    import thought_model.engine.vllm_engine as ve

    monkeypatch.setattr(ve, "vllm_available", lambda: (True, ""))
    assert resolve_kind("auto") == "vllm"
    monkeypatch.setattr(ve, "vllm_available", lambda: (False, "no vllm"))
    assert resolve_kind("auto") == "cpu"


def test_bad_kind_and_missing_checkpoint_are_typed(tmp_path, monkeypatch):
    monkeypatch.delenv("TAO_ENGINE", raising=False)
    with pytest.raises(EngineLoadError, match="unknown engine kind"):
        resolve_kind("tpu")
    with pytest.raises(EngineLoadError, match="no checkpoint"):
        load_engine("cpu", tmp_path / "nowhere")


@pytest.mark.slow
def test_load_cpu_engine(tiny_checkpoint, monkeypatch):
    from thought_model.engine.codec import GenericCodec
    from thought_model.engine.cpu import CpuEngine

    monkeypatch.setenv("TAO_ENGINE", "cpu")
    monkeypatch.setenv("TAO_COMPOSE", "0")  # the bare engine (the hybrid wrapper is on by default)
    eng = load_engine(checkpoint=tiny_checkpoint, codec=GenericCodec())
    try:
        assert isinstance(eng, CpuEngine) and eng.name == "cpu"
    finally:
        eng.close()


def test_auto_asks_torch_about_a_gpu_only_where_a_driver_is() -> None:
    """``auto`` on a machine with no NVIDIA driver picks ``cpu`` without importing torch (a
    decode process's parent never loads it)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys\n"
        "from thought_model.engine.loader import resolve_kind\n"
        "kind = resolve_kind('auto')\n"
        "print(kind, 'torch' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TAO_ENGINE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    driver = Path("/proc/driver/nvidia/gpus").is_dir() or Path("/dev/nvidiactl").exists()
    if not driver:
        assert out.stdout.split() == ["cpu", "False"], out.stdout
    else:  # a GPU host: torch was asked, and said whether CUDA works
        assert out.stdout.split()[1] == "True", out.stdout
