"""Engine selection: ``load_engine(kind="auto"|"cpu"|"vllm"|"vllm-server", checkpoint=...)``.

``vllm-server`` is the remote engine (:mod:`thought_model.engine.remote`): a ``vllm serve`` of
the same checkpoint at ``engine_url`` (or ``TAO_ENGINE_URL``); the checkpoint is still read here
for its tokenizer, codec and domain.

``auto`` picks vLLM when a CUDA GPU is present and vLLM imports, else the CPU engine. The
environment variable ``TAO_ENGINE`` overrides the ``kind`` argument's default (``auto``); an
explicit ``kind`` other than ``auto`` wins over the environment.
"""

from __future__ import annotations

import os
from pathlib import Path

from thought_model.checkpoint import (
    DEFAULT_CHECKPOINT,
    checkpoint_domain,
    checkpoint_examples,
    checkpoint_intent_steps,
    checkpoint_value_words,
)
from thought_model.engine.base import PlanEngine
from thought_model.engine.codec import PlanCodec, default_codec

KINDS = ("auto", "cpu", "vllm", "vllm-server")


class EngineLoadError(RuntimeError):
    """The requested engine cannot be built (bad kind, missing checkpoint, vLLM missing)."""


def _gpu_present() -> bool:
    """A CUDA device is usable. Asked of torch only where an NVIDIA driver is present: importing
    torch costs a CPU-only server ~0.25 GB it would otherwise never load (the plan model lives in
    the decode process)."""
    if not (Path("/proc/driver/nvidia/gpus").is_dir() or Path("/dev/nvidiactl").exists()):
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:
        return False


def resolve_kind(kind: str | None = None) -> str:
    """The concrete engine kind (``cpu``, ``vllm`` or ``vllm-server``) for ``kind`` / ``TAO_ENGINE``."""
    kind = (kind or "auto").lower()
    if kind == "auto":
        kind = os.environ.get("TAO_ENGINE", "auto").lower() or "auto"
    if kind not in KINDS:
        raise EngineLoadError(f"unknown engine kind {kind!r}; choose one of {', '.join(KINDS)}")
    if kind == "auto":
        if _gpu_present():
            from thought_model.engine.vllm_engine import vllm_available

            if vllm_available()[0]:
                return "vllm"
        return "cpu"
    return kind


def load_engine(
    kind: str | None = "auto",
    checkpoint: str | Path | None = None,
    *,
    codec: PlanCodec | None = None,
    cpu_config=None,
    vllm_config=None,
    registry: str | None = None,
    compose: bool | None = None,
    engine_url: str | None = None,
) -> PlanEngine:
    """Build the engine for ``kind`` over ``checkpoint`` (default: the embedded default model),
    planning for the checkpoint's own tool domain (``registry`` = ``MODULE:ATTR`` must agree
    with it; see :func:`thought_model.checkpoint.checkpoint_domain`).

    ``compose``: wrap it in the hybrid :class:`~thought_model.compose.ComposingEngine` (clause
    split + registry-graph composition); None = ``TAO_COMPOSE``, else
    :data:`thought_model.compose.COMPOSE_DEFAULT`."""
    ckpt = Path(checkpoint) if checkpoint else Path(os.environ.get("TAO_CHECKPOINT") or DEFAULT_CHECKPOINT)
    if not (ckpt / "config.json").is_file():
        raise EngineLoadError(f"no checkpoint at {ckpt} (config.json missing)")
    domain = checkpoint_domain(ckpt, registry)
    if codec is None:
        codec = default_codec(domain)
    engine = _build(kind, ckpt, codec, cpu_config, vllm_config, engine_url)
    from thought_model.compose import maybe_composing

    return maybe_composing(
        engine,
        compose,
        tools=domain.tools,
        intent_steps=checkpoint_intent_steps(ckpt),
        value_words=checkpoint_value_words(ckpt),
        examples=checkpoint_examples(ckpt, domain),
    )


def _build(
    kind: str | None, ckpt: Path, codec: PlanCodec, cpu_config, vllm_config, engine_url: str | None = None
) -> PlanEngine:
    from thought_model.perception.gazetteer import warm

    warm()  # build perception's city table now (~1 s), not on the first request
    concrete = resolve_kind(kind)
    if concrete == "vllm-server":
        from thought_model.engine.remote import RemoteEngineConfig, RemoteEngineError, VllmServerEngine

        url = engine_url or os.environ.get("TAO_ENGINE_URL")
        if not url:
            raise EngineLoadError("--engine vllm-server needs --engine-url (or TAO_ENGINE_URL)")
        try:
            return VllmServerEngine(ckpt, RemoteEngineConfig(url=url), codec=codec)
        except RemoteEngineError as exc:
            raise EngineLoadError(str(exc)) from exc
    if concrete == "vllm":
        from thought_model.engine.vllm_engine import VllmEngine, vllm_available

        ok, why = vllm_available()
        if not ok:
            raise EngineLoadError(why)
        return VllmEngine(ckpt, vllm_config, codec=codec)
    from thought_model.engine.cpu import CpuEngine

    return CpuEngine(ckpt, cpu_config, codec=codec)
