"""The offline extractor reads dialogue: one pipeline test per phenomenon (conversation text in,
facts out), on a schema and conversations written for these tests (a removals company)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from extraction.models import ExtractionRun
from memory.models import EndUser, Entity, HotDocument, Turn
from memory.services import hot_document_load
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import Tenant
from tests.extraction.test_dialogue import converse, current

UTC = datetime.UTC
THU_MAY_7 = datetime.datetime(2026, 5, 7, 9, 0, tzinfo=UTC)  # a Thursday
MON_MAY_18 = datetime.datetime(2026, 5, 18, 9, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db(transaction=True)

REMOVALS: list[dict[str, Any]] = [
    {"key": "name", "description": "The customer's name", "category": "profile", "type": "string"},
    {"key": "destination_city", "description": "The city the customer is moving to",
     "category": "temporal", "type": "string"},
    {"key": "max_spend", "description": "The most the customer will pay for the move, the price ceiling",
     "category": "temporal", "type": "money", "examples": ["we can't go above 2,000"]},
    {"key": "move_date", "description": "The date of the move", "category": "temporal", "type": "date"},
    {"key": "rooms", "description": "How many rooms of furniture to move", "category": "temporal",
     "type": "number"},
    {"key": "storage_needed", "description": "Whether the customer needs storage", "category": "temporal",
     "type": "boolean"},
    {"key": "service_level", "description": "The removal package", "category": "temporal", "type": "enum",
     "choices": ["basic", "standard", "premium"]},
    {"key": "notice_period_days", "description": "Days of notice the landlord needs", "category": "temporal",
     "type": "number"},
    {"key": "account", "description": "A bank account the customer pays from, one fact per account type "
     "(account:savings, account:current), value: its last four digits", "category": "profile",
     "type": "string", "examples": ["my savings account ending 4821"]},
    {"key": "instalment", "description": "A monthly instalment taken from an account, one fact per account "
     "(instalment:savings)", "category": "temporal", "type": "money"},
    {"key": "child_age", "description": "The age in years of each child moving, one fact per child "
     "(child_age:Name)", "category": "profile", "type": "number"},
    {"key": "card_status", "description": "The state of each card, one fact per card (card_status:debit)",
     "category": "temporal", "type": "enum", "choices": ["active", "blocked"]},
]  # fmt: skip


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)


@pytest.fixture
def movers(tenant_a: Tenant) -> Agent:
    return agent_create(
        tenant_id=tenant_a.pk, slug="movers", name="M", schema_fields=REMOVALS, actor="t"
    )


@pytest.fixture
def customer(tenant_a: Tenant, movers: Agent) -> EndUser:
    user = EndUser.objects.create(tenant=tenant_a, external_id="cust-19")
    hot_document_load(agent=movers, end_user=user)
    return user


def timeline(user: EndUser, key: str) -> list[Any]:
    return list(
        Entity.objects.filter(end_user=user, key=key)
        .order_by("recorded_at")
        .values_list("value", flat=True)
    )


def test_a_short_reply_answers_the_question_the_agent_asked(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "Where are you moving to?", "Mostly Leeds, the flat's near the station.",
             "How many rooms of furniture?", "Four.")  # fmt: skip
    facts = current(customer)
    assert facts["destination_city"] == ("Leeds", "explicit")
    assert facts["rooms"] == (4, "explicit")


def test_a_value_without_the_fields_name_is_matched_by_its_description_and_examples(
    movers: Agent, customer: EndUser
) -> None:
    converse(
        movers, customer, THU_MAY_7, "Anything I should know?", "We can't go above £1,500 all in."
    )
    assert current(customer)["max_spend"] == ({"amount": 1500, "currency": "GBP"}, "explicit")


def test_typed_values_money_units_and_dates_relative_to_the_turn(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "When do you want to move?", "Next Wednesday if you can.",
             "What's your ceiling on price?", "1.2 lakh at most.",
             "And the landlord's notice?", "Three months notice, sadly.")  # fmt: skip
    facts = current(customer)
    assert facts["move_date"][0] == "2026-05-13"  # Thursday 7 May: next Wednesday is the 13th
    assert facts["max_spend"][0] == {"amount": 120000, "currency": "INR"}
    assert facts["notice_period_days"][0] == 90  # three months, in the field's days
    converse(movers, customer, MON_MAY_18, "Any change to the date?", "Push it to the 28th.")
    assert current(customer)["move_date"][0] == "2026-05-28"


def test_sources_confirmed_inferred_explicit_and_a_refused_proposal_writes_nothing(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "Shall I book the van for the 14th?", "Yes please, the 14th works.",
             "How many rooms?", "Maybe 3, I'll confirm once I've measured.",
             "Do you need storage?", "No, everything fits.",
             "Shall I put you on the premium package?", "Let me think about it first.")  # fmt: skip
    facts = current(customer)
    assert facts["move_date"] == ("2026-05-14", "confirmed")
    assert facts["rooms"] == (3, "inferred")
    assert facts["storage_needed"] == (False, "explicit")
    assert "service_level" not in facts
    refused = Entity.objects.filter(end_user=customer, key="service_level")
    assert not refused.exists()


def test_a_correction_in_the_same_turn_keeps_only_the_later_value(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "What budget should I work to?", "£1,500. Actually no, make that £1,800.")  # fmt: skip
    assert timeline(customer, "max_spend") == [{"amount": 1800, "currency": "GBP"}]


def test_someone_elses_numbers_write_nothing_and_the_run_says_why(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "How did you hear about us?", "My brother paid £3,000 for his move with you last year.")  # fmt: skip
    assert not Entity.objects.filter(end_user=customer, key="max_spend").exists()
    run = ExtractionRun.objects.filter(end_user=customer).latest("created_at")
    dropped = [e for e in run.explanations if e.get("outcome") == "not written"]
    assert any("someone else's" in e["detail"] and "3000" in e["value"] for e in dropped), (
        run.explanations
    )


def test_qualifiers_and_a_reference_to_the_other_one(movers: Agent, customer: EndUser) -> None:
    converse(movers, customer, THU_MAY_7,
             "Which accounts will you pay from?",
             "I have a savings account ending 4821 and a current account ending 9035.",
             "How should we split the payments?", "Take 5,000 a month from the savings account.",
             "Anything else?", "Yes, do the same for the other account.")  # fmt: skip
    facts = current(customer)
    assert facts["account:savings"][0] == "4821"
    assert facts["account:current"][0] == "9035"
    assert facts["instalment:savings"][0]["amount"] == 5000
    assert facts["instalment:current"][0]["amount"] == 5000


def test_one_fact_per_child_by_name(movers: Agent, customer: EndUser) -> None:
    converse(movers, customer, THU_MAY_7,
             "Who's moving with you?", "My two kids, Aditi and Vihaan.",
             "How old are they?", "Aditi is 7 and Vihaan just turned 3.")  # fmt: skip
    facts = current(customer)
    assert facts["child_age:Aditi"][0] == 7
    assert facts["child_age:Vihaan"][0] == 3


def test_what_the_agent_reports_is_recorded_from_its_turn_only(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "u:I lost my debit card on the train, please stop it.",
             "a:I've blocked your debit card now.", "u:Thanks.")  # fmt: skip
    fact = Entity.objects.get(end_user=customer, key="card_status:debit", status="active")
    assert fact.value == "blocked"
    assert [t["seq"] for t in fact.source_turns] == [2]  # the agent's report, not the "Thanks."


def test_the_explanation_of_each_fact_is_kept_on_the_run(movers: Agent, customer: EndUser) -> None:
    converse(movers, customer, THU_MAY_7, "How many rooms?", "Five.")
    run = ExtractionRun.objects.filter(end_user=customer).latest("created_at")
    written = [e for e in run.explanations if e["key"] == "rooms"]
    assert written[0]["outcome"] == "written" and written[0]["value"] == "5"
    assert written[0]["why"]["answers"].startswith("question names")  # the cue that decided it
    assert [t["seq"] for t in written[0]["turns"]] == [1, 2]


def test_the_summary_never_states_a_corrected_amount_as_current(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "What's the most you'd spend?", "1.5 lakh. Actually no, 1.8 lakh, we have a piano.")  # fmt: skip
    block = HotDocument.objects.get(agent=movers, end_user=customer).stable_block
    assert "₹1.8 lakh" in block or "1,80,000" in block or "180000" in block
    assert "1.5 lakh" not in block


def test_the_run_inspector_shows_why_each_fact_was_written_and_what_was_not(
    movers: Agent, customer: EndUser, operator_a: Any
) -> None:
    from django.test import Client

    converse(movers, customer, THU_MAY_7,
             "How many rooms?", "Five. My neighbour moved six rooms last week.")  # fmt: skip
    run = ExtractionRun.objects.filter(end_user=customer).latest("created_at")
    client = Client()
    client.force_login(operator_a)
    page = client.get(f"/admin/extraction/extractionrun/{run.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode().replace("Why each", "why each")
    assert "why each fact" in html
    assert "<td>rooms</td><td>5</td><td>explicit</td><td>written</td>" in html
    assert "answers: question names" in html  # the cue that decided it
    assert "someone else&#x27;s" in html and "not written" in html  # the neighbour's six rooms


def test_either_or_questions_and_spoken_numbers(movers: Agent, customer: EndUser) -> None:
    converse(movers, customer, THU_MAY_7,
             "Will you need storage, or is it a straight move?", "A straight move, thankfully.",
             "How many rooms of furniture?", "Two and a half, the box room barely counts.")  # fmt: skip
    facts = current(customer)
    assert facts["storage_needed"] == (False, "explicit")
    assert facts["rooms"][0] == 2.5


def test_a_value_the_user_asks_for_is_written_when_the_agent_takes_it_up(
    movers: Agent, customer: EndUser
) -> None:
    converse(movers, customer, THU_MAY_7,
             "We could move you on Friday.", "Could we do Monday instead?",
             "Monday the 11th works, I've booked the van.", "Great, thanks.")  # fmt: skip
    fact = Entity.objects.get(end_user=customer, key="move_date", status="active")
    assert fact.value == "2026-05-11" and fact.source == "explicit"
    assert [t["seq"] for t in fact.source_turns] == [2, 3]  # the user's question, the agent's yes
    converse(movers, customer, MON_MAY_18,
             "Anything else?", "Could you do the 20th instead?",
             "Sorry, the 20th is fully booked.", "Ok, never mind.")  # fmt: skip
    assert current(customer)["move_date"][0] == "2026-05-11"  # refused: nothing written


@pytest.mark.parametrize(
    ("when", "offset"),
    [
        ("2026-05-07T08:10:00+10:00", 600),  # Sydney's Thursday morning: UTC's Wednesday
        ("2026-05-07T21:30:00-05:00", -300),  # Chicago's Thursday night: UTC's Friday
        ("2026-05-07T12:00:00+00:00", 0),
    ],
)
def test_relative_dates_are_read_on_the_users_own_day(
    movers: Agent, customer: EndUser, when: str, offset: int
) -> None:
    converse(movers, customer, datetime.datetime.fromisoformat(when),
             "When do you want to move?", "Tomorrow, first thing.")  # fmt: skip
    assert current(customer)["move_date"][0] == "2026-05-08"  # the day after the user's Thursday
    assert Turn.objects.filter(end_user=customer, role="user").get().utc_offset == offset
