"""``tao.domains.load_domain``: MODULE:ATTR refs, TAO_REGISTRY, the reference default, typed errors."""

from __future__ import annotations

import textwrap

import pytest

from tao.contracts.domain import Domain, Lexicon
from tao.domains import DEFAULT_REGISTRY, DomainLoadError, load_domain, reference_domain
from tao.domains.reference import lexicon as ref_lexicon


def test_the_default_is_the_reference_domain(monkeypatch) -> None:
    monkeypatch.delenv("TAO_REGISTRY", raising=False)
    d = load_domain()
    assert d is reference_domain() and d.ref == DEFAULT_REGISTRY
    assert len(d.tools) == 22 and d.mock_handlers and d.phrasing is not None
    assert set(d.mock_handlers) == set(d.tool_names())
    assert [k.slot for k in d.lexicon.id_kinds] == ["ORDER", "USER", "INV", "EXP", "ROOM"]


def test_the_reference_cities_are_one_list() -> None:
    assert set(ref_lexicon.HOME_CITIES) <= set(ref_lexicon.ZH_CITIES)
    assert reference_domain().lexicon.cities_zh == ref_lexicon.ZH_CITIES


def _write(tmp_path, name: str, body: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))


def test_a_list_of_tools_or_a_callable_becomes_a_domain(tmp_path, monkeypatch) -> None:
    _write(
        tmp_path,
        "listdom_mod",
        """
        from tao.domains.reference.registry import reference_tools
        TOOLS = reference_tools()[:2]
        def make():
            return TOOLS
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    d = load_domain("listdom_mod:TOOLS")
    assert isinstance(d, Domain) and d.lexicon == Lexicon() and len(d.tools) == 2
    assert load_domain("listdom_mod:make").tool_names() == d.tool_names()
    monkeypatch.setenv("TAO_REGISTRY", "listdom_mod:TOOLS")
    assert load_domain() is d


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("no_such_domain_module_xyz:domain", "does not import"),
        ("tao.domains.reference:no_such_attr", "no attribute"),
        ("tao.domains.reference", "MODULE:ATTR"),
        ("tao.domains.reference:EVAL_SETS", "expected a Domain"),
    ],
)
def test_a_bad_ref_is_a_typed_error_naming_it(ref: str, why: str) -> None:
    with pytest.raises(DomainLoadError) as exc:
        load_domain(ref)
    assert ref in str(exc.value) and why in str(exc.value) and exc.value.ref == ref


def test_the_contracts_snapshot_round_trips() -> None:
    d = reference_domain()
    back = Domain.from_snapshot(d.snapshot())
    assert back.lexicon == d.lexicon and back.ref == d.ref
    assert [t.model_dump(mode="json") for t in back.tools] == [t.model_dump(mode="json") for t in d.tools]


def test_two_names_for_one_domain_keep_their_own_ref() -> None:
    # helpdesk:domain is helpdesk:registry; loading the second name must not rename the first
    # (a training run records the ref it was given in meta.json)
    first = load_domain("tao.domains.helpdesk:registry")
    second = load_domain("tao.domains.helpdesk:domain")
    assert second.ref == "tao.domains.helpdesk:domain"
    assert first.ref == load_domain("tao.domains.helpdesk:registry").ref == "tao.domains.helpdesk:registry"
    assert second.tools == first.tools
