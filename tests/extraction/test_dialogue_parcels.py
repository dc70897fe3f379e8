"""The offline extractor on a parcel desk: a total said after its parts, a count that is not a
measure, a lead-in of function words that is no cue unless the field was asked about, and a
place described in a phrase. Conversation text in, facts out, on a schema written for these
tests."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from memory.models import EndUser
from memory.services import hot_document_load
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import Tenant
from tests.extraction.test_dialogue import _no_enqueue, converse, current  # noqa: F401 (autouse)

MON_MAR_2 = datetime.datetime(2026, 3, 2, 10, 0, tzinfo=datetime.UTC)

pytestmark = pytest.mark.django_db(transaction=True)

PARCELS: list[dict[str, Any]] = [
    {"key": "refund_amount", "description": "What the customer asks back for a damaged order",
     "category": "temporal", "type": "money", "examples": ["the lamp was worth 60 quid"]},
    {"key": "parcel_weight_kg", "description": "Weight of the parcel to collect", "category":
     "temporal", "type": "number"},
    {"key": "drop_spot", "description": "Where the courier may leave parcels if nobody's home",
     "category": "temporal", "type": "string",
     "examples": ["in the blue recycling box", "with the neighbour at no. 7"]},
]  # fmt: skip


@pytest.fixture
def desk(tenant_a: Tenant) -> Agent:
    return agent_create(tenant_id=tenant_a.pk, slug="parcels", name="P", schema_fields=PARCELS,
                        actor="t")  # fmt: skip


@pytest.fixture
def sender(tenant_a: Tenant, desk: Agent) -> EndUser:
    user = EndUser.objects.create(tenant=tenant_a, external_id="ps-7")
    hot_document_load(agent=desk, end_user=user)
    return user


def test_a_total_after_its_parts_is_the_value(desk: Agent, sender: EndUser) -> None:
    converse(desk, sender, MON_MAR_2,
             "What amount are you claiming?", "The shop says 380 euro for the screen.",
             "Shall I set the refund at 380 euros?",
             "Yes. Oh, and the charger is broken too, 45 euro. So together 425.")  # fmt: skip
    assert current(sender)["refund_amount"][0] == {"amount": 425, "currency": "EUR"}


def test_a_count_of_parcels_is_not_their_weight(desk: Agent, sender: EndUser) -> None:
    converse(desk, sender, MON_MAR_2,
             "How can I help?", "I'm waiting for two parcels, both show in transit since Monday.",
             "How heavy is the one to collect?", "About 4 kg.")  # fmt: skip
    facts = current(sender)
    assert facts["parcel_weight_kg"][0] == 4
    assert "drop_spot" not in facts  # "in transit" is no place to leave a parcel


def test_the_answer_to_where_is_the_phrase_said(desk: Agent, sender: EndUser) -> None:
    converse(desk, sender, MON_MAR_2,
             "Where should drivers leave parcels in future if you're out?",
             "behind the green bin by the side gate")  # fmt: skip
    assert current(sender)["drop_spot"][0] == "behind the green bin by the side gate"


def test_the_name_of_the_one_spoken_to_is_no_value(tenant_a: Tenant) -> None:
    from extraction.services import extraction_run_execute, extraction_run_request
    from memory.services import session_open
    from memory.services.turns import TurnIn, turn_append

    fields = [{"key": "occupation", "description": "The user's job or role", "category":
               "profile", "type": "string", "examples": ["I work as a Nurse"]}]  # fmt: skip
    agent = agent_create(tenant_id=tenant_a.pk, slug="chat", name="C", schema_fields=fields,
                         actor="t")  # fmt: skip
    user = EndUser.objects.create(tenant=tenant_a, external_id="ch-1")
    opened = session_open(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk,
                          metadata={"participants": {"user": "John", "assistant": "Maria"}})  # fmt: skip
    lines = [("assistant", "What do you do for work these days, John?"),
             ("user", "Maria, you know me! Still at the same place.")]  # fmt: skip
    turn_append(tenant_id=tenant_a.pk, session_id=opened.id, turns=[
        TurnIn(role, text, occurred_at=MON_MAR_2 + datetime.timedelta(minutes=i))
        for i, (role, text) in enumerate(lines)])  # fmt: skip
    run = extraction_run_request(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None and extraction_run_execute(run_id=run.pk) is not None
    assert "occupation" not in current(user)


def test_a_field_of_codes_takes_no_value_without_a_digit(tenant_a: Tenant) -> None:
    fields = [{"key": "callback_number", "description": "Where we can call the customer back",
               "category": "profile", "type": "string", "examples": ["ext. 3390", "+44 7700 900123"]}]  # fmt: skip
    agent = agent_create(
        tenant_id=tenant_a.pk, slug="it", name="I", schema_fields=fields, actor="t"
    )
    user = EndUser.objects.create(tenant=tenant_a, external_id="it-1")
    hot_document_load(agent=agent, end_user=user)
    converse(agent, user, MON_MAR_2, "What number can we call you back on?", "mm no, just email me")
    assert "callback_number" not in current(user)
    converse(agent, user, MON_MAR_2 + datetime.timedelta(days=1),
             "What number can we call you back on?", "+44 7700 900456")  # fmt: skip
    assert current(user)["callback_number"][0] == "+44 7700 900456"


def test_a_place_is_kept_as_the_examples_say_it_and_can_be_taken_back(
    desk: Agent, sender: EndUser
) -> None:
    converse(desk, sender, MON_MAR_2,
             "Anything else?", "if it comes and im out leave it in the letterbox, its small")  # fmt: skip
    assert current(sender)["drop_spot"][0] == "in the letterbox"
    converse(desk, sender, MON_MAR_2 + datetime.timedelta(days=2),
             "Should the driver leave it somewhere if you're out?",
             "Yes, please in the garage, the code is... no, better with the neighbour")  # fmt: skip
    assert current(sender)["drop_spot"][0] == "with the neighbour"
