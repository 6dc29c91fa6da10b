"""The import contracts (``.importlinter``) hold on the repository, and a wrong-way import breaks them.

Both checks run ``lint-imports`` on a copy of the tracked Python sources (work in progress of other
checkouts cannot leak in), the second after planting one import that points up a layer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # heavy module: runs in `make test`, not `make test-fast`

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tao", "thought_model", "router", "estimator", "rust_validator", "training", "bench")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _copy_tree(dst: Path) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "--", *(f"{p}/*.py" for p in PACKAGES), "*.pyi"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for rel in files:
        src = ROOT / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst / rel)
    shutil.copyfile(ROOT / ".importlinter", dst / ".importlinter")
    return dst


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(tree / ".importlinter")],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    if not LINT_IMPORTS.exists():
        pytest.fail(f"lint-imports missing at {LINT_IMPORTS} (it is in requirements/lock.txt)")
    return _copy_tree(tmp_path_factory.mktemp("tree"))


def test_the_repository_keeps_its_import_contracts(tree: Path) -> None:
    res = _lint(tree)
    assert res.returncode == 0, res.stdout + res.stderr
    assert " 0 broken" in res.stdout.split("Contracts:")[-1], res.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("tao/contracts/_wrong.py", "from tao.loop import loop\n", "Imports point down"),
        ("router/_wrong.py", "import tao.server.metrics\n", "Imports point down"),
        ("thought_model/_wrong.py", "import training.generate\n", "Imports point down"),
        ("tao/domains/reference/_wrong.py", "import thought_model.grammar\n", "Imports point down"),
        ("tao/contracts/_wrong.py", "import torch\n", "The contracts are a leaf"),
    ],
)
def test_a_wrong_way_import_breaks_a_contract(
    tree: Path, tmp_path: Path, module: str, line: str, contract: str
) -> None:
    bad = shutil.copytree(tree, tmp_path / "bad")
    (bad / module).write_text(f'"""A deliberately wrong import."""\n\n{line}')
    res = _lint(bad)
    assert res.returncode != 0, res.stdout
    broken = res.stdout.split("Broken contracts")[-1]
    assert contract in broken and "_wrong" in broken, res.stdout
