"""The user's clock says the currency when nothing else does; digits that name an account or a
claim are no amount; a choice turned down is not chosen; the agent's sentence about someone else
is not the user's; a reading the agent gives by the field's own word replaces the held one; a
price closing a booking read back is the price agreed."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from tests.extraction.dialogue import dialogue_facts

ZONE = datetime.timezone
BANK: list[dict[str, Any]] = [
    {"key": "standing_instruction", "description": "A monthly auto-transfer set up on an account",
     "category": "temporal", "type": "money", "examples": ["move 25k every month into the RD"]},
    {"key": "monthly_income", "description": "The customer's monthly take-home income",
     "category": "temporal", "type": "money"},
    {"key": "settlement", "description": "What the insurer pays out on the claim",
     "category": "temporal", "type": "money"},
]  # fmt: skip
WORKSHOP: list[dict[str, Any]] = [
    {"key": "odometer", "description": "Latest odometer reading, the number as shown on the dash",
     "category": "temporal", "type": "number"},
    {"key": "approved_estimate", "category": "temporal", "type": "money",
     "description": "The quote for the current job that the customer has agreed to pay (total)"},
    {"key": "contact_preference", "description": "How the customer wants to hear from us",
     "category": "profile", "type": "enum", "choices": ["phone call", "text message", "email"]},
]  # fmt: skip


def _facts(turns: list[tuple[str, str]], fields: list[dict[str, Any]], hours: float = 0,
           known: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    start = datetime.datetime(2026, 3, 24, 11, 0, tzinfo=ZONE(datetime.timedelta(hours=hours)))
    return dialogue_facts(turns, fields, known, start=start, user="Sam Lee", agent="Divya")


@pytest.mark.parametrize(
    ("hours", "currency"),
    [(5.5, "INR"), (10, "AUD"), (13, "NZD"), (-5, "USD"), (-6, None), (1, None), (8, None)],
)
def test_an_amount_said_without_a_currency_takes_the_users_clocks(
    hours: float, currency: str | None
) -> None:
    turns = [("a", "How much should the standing instruction move?"), ("u", "25,000 every month.")]
    facts = _facts(turns, BANK[:1], hours)
    assert facts["standing_instruction"] == {"amount": 25000, "currency": currency}


def test_the_clock_comes_after_what_the_conversation_says() -> None:
    asked = ("a", "How much should the standing instruction move?")
    turns = [asked, ("u", "£400 a month, from my London account.")]
    assert _facts(turns, BANK[:1], 5.5)["standing_instruction"] == {
        "amount": 400,
        "currency": "GBP",
    }
    turns = [asked, ("u", "$400 a month.")]
    assert _facts(turns, BANK[:1], 10)["standing_instruction"] == {"amount": 400, "currency": "AUD"}


def test_digits_that_name_an_account_or_a_claim_are_no_amount() -> None:
    turns = [("a", "What standing instruction would you like?"),
             ("u", "25,000 monthly from savings ending 4821."),
             ("a", "So 25,000 monthly from the current account ending 9035 as well?"),
             ("u", "Yes, correct.")]  # fmt: skip
    facts = _facts(turns, BANK, 5.5)
    assert facts["standing_instruction"] == {"amount": 25000, "currency": "INR"}
    assert all(v["amount"] == 25000 for v in facts.values())  # never 4821 or 9035
    turns = [("a", "What did they settle at?"), ("u", "For claim 90114 they paid $2,360.")]
    assert _facts(turns, BANK, 10) == {"settlement": {"amount": 2360, "currency": "AUD"}}


def test_a_choice_turned_down_is_not_chosen() -> None:
    asked = ("a", "Want us to text you reminders?")
    for reply in ("text yes. dont call me at work", "Yes, but don't call me at work."):
        assert _facts([asked, ("u", reply)], WORKSHOP)["contact_preference"] == "text message"
    turns = [("a", "How should we reach you?"), ("u", "Email is fine, not text.")]
    assert _facts(turns, WORKSHOP)["contact_preference"] == "email"


def test_the_agents_sentence_about_someone_else_is_not_the_users() -> None:
    turns = [("u", "My buddy's truck is ticking, do you do diagnostics?"),
             ("a", "We do. He can call anytime."), ("u", "cool ill send him")]  # fmt: skip
    assert "contact_preference" not in _facts(turns, WORKSHOP)


def test_a_reading_the_agent_gives_by_the_fields_word_replaces_the_held_one() -> None:
    turns = [("a", "Your car's on the lift now. Mileage was 88,412 at check-in."), ("u", "ok")]
    assert _facts(turns, WORKSHOP, known={"odometer": "87000"})["odometer"] == 88412
    turns = [("a", "Our loan car has done 12,000 so far."), ("u", "ok")]
    assert "odometer" not in _facts(turns, WORKSHOP, known={"odometer": "87000"})


def test_a_price_closing_a_booking_read_back_is_the_price_agreed() -> None:
    turns = [("a", "Thursday at 8am, front pads and rotors, $412. Sound good?"), ("u", "yep")]
    assert _facts(turns, WORKSHOP, -4)["approved_estimate"] == {"amount": 412, "currency": "USD"}
    turns = [("a", "Thursday at 8am, front pads and rotors, $412. Sound good?"),
             ("u", "no, too much, just the pads")]  # fmt: skip
    assert "approved_estimate" not in _facts(turns, WORKSHOP, -4)


EVENT: list[dict[str, Any]] = [
    {"key": "event_date", "description": "Date of the event", "category": "temporal", "type": "date"},
    {"key": "body_weight_kg", "description": "Client's body weight, kg", "category": "temporal",
     "type": "number"},
    {"key": "meter_reading", "description": "The latest meter reading", "category": "temporal",
     "type": "number"},
    {"key": "employee_id", "description": "Staff ID, e.g. E10442", "category": "profile",
     "type": "string"},
    {"key": "consumer_number", "description": "The consumer number on the electricity bill",
     "category": "profile", "type": "string"},
]  # fmt: skip


def test_a_date_offered_before_the_held_one_is_a_step_on_the_way() -> None:
    turns = [("a", "I'll set up a tasting with the caterer. They have a slot a week on Saturday, at 1pm?"),
             ("u", "Yes, book it")]  # fmt: skip
    assert _facts(turns, EVENT, known={"event_date": "2026-09-12"}) == {}
    moved = [("a", "The venue had a cancellation: could we move it to a week on Saturday instead?"),
             ("u", "Yes, book it")]  # fmt: skip
    assert _facts(moved, EVENT, known={"event_date": "2026-09-12"}) == {"event_date": "2026-04-04"}


def test_by_how_much_is_not_how_much() -> None:
    turns = [("a", "How's it going?"), ("u", "I've lost 7 kilos since January!")]
    assert "body_weight_kg" not in _facts(turns, EVENT, known={"body_weight_kg": "94.6"})
    turns = [("a", "Weight?"), ("u", "87.8 kilos this morning")]
    assert _facts(turns, EVENT, known={"body_weight_kg": "94.6"})["body_weight_kg"] == 87.8


def test_a_number_that_names_counts_nothing_and_a_code_after_its_words_is_the_fields() -> None:
    turns = [
        ("a", "Do you already have a connection?"),
        ("u", "Yes, consumer number is 410012345678"),
    ]
    assert _facts(turns, EVENT, 5.5) == {"consumer_number": "410012345678"}
    turns = [("u", "Hi, Tom Fenwick here, staff number E44810. I handed my notice in today.")]
    assert _facts(turns, EVENT)["employee_id"] == "E44810"
    turns = [("u", "My neighbour's consumer number is 410098765432, can I complain for him?")]
    assert "consumer_number" not in _facts(turns, EVENT, 5.5)


PEOPLE: list[dict[str, Any]] = [
    {"key": "nationality", "description": "Passport nationality of the applicant",
     "category": "profile", "type": "string", "examples": ["Nigerian", "I'm from Brazil"]},
    {"key": "delivery_city", "description": "City or town the customer wants orders delivered to",
     "category": "temporal", "type": "string"},
    {"key": "next_visit", "description": "Date the car is booked into the workshop next",
     "category": "temporal", "type": "date"},
]  # fmt: skip


def test_a_code_is_no_city_and_a_wh_word_alone_replaces_nothing() -> None:
    turns = [("u", "Hi, my order OD4412 phone is showing shipped since 5 days, no update")]
    assert "delivery_city" not in _facts(turns, PEOPLE)
    turns = [("a", "And your nationality?"), ("u", "Nigerian."),
             ("a", "Where are you living at the moment?"), ("u", "In Leicester, near the university.")]  # fmt: skip
    assert _facts(turns, PEOPLE)["nationality"] == "Nigerian"


def test_a_day_the_user_cannot_do_is_not_booked() -> None:
    turns = [("a", "Can you bring it in Monday?"), ("u", "Monday I cannot, I have exam. Tuesday?"),
             ("a", "Tuesday the 31st, 9 o'clock, grand."), ("u", "Thanks")]  # fmt: skip
    assert _facts(turns, PEOPLE)["next_visit"] == "2026-03-31"


DESK: list[dict[str, Any]] = [
    {"key": "hardware_budget", "description": "What the manager approved for new hardware",
     "category": "temporal", "type": "money"},
    {"key": "policy_number", "description": "The customer's insurance policy number",
     "category": "profile", "type": "string"},
]  # fmt: skip


def test_a_number_said_as_a_code_is_never_an_amount_and_a_number_field_holds_digits() -> None:
    turns = [("a", "Do you have a ticket open?"), ("u", "yes i opened one last week, is the ticket 58812"),
             ("a", "I see 58812, it's still open. What budget did your manager approve?"),
             ("u", "1600 euros, approved yesterday")]  # fmt: skip
    assert _facts(turns, DESK)["hardware_budget"] == {"amount": 1600, "currency": "EUR"}
    turns = [("a", "I see 58812, it's still open in the queue, is the ticket about the laptop?"),
             ("u", "yes, the ticket 58812")]  # fmt: skip
    assert "hardware_budget" not in _facts(turns, DESK)
    turns = [("a", "What's your policy number?"), ("u", "the home one? let me find it")]
    assert "policy_number" not in _facts(turns, DESK)  # a number field's value has a digit


LEAVING: list[dict[str, Any]] = [
    {"key": "last_working_day", "description": "The employee's last working day",
     "category": "temporal", "type": "date"},
    {"key": "callback_date", "description": "When we call the employee back",
     "category": "temporal", "type": "date"},
]  # fmt: skip


def test_a_day_booked_for_another_occasion_is_not_the_fields() -> None:
    turns = [("a", "I'll book an exit interview for Tuesday at 2, is that okay?"),
             ("u", "Can't do Tuesday, I'm at an induction. Wednesday?"), ("a", "Wednesday the 25th at 2 then.")]  # fmt: skip
    assert "last_working_day" not in _facts(
        turns, LEAVING[:1], known={"last_working_day": "2026-04-24"}
    )
    turns = [("a", "When is your last day?"), ("u", "Friday the 24th of April.")]
    assert _facts(turns, LEAVING[:1])["last_working_day"] == "2026-04-24"
    turns = [("a", "Shall we call you back on Thursday?"), ("u", "Yes please")]
    assert _facts(turns, LEAVING[1:])["callback_date"] == "2026-03-26"


BUDGET: list[dict[str, Any]] = [
    {"key": "total_budget", "description": "Client's total budget for the whole event",
     "category": "temporal", "type": "money"},
]  # fmt: skip


def test_a_value_that_barely_names_its_field_is_written_when_the_agent_says_it_back() -> None:
    asked = ("a", "With 220 guests, I think you'll need £40k rather than £35k.")
    said = ("u", "ugh. his dad will chip in so we can go to 42")
    turns = [asked, said, ("a", "Brilliant, £42k gives us some breathing room."), ("u", "ok")]
    facts = _facts(turns, BUDGET, known={"total_budget": "£35,000"})
    assert facts["total_budget"] == {"amount": 42000, "currency": "GBP"}
    turns = [asked, said, ("a", "Lovely. Shall we look at caterers next?"), ("u", "ok")]
    assert "total_budget" not in _facts(turns, BUDGET, known={"total_budget": "£35,000"})


TUTORING: list[dict[str, Any]] = [
    {"key": "child_grade", "category": "temporal", "type": "number",
     "description": "School grade of each child as a number, one fact per child (child_grade:Name)",
     "examples": ["Riya is in class 3", "he's in Year 2"]},
    {"key": "hourly_budget", "description": "Most the parent will pay per hour of tutoring",
     "category": "temporal", "type": "money", "examples": ["we can't do more than 30 an hour"]},
]  # fmt: skip


def test_a_pronoun_of_an_example_names_no_field_and_a_rate_is_an_hourly_price() -> None:
    turns = [("a", "Did you get a chance to talk about Mr Okafor's new rate?"),
             ("u", "We did. We'll do 95 for him, he's worth it.")]  # fmt: skip
    facts = _facts(turns, TUTORING, -4, known={"hourly_budget": "$90", "child_grade:Emily": "10"})
    assert facts == {"hourly_budget": {"amount": 95, "currency": "USD"}}


def test_ill_come_in_myself_is_a_pickup() -> None:
    fields = [{"key": "fulfilment", "description": "How the patient gets their refills",
               "category": "temporal", "type": "enum", "choices": ["pickup", "delivery"]}]  # fmt: skip
    turns = [
        ("a", "Still delivering to you?"),
        ("u", "No, I'm back on my feet, I'll come in myself."),
    ]
    assert _facts(turns, fields, 10, known={"fulfilment": "delivery"}) == {"fulfilment": "pickup"}


def test_a_short_answer_corrected_in_the_next_sentence_is_the_correction() -> None:
    fields = [{"key": "preferred_days", "description": "Days the child is free for lessons",
               "category": "temporal", "type": "string", "examples": ["Mondays and Wednesdays"]}]  # fmt: skip
    turns = [("a", "Which days?"), ("u", "Tuesday. No, Thursday. Tuesday he has swimming.")]
    assert _facts(turns, fields) == {"preferred_days": "Thursday"}


INTAKE: list[dict[str, Any]] = [
    {"key": "employee_name", "description": "Employee's name", "category": "profile", "type": "string"},
    {"key": "employee_id", "description": "Staff ID, e.g. E10442", "category": "profile", "type": "string"},
    {"key": "consumer_number", "category": "profile", "type": "string",
     "description": "The consumer number printed on the electricity bill, digits only"},
    {"key": "pet_insurance", "description": "What insurance cover the owner has for their animals",
     "category": "profile", "type": "enum", "choices": ["none", "accident only", "lifetime"]},
]  # fmt: skip


def test_a_request_without_a_question_mark_is_asked_and_a_code_is_kept_as_the_field_asks() -> None:
    turns = [
        ("a", "Sorry for the trouble sir. Please share your consumer number."),
        ("u", "1120 4587 3321"),
    ]
    assert _facts(turns, INTAKE, 5.5) == {"consumer_number": "112045873321"}
    turns = [("a", "May I have your name and employee ID?"), ("u", "Lisa Chen, E31905.")]
    assert _facts(turns, INTAKE) == {"employee_name": "Lisa Chen", "employee_id": "E31905"}


def test_a_bare_no_to_a_question_about_a_field_with_a_none_choice_is_none() -> None:
    assert _facts([("a", "And do you have pet insurance?"), ("u", "Nope.")], INTAKE) == {
        "pet_insurance": "none"
    }
    assert _facts([("a", "Anything else I can help with?"), ("u", "Nope.")], INTAKE) == {}


PETS: list[dict[str, Any]] = [
    {"key": "weight_kg", "description": "Latest weight of each pet in kg, one fact per pet (weight_kg:<name>)",
     "category": "temporal", "type": "number"},
    {"key": "age_years", "description": "Age of each pet in years, one fact per pet (age_years:<name>)",
     "category": "profile", "type": "number"},
]  # fmt: skip


def test_a_bare_number_near_the_held_reading_is_the_new_reading() -> None:
    known = {"weight_kg:Biscuit": "37.6", "age_years:Biscuit": "6"}
    turns = [("a", "Hi Sarah, hi Biscuit! Hop on... 36.1. Great progress."), ("u", "yesss")]
    assert _facts(turns, PETS, 10, known=known) == {"weight_kg:Biscuit": 36.1}
    turns = [("a", "Hi Biscuit! We want to get him down to about 32 by Christmas."), ("u", "ok")]
    assert _facts(turns, PETS, 10, known=known) == {}  # aimed at, not read
    turns = [("a", "Hi Biscuit! The kennel takes 40, for dogs under 35 kilos only."), ("u", "ok")]
    assert _facts(turns, PETS, 10, known=known) == {}  # a capacity, a threshold
    turns = [("a", "Hi Biscuit! See you at 4.15 next week."), ("u", "ok")]
    assert _facts(turns, PETS, 10, known={"weight_kg:Biscuit": "4.0"}) == {}  # a time


def test_a_day_that_barely_names_its_field_is_written_when_the_agent_says_it_back_with_its_date() -> (
    None
):
    fields = [{"key": "settlement_date", "category": "temporal", "type": "date",
               "description": "Date the purchase settles / completes / registers, when the loan funds must be ready"}]  # fmt: skip
    said = ("u", "good. registration is fixed on coming monday")
    turns = [
        ("a", "Any news?"),
        said,
        ("a", "Monday the 30th, okay. I'll tell the bank."),
        ("u", "ok"),
    ]
    assert _facts(turns, fields, 5.5) == {"settlement_date": "2026-03-30"}
    turns = [("a", "Any news?"), said, ("a", "From Monday then, okay."), ("u", "ok")]
    assert _facts(turns, fields, 5.5) == {}  # said back without its day
    other = [("a", "Any news?"), ("u", "my interview with another firm is coming monday"),
             ("a", "Monday the 30th, good luck!")]  # fmt: skip
    assert _facts(other, fields, 5.5) == {}  # a day of another occasion
