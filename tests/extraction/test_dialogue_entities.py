"""The offline extractor on several things under one key, and the cues around them: people an
agent asks about ("your salary", "he earns …", "my wife sneha"), things that go by a code
("ticket INC-20417"), the thing a question names ("What was in the box?"), amounts said in
thousands, a date moved, a refusal that starts "Can't". Conversation text in, facts out, on
a schema written for these tests (a household-services desk)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from memory.models import EndUser, HotDocument
from memory.services import hot_document_load
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import Tenant
from tests.extraction.test_dialogue import _no_enqueue, converse, current  # noqa: F401 (autouse)

UTC = datetime.UTC
WED_JUN_3 = datetime.datetime(2026, 6, 3, 9, 0, tzinfo=UTC)  # a Wednesday
WED_JUN_17 = datetime.datetime(2026, 6, 17, 9, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db(transaction=True)

DESK: list[dict[str, Any]] = [
    {"key": "name", "description": "The customer's name", "category": "profile", "type": "string"},
    {"key": "household_income", "description": "Gross yearly income of each earner in the household, "
     "one fact per person (household_income:Name)", "category": "temporal", "type": "money"},
    {"key": "ticket_status", "description": "State of each repair ticket, one fact per ticket by its "
     "ticket number (ticket_status:RT-1001)", "category": "temporal", "type": "enum",
     "choices": ["open", "scheduled", "fixed", "closed"]},
    {"key": "delivery_status", "description": "State of each delivery, one fact per delivery named by "
     "what's in it (delivery_status:sofa)", "category": "temporal", "type": "enum",
     "choices": ["on the way", "delivered", "lost"]},
    {"key": "renovation_budget", "description": "The most the customer will spend on the renovation",
     "category": "temporal", "type": "money", "examples": ["we can't go above 40k"]},
    {"key": "visit_date", "description": "Date of the technician's visit", "category": "temporal",
     "type": "date"},
    {"key": "callout_fee", "description": "What the customer paid for a callout, to be refunded",
     "category": "temporal", "type": "money"},
    {"key": "pain_level", "description": "Pain from the accident on a 0-10 scale, one fact per body "
     "part (pain_level:knee)", "category": "temporal", "type": "number"},
]  # fmt: skip


@pytest.fixture
def desk(tenant_a: Tenant) -> Agent:
    return agent_create(tenant_id=tenant_a.pk, slug="desk", name="D", schema_fields=DESK, actor="t")


@pytest.fixture
def customer(tenant_a: Tenant, desk: Agent) -> EndUser:
    user = EndUser.objects.create(tenant=tenant_a, external_id="hh-42")
    hot_document_load(agent=desk, end_user=user)
    return user


def test_your_his_and_a_relation_name_the_person_a_per_person_value_is_about(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3,
             "Who am I speaking with?", "Hi, this is Nadia Brooks.",
             "What is your gross annual income?", "Seventy-one thousand pounds.",
             "Does anyone else earn in the household?", "My partner, Tomasz Nowak.",
             "What does he earn?", "He earns fifty-two thousand. Mine went up to seventy-four thousand in May.")  # fmt: skip
    facts = current(customer)
    assert facts["household_income:Nadia"][0] == {"amount": 74000, "currency": "GBP"}
    assert facts["household_income:Tomasz"][0] == {"amount": 52000, "currency": "GBP"}


def test_a_name_written_in_lower_case_after_a_relation_is_a_person(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3,
             "Who else is on the application?", "my husband farid. he works too",
             "What are your yearly incomes?", "mine is 9 lakh, husband is 14 lakh")  # fmt: skip
    facts = current(customer)
    assert facts["household_income:Farid"][0]["amount"] == 1400000


def test_things_that_go_by_a_code_and_the_agent_reporting_on_it(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3,
             "u:Hello, I'm chasing ticket RT-2207, the boiler one.",
             "a:RT-2207 is scheduled, the engineer comes on Friday.", "u:Ok thanks.",
             "u:And my neighbour's ticket is RT-2301 but that's not mine, ignore it.")  # fmt: skip
    facts = current(customer)
    assert facts["ticket_status:RT-2207"][0] == "scheduled"
    assert not any(key.startswith("ticket_status:rt") for key in facts)  # one spelling of a code


def test_the_thing_a_question_asks_about_is_the_one_a_later_status_is_about(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3,
             "u:the delivery says delivered but nothing came",
             "a:Sorry about that. What was in the delivery?", "u:a bookcase",
             "a:I've checked with the driver and marked the delivery as lost.", "u:ok")  # fmt: skip
    assert current(customer)["delivery_status:bookcase"][0] == "lost"


def test_a_bare_amount_under_a_thousand_is_in_thousands_where_the_field_counts_them(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3, "What's the most you'd spend on the renovation?", "35 tops")
    assert current(customer)["renovation_budget"][0]["amount"] == 35000


def test_a_date_moved_replaces_the_one_stored_and_cant_refuses_a_proposal(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3,
             "When should the technician come?", "Tuesday the 16th please.")  # fmt: skip
    assert current(customer)["visit_date"][0] == "2026-06-16"
    converse(desk, customer, WED_JUN_17,
             "Could the technician come this Friday instead?", "Can't this Friday, sorry.",
             "Noted.", "Actually my boss moved it, please move it to Monday the 22nd.")  # fmt: skip
    assert current(customer)["visit_date"][0] == "2026-06-22"


def test_the_summary_does_not_repeat_an_amount_said_bare(desk: Agent, customer: EndUser) -> None:
    converse(desk, customer, WED_JUN_3, "What did the callout cost you?", "60 pounds.")
    converse(desk, customer, WED_JUN_17, "Shall I refund the callout?",
             "Yes. Checked the receipt, it was 85 with parking, not 60.")  # fmt: skip
    assert current(customer)["callout_fee"][0] == {"amount": 85, "currency": "GBP"}
    block = HotDocument.objects.get(agent=desk, end_user=customer).stable_block
    assert "85 with parking" not in block  # the facts say it, with its history


@pytest.mark.parametrize(
    ("opening", "reply", "name"),
    [
        ("Harbour desk, Raj speaking.", "hi raj, kylie brennan here. the boiler is out", "Kylie Brennan"),
        ("Hi, I'm Dr Shalini. What's going on?", "Hi doc. Rahul Menon, the boiler is out.", "Rahul Menon"),
        ("IT desk, Jana speaking. What can I do for you?", "Tobias Wendt, data team. VPN drops.", "Tobias Wendt"),
        ("Good evening, how can I help?", "My name is Joost de Vries. The boiler is out.", "Joost de Vries"),
        ("Desk, how can I help?", "Yes. ThinkPad T14, gen 4. It is slow.", None),
    ],
)  # fmt: skip
def test_the_user_gives_their_name_the_ways_callers_do(
    desk: Agent, customer: EndUser, opening: str, reply: str, name: str | None
) -> None:
    converse(desk, customer, WED_JUN_3, opening, reply)
    assert current(customer).get("name", (None,))[0] == name


def test_a_later_greeting_by_first_name_keeps_the_full_name_and_ok_is_no_name(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3, "Who am I speaking with?", "Sudha Krishnan.")
    converse(desk, customer, WED_JUN_17,
             "u:Hello, Sudha again. Any news?", "a:Yes. Is that OK with you if we call later?",
             "u:yes of course")  # fmt: skip
    assert current(customer)["name"][0] == "Sudha Krishnan"


def test_what_the_agent_says_the_user_pays_is_the_last_amount_of_its_sum(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3, "u:How much is the callout?",
             "a:The callout is £90 list, so with your discount you pay £72. Anything else?", "u:ok thanks")  # fmt: skip
    assert current(customer)["callout_fee"][0] == {"amount": 72, "currency": "GBP"}


def test_a_field_kept_per_body_part_knows_every_body_part(desk: Agent, customer: EndUser) -> None:
    converse(desk, customer, WED_JUN_3, "How are you after the fall?",
             "Wrist is about 6 today. Shoulder better, 3 now.")  # fmt: skip
    facts = current(customer)
    assert facts["pain_level:wrist"][0] == 6
    assert facts["pain_level:shoulder"][0] == 3


def test_a_dollar_is_the_dollar_of_the_place_the_conversation_is_in(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3,
             "What can I help with?", "We're renovating our place in Brisbane, the kitchen mostly.",
             "What's the most you'd spend?", "We can't go above $40k. Our neighbours in Brisbane spent 60.",
             "And the callout fee you paid?", "It was $95.")  # fmt: skip
    facts = current(customer)
    assert facts["renovation_budget"][0] == {"amount": 40000, "currency": "AUD"}
    assert facts["callout_fee"][0] == {"amount": 95, "currency": "AUD"}


def test_a_dollar_stays_the_us_dollar_when_a_place_abroad_is_named_once_or_usd_is_said(
    desk: Agent, customer: EndUser
) -> None:
    converse(desk, customer, WED_JUN_3,
             "What can I help with?", "The kitchen. My sister in Toronto just redid hers.",
             "What's the most you'd spend?", "We can't go above $40k.")  # fmt: skip
    assert current(customer)["renovation_budget"][0] == {"amount": 40000, "currency": "USD"}
    converse(desk, customer, WED_JUN_17,
             "Where is the job?", "In Sydney. We moved to Sydney in May.",
             "And the callout fee?", "It was 95 USD, I paid it with my US card.")  # fmt: skip
    assert current(customer)["callout_fee"][0] == {"amount": 95, "currency": "USD"}
