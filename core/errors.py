"""Domain errors. Services and selectors raise these; ``api.exceptions`` maps them to HTTP.

Every error carries a stable machine ``code`` and a human ``detail``; ``fields`` maps input
places to messages where the input was at fault.
"""

from __future__ import annotations


class DomainError(Exception):
    code = "error"

    def __init__(
        self, detail: str, *, code: str | None = None, fields: dict[str, list[str]] | None = None
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        self.fields = fields


class NotFound(DomainError):
    """Also what another tenant's object looks like: it does not exist for you."""

    code = "not_found"


class Invalid(DomainError):
    code = "invalid"


class Conflict(DomainError):
    code = "conflict"


class Forbidden(DomainError):
    code = "forbidden"


def invalid(place: str, message: str, code: str = "invalid") -> Invalid:
    """The error for one bad input place: ``fields`` maps it to the message."""
    return Invalid(f"{place}: {message}", code=code, fields={place: [message]})
