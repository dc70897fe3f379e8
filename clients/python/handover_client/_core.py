"""What the sync and async clients share: building calls, retry decisions, parsing answers."""

from __future__ import annotations

import datetime
import email.utils
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx2

from handover_client.errors import (
    APIError,
    RateLimitedError,
    RequestTimeoutError,
    TransportError,
    error_for,
)

T = TypeVar("T")

__version__ = "0.1.0"
USER_AGENT = f"handover-client-python/{__version__}"

# 429: the server refused before doing anything; 503: not ready or overloaded (a proxy or
# /readyz). Both are safe to repeat for any call. 502/504 may come after the work was done, so
# only idempotent calls repeat them.
RETRY_ALWAYS = frozenset({429, 503})
RETRY_IF_IDEMPOTENT = frozenset({502, 504})


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    parse: Callable[[Any, int], T]
    json: Any = None
    params: dict[str, Any] | None = None
    idempotent: bool = True
    """Safe to send again when the outcome is unknown (read timeout, 502/504)."""
    answers: frozenset[int] = frozenset()
    """Error statuses that are an answer here (``/readyz``'s 503): parsed, never retried."""
    stream: bool = False
    """A long answer (the export): read without a read timeout."""


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    backoff: float = 0.25
    """First delay in seconds; doubles per retry, with jitter."""
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    """A ``Retry-After`` longer than this is not waited for: the error is raised."""

    def delay(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before retry number ``attempt`` (1-based), or None to give up."""
        if attempt > self.max_retries:
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after else None
        ceiling = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def segment(value: str) -> str:
    # User ids may hold slashes (org/42): the routes accept them, so they stay as they are.
    return quote(value, safe="/")


def iso(value: datetime.datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if value.tzinfo is None:
        raise ValueError("times must be timezone-aware (e.g. datetime.now(datetime.UTC))")
    return value.isoformat()


def clean(body: dict[str, Any]) -> dict[str, Any]:
    """Leave out arguments that were not given, so the API applies its defaults."""
    return {k: v for k, v in body.items() if v is not None}


def retry_after(response: httpx2.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def retry_delay_for_response(
    policy: RetryPolicy, call: Call[Any], response: httpx2.Response, attempt: int
) -> float | None:
    status = response.status_code
    if status in call.answers:
        return None
    if status in RETRY_ALWAYS or (status in RETRY_IF_IDEMPOTENT and call.idempotent):
        return policy.delay(attempt, retry_after(response))
    return None


def retry_delay_for_error(
    policy: RetryPolicy, call: Call[Any], error: httpx2.TransportError, attempt: int
) -> float | None:
    # Never connected (or never got a pooled connection): the server saw nothing.
    unsent = isinstance(error, httpx2.ConnectError | httpx2.ConnectTimeout | httpx2.PoolTimeout)
    if unsent or call.idempotent:
        return policy.delay(attempt, None)
    return None


def transport_error(error: httpx2.TransportError, call: Call[Any]) -> TransportError:
    cls = RequestTimeoutError if isinstance(error, httpx2.TimeoutException) else TransportError
    return cls(f"{call.method} {call.path}: {type(error).__name__}: {error}")


def parse(call: Call[T], response: httpx2.Response) -> T:
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = response.text
    if response.status_code >= 400 and response.status_code not in call.answers:
        error: APIError = error_for(
            response.status_code, body, response.headers.get("X-Request-ID")
        )
        if isinstance(error, RateLimitedError):
            error.retry_after = retry_after(response)
        raise error
    return call.parse(body, response.status_code)


class SeqCounter:
    """The next turn ``seq`` of each session this client opened or appended to.

    A seq is taken before the request is sent, so concurrent appends never share one; a seq the
    server refused outright is given back when nothing was taken after it (a gap is harmless).
    """

    def __init__(self) -> None:
        self._next: dict[str, int] = {}
        self._lock = threading.Lock()

    def known(self, session_id: str) -> bool:
        return session_id in self._next

    def start(self, session_id: str, next_seq: int) -> None:
        with self._lock:
            self._next[session_id] = max(self._next.get(session_id, 1), next_seq)

    def take(self, session_id: str, count: int = 1) -> int | None:
        with self._lock:
            first = self._next.get(session_id)
            if first is None:
                return None
            self._next[session_id] = first + count
            return first

    def give_back(self, session_id: str, first: int, count: int = 1) -> None:
        with self._lock:
            if self._next.get(session_id) == first + count:
                self._next[session_id] = first

    def saw(self, session_id: str, seq: int) -> None:
        self.start(session_id, seq + 1)
