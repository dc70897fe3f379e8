"""What a value is for when two of a kind share a sentence ("my limit is X and I'd like it
raised to Y"), an event said without the field's word ("the pipe burst … the day before
yesterday"), "not right now" to an offer, someone else's name asked for, a weak day that would
replace a held one, "same day" for a date, people listed instead of counted, a value put in
place of the agent's proposal citing the reply alone, the agent's read-back or instruction as
no new source, and values a field cannot hold (issue 15: question → answer, corrections,
supersession, sources, distractors, qualifiers, relative dates). Written from the sixteenth
session's development suite misses, in other words and domains than theirs."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from extraction.extractors import FactCandidate, Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor
from tests.extraction.dialogue import dialogue_facts

T = datetime.datetime(2027, 3, 10, 10, 0, tzinfo=datetime.UTC)  # a Wednesday
_facts = functools.partial(dialogue_facts, start=T, user="Ruth Adams", agent="Kofi")


def _field(key: str, type_: str, description: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **more}


def _candidates(turns: list[tuple[str, str]], fields: list[dict[str, Any]],
                known: dict[str, str] | None = None) -> list[FactCandidate]:  # fmt: skip
    window = [
        WindowTurn(i, "s", i + 1, "user" if r == "u" else "assistant", t,
                   T + datetime.timedelta(minutes=i), "Ruth Adams" if r == "u" else "Kofi",
                   "Kofi" if r == "u" else "Ruth Adams")
        for i, (r, t) in enumerate(turns)
    ]  # fmt: skip
    return RulesExtractor().extract_facts(window, fields, Usage(), known)


OVERDRAFT = [
    _field("overdraft_limit", "money", "The account's current arranged overdraft"),
    _field("requested_overdraft", "money", "The overdraft the customer asks for",
           examples=["could you take it up to 800"]),
    _field("text_alerts", "boolean", "Whether the customer gets text alerts for low balance"),
]  # fmt: skip
HOME_CLAIM = [
    _field("loss_date", "date", "The date of the damage to the home"),
    _field("claim_amount", "money", "The amount claimed for the repairs"),
]
SPORTS = [
    _field("member_name", "string", "The member's name, the adult on the account"),
    _field(
        "junior_grade",
        "number",
        "The grade each junior plays at, one fact per junior (junior_grade:Name)",
    ),
    _field("goal_handicap", "number", "The golf handicap the member aims for"),
]
LESSONS = [_field("test_date", "date", "The date of the learner's driving test")]
CLINIC = [
    _field("allergy", "string", "An allergy of each child, one fact per child (allergy:Name)",
           examples=["allergic to penicillin"]),
    _field("checkup_date", "date", "The date of each child's check-up, one fact per child "
           "(checkup_date:Name)"),
]  # fmt: skip
CHILD_AGE = [_field("child_age", "number", "The age of each child, one fact per child (child_age:Name)")]  # fmt: skip
FLAT = [
    _field("occupants", "number", "How many people will live in the flat"),
    _field("has_pets", "boolean", "Whether the tenant will keep pets in the flat"),
    _field("bedrooms", "number", "How many bedrooms the tenant needs"),
    _field("city", "string", "The city the tenant wants to live in"),
    _field("max_rent", "money", "The most the tenant will pay a month"),
    _field("vet", "string", "The vet the tenant prefers", examples=["Dr Shah"]),
]  # fmt: skip
PERMIT = [_field("permit_status", "enum", "Where the tenant's parking permit application stands",
                 choices=["not started", "applied", "granted"])]  # fmt: skip
TRIP = [
    _field(
        "destination",
        "string",
        "Where the trip goes",
        examples=["going to Lisbon", "a week in Kerala"],
    ),
    _field("travellers", "number", "How many people are travelling, the user included"),
]
PHARMACY = [_field("medicine", "string", "A medicine the patient takes, one fact per medicine "
                   "(medicine:metformin), value: the dose and how often")]  # fmt: skip


def test_the_held_value_and_the_one_asked_for_in_one_sentence() -> None:
    said = "My overdraft is £500 right now and I'd like it raised to £1,000."
    assert _facts([("a", "How can I help?"), ("u", said)], OVERDRAFT) == {
        "overdraft_limit": {"amount": 500, "currency": "GBP"},
        "requested_overdraft": {"amount": 1000, "currency": "GBP"},
    }
    said += " Actually, make that £900."
    assert _facts([("a", "How can I help?"), ("u", said)], OVERDRAFT)["requested_overdraft"] == {
        "amount": 900, "currency": "GBP"}  # fmt: skip


def test_not_right_now_turns_an_offer_down() -> None:
    for said in ("Not right now, thanks.", "Not at the moment, I check the app anyway."):
        assert _facts([("a", "Shall I switch on text alerts for a low balance?"), ("u", said)],
                      OVERDRAFT) == {"text_alerts": False}, said  # fmt: skip


def test_an_event_without_the_fields_word_and_the_day_before_yesterday() -> None:
    said = "A pipe burst and flooded the kitchen day before yesterday."
    assert _facts([("a", "What happened?"), ("u", said)], HOME_CLAIM) == {"loss_date": "2027-03-08"}
    said = "Our car got rear-ended yesterday, nobody hurt."  # no date field's word either
    assert _facts([("a", "What happened?"), ("u", said)], HOME_CLAIM) == {"loss_date": "2027-03-09"}


def test_someone_elses_name_asked_for_is_not_the_members() -> None:
    turns = [("a", "Member's name?"), ("u", "Ruth Adams."), ("a", "Junior's name and grade?"),
             ("u", "Toby, grade 4.")]  # fmt: skip
    assert _facts(turns, SPORTS) == {"member_name": "Ruth Adams", "junior_grade:Toby": 4}


def test_a_goal_is_what_is_aimed_for() -> None:
    assert _facts([("a", "What's your goal for the season?"), ("u", "12, ideally.")], SPORTS) == {
        "goal_handicap": 12
    }


def test_a_day_said_in_passing_does_not_replace_the_held_one() -> None:
    known = {"test_date": "2027-04-22"}
    said = "Did an hour of practice on Saturday, parallel parking is better."
    assert _facts([("a", "How's it going?"), ("u", said)], LESSONS, known) == {}
    said = "They moved my test to the 29th."  # a word of moving it still does
    assert _facts([("a", "How's it going?"), ("u", said)], LESSONS, known) == {
        "test_date": "2027-04-29"
    }


def test_same_day_copies_a_date_not_the_last_thing_said() -> None:
    turns = [("a", "Any allergies for either?"), ("u", "Leo is allergic to penicillin. Mia has none."),
             ("a", "Shall I book Leo's check-up for the 18th?"), ("u", "Yes please."),
             ("a", "And Mia's check-up?"), ("u", "Same day for her too, one trip.")]  # fmt: skip
    facts = _facts(turns, CLINIC)
    assert facts.get("allergy:Mia") != "allergic to penicillin"
    assert facts["checkup_date:Leo"] == facts["checkup_date:Mia"] == "2027-03-18"


def test_a_count_of_children_is_no_childs_age() -> None:
    said = "I've got three kids with you, Sam and the twins."
    assert _facts([("a", "How can I help?"), ("u", said)], CHILD_AGE) == {}


def test_people_listed_instead_of_counted_and_a_pet_of_ones_own() -> None:
    asked = "How many people will live there?"
    assert _facts([("a", asked), ("u", "Just me and my cat, Pickle.")], FLAT) == {
        "occupants": 1,
        "has_pets": True,
    }
    assert _facts([("a", asked), ("u", "Me, my partner and our two boys.")], FLAT) == {
        "occupants": 4
    }
    said = "My neighbour's cat sleeps on our doorstep."  # someone else's
    assert "has_pets" not in _facts([("a", "Anything else?"), ("u", said)], FLAT)


def test_a_plan_with_its_party_said_after_it() -> None:
    said = "We're thinking Crete in May, me and my husband."
    assert _facts([("a", "What are you planning?"), ("u", said)], TRIP)["travellers"] == 2


def test_a_value_in_place_of_the_proposal_cites_the_reply_alone() -> None:
    turns = [("a", "Would you like Dr Patel? She has a slot on Friday."),
             ("u", "I'd rather wait for Dr Shah, he knows Pickle.")]  # fmt: skip
    (fact,) = [c for c in _candidates(turns, FLAT) if c.key == "vet"]
    assert fact.value == "Dr Shah" and [t["seq"] for t in fact.source_turns] == [2]


def test_the_agent_reading_back_the_users_value_is_no_confirmation() -> None:
    turns = [("a", "What's your rent ceiling?"), ("u", "£1,400 a month, tops."),
             ("a", "Noted, £1,400 a month. I'll look for two-bedroom flats."), ("u", "Great.")]  # fmt: skip
    facts = [c for c in _candidates(turns, FLAT) if c.key == "max_rent"]
    assert [(f.value["amount"], f.source) for f in facts] == [(1400, "explicit")]


def test_an_instruction_is_no_status_and_not_started_said_as_havent() -> None:
    turns = [("a", "Have you applied for the parking permit?"), ("u", "Not yet, haven't started."),
             ("a", "Please apply soon, the council is slow."), ("u", "Will do.")]  # fmt: skip
    assert _facts(turns, PERMIT) == {"permit_status": "not started"}


def test_last_week_is_a_time_not_a_destinations_lead_in() -> None:
    said = "Booked it last week at STA Travel, all paid."
    assert "destination" not in _facts([("a", "How's the planning?"), ("u", said)], TRIP)


def test_values_a_field_cannot_hold() -> None:
    turns = [("a", "The three-bedroom at 2.05 crore fits. Would 2.05 work for you?"),
             ("u", "Okay, fine.")]  # fmt: skip
    assert "bedrooms" not in _facts(turns, FLAT, {"bedrooms": "3"})
    turns = [("a", "Any streets you like?"), ("u", "Yes, maybe Hill Road if it's quiet.")]
    assert "city" not in _facts(turns, FLAT, {"city": "Mumbai"})


def test_a_two_word_medicine_and_thousands_in_its_dose() -> None:
    said = "Just vitamin D, 20,000 units once a week."
    assert _facts([("a", "Any other medicines?"), ("u", said)], PHARMACY) == {
        "medicine:vitamin d": "20,000 units once a week"
    }


def test_a_fare_in_indian_grouping_is_no_count_of_travellers() -> None:
    turns = [("a", "Your PNR is 7K2QX, fare 1,24,600 for two."), ("u", "Okay noted.")]
    assert _facts(turns, TRIP, {"travellers": "2"}) == {}


SURGERY = [
    _field("appointment_date", "date", "Date of the patient's booked appointment"),
    _field("symptom_start_date", "date", "Date the patient's symptoms began"),
    _field("years_smoked", "number", "How many years the patient has smoked in total"),
]
HOTEL = [
    _field("guests", "number", "Number of guests staying"),
    _field("breakfast", "boolean", "Whether breakfast is added to the booking"),
]
WANTS = [_field("monthly_payment", "money", "The direct debit the customer wants to pay each month")]  # fmt: skip


def test_a_day_gone_by_and_a_slot_offered_beside_it() -> None:
    said = "I've had a rash since last Thursday."
    assert _facts([("u", said)], SURGERY) == {"symptom_start_date": "2027-03-04"}
    turns = [("a", "I can offer Monday the 15th at 9:20, would that work?"), ("u", "Yes, perfect.")]
    assert _facts(turns, SURGERY) == {"appointment_date": "2027-03-15"}  # not when it began
    said = "The storm on Sunday night ripped half the tiles off."  # its past verb after it
    assert _facts([("a", "What happened?"), ("u", said)], HOME_CLAIM) == {"loss_date": "2027-03-07"}


def test_a_whole_before_its_part_and_guests_by_age() -> None:
    turns = [("a", "How many years have you smoked?"), ("u", "Twenty in all, ten of them heavily.")]
    assert _facts(turns, SURGERY) == {"years_smoked": 20}
    for said, n in (("Two adults and our 8-year-old.", 3), ("Two adults and two 5-year-olds.", 4)):
        assert _facts([("a", "How many guests?"), ("u", said)], HOTEL) == {"guests": n}, said


def test_put_off_is_not_turned_down_and_the_value_wanted_wins() -> None:
    turns = [("a", "Shall I add breakfast at £12 each?"), ("u", "Not right now, we might add it later.")]  # fmt: skip
    assert _facts(turns, HOTEL) == {}
    said = "I'm paying £95 a month and I'd like to drop it to £80."
    assert _facts([("u", said)], WANTS) == {"monthly_payment": {"amount": 80, "currency": "GBP"}}


def test_pets_of_ones_own_and_someone_elses() -> None:
    assert _facts([("u", "We've got a cat, Mochi, she's very quiet.")], FLAT) == {"has_pets": True}
    said = "My brother has two dogs but I don't have any pets."
    assert _facts([("u", said)], FLAT) == {"has_pets": False}
    turns = [("a", "Where do you live now?"), ("u", "Flat 3, 17 Queen's Road.")]
    assert "city" not in _facts(turns, FLAT)


REMOVALS = [
    _field("agreed_price", "money", "Price the customer agreed to pay for the job"),
    _field("bin_type", "enum", "Which bin was missed", choices=["general", "recycling", "garden"]),
    _field("form_status", "enum", "Status of the customer's application form",
           choices=["not_started", "in_progress", "submitted"]),
    _field("loan_amount", "money", "Amount the customer wants to borrow"),
    _field("property_value", "money", "Price or value of the property being bought"),
]  # fmt: skip


def test_someone_elses_bin_or_price() -> None:
    assert _facts([("u", "Next door's garden bin was missed too.")], REMOVALS) == {}
    turns = [("a", "Do you know roughly what you want to borrow?"),
             ("u", "Another firm offered me £150,000, but I'm not sure yet.")]  # fmt: skip
    assert "loan_amount" not in _facts(turns, REMOVALS)


def test_statuses_said_as_how_far_along() -> None:
    for said, status in (("Haven't even looked at it yet.", "not_started"),
                         ("It's half done, I just need to add the receipts.", "in_progress")):  # fmt: skip
        turns = [("a", "How's the application form going?"), ("u", said)]
        assert _facts(turns, REMOVALS) == {"form_status": status}, said
