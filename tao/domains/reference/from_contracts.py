"""The reference domain's 22 tools as a *user* registry: their contracts plus at most ten example
requests per tool and language, no templates and no perception code of its own (issue #15's second
target: how close a model trained the way a new user trains one comes to the template-trained
default, on the project's hand-written sets).

The examples (``examples/zh.jsonl``, ``examples/en.jsonl``: 9-10 single-tool requests per tool and
language, 24-25 multi-step ones each) were written by two helpers who saw only
``eval_sets/tools.json`` and a brief of the example format (dates resolved against
:data:`training.derive.EXAMPLE_NOW`); never the templates, the generator or any evaluation set.
Four were reworded by the lead where perception reads the text otherwise (``tmrw 11am``; a title
before a date swallowing it).

``tao train --registry tao.domains.reference.from_contracts:registry --preset quick --out DIR``
trains it; ``tao eval --checkpoint DIR --cases tao/domains/reference/eval_sets/...`` scores it
(docs/model.md, "The reference domain from contracts").
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from tao.contracts.domain import Domain

_HERE = Path(__file__).resolve().parent
EXAMPLE_FILES = (_HERE / "examples" / "zh.jsonl", _HERE / "examples" / "en.jsonl")


@cache
def registry() -> Domain:
    """The reference tools with their examples (built once per process)."""
    from tao.domains.contract import contract_domain, contract_lexicon
    from tao.domains.contract_file import examples_from_jsonl
    from tao.domains.reference import domain as reference

    ref = reference()
    tools = ref.tools
    examples = tuple(e for f in EXAMPLE_FILES for e in examples_from_jsonl(f, tools))
    lexicon = contract_lexicon(tools, examples, me_field="user_id")
    return contract_domain(
        "reference_contracts",
        tools,
        examples,
        lexicon=lexicon,
        mock_handlers=ref.mock_handlers,
        mock_data=ref.mock_data,
        eval_sets=dict(ref.eval_sets),
    )


domain = registry
"""``tao.domains.reference.from_contracts:domain`` names the same domain."""
