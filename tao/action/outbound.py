"""Outbound content is data: arguments that leave the system as a message someone reads (an email
subject or body, a calendar event's title) are made inert before the call.

A contract marks such an argument in its ``args_schema`` with the extension keyword
``"x-tao-outbound"`` (JSON Schema validators ignore ``x-`` keywords):

* ``"escape"`` — the value is sent inert for HTML and Markdown renderers: ``& < > " '`` become
  HTML entities, a Markdown link or image ``[t](u)`` / ``![t](u)`` gets its brackets escaped
  (``\\[t\\](u)``), and a ``javascript:`` / ``vbscript:`` / ``data:<type>`` scheme (also spelt with
  spaces or tabs inside) loses its colon (``javascript&#58;``). Plain text is unchanged.
* ``"reject"`` — a value carrying markup (an HTML tag or comment, an ``on…=`` event handler, an
  HTML character reference, one of those schemes, a Markdown link or image) is refused:
  :class:`OutboundRejected`, reported as ``TOOL_ARGUMENT_INVALID`` with the field; nothing is sent.
* ``"plain"`` — the channel renders text only: the value is sent unchanged, but it is still an
  outbound argument for the raw-result rule.

The raw-result rule (:func:`check_provenance`, applied by the loop, which knows where each value
came from): an outbound argument never carries another tool's raw result unless the plan asked for
it. A ``${t1.field}`` reference is an ask, when it resolves to text or a number; one that resolves
to an object or a list (a raw record) is refused, and so is a planned literal that contains the
JSON text of an earlier step's result (or of any object or list inside it).

The executor applies :func:`prepare` before the permission gate, so an approver sees (and the
approval digest covers) exactly what is sent.
"""

from __future__ import annotations

import html
import json
import re
from enum import Enum
from typing import Any

from tao.contracts import ToolSpec

KEYWORD = "x-tao-outbound"


class OutboundMode(str, Enum):
    ESCAPE = "escape"
    REJECT = "reject"
    PLAIN = "plain"


class OutboundRejected(ValueError):
    """An outbound argument the contract refuses (markup, or a raw tool result)."""

    def __init__(self, field: str, reason: str, expected: str, received: str) -> None:
        super().__init__(f"outbound argument '{field}' refused: {reason}")
        self.field, self.reason, self.expected, self.received = field, reason, expected, received


_SP = r"[\s\x00]*"
_SCHEME = re.compile(
    r"(?:" + _SP.join("javascript") + r"|" + _SP.join("vbscript") + r")" + _SP + r":"
    r"|\bdata" + _SP + r":" + _SP + r"[a-z]+/[a-z0-9.+-]+",
    re.IGNORECASE,
)
_TAG = re.compile(r"</?[a-z]|<[!?]", re.IGNORECASE)  # what an HTML parser starts a tag or comment at
_HANDLER = re.compile(r"\bon[a-z]+\s*=", re.IGNORECASE)
_CHAR_REF = re.compile(r"&#x?[0-9a-f]+;?|&[a-z]+;", re.IGNORECASE)
_MD_LINK = re.compile(r"!?\[[^\]\n]*\]\s*\(")
_MD_LINK_ESCAPE = re.compile(r"(!?)\[([^\]\n]*)\](\s*\()")

_REJECT_RULES = (
    (_TAG, "an HTML tag or comment"),
    (_HANDLER, "an HTML event handler (on…=)"),
    (_SCHEME, "a javascript:/vbscript:/data: link"),
    (_CHAR_REF, "an HTML character reference"),
    (_MD_LINK, "a Markdown link or image"),
)
EXPECTED_PLAIN = "plain text (x-tao-outbound: reject): no HTML tag, event handler, character reference, javascript:/vbscript:/data: link or Markdown link"


_FIELDS: dict[int, tuple[ToolSpec, Any, dict[str, OutboundMode]]] = {}
_MAX_FIELDS = 1024


def outbound_fields(spec: ToolSpec) -> dict[str, OutboundMode]:
    """The contract's outbound arguments and their modes (top-level properties of the arguments).
    Read it, never change it: the map is kept per contract object (each call of a tool asks for it
    twice), found again only while the spec and its ``args_schema`` are the same objects."""
    held = _FIELDS.get(id(spec))
    if held is not None and held[0] is spec and held[1] is spec.args_schema:
        return held[2]
    out = _outbound_fields(spec)
    if len(_FIELDS) >= _MAX_FIELDS:
        _FIELDS.clear()
    _FIELDS[id(spec)] = (spec, spec.args_schema, out)
    return out


