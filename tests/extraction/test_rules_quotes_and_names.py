"""Prices the agent puts to the user, answers said unsurely or as "none", several named ones in
one breath, switches reported on or off, and places said as ordinal words. Written for these
tests (new wording, domains the suites do not have), not taken from any benchmark."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

CLINIC: list[dict[str, Any]] = [
    {"key": "pet", "description": "Each animal on the account, one fact per pet keyed by its name "
     "(pet:<name>). Value: species and breed", "category": "profile", "type": "string"},
    {"key": "diet", "description": "Food the pet is on, one per pet (diet:<name>)",
     "category": "temporal", "type": "string"},
    {"key": "treatment_estimate", "description": "Estimate for the current treatment, once the "
     "owner has agreed to it", "category": "temporal", "type": "money"},
]  # fmt: skip
REPAIRS: list[dict[str, Any]] = [
    {"key": "quote_ceiling", "description": "Most the customer will let us spend before we call",
     "category": "temporal", "type": "money"},
]  # fmt: skip
SHOP: list[dict[str, Any]] = [
    {"key": "order_total", "description": "Total of the order", "category": "temporal",
     "type": "money"},
]  # fmt: skip
SOLAR: list[dict[str, Any]] = [
    {"key": "budget", "description": "How much the customer is prepared to spend", "category":
     "temporal", "type": "money"},
    {"key": "install_status", "description": "Where the installation stands", "category":
     "temporal", "type": "enum", "choices": ["survey booked", "deposit paid", "installed"]},
]  # fmt: skip
TAX: list[dict[str, Any]] = [
    {"key": "dependents", "description": "Number of children or other dependants the client "
     "supports", "category": "profile", "type": "number"},
]  # fmt: skip
NURSERY: list[dict[str, Any]] = [
    {"key": "place", "description": "Where the child's nursery place stands, one fact per child "
     "(place:Maya)", "category": "temporal", "type": "enum",
     "choices": ["enquiry", "offered a place", "on waiting list"]},
]  # fmt: skip
PHARMACY: list[dict[str, Any]] = [
    {"key": "auto_refill", "description": "Whether refills are sent without asking",
     "category": "profile", "type": "boolean"},
]  # fmt: skip
HOME: list[dict[str, Any]] = [
    {"key": "floor", "description": "Which floor of the building the delivery goes to",
     "category": "profile", "type": "number"},
    {"key": "purchase_price", "description": "Price the client is paying for the property",
     "category": "temporal", "type": "money"},
    {"key": "salary", "description": "The client's annual salary", "category": "profile",
     "type": "money"},
    {"key": "mortgage_approved", "description": "Whether the mortgage is approved in principle",
     "category": "temporal", "type": "boolean"},
]  # fmt: skip
MON = datetime.datetime(2026, 11, 9, 10, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=MON, user="Sarah Lane", agent="Bec")


def test_a_price_the_agent_quotes_is_the_users_once_they_agree() -> None:
    turns = [("a", "Dr Patel would like to do bloods and an injection, $265 all up."),
             ("u", "Do whatever he needs")]  # fmt: skip
    assert _facts(turns, CLINIC) == {"treatment_estimate": {"amount": 265, "currency": "USD"}}


def test_a_quoted_price_not_agreed_to_writes_nothing() -> None:
    turns = [("a", "Together it will be around £320 for the X-ray and bloods."),
             ("u", "Hmm, let me think about it.")]  # fmt: skip
    assert _facts(turns, CLINIC) == {}


def test_a_price_is_no_ceiling_and_a_range_is_no_quote() -> None:
    assert _facts([("a", "The new valve comes to $1,740 in total."), ("u", "ok")], REPAIRS) == {}
    turns = [("a", "A new boiler is usually £2,000 to £3,000, so that's the ballpark."),
             ("u", "Ok, good to know.")]  # fmt: skip
    assert _facts(turns, SHOP) == {}


def test_the_total_beside_the_price_of_each() -> None:
    turns = [("a", "So that's two chairs at €740 each, €1,480 in total. Shall I go ahead?"),
             ("u", "Grand, go ahead so.")]  # fmt: skip
    assert _facts(turns, SHOP) == {"order_total": {"amount": 1480, "currency": "EUR"}}


def test_maybe_one_day_does_not_accept() -> None:
    turns = [("a", "The lifetime plan is worth a look, it's $30 a month in total."),
             ("u", "yeah maybe one day lol")]  # fmt: skip
    assert _facts(turns, SHOP) == {}


def test_an_answer_said_unsurely_with_a_question_mark() -> None:
    turns = [("a", "Have you got a rough figure in mind for the whole job?"),
             ("u", "Erm, maybe around 8k? I'll have to check with my husband.")]  # fmt: skip
    assert _facts(turns, SOLAR) == {"budget": {"amount": 8000, "currency": None}}


def test_none_answers_a_count_and_kids_count_as_children() -> None:
    asked = [("a", "Do you have any children or other dependants?"), ("u", "Nope, none.")]
    assert _facts(asked, TAX) == {"dependents": 0}
    said = [("u", "We had a baby in August, so that's three kids now.")]
    assert _facts(said, TAX, {"dependents": "2"}) == {"dependents": 3}


def test_several_named_ones_in_one_sentence_each_take_their_value() -> None:
    turns = [("a", "Which ones are we seeing?"),
             ("u", "Yep Biscuit's my chocolate lab and Pepper's the border collie, she's the skinny one")]  # fmt: skip
    assert _facts(turns, CLINIC) == {"pet:Biscuit": "chocolate lab", "pet:Pepper": "border collie"}


def test_how_a_named_one_is_doing_is_no_value() -> None:
    turns = [("u", "It's for Biscuit and Otis again."), ("a", "Any changes?"),
             ("u", "Biscuit's fine, thanks.")]  # fmt: skip
    assert _facts(turns, CLINIC) == {}


def test_a_child_named_at_the_start_of_a_sentence() -> None:
    facts = _facts(
        [("u", "So Maya's been offered a place, but Leo's on the waiting list.")], NURSERY
    )
    assert facts == {"place:Maya": "offered a place", "place:Leo": "on waiting list"}


def test_a_weekday_with_s_is_no_one() -> None:
    turns = [("a", "How was Sunday's 16k?"), ("u", "Done in 1:52, calf is tight since yesterday")]
    assert _facts(turns, NURSERY + TAX) == {}


def test_a_switch_the_agent_reports() -> None:
    on = [("u", "And the auto-refill, you can do it now."), ("a", "Done, auto-refill is on."),
          ("u", "Okay.")]  # fmt: skip
    assert _facts(on, PHARMACY) == {"auto_refill": True}
    off = [("a", "Understood, auto-refill is off. Anything else?"), ("u", "No, that's all")]
    assert _facts(off, PHARMACY, {"auto_refill": "true"}) == {"auto_refill": False}


def test_a_hoped_for_yes_is_no_yes() -> None:
    said = [("u", "I'll have the mortgage approval next week hopefully.")]
    assert _facts(said, HOME) == {}


def test_a_new_amount_knocked_down_to() -> None:
    said = [("u", "The survey found damp, so they've knocked it down to £398,500.")]
    facts = _facts(said, HOME, {"purchase_price": "£410,000"})
    assert facts == {"purchase_price": {"amount": 398500, "currency": "GBP"}}


def test_the_amount_of_another_thing_is_not_the_fields() -> None:
    said = [
        ("u", "I was making $68,000 a year, and now they're offering me a severance of $15,000.")
    ]
    assert _facts(said, HOME) == {"salary": {"amount": 68000, "currency": "USD"}}


def test_an_ordinal_word_answers_which_floor() -> None:
    assert _facts([("a", "And which floor are you on?"), ("u", "Fourth.")], HOME) == {"floor": 4}
    corrected = [("a", "Which floor?"), ("u", "Third, no, sorry, fourth. There's a lift.")]
    assert _facts(corrected, HOME) == {"floor": 4}


def test_statuses_said_in_other_words() -> None:
    said = [("u", "Just to let you know the panels went up on Friday, lovely tidy job.")]
    assert _facts(said, SOLAR, {"install_status": "deposit paid"}) == {
        "install_status": "installed"
    }


GYM: list[dict[str, Any]] = [
    {"key": "plan", "description": "Membership plan the member is on", "category": "temporal",
     "type": "enum", "choices": ["off-peak", "standard", "premium"]},
    {"key": "monthly_fee", "description": "Monthly fee the member pays", "category": "temporal",
     "type": "money"},
    {"key": "status", "description": "State of the member's account", "category": "temporal",
     "type": "enum", "choices": ["active", "paused", "cancelled", "lapsed"]},
    {"key": "first_session", "description": "Date of the first personal training session",
     "category": "temporal", "type": "date"},
    {"key": "photos_ok", "description": "Whether the member agrees to progress photos",
     "category": "profile", "type": "boolean"},
]  # fmt: skip
CONTACTS: list[dict[str, Any]] = [
    {"key": "emergency_contact", "description": "Name of the person to call if the owner can't "
     "be reached", "category": "profile", "type": "string"},
    {"key": "nursery_name", "description": "Name of the nursery the family has chosen",
     "category": "profile", "type": "string"},
    {"key": "finish", "description": "Wood finish the customer chose", "category": "profile",
     "type": "string"},
]  # fmt: skip
TUE = datetime.datetime(2026, 11, 17, 9, 0, tzinfo=datetime.UTC)
_on_tuesday = functools.partial(dialogue_facts, start=TUE, user="Sam Reid", agent="Kit")


def test_a_plan_and_its_price_said_together_are_both_agreed() -> None:
    turns = [("a", "Premium's £54.99 a month, that includes the pool."),
             ("u", "Yeah that's fine, sign me up for that one.")]  # fmt: skip
    assert _on_tuesday(turns, GYM) == {
        "plan": "premium", "monthly_fee": {"amount": 54.99, "currency": "GBP"}
    }  # fmt: skip


def test_a_status_said_in_other_words_by_the_agent() -> None:
    turns = [("u", "Can you freeze my membership for now? I'm off travelling."),
             ("a", "Done, it's frozen. Nothing will be charged until you come back.")]  # fmt: skip
    assert _on_tuesday(turns, GYM, {"status": "active"}) == {"status": "paused"}
    lapsed = [
        ("u", "I forgot to pay and it's just run out, the letter says it's no longer active.")
    ]
    assert _on_tuesday(lapsed, GYM, {"status": "active"}) == {"status": "lapsed"}


def test_a_no_after_a_filler() -> None:
    turns = [("a", "Are you okay with us taking progress photos?"),
             ("u", "Erm, no, I'd really rather you didn't.")]  # fmt: skip
    assert _on_tuesday(turns, GYM) == {"photos_ok": False}


def test_dates_people_say() -> None:
    this_or_next = [("a", "Aisha's free Friday morning for your first session."),
                    ("u", "Not this Friday, I'm away - next Friday's fine though.")]  # fmt: skip
    assert _on_tuesday(this_or_next, GYM) == {"first_session": "2026-11-27"}
    fortnight = [("a", "When would you like the first session?"),
                 ("u", "A fortnight on Thursday, please.")]  # fmt: skip
    assert _on_tuesday(fortnight, GYM) == {"first_session": "2026-12-03"}
    vague = [("a", "When would you like the first session?"),
             ("u", "um not sure yet, might be next week sometime")]  # fmt: skip
    assert _on_tuesday(vague, GYM) == {}
    polite = [("a", "When would you like the first session?"),
              ("u", "Monday week, if that's possible?")]  # fmt: skip
    assert _on_tuesday(polite, GYM) == {"first_session": "2026-11-30"}


def test_a_slot_offered_without_a_question_and_picked() -> None:
    turns = [("a", "I've got Tuesday at 10:40 with Dr Hughes, or Thursday at three with Dr Patel."),
             ("u", "Thursday, please, the three o'clock.")]  # fmt: skip
    assert _on_tuesday(turns, GYM) == {"first_session": "2026-11-19"}


def test_someone_elses_name_answers_a_contact_field_and_a_things_name_is_no_persons() -> None:
    asked = [("a", "Who should we call if we can't get hold of you?"),
             ("u", "My sister, Hannah Clarke, she's only ten minutes away.")]  # fmt: skip
    assert _on_tuesday(asked, CONTACTS) == {"emergency_contact": "Hannah Clarke"}
    nursery = [("a", "Which nursery have you chosen?"), ("u", "Bright Start.")]
    assert _on_tuesday(nursery, CONTACTS) == {"nursery_name": "Bright Start"}
    finish = [("a", "Did you want the oak or the walnut finish?"), ("u", "The oak one, I think.")]
    assert _on_tuesday(finish, CONTACTS) == {"finish": "oak"}


STAFF: list[dict[str, Any]] = [
    {"key": "employee_name", "description": "The employee's full name", "category": "profile",
     "type": "string"},
    {"key": "employee_id", "description": "Staff ID, e.g. E10442", "category": "profile",
     "type": "string"},
    {"key": "account_last4", "description": "Last 4 digits of the account salary is paid into",
     "category": "temporal", "type": "string"},
    {"key": "claim", "description": "Amount of an expense claim", "category": "temporal",
     "type": "money"},
    {"key": "loan_term_years", "description": "Length of the loan in years", "category":
     "temporal", "type": "number"},
]  # fmt: skip
PETS: list[dict[str, Any]] = [
    {"key": "owner_name", "description": "Owner's name (the client on the account)",
     "category": "profile", "type": "string"},
    {"key": "pet", "description": "Each animal, one fact per pet keyed by its name (pet:<name>)",
     "category": "profile", "type": "string"},
]  # fmt: skip
_neha = functools.partial(dialogue_facts, start=TUE, user="Neha Joshi", agent="Asha")


def test_a_name_and_an_id_in_one_reply() -> None:
    turns = [("a", "Can you share your employee ID and name?"), ("u", "Neha Joshi, E20731")]
    assert _neha(turns, STAFF) == {"employee_name": "Neha Joshi", "employee_id": "E20731"}


def test_your_name_asked_where_many_fields_say_name() -> None:
    turns = [("a", "Can I get your name?"), ("u", "Jenna Morales.")]
    facts = dialogue_facts(turns, PETS, start=TUE, user="Jenna Morales", agent="Marcus")
    assert facts == {"owner_name": "Jenna Morales"}


def test_no_text_value_cut_from_an_amount_and_no_half_of_a_plan() -> None:
    paid = [("a", "It was approved on the 5th and will be paid with May salary, Rs 1,180."),
            ("u", "ok")]  # fmt: skip
    assert "account_last4" not in _neha(paid, STAFF)
    split = [("a", "Would you want to fix for two years?"),
             ("u", "Nah, we'd rather split it, half fixed half variable.")]  # fmt: skip
    assert "loan_term_years" not in _neha(split, STAFF)


def test_a_run_is_no_price() -> None:
    turns = [("a", "Brilliant. How was Sunday's 16k?"), ("u", "Done in 1:52, calf's tight")]
    assert _neha(turns, STAFF, {"claim": "₹4,500"}) == {}


def test_the_agent_repeating_a_held_value_adds_nothing() -> None:
    turns = [("a", "The payment of ₹1,180 for your claim went out today."), ("u", "Got it, thanks")]
    assert _neha(turns, STAFF, {"claim": "₹1,180"}) == {}


DESK: list[dict[str, Any]] = [
    {"key": "name", "description": "Caller's name", "category": "profile", "type": "string"},
    {"key": "department", "description": "The caller's own team or department", "category":
     "profile", "type": "string"},
]  # fmt: skip


def test_the_team_said_with_the_callers_name() -> None:
    turns = [("a", "Good morning, IT helpdesk, Sam here. How can I help?"),
             ("u", "hola Sam! I am Lucía Fernández from marketing in the Madrid office, two problems")]  # fmt: skip
    facts = dialogue_facts(turns, DESK, start=TUE, user="Lucía Fernández", agent="Sam")
    assert facts == {"name": "Lucía Fernández", "department": "marketing"}
    hobby = [("a", "Tell me what's going on."), ("u", "Rahul Menon, I play club cricket.")]
    assert "department" not in dialogue_facts(
        hobby, DESK, start=TUE, user="Rahul Menon", agent="Sam"
    )


FOOD: list[dict[str, Any]] = [
    {"key": "dietary_preference", "description": "How the client eats / what they avoid "
     "(vegetarian, no pork, etc.)", "category": "profile", "type": "string"},
]  # fmt: skip


def test_what_someone_avoids_keeps_its_no() -> None:
    asked = [("a", "Food wise, anything you don't eat?"), ("u", "no mushrooms. otherwise anything")]
    assert _on_tuesday(asked, FOOD) == {"dietary_preference": "no mushrooms"}
    said = [("a", "Any food you avoid?"), ("u", "I don't eat beef. Pork and chicken ok.")]
    assert _on_tuesday(said, FOOD) == {"dietary_preference": "no beef"}
    none = [("a", "Any food you avoid?"), ("u", "No thanks, all good.")]
    assert _on_tuesday(none, FOOD) == {}
