"""`tao.domains.helpdesk:registry` names a function: calling it must not let a submodule import
replace that function on the package (a later `load_domain` of the same spec failed with "got a
module" when the contracts lived in `helpdesk/registry.py`)."""

from __future__ import annotations

import subprocess
import sys


def test_registry_call_then_load_domain_in_a_fresh_process() -> None:
    code = (
        "import tao.domains.helpdesk as h\n"
        "d = h.registry()\n"
        "assert callable(h.registry), type(h.registry)\n"
        "from tao.domains import load_domain\n"
        "assert load_domain('tao.domains.helpdesk:registry').name == d.name == 'helpdesk'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
