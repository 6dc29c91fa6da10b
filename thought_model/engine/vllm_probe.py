"""Run the vLLM engine in its own process: ``python -m thought_model.engine.vllm_probe CKPT``.

Reads ``{"requests": [{"text", "tools"?}], "codec": "model"|"generic", "dtype"?, "max_new_tokens"?}``
(or ``{"runs": [{...same keys..., "checkpoint"}]}`` for several engines in turn) as JSON on stdin
and prints ``{"available", "reason", "results": [{"ok", "text", "plan", "error", "stats"}],
"runs": [results, ...]}`` on stdout's last line; a run whose INT4 kernel this CPU lacks is
``{"unavailable": reason}``. vLLM's CPU worker rebinds the process's threads and
replaces ``torch.set_num_threads``, so tests and benchmarks keep it out of their own process.
"""

from __future__ import annotations

import json
import os
import sys
import warnings


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m thought_model.engine.vllm_probe CHECKPOINT < spec.json", file=sys.stderr)
        return 2
    spec = json.loads(sys.stdin.read() or "{}")
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    from thought_model.engine.base import PlanRequest
    from thought_model.engine.codec import GenericCodec, default_codec
    from thought_model.engine.vllm_engine import (
        Int4KernelUnavailable,
        VllmEngine,
        VllmEngineConfig,
        vllm_available,
    )

    warnings.simplefilter("ignore")
    ok, why = vllm_available()
    if not ok:
        print(json.dumps({"available": False, "reason": why, "results": []}))
        return 0
    runs = spec.get("runs") or [dict(spec, checkpoint=argv[0])]
    outs = []
    for run in runs:  # one engine at a time (each is closed before the next starts)
        codec = GenericCodec() if run.get("codec") == "generic" else default_codec()
        cfg = VllmEngineConfig(
            dtype=run.get("dtype", "float32"),
            max_new_tokens=int(run.get("max_new_tokens", 256)),
            max_model_len=int(run.get("max_model_len", 1024)),
        )
        try:
            engine = VllmEngine(run.get("checkpoint") or argv[0], cfg, codec=codec)
        except Int4KernelUnavailable as exc:
            outs.append({"unavailable": str(exc)})
            continue
        try:
            reqs = [PlanRequest(text=r["text"], tools=r.get("tools")) for r in run.get("requests", [])]
            results = engine.generate(reqs)
        finally:
            engine.close()
        outs.append(
            [
                {
                    "ok": r.ok,
                    "text": r.text,
                    "stats": r.stats.as_dict(),
                    "plan": r.output.model_dump(mode="json", exclude={"thought_id", "created_at"})
                    if r.output
                    else None,
                    "error": r.error.model_dump(mode="json") if r.error else None,
                }
                for r in results
            ]
        )
    print(json.dumps({"available": True, "reason": "", "results": outs[0], "runs": outs}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
