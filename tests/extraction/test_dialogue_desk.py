"""The offline extractor on a supplies desk: what the agent tells, announces and reads back,
values said before the thing they are for, a correction that mends part of a value, and replies
that only echo the question. Conversation text in, facts out, on a schema written for these
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

TUE_SEP_8 = datetime.datetime(2026, 9, 8, 9, 0, tzinfo=datetime.UTC)

pytestmark = pytest.mark.django_db(transaction=True)

SUPPLIES: list[dict[str, Any]] = [
    {"key": "order_status", "description": "Status of each order, one fact per order number as "
     "written (order_status:SO-4410)", "category": "temporal", "type": "enum",
     "choices": ["placed", "packed", "dispatched", "delivered", "closed"]},
    {"key": "spend_cap", "description": "Most the customer will spend on this order",
     "category": "temporal", "type": "money", "examples": ["no more than 900 euro"]},
    {"key": "office_reopens", "description": "Day the customer's office is back open",
     "category": "temporal", "type": "date"},
    {"key": "seat", "description": "Seat each traveller wants on the shuttle, one fact per "
     "traveller (seat:Ines)", "category": "temporal", "type": "enum",
     "choices": ["window", "aisle", "no preference"]},
    {"key": "weekly_fee", "description": "Rental fee of each order, one fact per order number "
     "(weekly_fee:SO-4410)", "category": "temporal", "type": "money"},
    {"key": "collect_date", "description": "Day the customer collects each order, one fact "
     "per order number (collect_date:SO-4410)", "category": "temporal", "type": "date"},
    {"key": "return_date", "description": "Day each order is returned, one fact per order "
     "number (return_date:SO-4410)", "category": "temporal", "type": "date"},
    {"key": "pallets", "description": "Pallets on each order, one fact per order number "
     "(pallets:SO-4410)", "category": "temporal", "type": "number"},
    {"key": "callback", "description": "Phone number or extension to call the customer back on",
     "category": "temporal", "type": "string", "examples": ["ext. 2210"]},
    {"key": "delivery_address", "description": "Address orders are delivered to",
     "category": "temporal", "type": "string"},
    {"key": "receiver", "description": "Name and phone number of the person who signs for "
     "deliveries", "category": "temporal", "type": "string"},
]  # fmt: skip


@pytest.fixture
def desk(tenant_a: Tenant) -> Agent:
    return agent_create(tenant_id=tenant_a.pk, slug="supplies", name="S", schema_fields=SUPPLIES,
                        actor="t")  # fmt: skip


@pytest.fixture
def buyer(tenant_a: Tenant, desk: Agent) -> EndUser:
    user = EndUser.objects.create(tenant=tenant_a, external_id="sd-3")
    hot_document_load(agent=desk, end_user=user)
    return user


def test_what_the_agent_announces_it_does_holds_unless_refused(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "u:Hi, is SO-4410 on its way?", "a:SO-4410 is packed and leaves tonight.",
             "u:Ok.", "a:It arrived this morning, so I'll mark SO-4410 as delivered.",
             "u:Good, thanks.")  # fmt: skip
    assert current(buyer)["order_status:SO-4410"][0] == "delivered"


def test_a_read_back_is_what_the_agent_heard(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "What's the most you'd spend?", "Around 700 euro, maybe a bit more.",
             "Would 820 euro work for the premium chairs?", "Fine, let's say 850 euro tops.",
             "Got it, 850 euro cap. I'll look for chairs under that.", "Yes please.")  # fmt: skip
    assert current(buyer)["spend_cap"][0] == {"amount": 850, "currency": "EUR"}


def test_a_date_the_agent_tells_of_someone_else_dates_nothing_of_the_user(
    desk: Agent, buyer: EndUser
) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "When is your office open again?", "Back on Monday.",
             "Welcome back! The carrier changed its depot software on Friday.", "Ok.")  # fmt: skip
    assert current(buyer)["office_reopens"][0] == "2026-09-14"


def test_values_said_before_the_one_they_are_for(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "u:Two seats on the shuttle please, me and my colleague Tomas Berg. And Ines Roca.",
             "a:Window for Tomas, aisle for Ines, no preference for you. Booked.",
             "u:Perfect.")  # fmt: skip
    facts = current(buyer)
    assert facts["seat:Tomas"][0] == "window"
    assert facts["seat:Ines"][0] == "aisle"


def test_a_correction_mends_the_part_it_names(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "Where do we deliver?", "dock 3 harbour trade park, leith. no sorry, dock 5. 3 is the old one")  # fmt: skip
    assert current(buyer)["delivery_address"][0].lower() == "dock 5 harbour trade park, leith"


def test_a_reply_that_echoes_the_question_or_says_how_long_is_no_new_address(
    desk: Agent, buyer: EndUser
) -> None:
    converse(desk, buyer, TUE_SEP_8, "Where do we deliver?", "Unit 2, Canal Yard, Dundee.")
    converse(desk, buyer, TUE_SEP_8 + datetime.timedelta(days=1),
             "Same delivery address?", "same address yes",
             "Same address, Canal Yard?", "yes. 2 weeks")  # fmt: skip
    assert current(buyer)["delivery_address"][0] == "Unit 2, Canal Yard, Dundee"


def test_a_yes_then_news_does_not_answer_the_question(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "Is someone there to sign for deliveries before 9?",
             "yep. and bill it against PO 5521 as usual")  # fmt: skip
    assert "receiver" not in current(buyer)


def test_a_value_said_before_its_thing_was_named_is_the_only_things(
    desk: Agent, buyer: EndUser
) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "u:Can I rent a pallet truck?", "a:Yes, the pallet truck is 45 euro a week. Shall I book it?",
             "u:yes", "a:Booked as order SO-5120.", "u:thanks")  # fmt: skip
    assert current(buyer)["weekly_fee:SO-5120"][0] == {"amount": 45, "currency": "EUR"}


def test_each_date_goes_to_the_field_named_just_before_it(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "u:What do you have for SO-6001?",
             "a:I have booked SO-6001: collect on Friday 11 September, return on Monday 21 September.",
             "u:Great.",
             "a:SO-6001 is packed; the courier is usually late by a few days in autumn.",
             "u:ok")  # fmt: skip
    facts = current(buyer)
    assert facts["collect_date:SO-6001"][0] == "2026-09-11"
    assert facts["return_date:SO-6001"][0] == "2026-09-21"
    assert "pallets:SO-6001" not in facts  # "a few days" counts no pallets


def test_an_apology_is_no_correction(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8,
             "Where do we deliver?", "Unit 9, Mill Lane, Perth. sorry for the slow reply")  # fmt: skip
    assert current(buyer)["delivery_address"][0] == "Unit 9, Mill Lane, Perth"


def test_a_lead_in_written_with_a_stop_is_still_a_lead_in(desk: Agent, buyer: EndUser) -> None:
    converse(desk, buyer, TUE_SEP_8, "Anything else?", "Moved desks, ext is now 5531.")
    assert current(buyer)["callback"][0] == "5531"
