"""Normalization of raw tool outputs to :class:`ActionResult`, and truncation to a token budget.

Bodies are parsed by content (not trusted headers alone): JSON objects/arrays, XML (to nested
dicts), HTML (title + visible text), anything else is ``TOOL_MALFORMED_RESPONSE``. HTTP status
codes map to the error taxonomy by :func:`tao.contracts.status_error_type` (408/504 → timeout,
429 → rate limited, other 5xx → transient, 4xx → client error), the rule Rust embeds too.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import Any

import orjson

from tao.action.policy import is_retryable
from tao.contracts import ActionResult, ErrorInfo, ErrorType, status_error_type

_MAX_RAW_CHARS = 4000


def estimate_tokens(text: str) -> int:
    """Rough token count: ~4 ASCII characters per token, one token per other character."""
    ascii_n = len(text) if text.isascii() else len(text.encode("ascii", "ignore"))  # C speed
    return (ascii_n + 3) // 4 + (len(text) - ascii_n)


def status_error(code: int) -> ErrorInfo | None:
    """``None`` for a 2xx, else the typed error (the type from :func:`status_error_type`, the one
    rule shared with the Rust observation check; ``retryable`` from :mod:`tao.action.policy`)."""
    if 200 <= code < 300:
        return None
    et = status_error_type(code)
    if et is ErrorType.TOOL_TIMEOUT:
        message = f"upstream timeout (HTTP {code})"
    elif et is ErrorType.RATE_LIMITED:
        message = f"rate limited (HTTP {code})"
    elif et is ErrorType.TOOL_TRANSIENT:
        message = f"server error (HTTP {code})"
    elif code in (401, 403):
        message = f"not authorized (HTTP {code}); this is an error, not an empty result"
    elif et is ErrorType.TOOL_CLIENT_ERROR:
        message = f"client error (HTTP {code})"
    else:
        message = f"unexpected HTTP status {code}"
    return ErrorInfo(error_type=et, message=message, retryable=is_retryable(et), received=str(code))


def _xml_to_obj(el: ET.Element) -> Any:
    children = list(el)
    if not children:
        text = (el.text or "").strip()
        return {**el.attrib, "text": text} if el.attrib else text
    out: dict[str, Any] = dict(el.attrib)
    for ch in children:
        v = _xml_to_obj(ch)
        if ch.tag in out:
            prev = out[ch.tag]
            out[ch.tag] = [*prev, v] if isinstance(prev, list) else [prev, v]
        else:
            out[ch.tag] = v
    return out


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data.strip()
        elif not self._skip and data.strip():
            self.parts.append(data.strip())


def parse_body(body: bytes) -> tuple[Any, ErrorInfo | None]:
    """(parsed_data, error) for a raw body; empty bodies parse to None."""
    stripped = body.strip()
    if not stripped:
        return None, None
    head = stripped[:1]
    if head in (b"{", b"["):
        try:
            return orjson.loads(stripped), None
        except orjson.JSONDecodeError as exc:
            return None, ErrorInfo(
                error_type=ErrorType.TOOL_MALFORMED_RESPONSE,
                message=f"body is not valid JSON: {exc}",
                expected="JSON",
                received=_preview(body),
                retryable=True,
            )
    if head == b"<":
        low = stripped[:200].lower()
        if low.startswith(b"<!doctype html") or b"<html" in low:
            p = _Text()
            p.feed(stripped.decode("utf-8", "replace"))
            return {"html": {"title": p.title, "text": " ".join(p.parts)}}, None
        try:
            root = ET.fromstring(stripped)
        except ET.ParseError as exc:
            return None, ErrorInfo(
                error_type=ErrorType.TOOL_MALFORMED_RESPONSE,
                message=f"body is not valid XML: {exc}",
                expected="JSON or XML",
                received=_preview(body),
                retryable=True,
            )
        return {root.tag: _xml_to_obj(root)}, None
    return None, ErrorInfo(
        error_type=ErrorType.TOOL_MALFORMED_RESPONSE,
        message="body is neither JSON, XML nor HTML",
        expected="JSON",
        received=_preview(body),
        retryable=True,
    )


def _preview(body: bytes, n: int = 60) -> str:
    return body[:n].decode("utf-8", "replace")


def from_http(tool: str, step_id: str | None, status: int, body: bytes, elapsed_ms: float) -> ActionResult:
    """Normalize one HTTP response."""
    err = status_error(status)
    parsed, perr = parse_body(body)
    text = body.decode("utf-8", "replace")
    return ActionResult(
        tool=tool,
        step_id=step_id,
        original_response=text[:_MAX_RAW_CHARS],
        status_code=status,
        response_time_ms=round(elapsed_ms, 3),
        parsed_data=parsed,
        error_info=err or perr,
        truncated=(
            f"original_response cut to {_MAX_RAW_CHARS} of {len(text)} characters"
            if len(text) > _MAX_RAW_CHARS
            else None
        ),
    )


def from_value(tool: str, step_id: str | None, value: Any, elapsed_ms: float) -> ActionResult:
    """Normalize the return value of an in-process (Python) tool."""
    if isinstance(value, ActionResult):
        return value
    if isinstance(value, (bytes, str)):
        raw = value.encode() if isinstance(value, str) else value
        return from_http(tool, step_id, 200, raw, elapsed_ms)
    try:
        raw = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError as exc:
        return ActionResult(
            tool=tool,
            step_id=step_id,
            status_code=500,
            response_time_ms=elapsed_ms,
            error_info=ErrorInfo(
                error_type=ErrorType.TOOL_MALFORMED_RESPONSE,
                message=f"result is not JSON-serializable: {exc}",
            ),
        )
    return ActionResult(
        tool=tool,
        step_id=step_id,
        original_response=raw[:_MAX_RAW_CHARS],
        status_code=200,
        response_time_ms=round(elapsed_ms, 3),
        parsed_data=value,
    )


def _size(v: Any) -> int:
    return estimate_tokens(orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode())


def _longest_list(v: Any, path: str = "") -> tuple[str, list] | None:
    best: tuple[str, list] | None = None
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    if isinstance(v, list) and len(v) > 1:
        best = (path or "/", v)
    for k, x in items:
        cand = _longest_list(x, f"{path}/{k}")
        if cand and (best is None or len(cand[1]) > len(best[1])):
            best = cand
    return best


def truncate(result: ActionResult, max_tokens: int) -> ActionResult:
    """Cut ``parsed_data`` to fit ``max_tokens`` (long lists first, then long strings), noting what
    was cut in ``truncated``; the structure stays valid so checks and references still work."""
    data = result.parsed_data
    if data is None:
        return result
    raw = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    # a token is at least one character and a character at least one UTF-8 byte: a body of at
    # most max_tokens bytes fits without counting
    if len(raw) <= max_tokens or estimate_tokens(raw.decode()) <= max_tokens:
        return result
    data = orjson.loads(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))
    notes: list[str] = []
    cut_lists: dict[str, int] = {}
    while _size(data) > max_tokens:
        found = _longest_list(data)
        if not found:
            break
        path, lst = found
        cut_lists.setdefault(path, len(lst))
        del lst[max(1, len(lst) // 2) :]
    for path, n in cut_lists.items():
        kept = _longest_at(data, path)
        notes.append(f"{path}: kept {kept} of {n} items")
    if _size(data) > max_tokens:
        data, n_str = _cut_strings(data, max(16, max_tokens))
        if n_str:
            notes.append(f"{n_str} long strings shortened")
    note = "; ".join(notes) + f" (max_result_tokens={max_tokens})"
    if result.truncated:
        note = result.truncated + "; " + note
    return result.model_copy(update={"parsed_data": data, "truncated": note})


def _longest_at(data: Any, path: str) -> int:
    cur = data
    for part in [p for p in path.split("/") if p]:
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    return len(cur)


def _cut_strings(v: Any, limit_tokens: int) -> tuple[Any, int]:
    count = 0

    def walk(x: Any) -> Any:
        nonlocal count
        if isinstance(x, str) and estimate_tokens(x) > limit_tokens:
            count += 1
            return x[: limit_tokens * 2] + "…"
        if isinstance(x, dict):
            return {k: walk(y) for k, y in x.items()}
        if isinstance(x, list):
            return [walk(y) for y in x]
        return x

    return walk(v), count
