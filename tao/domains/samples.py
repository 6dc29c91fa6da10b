"""Real response samples of a domain's tools, checked when the domain is loaded.

A contract may carry samples of what the tool really returns (:attr:`Domain.response_samples`,
or ``responses`` / ``response_samples`` of a tool in a contract file). :func:`check_samples` runs
each through the same observation check the loop runs on live results — the Rust
``ObservationChecker`` (response schema, required fields, blacklist, JsonLogic rules, units),
called through :data:`CHECKER` (``tao.observe.samples``: it lives in a higher layer, so it is named,
not imported, like the loaders of :data:`tao.domains.LOADERS`). A sample the contract refuses is a
:class:`ResponseSampleError` naming the tool, the sample's index and the JSON pointer where they
disagree: a schema that does not match what the API really returns (``+08:00`` offsets where the
pattern wants ``Z``, a field the schema calls required that the API leaves out) fails at load time,
not as a ``TOOL_SCHEMA_VIOLATION`` on the first live call.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from tao.contracts.domain import Domain
from tao.domains import DomainLoadError
from tao.domains.contract import ContractError

CHECKER = "tao.observe.samples:sample_problems"
"""``MODULE:FUNC`` of ``FUNC(tool_spec, samples) -> [(index, pointer, check, reason)]``."""


class ResponseSampleError(DomainLoadError, ContractError):
    """A response sample its tool's contract refuses (a :class:`DomainLoadError` and a
    :class:`ContractError`); ``where`` is the sample's place in a contract file, if it came from one."""

    def __init__(
        self, ref: str, tool: str, index: int, pointer: str, check: str, reason: str, where: str | None = None
    ) -> None:
        at = (
            f"{where}{pointer}"
            if where is not None
            else f"tool {tool!r} response sample {index}, at {pointer or '/'}"
        )
        super().__init__(ref, f"{at}: {reason} (check {check!r}; the schema must match what the API returns)")
        self.tool, self.index, self.pointer, self.check, self.where = tool, index, pointer, check, where


def _checker() -> Callable[..., list[tuple[int, str, str, str]]]:
    module_name, _, func = CHECKER.partition(":")
    return getattr(importlib.import_module(module_name), func)


def check_samples(domain: Domain, where: Callable[[str, int], str] | None = None) -> None:
    """Raise :class:`ResponseSampleError` on the first sample (in tool order) that its contract
    refuses; an unknown tool name is one too. ``where(tool, index)`` gives a file pointer prefix."""
    if not domain.response_samples:
        return
    ref = domain.ref or domain.name
    registry = domain.registry()
    check = _checker()
    for tool, samples in domain.response_samples.items():
        spec = registry.get(tool)
        if spec is None:
            raise DomainLoadError(ref, f"response samples for unknown tool {tool!r}")
        problems: list[tuple[int, str, str, str]] = check(spec, list(samples))
        if problems:
            i, pointer, name, reason = problems[0]
            raise ResponseSampleError(ref, tool, i, pointer, name, reason, where(tool, i) if where else None)


def samples_of(domain: Domain, tool: str) -> list[Any]:
    """The response samples of ``tool`` (empty when it has none)."""
    return list(domain.response_samples.get(tool, ()))


__all__ = ["CHECKER", "ResponseSampleError", "check_samples", "samples_of"]
