"""Check request templates before adding them: ``python -m training.template_check MODULE``.

For every template of ``tao.domains.reference.phrasing.templates.MODULE`` it generates a few examples the way the data
generator does and reports how many had to be dropped (a slot value perception cannot find again,
e.g. free text without a cue word, or a Chinese name without a cue character), with one sample
request and its target. Templates with a high drop rate waste training rows: fix them.

``MODULE`` may also be a dotted phrasing module that exports intents (every ``*_INTENTS`` list of
:class:`~tao.contracts.domain.IntentSpec`, e.g. ``tao.domains.reference.phrasing.intents_chain``):
then every template of each of its intents is checked, in both languages.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import replace
from functools import cache
from importlib import import_module

from tao.contracts.domain import IntentSpec
from tao.domains.reference.phrasing.intents import INTENTS
from tao.domains.reference.phrasing.intents_extra import HELD_MARK
from tao.domains.reference.phrasing.values import ValueSampler
from tao.domains.reference.registry import reference_tools
from training.generate import GenConfig, _Drop, make_example


@cache
def _registry() -> dict:
    return {t.name: t for t in reference_tools()}


def check_template(
    intent: str, lang: str, template: str, n: int = 30, seed: int = 0
) -> tuple[float, str, str]:
    """(drop rate, a sample request, its target) for one template of ``intent``."""
    spec = next(s for s in INTENTS if s.name == intent)
    spec = replace(spec, zh=(template,), en=(template,))
    registry = _registry()
    rng = random.Random(seed)
    cfg = GenConfig()
    drops = 0
    sample: tuple[str, str] = ("", "")
    for _ in range(n):
        try:
            row = make_example(
                [(spec, 0)], lang, ValueSampler(lang=lang, heldout=False, rng=rng), rng, cfg, registry
            )
            sample = (row["request"], row["target"])
        except _Drop:
            drops += 1
    return drops / n, sample[0], sample[1]


def _templates_of(module: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(intent, language, templates) of a ``templates`` module (``orders_zh``: its ``MORE``) or of a
    dotted intents module (its ``*_INTENTS`` lists, both languages, held-out marks stripped)."""
    if "." not in module:
        lang = module.rsplit("_", 1)[1]
        more = import_module(f"tao.domains.reference.phrasing.templates.{module}").MORE
        return [(intent, lang, tuple(ts)) for intent, ts in more.items()]
    out: list[tuple[str, str, tuple[str, ...]]] = []
    for attr, specs in vars(import_module(module)).items():
        if not (attr.endswith("INTENTS") and isinstance(specs, list)):
            continue
        for spec in specs:
            if isinstance(spec, IntentSpec):
                out += [
                    (spec.name, lang, tuple(t.removeprefix(HELD_MARK) for t in ts))
                    for lang, ts in (("zh", spec.zh), ("en", spec.en))
                ]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.template_check", description=(__doc__ or "").splitlines()[0]
    )
    ap.add_argument(
        "module",
        help="module under tao.domains.reference.phrasing.templates, e.g. orders_zh, or a dotted "
        "intents module, e.g. tao.domains.reference.phrasing.intents_chain",
    )
    ap.add_argument("-n", type=int, default=30, help="examples per template")
    ap.add_argument("--max-drop", type=float, default=0.3, help="exit 1 if any template drops more")
    a = ap.parse_args(argv)
    names = {s.name for s in INTENTS}
    bad = 0
    for intent, lang, templates in _templates_of(a.module):
        if intent not in names:
            print(f"!! unknown intent {intent!r}")
            bad += 1
            continue
        for t in templates:
            rate, req, target = check_template(intent, lang, t, a.n)
            flag = "!!" if rate > a.max_drop else "ok"
            bad += rate > a.max_drop
            print(f"{flag} drop={rate:.0%} {intent}: {t}\n     e.g. {req!r} -> {target}")
    print(f"{bad} template(s) over the drop limit")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
