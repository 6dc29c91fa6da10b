"""``tao train --registry tao/domains/helpdesk/tools.yaml`` (a contract file, a tiny model, a few
dozen steps): the checkpoint records the file and its domain, and a run needs the file's tools URL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tao.domains import load_domain
from thought_model.checkpoint import checkpoint_domain

FILE = Path(__file__).resolve().parents[2] / "tao" / "domains" / "helpdesk" / "tools.yaml"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_train_from_a_contract_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("TAO_REGISTRY", "TAO_CHECKPOINT"):
        monkeypatch.delenv(var, raising=False)
    from training.cli import main

    out = tmp_path / "ckpt"
    argv = ["--registry", str(FILE), "--out", str(out), "--n-train", "160", "--n-eval", "4"]
    argv += ["--vocab-size", "640", "--hidden-size", "128", "--intermediate-size", "128", "--num-layers", "1"]
    argv += ["--num-heads", "2", "--batch-size", "16", "--max-steps", "6", "--warmup-steps", "2"]
    argv += ["--eval-every", "1000", "--save-every", "1000", "--eval-rows", "8", "--num-threads", "1"]
    argv += ["--no-final-eval", "--no-progress"]
    assert main(argv) == 0
    meta = json.loads((out / "train_config.json").read_text())
    assert meta["registry"] == str(FILE.resolve())  # absolute: serve/run work from any directory
    py = load_domain("tao.domains.helpdesk:registry")
    snap = json.loads((out / "domain.json").read_text())
    assert [t["name"] for t in snap["tools"]] == py.tool_names()
    assert snap["lexicon"]["me_kind"] == "EMPLOYEE"
    full = checkpoint_domain(out, full=True)  # what `tao run --checkpoint DIR` loads: the file again
    assert full.tools == py.tools and full.mock_handlers is None
    rows = (out / "run" / "data" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    assert rows and all(json.loads(r)["target"] for r in rows[:20])
