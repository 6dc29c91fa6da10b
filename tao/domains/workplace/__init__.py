"""The workplace domain: eleven tools over HR leave, payslips and business travel, defined by
contracts (:mod:`.registry`) plus example requests (:mod:`.examples`), like the helpdesk domain.

Its main use is the 41-tool combined registry (``tao.domains.combined:registry``) for intent
routing; no plan model is trained on it (the default checkpoint knows only the reference domain).
"""

from __future__ import annotations

from functools import cache

from tao.contracts.domain import Domain


@cache
def registry() -> Domain:
    """The workplace domain (built once per process)."""
    from tao.domains.contract import contract_domain, contract_lexicon
    from tao.domains.workplace.examples import EXAMPLES, TEXT_CUES, VALUE_WORDS
    from tao.domains.workplace.mock import HANDLERS, WorkplaceData
    from tao.domains.workplace.registry import workplace_tools

    tools = workplace_tools()
    lexicon = contract_lexicon(tools, EXAMPLES, me_field="employee_id", text_cues=TEXT_CUES)
    return contract_domain(
        "workplace",
        tools,
        EXAMPLES,
        value_words=VALUE_WORDS,
        lexicon=lexicon,
        mock_handlers=HANDLERS,
        mock_data=WorkplaceData.generate,
    )


domain = registry
"""``tao.domains.workplace:domain`` names the same domain."""