def _outbound_fields(spec: ToolSpec) -> dict[str, OutboundMode]:
    props = spec.args_schema.get("properties")
    out: dict[str, OutboundMode] = {}
    if not isinstance(props, dict):
        return out
    for name, schema in props.items():
        mode = _mode_of(schema)
        if mode is not None:
            out[name] = mode
    return out


def _mode_of(schema: Any) -> OutboundMode | None:
    if not isinstance(schema, dict):
        return None
    if (m := schema.get(KEYWORD)) is not None:
        return OutboundMode(m)
    for alt in schema.get("anyOf", ()) or ():  # pydantic puts extras on the field, but be lenient
        if isinstance(alt, dict) and (m := alt.get(KEYWORD)) is not None:
            return OutboundMode(m)
    return None


def escape_text(text: str) -> str:
    """The ``escape`` mode's transformation of one string (see the module docs)."""
    s = html.escape(text, quote=True)
    s = _MD_LINK_ESCAPE.sub(lambda m: f"{m.group(1)}\\[{m.group(2)}\\]{m.group(3)}", s)
    return _SCHEME.sub(lambda m: m.group(0).replace(":", "&#58;", 1), s)


def markup_in(text: str) -> str | None:
    """What markup a string carries (the first rule that matches), or None."""
    for rx, what in _REJECT_RULES:
        if rx.search(text):
            return what
    return None


def _snippet(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _apply(field: str, mode: OutboundMode, value: Any) -> Any:
    if isinstance(value, str):
        if mode is OutboundMode.ESCAPE:
            return escape_text(value)
        if mode is OutboundMode.REJECT and (what := markup_in(value)) is not None:
            raise OutboundRejected(field, f"it carries {what}", EXPECTED_PLAIN, _snippet(value))
        return value
    if isinstance(value, list):
        return [_apply(f"{field}/{i}", mode, v) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _apply(f"{field}/{k}", mode, v) for k, v in value.items()}
    return value


def prepare(spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments as sent: outbound ones escaped, or :class:`OutboundRejected`. Returns
    ``args`` itself when the contract has no outbound argument or nothing changed."""
    fields = outbound_fields(spec)
    if not fields:
        return args
    out = dict(args)
    for name, mode in fields.items():
        if name in out:
            out[name] = _apply(name, mode, out[name])
    return out if out != args else args


def _fragments(value: Any, out: set[str], min_len: int = 16) -> None:
    if isinstance(value, (dict, list)):
        for seps in ((",", ":"), (", ", ": ")):
            for ascii_only in (False, True):
                text = json.dumps(value, ensure_ascii=ascii_only, separators=seps, default=str)
                if len(text) >= min_len:
                    out.add(text)
        for v in value.values() if isinstance(value, dict) else value:
            _fragments(v, out, min_len)


def check_provenance(
    spec: ToolSpec | None, planned: dict[str, Any], resolved: dict[str, Any], earlier: list[Any]
) -> None:
    """The raw-result rule for one call: ``planned`` are the step's arguments as the plan wrote them,
    ``resolved`` after references were filled in, ``earlier`` the parsed results of the steps that
    ran before. Raises :class:`OutboundRejected`."""
    if spec is None:
        return
    fields = outbound_fields(spec)
    if not fields:
        return
    frags: set[str] | None = None
    for name in fields:
        if name not in resolved:
            continue
        value, raw = resolved[name], planned.get(name)
        if isinstance(raw, str) and raw.startswith("${"):
            if isinstance(value, (dict, list)):
                raise OutboundRejected(
                    name,
                    f"the reference {raw} resolves to a whole {type(value).__name__} (a raw tool result)",
                    "a reference to one text or number field of an earlier step",
                    _snippet(json.dumps(value, ensure_ascii=False, default=str)),
                )
            continue
        if not isinstance(value, str) or not earlier:
            continue
        if frags is None:
            frags = set()
            for e in earlier:
                _fragments(e, frags)
        for f in frags:
            if f in value:
                raise OutboundRejected(
                    name,
                    "it carries an earlier tool's raw result the plan did not ask for",
                    "text, or a ${tN.field} reference to the value wanted",
                    _snippet(f),
                )
