"""The Python client's webhook calls against the live server, and a delivery end to end: real
commits (no captured callbacks), the task sent on commit, the receiver on loopback."""

from __future__ import annotations

import time
from typing import Any

import pytest
from handover_client import Handover, NotFoundError

from tests.conftest import Key
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_delivery import verify

pytestmark = pytest.mark.django_db(transaction=True)


def test_manage_endpoints_and_replay_with_the_client(
    live_server: Any, operator_key_a: Key, key_b: Key, receiver: Receiver
) -> None:
    with Handover(api_key=operator_key_a.raw, base_url=live_server.url) as hv:
        hook = hv.create_webhook(receiver.url, ["fact.created"], description="CRM")
        assert hook.secret and hook.secret.startswith("whsec_")
        assert [h.id for h in hv.list_webhooks()] == [hook.id]
        assert hv.get_webhook(hook.id).secret is None
        hv.write_fact("priya", "city", "Pune", agent="advisor")
        deadline = time.monotonic() + 10
        while not receiver.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        event = verify(hook.secret, receiver.requests[0])
        assert event["type"] == "fact.created" and event["data"]["user"] == "priya"
        [delivery] = hv.list_webhook_deliveries(hook.id)
        assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 1, 200)
        replay = hv.replay_webhook_delivery(hook.id, delivery.id)
        assert replay.event_id == delivery.event_id
        rotated = hv.rotate_webhook_secret(hook.id)
        assert rotated.secret and rotated.secret != hook.secret
        assert hv.update_webhook(hook.id, active=False).active is False
        hv.delete_webhook(hook.id)
        with pytest.raises(NotFoundError) as missing:
            hv.get_webhook(hook.id)
        assert missing.value.code == "webhook_not_found"
    assert len(receiver.requests) == 2
    assert receiver.requests[1].headers["webhook-id"] == receiver.requests[0].headers["webhook-id"]
