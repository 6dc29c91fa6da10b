"""Where checkpoints live, and what a checkpoint says about itself: the one definition of the
default checkpoint (every entry point imports it from here) and the tool domain it was trained
for (``train_config.json`` ``registry`` + the ``domain.json`` snapshot)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tao.contracts.domain import Domain, RequestExample
from tao.domains import DEFAULT_REGISTRY, ENV, DomainLoadError, load_domain

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINTS / "default"
"""The committed default plan model (``TAO_CHECKPOINT`` overrides it at the entry points)."""

TRAIN_CONFIG = "train_config.json"
DOMAIN_SNAPSHOT = "domain.json"
"""Beside the weights: the tool contracts and lexicon the model was trained for (JSON)."""


class DomainMismatchError(ValueError):
    """An explicit ``--registry`` / ``TAO_REGISTRY`` names another domain than the checkpoint's."""


def train_config(checkpoint: str | Path) -> dict:
    p = Path(checkpoint) / TRAIN_CONFIG
    return json.loads(p.read_text()) if p.is_file() else {}


def recorded_registry(checkpoint: str | Path) -> str | None:
    """The ``MODULE:ATTR`` the checkpoint was trained for (``train_config.json``), if recorded."""
    return train_config(checkpoint).get("registry")


def checkpoint_intent_steps(checkpoint: str | Path) -> dict[str, list[tuple[str, dict]]] | None:
    """The trained intents' plans (``train_config.json`` ``intent_steps``: intent -> [tool, args
    template] per step, as a phrasing's ``IntentSpec.steps``), which the composer's sufficiency check
    grounds; None when not recorded (the default checkpoint: the reference domain's own plans apply)."""
    steps = train_config(checkpoint).get("intent_steps")
    if not isinstance(steps, dict):
        return None
    return {name: [(str(tool), dict(args)) for tool, args in plan] for name, plan in steps.items()}


def checkpoint_value_words(checkpoint: str | Path) -> dict[str, dict[str, list[str]]] | None:
    """The trained domain's enum words (``train_config.json`` ``value_words``: argument -> value ->
    words, ``Domain.value_words``), if recorded."""
    words = train_config(checkpoint).get("value_words")
    if not isinstance(words, dict):
        return None
    return {str(a): {str(v): [str(w) for w in ws] for v, ws in vals.items()} for a, vals in words.items()}


def checkpoint_examples(checkpoint: str | Path, domain: Domain) -> tuple[RequestExample, ...]:
    """The example requests of the checkpoint's domain: ``domain``'s own, else those of its recorded
    registry module when it imports (a ``domain.json`` snapshot keeps no examples); () when neither
    has any (the composer's evidence rule then uses the contracts' words alone)."""
    if domain.examples:
        return tuple(domain.examples)
    ref = domain.ref or recorded_registry(checkpoint)
    if not ref:
        return ()
    try:
        return tuple(load_domain(ref).examples)
    except DomainLoadError:
        return ()


def _recorded_domain(checkpoint: Path, full: bool) -> Domain | None:
    ref = recorded_registry(checkpoint)
    snap = checkpoint / DOMAIN_SNAPSHOT
    if ref and full:
        return load_domain(ref)  # the module itself: mock handlers, phrasing (DomainLoadError if not)
    if snap.is_file():
        d = Domain.from_snapshot(json.loads(snap.read_text()))
        d.ref = d.ref or ref
        return d
    if ref:
        return load_domain(ref)
    return None


def checkpoint_domain(checkpoint: str | Path, registry: str | None = None, *, full: bool = False) -> Domain:
    """The tool domain a checkpoint plans for.

    Without ``registry`` (and ``TAO_REGISTRY`` unset): the checkpoint's ``domain.json`` snapshot
    (enough to serve and check plans), or its recorded ``registry`` module when there is no
    snapshot or ``full`` is asked (``tao run`` against the mock needs the module's handlers). A
    checkpoint that records nothing (built before domains were recorded) plans for the reference
    domain. An explicit ``registry`` wins, but must name the checkpoint's domain or one with the
    same tool names (else :class:`DomainMismatchError`). A domain that cannot be imported raises
    :class:`tao.domains.DomainLoadError`, never a silent fallback.
    """
    ckpt = Path(checkpoint)
    explicit = registry or os.environ.get(ENV)
    if explicit:
        dom = load_domain(explicit)
        recorded = recorded_registry(ckpt)
        if recorded and recorded != explicit:
            try:
                rec = _recorded_domain(ckpt, full=False)
            except DomainLoadError:
                rec = None
            if rec is not None and set(rec.tool_names()) != set(dom.tool_names()):
                raise DomainMismatchError(
                    f"checkpoint {ckpt} was trained for {recorded!r}, not {explicit!r} "
                    f"(their tools differ: {sorted(set(rec.tool_names()) ^ set(dom.tool_names()))[:6]})"
                )
        return dom
    rec = _recorded_domain(ckpt, full)
    if rec is not None:
        return rec
    return load_domain(DEFAULT_REGISTRY)
