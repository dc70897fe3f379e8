"""Standard Webhooks signing (https://www.standardwebhooks.com): pure functions, no ORM.

The secret is ``whsec_`` + base64 of 32 random bytes; the HMAC key is those bytes. A request
carries ``webhook-id`` (the event's id: the same on every retry and replay, so a receiver
drops repeats), ``webhook-timestamp`` (Unix seconds of this attempt: a receiver refuses old
ones, which stops a captured request being replayed later) and ``webhook-signature``:
``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">``, one per secret in force,
space-separated (two during a rotation's grace period).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any

SECRET_PREFIX = "whsec_"  # noqa: S105 (the format's prefix, not a secret)
SECRET_BYTES = 32


def secret_generate() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def body_bytes(payload: dict[str, Any]) -> bytes:
    """The request body: the same bytes for the same event on every attempt and replay."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def headers(
    *, secrets_in_force: list[str], msg_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "user-agent": "Handover-Webhooks/1",
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(
            signature(secret, msg_id, timestamp, body) for secret in secrets_in_force
        ),
    }
