"""The IT-helpdesk domain: eight tools over employees, password resets, support tickets and
devices, defined only by contracts (:mod:`.contracts`; not named ``registry``, which would shadow the function of that name once imported) plus a few example requests
(:mod:`.examples`); no templates, no perception code. Its id kinds (``E`` + 6 digits,
``TCK-`` + 6 digits, ``AT-`` + 5 digits) come from the argument patterns
(:func:`tao.domains.contract.contract_lexicon`), its training phrasing from ``training.derive``.

``tao train --registry tao.domains.helpdesk:registry --preset quick --out DIR`` trains a plan model
for it (docs/model.md, "Your own tools in 10 minutes"); ``tao run`` serves it with the mock
handlers of :mod:`.mock`. ``eval_sets/handwritten.jsonl`` (case format) was written before any
generator for this domain existed and is never training data. :mod:`.samples` holds real response
bodies of the mock service, checked against the response schemas when the domain is loaded.
``tools.yaml`` is the same domain as a contract file (``--registry tao/domains/helpdesk/tools.yaml``;
no mock handlers), written by ``python -m tao.domains.contract_dump tao.domains.helpdesk:registry
tao/domains/helpdesk/tools.yaml``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

from tao.contracts.domain import Domain

_SETS = Path(__file__).resolve().parent / "eval_sets"
EVAL_SETS = {"independent": _SETS / "handwritten.jsonl"}
"""The hand-written case-format set, scored as ``independent`` by the final evaluation."""


NAME_STOP_EN = tuple(
    """VPN ERP Wifi WiFi Outlook Excel Word Teams Zoom Slack Laptop Ticket Tickets Device Devices Monitor
    Phone Password Printer Keyboard Mouse Headset Screen Battery Open Create File Raise Log Submit Replace
    Request Need Get Give Look Lookup Who Which Where Any My Our New Broken Urgent Help Thanks Also Then
    And Asset Employee Record Manager Department Office Support Helpdesk Desk Hi Hey Hello""".split()
)
"""Capitalized words of helpdesk requests that never start a person's name (besides the derived ones)."""


@cache
def registry() -> Domain:
    """The helpdesk domain (built once per process)."""
    from tao.domains.contract import contract_domain, contract_lexicon
    from tao.domains.helpdesk.contracts import helpdesk_tools
    from tao.domains.helpdesk.examples import EXAMPLES, TEXT_CUES, VALUE_WORDS
    from tao.domains.helpdesk.mock import HANDLERS, HelpdeskData
    from tao.domains.helpdesk.samples import RESPONSE_SAMPLES

    tools = helpdesk_tools()
    lexicon = contract_lexicon(
        tools,
        EXAMPLES,
        me_field="employee_id",
        name_stop_en=NAME_STOP_EN,
        text_cues=TEXT_CUES,
    )
    lexicon = replace(lexicon, show_free_text=True)
    return contract_domain(
        "helpdesk",
        tools,
        EXAMPLES,
        value_words=VALUE_WORDS,
        lexicon=lexicon,
        mock_handlers=HANDLERS,
        mock_data=HelpdeskData.generate,
        eval_sets=EVAL_SETS,
        response_samples=RESPONSE_SAMPLES,
    )


domain = registry
"""``tao.domains.helpdesk:domain`` names the same domain."""
