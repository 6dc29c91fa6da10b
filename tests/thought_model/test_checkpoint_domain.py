"""A checkpoint plans for the domain it records (``train_config.json`` ``registry`` + ``domain.json``):
``tao plan`` and ``tao serve`` pick it without a flag, a checkpoint of another domain never falls
back to the reference registry, and a domain that cannot be imported is a clear error."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from tao.contracts.domain import Domain
from tao.domains import DomainLoadError, reference_domain
from thought_model.checkpoint import (
    DEFAULT_CHECKPOINT,
    DOMAIN_SNAPSHOT,
    DomainMismatchError,
    checkpoint_domain,
)

TINY_DOMAIN = """
from tao.contracts.domain import Domain, IdKind, Lexicon
from tao.domains.reference.registry import reference_registry

_spec = reference_registry()["get_order_status"].model_copy(update={"name": "lookup_parcel"})
domain = Domain(
    name="tiny",
    tools=[_spec],
    lexicon=Lexicon(id_kinds=(IdKind("ORDER", r"(?<![0-9])[0-9]{18}(?![0-9])", "123456789012345678"),)),
)
"""
REFERENCE_TOOLS = set(reference_domain().tool_names())


def _copy_checkpoint(dst: Path, registry: str | None, snapshot: Domain | None) -> Path:
    dst.mkdir()
    for f in DEFAULT_CHECKPOINT.iterdir():
        if f.name == DOMAIN_SNAPSHOT:
            continue
        if f.suffix == ".safetensors":
            (dst / f.name).symlink_to(f)
        else:
            shutil.copyfile(f, dst / f.name)
    cfg = json.loads((dst / "train_config.json").read_text())
    if registry is None:
        cfg.pop("registry", None)
    else:
        cfg["registry"] = registry
    (dst / "train_config.json").write_text(json.dumps(cfg))
    if snapshot is not None:
        (dst / DOMAIN_SNAPSHOT).write_text(json.dumps(snapshot.snapshot()))
    return dst


@pytest.fixture
def tiny_domain(tmp_path, monkeypatch) -> Domain:
    (tmp_path / "tiny_test_domain.py").write_text(textwrap.dedent(TINY_DOMAIN))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("TAO_REGISTRY", raising=False)
    from tao.domains import load_domain

    return load_domain("tiny_test_domain:domain")


@pytest.fixture
def tiny_ckpt(tmp_path, tiny_domain) -> Path:
    return _copy_checkpoint(tmp_path / "tiny_ckpt", "tiny_test_domain:domain", tiny_domain)


@pytest.mark.slow
def test_the_committed_checkpoints_record_the_reference_domain() -> None:
    for name in ("default", "tiny"):
        d = checkpoint_domain(DEFAULT_CHECKPOINT.parent / name)
        # the snapshot is the domain the weights were trained on: the reference domain's tools at
        # that time (the registry has grown since; a checkpoint never claims tools it has not seen)
        assert d.ref == "tao.domains.reference:domain"
        assert d.tool_names() and set(d.tool_names()) <= REFERENCE_TOOLS


def test_a_checkpoint_picks_its_recorded_domain(tiny_ckpt) -> None:
    d = checkpoint_domain(tiny_ckpt)
    assert d.tool_names() == ["lookup_parcel"] and d.ref == "tiny_test_domain:domain"
    assert checkpoint_domain(tiny_ckpt, full=True).name == "tiny"


@pytest.mark.slow
def test_tao_plan_uses_the_checkpoint_domain_without_a_flag(tiny_ckpt, capsys) -> None:
    from tao.cli.plan_cli import main

    rc = main(
        ["查询订单 202405011234567890 的状态", "--checkpoint", str(tiny_ckpt), "--now", "2026-05-01T09:00"]
    )
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    if rc == 0:
        plan = json.loads(out)
        tools = {s["tool"] for s in plan.get("steps", [])}
        assert tools <= {"lookup_parcel"} and not tools & REFERENCE_TOOLS


@pytest.mark.slow
def test_tao_serve_uses_the_checkpoint_domain_without_a_flag(tiny_ckpt) -> None:
    from fastapi.testclient import TestClient

    from tao.server.app import create_app
    from tao.server.config import ServerConfig

    app = create_app(ServerConfig(checkpoint=tiny_ckpt, load_model=False))
    with TestClient(app) as client:
        tools = client.get("/v1/tools").json()["tools"]
    assert [t["name"] for t in tools] == ["lookup_parcel"]


def test_an_explicit_registry_must_agree_with_the_checkpoint(tiny_ckpt) -> None:
    with pytest.raises(DomainMismatchError, match="tiny_test_domain:domain"):
        checkpoint_domain(tiny_ckpt, "tao.domains.reference:domain")
    assert checkpoint_domain(tiny_ckpt, "tiny_test_domain:domain").name == "tiny"


def test_an_unimportable_domain_is_a_clear_error(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.delenv("TAO_REGISTRY", raising=False)
    ckpt = _copy_checkpoint(tmp_path / "lost", "no_such_domain_pkg_xyz:domain", None)
    with pytest.raises(DomainLoadError, match="no_such_domain_pkg_xyz"):
        checkpoint_domain(ckpt)
    from tao.cli.plan_cli import main

    assert main(["查询订单状态", "--checkpoint", str(ckpt)]) == 2
    assert "no_such_domain_pkg_xyz" in capsys.readouterr().err

    from tao.server.app import create_app
    from tao.server.config import ServerConfig

    with pytest.raises(DomainLoadError):
        create_app(ServerConfig(checkpoint=ckpt, load_model=False))


def test_a_checkpoint_that_records_nothing_plans_for_the_reference_domain(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("TAO_REGISTRY", raising=False)
    ckpt = _copy_checkpoint(tmp_path / "legacy", None, None)
    assert set(checkpoint_domain(ckpt).tool_names()) == REFERENCE_TOOLS
