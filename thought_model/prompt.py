"""The prompt format of the plan model: the exact text fed to the model.

Layout (no spaces are added; the target follows the prompt directly)::

    <|bos|>{masked request}<|me|>{"<ME>" or "none"}<|plan|>{compact JSON target}<|eos|>

* ``masked request``: the request after perception (:mod:`thought_model.entities`), with ids,
  amounts, dates, cities, names and cued free text replaced by slot tokens such as ``<ORDER1>``.
* ``<|me|>`` says whether the session knows the current user: ``<ME>`` (then "my orders" can be
  planned with ``"user_id":"<ME>"``) or ``none`` (then the model asks for ``user_id``).
* The target is compact JSON (``separators=(",", ":")``) constrained by
  :func:`thought_model.grammar.output_json_schema`, ended by :data:`EOS_TOKEN`.

The prompt is deterministic: the same request, session date and user produce the same text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from tao.contracts import SessionState, ToolSpec
from tao.contracts.domain import Lexicon
from tao.contracts.timeexpr import session_today as local_today
from thought_model.entities import ME_SLOT, Perception, perceive, slot_tokens

BOS_TOKEN = "<|bos|>"
EOS_TOKEN = "<|eos|>"
PAD_TOKEN = "<|pad|>"
ME_MARK = "<|me|>"
PLAN_MARK = "<|plan|>"
NO_USER = "none"
SPECIAL_TOKENS = [BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, ME_MARK, PLAN_MARK]
"""Special tokens (skipped when decoding with ``skip_special_tokens``)."""
ADDED_TOKENS = slot_tokens()
"""Slot tokens of the reference domain: kept whole by the tokenizer and visible in decoded text
(``slot_tokens(lexicon)`` for another domain)."""
PROMPT_FORMAT_VERSION = "tao-plan-prompt/1"


@dataclass(frozen=True)
class PreparedPrompt:
    """A prompt with the perception that produced it (needed to parse the output back)."""

    text: str
    perception: Perception
    user_known: bool


def session_today(session: SessionState | None) -> date:
    """The date perception resolves weekdays and year-less dates against: the session's local date
    (its clock in its time zone, :func:`tao.contracts.timeexpr.session_today`)."""
    return local_today(session)


def prepare_prompt(
    request: str,
    session: SessionState | None,
    tools: Sequence[ToolSpec] | None = None,
    lexicon: Lexicon | None = None,
    known_text: Sequence[str] = (),
) -> PreparedPrompt:
    """Run perception (with the domain's ``lexicon``) and build the prompt; keep the result to
    parse the model's output. ``known_text``: a training row's free-text values
    (:func:`~thought_model.entities.perceive`)."""
    user_known = bool(session is not None and session.user_id)
    p = perceive(
        request.strip(),
        today=session_today(session),
        user_known=user_known,
        lexicon=lexicon,
        known_text=known_text,
    )
    text = f"{BOS_TOKEN}{p.masked}{ME_MARK}{ME_SLOT if user_known else NO_USER}{PLAN_MARK}"
    return PreparedPrompt(text=text, perception=p, user_known=user_known)


def build_prompt(
    request: str,
    session: SessionState | None,
    tools: Sequence[ToolSpec] | None = None,
    lexicon: Lexicon | None = None,
) -> str:
    """The exact text fed to the model for ``request`` (the target follows it directly).

    ``tools`` is accepted for interface stability; the model is trained for one registry, so the
    tool list is not repeated in the prompt (it lives in the grammar instead).
    """
    return prepare_prompt(request, session, tools, lexicon).text


def target_text(plan_json: str) -> str:
    """The training target for a compact JSON output: the JSON followed by :data:`EOS_TOKEN`."""
    return plan_json + EOS_TOKEN
