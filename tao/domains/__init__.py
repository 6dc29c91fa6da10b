"""Tool domains as plug-ins: ``load_domain("MODULE:ATTR")`` -> :class:`~tao.contracts.domain.Domain`.

Refs with a scheme go to a loader instead (:data:`LOADERS`): ``mcp+stdio:COMMAND`` and
``mcp+http(s)://…`` import an MCP server's tools (``tao.action.mcp_tools``); ``a2a+http(s)://HOST:PORT``
makes a remote A2A agent one tool (``tao.action.a2a_tools``). A path ending in ``.json``, ``.yaml``
or ``.yml`` is a file of tool contracts (:mod:`tao.domains.contract_file`).

Loading a domain checks its response samples (``Domain.response_samples``) against the contracts
with the Rust observation checker (:mod:`tao.domains.samples`): a sample the schema or rules refuse
is a :class:`~tao.domains.samples.ResponseSampleError` (a ``DomainLoadError``) naming the sample.

A domain is one package that imports only :mod:`tao.contracts` (the reference one is
:mod:`tao.domains.reference`; a user's lives anywhere on ``sys.path``). ``ATTR`` is a ``Domain``,
a list of ``ToolSpec``, or a callable returning either; a bare list becomes a domain with an empty
lexicon. Every entry point takes the ref as ``--registry`` and reads ``TAO_REGISTRY`` by default.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Sequence

from tao.contracts.domain import Domain
from tao.contracts.tools import ToolSpec

DEFAULT_REGISTRY = "tao.domains.reference:domain"
ENV = "TAO_REGISTRY"


class DomainLoadError(ImportError):
    """A domain ref cannot be imported or does not name a domain (the message names the ref)."""

    def __init__(self, ref: str, reason: str) -> None:
        super().__init__(f"cannot load tool domain {ref!r}: {reason}")
        self.ref = ref
        self.reason = reason


def registry_ref(ref: str | None = None) -> str:
    """The ref in force: ``ref``, else ``TAO_REGISTRY``, else the reference domain."""
    return ref or os.environ.get(ENV) or DEFAULT_REGISTRY


_CACHE: dict[str, Domain] = {}

LOADERS: dict[str, str] = {
    "mcp+stdio:": "tao.action.mcp_tools:load_mcp_domain",
    "mcp+http://": "tao.action.mcp_tools:load_mcp_domain",
    "mcp+https://": "tao.action.mcp_tools:load_mcp_domain",
    "a2a+http://": "tao.action.a2a_tools:load_a2a_domain",
    "a2a+https://": "tao.action.a2a_tools:load_a2a_domain",
}
"""Ref prefix -> ``MODULE:FUNC`` of a loader ``FUNC(ref) -> Domain`` for domains that are not Python
modules (an MCP server's tools). Named, not imported: the loader lives in a higher layer (it needs
a protocol client), and a domain ref stays a plain string."""


def _load_with(loader: str, ref: str) -> Domain:
    module_name, _, func = loader.partition(":")
    try:
        fn = getattr(importlib.import_module(module_name), func)
        domain = fn(ref)
    except DomainLoadError:
        raise
    except Exception as exc:  # cannot start / reach the server, bad ref, protocol error
        raise DomainLoadError(ref, f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(domain, Domain):
        raise DomainLoadError(ref, f"loader {loader} returned {type(domain).__name__}, not a Domain")
    domain.ref = ref
    return domain


def load_domain(ref: str | None = None) -> Domain:
    """Import the domain named ``MODULE:ATTR`` (see :func:`registry_ref` for the default); cached."""
    ref = registry_ref(ref)
    hit = _CACHE.get(ref)
    if hit is not None:
        return hit
    for prefix, loader in LOADERS.items():
        if ref.startswith(prefix):
            domain = _load_with(loader, ref)
            _CACHE[ref] = domain
            return domain
    from tao.domains.contract_file import is_contract_file, load_contract_file

    if is_contract_file(ref):
        domain = load_contract_file(ref)  # samples checked, errors name the file and the entry
        _CACHE[ref] = domain
        return domain
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise DomainLoadError(
            ref,
            "expected MODULE:ATTR (e.g. tao.domains.reference:domain) or a contract file (.json/.yaml/.yml)",
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise DomainLoadError(ref, f"module {module_name!r} does not import ({exc})") from exc
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise DomainLoadError(ref, f"module {module_name!r} has no attribute {attr!r}") from None
    if callable(obj) and not isinstance(obj, Domain):
        obj = obj()
    domain = _as_domain(obj, ref)
    if domain.ref is not None and domain.ref != ref:
        # one object under two names (helpdesk:domain = helpdesk:registry): each ref gets its own
        # copy, so loading one name never renames what the other already returned
        domain = dataclasses.replace(domain, ref=ref)
    else:
        domain.ref = ref
    from tao.domains.samples import check_samples

    check_samples(domain)
    _CACHE[ref] = domain
    return domain


def _as_domain(obj: object, ref: str) -> Domain:
    if isinstance(obj, Domain):
        return obj
    if isinstance(obj, Sequence) and obj and all(isinstance(t, ToolSpec) for t in obj):
        return Domain(name=ref.partition(":")[0].rsplit(".", 1)[-1], tools=list(obj))
    raise DomainLoadError(ref, f"expected a Domain or a list of ToolSpec, got {type(obj).__name__}")


def reference_domain() -> Domain:
    """The embedded reference domain (orders, invoices, users, expenses, weather, rooms, mail)."""
    return load_domain(DEFAULT_REGISTRY)


__all__ = [
    "DEFAULT_REGISTRY",
    "ENV",
    "Domain",
    "DomainLoadError",
    "load_domain",
    "reference_domain",
    "registry_ref",
]
