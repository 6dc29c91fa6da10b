"""Typed router errors; the gateway turns each into a 4xx with the same ``type``."""

from __future__ import annotations


class RouterError(ValueError):
    """Base class: ``status`` is the HTTP status the gateway answers, ``type`` the error type."""

    status = 400
    type = "invalid_request"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message, self.field = message, field


class InvalidRequest(RouterError):
    status, type = 400, "invalid_request"


class UnknownModel(RouterError):
    status, type = 404, "unknown_model"


class ContextTooLarge(RouterError):
    status, type = 400, "context_length_exceeded"
