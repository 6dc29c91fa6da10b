import subprocess
import sys

import pytest

from tao.cli import COMMANDS, main


@pytest.mark.slow
def test_help_lists_subcommands():
    out = subprocess.run([sys.executable, "-m", "tao", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for name in ("train", "plan", "run", "serve", "bench"):
        assert name in out.stdout


def test_unknown_command_exits_nonzero(capsys):
    assert main([]) == 2


def test_missing_subcommand_module_is_clean_error(monkeypatch, capsys):
    monkeypatch.setitem(COMMANDS, "ghost", ("tao.no_such_module", "main", "x"))
    assert main(["ghost"]) == 2
    assert "not implemented yet" in capsys.readouterr().err
