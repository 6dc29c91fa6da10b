"""The helpdesk response samples are what its mock service really answers, and they pass the
contracts (checked when the domain loads)."""

from __future__ import annotations

from tao.domains import load_domain
from tao.domains.helpdesk.mock import HANDLERS, HelpdeskData
from tao.domains.helpdesk.samples import RESPONSE_SAMPLES, SAMPLE_CALLS
from tao.observe.samples import sample_problems


def test_samples_replay_the_mock_handlers() -> None:
    data = HelpdeskData.generate()
    replies = {
        tool: [HANDLERS[tool](data, dict(args))[:2] for args in calls] for tool, calls in SAMPLE_CALLS.items()
    }
    assert replies == {tool: [(200, body) for body in bodies] for tool, bodies in RESPONSE_SAMPLES.items()}
    assert set(RESPONSE_SAMPLES) == set(HANDLERS)  # every tool has at least one sample


def test_helpdesk_samples_pass_their_contracts() -> None:
    domain = load_domain("tao.domains.helpdesk:registry")  # would raise ResponseSampleError
    assert domain.response_samples == RESPONSE_SAMPLES
    for spec in domain.tools:
        assert sample_problems(spec, RESPONSE_SAMPLES[spec.name]) == []
