from __future__ import annotations

from typing import Any

import pytest

from tests.webhooks.receiver import receiver, receiver_b  # noqa: F401 (fixtures)


@pytest.fixture(autouse=True)
def _loopback_allowed(settings: Any) -> None:
    """The receiver is on 127.0.0.1: allowed here as a deployment would allow its own network.
    Retries at once (no backoff) so a test sees every attempt; tests of the rules turn it off."""
    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.WEBHOOK_RETRY_SECONDS = 0
    settings.WEBHOOK_TIMEOUT = 5
