"""HTTP forwarding to OpenAI-compatible upstreams (pooled httpx client) and status classification."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

from router.profile import ModelProfile


def classify(http_status: int) -> str:
    """Map an upstream HTTP status to the router's record status."""
    if 200 <= http_status < 300:
        return "ok"
    if http_status == 429:
        return "rate_limited"
    if http_status >= 500:
        return "server_error"
    return "client_error"


def retry_after(headers: httpx.Headers) -> float | None:
    raw = headers.get("retry-after")
    try:
        return float(raw) if raw is not None else None
    except ValueError:  # an HTTP date: not worth parsing, use the default cooldown
        return None


@dataclass
class UpstreamReply:
    status: str  # ok | rate_limited | server_error | client_error | timeout | connect_error
    http_status: int
    seconds: float
    data: dict[str, Any] | None = None
    body: bytes = b""
    retry_after_s: float | None = None
    error: str = ""
    response: httpx.Response | None = None  # open streaming response (status ok, stream=True)


class Forwarder:
    """One pooled ``httpx.AsyncClient`` per event loop that uses it; ``aclose()`` on shutdown."""

    def __init__(self, timeout_s: float = 30.0, *, keepalive_expiry_s: float = 4.0) -> None:
        self.timeout_s = timeout_s
        self._keepalive = keepalive_expiry_s  # below common upstream keep-alive (5 s)
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout_s, connect=min(5.0, self.timeout_s)),
                limits=httpx.Limits(
                    max_connections=512, max_keepalive_connections=128, keepalive_expiry=self._keepalive
                ),
            )
        return self._client

    @staticmethod
    def _headers(profile: ModelProfile, request_id: str | None) -> dict[str, str]:
        h = {"content-type": "application/json"}
        if profile.api_key_env and os.environ.get(profile.api_key_env):
            h["authorization"] = f"Bearer {os.environ[profile.api_key_env]}"
        if request_id:
            h["x-request-id"] = request_id
        return h

    async def send(
        self,
        profile: ModelProfile,
        body: dict[str, Any],
        *,
        stream: bool = False,
        request_id: str | None = None,
        timeout_s: float | None = None,
    ) -> UpstreamReply:
        """One try. ``timeout_s`` (default ``self.timeout_s``) bounds this try: connect, each read
        and the wait for the answer's headers, so a hung upstream frees the request for a fallback."""
        url = profile.endpoint.rstrip("/") + "/chat/completions"
        t0 = time.perf_counter()
        client = self._http()
        t = self.timeout_s if timeout_s is None else max(0.001, timeout_s)
        try:
            req = client.build_request(
                "POST",
                url,
                content=orjson.dumps(body),
                headers=self._headers(profile, request_id),
                timeout=httpx.Timeout(t, connect=min(5.0, t)),
            )
            # the whole try (headers, and the body when not streaming) within t, not t per read
            resp = await asyncio.wait_for(client.send(req, stream=stream), t)
        except TimeoutError:
            return UpstreamReply(
                "timeout", 504, time.perf_counter() - t0, error=f"timeout: no answer in {t:.3g}s"
            )
        except httpx.TimeoutException as exc:
            return UpstreamReply(
                "timeout", 504, time.perf_counter() - t0, error=f"timeout: {type(exc).__name__}"
            )
        except httpx.TransportError as exc:
            return UpstreamReply(
                "connect_error", 502, time.perf_counter() - t0, error=f"{type(exc).__name__}: {exc}"
            )
        status = classify(resp.status_code)
        if stream and status == "ok":
            return UpstreamReply(status, resp.status_code, time.perf_counter() - t0, response=resp)
        try:
            raw = await resp.aread() if stream else resp.content
        except httpx.TimeoutException:
            await resp.aclose()
            return UpstreamReply("timeout", 504, time.perf_counter() - t0, error="timeout reading body")
        except httpx.TransportError as exc:
            await resp.aclose()
            return UpstreamReply(
                "connect_error", 502, time.perf_counter() - t0, error=f"{type(exc).__name__}"
            )
        finally:
            if stream:
                await resp.aclose()
        data = None
        try:
            parsed = orjson.loads(raw) if raw else None
            data = parsed if isinstance(parsed, dict) else None
        except orjson.JSONDecodeError:
            if status == "ok":
                status = "server_error"
        seconds = time.perf_counter() - t0
        err = "" if status == "ok" else f"upstream answered HTTP {resp.status_code}"
        return UpstreamReply(status, resp.status_code, seconds, data, raw, retry_after(resp.headers), err)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
