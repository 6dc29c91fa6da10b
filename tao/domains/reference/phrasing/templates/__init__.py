"""More training templates per intent, one module per (domain group, language).

Each module defines ``MORE: dict[str, tuple[str, ...]]`` (intent name -> templates in that
module's language). They are *training* templates only: :data:`tao.domains.reference.phrasing.intents.INTENTS` puts them
first in each list, so an intent's held-out templates (the last one and the ``~``-marked ones)
stay held out and the held-out-template split is unchanged. They were written without looking at
the held-out templates (the authors saw only the intent's plan, its slots and its other training
templates), so that split keeps measuring phrasings never trained on.
"""

from __future__ import annotations

from importlib import import_module

MODULES = ("orders_zh", "orders_en", "office_zh", "office_en")


def more_templates(name: str, lang: str) -> tuple[str, ...]:
    """All extra training templates of intent ``name`` in ``lang`` ("zh" or "en")."""
    out: list[str] = []
    for mod in MODULES:
        if not mod.endswith("_" + lang):
            continue
        out += import_module(f"{__name__}.{mod}").MORE.get(name, ())
    return tuple(out)
