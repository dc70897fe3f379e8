"""Python client for Handover, memory for LLM agents.

from handover_client import Handover

with Handover(api_key="hv_…", base_url="http://127.0.0.1:8000") as hv:
    session = hv.open_session("demo", "priya")
    hv.append_turn(session.session_id, "user", "My budget is 80 lakhs.")
    hits = hv.search("priya", "budget", agent="demo")
"""

from handover_client._core import RetryPolicy, __version__
from handover_client.client import AsyncHandover, Handover
from handover_client.errors import (
    APIError,
    AuthenticationError,
    ConflictError,
    HandoverError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    TransportError,
)
from handover_client.models import (
    Agent,
    Entity,
    Erasure,
    ExtractionRun,
    Fact,
    Forgotten,
    HistoryTurn,
    PackedContext,
    RecentTurn,
    Schema,
    SearchHit,
    SearchResult,
    Session,
    Turn,
    TurnBatch,
    TurnInput,
    TurnPage,
    TurnRemoved,
    TurnsCleared,
    Webhook,
    WebhookDelivery,
)

__all__ = [
    "APIError",
    "Agent",
    "AsyncHandover",
    "AuthenticationError",
    "ConflictError",
    "Entity",
    "Erasure",
    "ExtractionRun",
    "Fact",
    "Forgotten",
    "Handover",
    "HandoverError",
    "HistoryTurn",
    "InvalidRequestError",
    "NotFoundError",
    "PackedContext",
    "PermissionDeniedError",
    "RateLimitedError",
    "RecentTurn",
    "RequestTimeoutError",
    "RetryPolicy",
    "Schema",
    "SearchHit",
    "SearchResult",
    "ServerError",
    "Session",
    "TransportError",
    "Turn",
    "TurnBatch",
    "TurnInput",
    "TurnPage",
    "TurnRemoved",
    "TurnsCleared",
    "Webhook",
    "WebhookDelivery",
    "__version__",
]
