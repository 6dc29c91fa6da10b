"""The reference domain: 18 tools over orders and logistics, invoices, user profiles, expense
reimbursements, weather, meeting rooms and calendars, email.

``tao.domains.reference:domain`` is the default ``--registry`` everywhere. Its parts: the tool
contracts (:mod:`.registry`), perception data (:mod:`.lexicon`), the mock service's handlers and
data (:mod:`.mock`, :mod:`.mock_data`), the training generator's phrasing (:mod:`.phrasing`) and
the hand-written evaluation set (``eval_sets/``). Imports only :mod:`tao.contracts`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from tao.contracts.domain import Domain

_SETS = Path(__file__).resolve().parent / "eval_sets"
EVAL_SETS = {
    "handwritten": _SETS / "handwritten.jsonl",  # generated-row format
    "independent": _SETS / "independent.jsonl",  # case format (training/cases.py)
}


@cache
def domain() -> Domain:
    """The reference domain (built once per process; the phrasing data loads with it)."""
    from tao.domains.reference.lexicon import LEXICON
    from tao.domains.reference.mock import HANDLERS
    from tao.domains.reference.mock_data import MockData
    from tao.domains.reference.phrasing import PHRASING
    from tao.domains.reference.registry import reference_tools

    return Domain(
        name="reference",
        tools=reference_tools(),
        lexicon=LEXICON,
        mock_handlers=HANDLERS,
        mock_data=MockData.generate,
        phrasing=PHRASING,
        eval_sets=EVAL_SETS,
    )
