"""Exceptions: every API error carries the API's stable ``code`` (README: Errors)."""

from __future__ import annotations

from typing import Any


class HandoverError(Exception):
    """Base of everything this client raises."""


class TransportError(HandoverError):
    """The request did not get an HTTP answer: connection refused or reset, or a timeout.

    For a turn append, ``seq`` is the sequence number the client gave it: the turn may or may
    not be stored, so append the same turn again with ``seq=error.seq`` (exactly once).
    """

    seq: int | None = None


class RequestTimeoutError(TransportError):
    """No answer within the client's timeout."""


class APIError(HandoverError):
    """The API answered with an error: ``status``, ``code``, ``detail`` and ``fields``."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        fields: dict[str, list[str]] | None = None,
        request_id: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.fields = fields or {}
        self.request_id = request_id
        self.body = body


class InvalidRequestError(APIError):
    """400, 413, 415: bad input; nothing was written."""


class AuthenticationError(APIError):
    """401: missing, malformed, unknown or revoked API key."""


class PermissionDeniedError(APIError):
    """403: the key's role cannot do this."""


class NotFoundError(APIError):
    """404: no such object, or another tenant's (they look the same)."""


class ConflictError(APIError):
    """409: e.g. ``turn_conflict`` (this seq holds other content), ``run_open``."""


class RateLimitedError(APIError):
    """429 after the client's retries ran out; ``retry_after`` in seconds when the API said."""

    retry_after: float | None = None


class ServerError(APIError):
    """5xx after the client's retries ran out (or a 500, which is never retried)."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: InvalidRequestError,
    409: ConflictError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    429: RateLimitedError,
}


def error_for(status: int, body: Any, request_id: str | None) -> APIError:
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        code, detail, fields = body["code"], str(body.get("detail", "")), body.get("fields")
    else:
        code, detail, fields = f"http_{status}", str(body)[:500], None
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    return cls(status, code, detail, fields, request_id, body)
