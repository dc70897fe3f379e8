"""Bookings and measurements as a front desk speaks them: a day offered with a service after
the user turned one down, a day refused, a day told in the past, counts per week, readings the
agent takes in the field's unit, animals by name, and the value a turn actually proposes.
Written for these tests (a grooming salon, a tyre shop, a gym, a water utility), not taken from
any benchmark conversation."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from extraction.extractors import Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor
from tests.extraction.dialogue import dialogue_facts

SALON: list[dict[str, Any]] = [
    {"key": "next_booking", "description": "Date of the dog's next grooming appointment", "category": "temporal",
     "type": "date"},
    {"key": "groom_package", "description": "Which grooming package is booked", "category": "temporal",
     "type": "enum", "choices": ["bath and brush", "full groom", "puppy trim"]},
    {"key": "dog", "description": "Each dog on the account, one fact per dog keyed by its name (dog:<name>, e.g. "
     "dog:Rolo). Value: breed", "category": "profile", "type": "string", "examples": ["Rolo, a cockapoo"]},
    {"key": "weight_kg", "description": "Latest weight of each dog in kg, one fact per dog (weight_kg:<name>)",
     "category": "temporal", "type": "number"},
    {"key": "monthly_plan", "description": "Monthly grooming plan price the owner pays", "category": "temporal",
     "type": "money"},
]  # fmt: skip
GYM: list[dict[str, Any]] = [
    {"key": "sessions_per_week", "description": "How many gym sessions a week the member commits to",
     "category": "temporal", "type": "number"},
    {"key": "billing_day", "description": "Day of the month the membership fee is taken", "category": "profile",
     "type": "number"},
    {"key": "home_address", "description": "Member's home address (street and postcode)", "category": "profile",
     "type": "string"},
    {"key": "induction_date", "description": "Date of the member's gym induction", "category": "temporal",
     "type": "date"},
]  # fmt: skip
TUE = datetime.datetime(2026, 5, 12, 9, 0, tzinfo=datetime.UTC)  # a Tuesday


_facts = functools.partial(dialogue_facts, start=TUE, user="Nadia Brooks", agent="Kit")


def test_a_day_offered_with_a_package_after_the_user_turned_one_down_is_booked_with_it() -> None:
    """ "Thursday's no good … anything next week?" — "Tuesday the 19th, 10.15, full groom -
    how's that?" — "Lovely, yes": the day and the package, and "10.15" is a time, not a weight."""
    facts = _facts([
        ("a", "I can fit Rolo in this Thursday, the 14th?"),
        ("u", "Thursday's no good, I'm at work all day. Have you got anything next week?"),
        ("a", "Tuesday the 19th, 10.15, full groom - how's that?"),
        ("u", "Lovely, yes please."),
    ], SALON)  # fmt: skip
    assert facts["next_booking"] == "2026-05-19"
    assert facts["groom_package"] == "full groom"
    assert not any(k.startswith("weight_kg") for k in facts), facts


def test_a_day_the_user_turns_down_is_not_booked() -> None:
    facts = _facts([("a", "Could Rolo come in on Friday the 15th?"),
                    ("u", "Friday's no good for me, sorry.")], SALON)  # fmt: skip
    assert "next_booking" not in facts


def test_a_day_of_the_month_told_in_the_past_is_this_months() -> None:
    facts = _facts([("a", "Your induction was done on the 4th, so you're all set."),
                    ("u", "Yes, thanks.")], GYM)  # fmt: skip
    assert facts["induction_date"] == "2026-05-04"
    ahead = _facts([("a", "Your induction is on the 4th."), ("u", "Great.")], GYM)
    assert ahead["induction_date"] == "2026-06-04"


def test_a_count_per_week_is_not_converted_and_a_stretch_of_weeks_is_no_count() -> None:
    """ "4 days" for sessions a week is 4 (not 4/7 of a week); "in six weeks" counts nothing."""
    facts = _facts(
        [("a", "How many days a week can you train?"), ("u", "4 days, the weekdays mostly.")], GYM
    )
    assert facts["sessions_per_week"] == 4
    later = _facts([("a", "Your review is in six weeks!"), ("u", "ok")], GYM)
    assert "sessions_per_week" not in later


def test_a_reading_the_agent_takes_in_the_fields_unit_updates_the_dog_it_names() -> None:
    """ "Up you hop, Pip... 9.4 kilos." and "Let's weigh him: 12.1 kilograms." (the one dog
    memory holds) update a weight already stored; a weight without its dog is not written."""
    facts = _facts(
        [("a", "Up you hop, Pip... 9.4 kilos."), ("u", "oh he's lost some!")],
        SALON,
        {"weight_kg:Pip": "10.2"},
    )
    assert facts["weight_kg:Pip"] == 9.4
    one = _facts(
        [("a", "Let's weigh him first: 12.1 kilograms."), ("u", "ok")],
        SALON,
        {"weight_kg:Rolo": "12.8"},
    )
    assert one["weight_kg:Rolo"] == 12.1
    two = _facts([("a", "Let's weigh him first: 12.1 kilograms."), ("u", "ok")], SALON,
                 {"weight_kg:Rolo": "12.8", "weight_kg:Pip": "9.4"})  # fmt: skip
    assert not any(k.startswith("weight_kg") for k in two), two


def test_a_dog_is_never_the_owner_and_its_name_is_not_its_breed() -> None:
    """ "my dog, Bramble": not dog:Nadia, and not dog:Bramble = "Bramble"."""
    facts = _facts(
        [("u", "Hi, I'd like to book a groom for my dog, Bramble. She hates baths.")], SALON
    )
    assert not any(k.startswith("dog:") and (k.endswith("Nadia") or v == "Bramble")
                   for k, v in facts.items()), facts  # fmt: skip


def test_of_two_values_the_one_the_turn_offers_is_the_one_accepted() -> None:
    """ "Your plan is £40 a month. I'd suggest £32 with the new bundle." — "Yes, do that."."""
    facts = _facts([("a", "Your plan is £40 a month. I'd suggest £32 with the new bundle."),
                    ("u", "Yes, do that please.")], SALON)  # fmt: skip
    assert facts["monthly_plan"] == {"amount": 32, "currency": "GBP"}


def test_numbers_that_cannot_be_the_field() -> None:
    """A day of the month is 1 to 31; digits alone are a postcode only where one is asked for
    or named; "since about seven" is a time."""
    facts = _facts(
        [
            ("a", "Can you read me the number on the locker tag?"),
            ("u", "It says 24310 and the lock is 51722."),
        ],
        GYM,
    )
    assert "billing_day" not in facts and "home_address" not in facts, facts
    asked = _facts([("a", "And your billing day?"), ("u", "The 28th, please.")], GYM)
    assert asked["billing_day"] == 28
    zip_code = _facts([("a", "What's your postcode?"), ("u", "10457")], GYM)
    assert zip_code["home_address"] == "10457"
    since = _facts(
        [("a", "How long have you been here?"), ("u", "Since about seven, I train 3 days a week.")],
        GYM,
    )
    assert since.get("sessions_per_week") == 3


TYRES: list[dict[str, Any]] = [
    {"key": "car", "description": "Each car the customer brings us, one fact per registration plate, plate without "
     "spaces or dashes (car:<plate>). Value: make and model", "category": "profile", "type": "string"},
    {"key": "odometer", "description": "Latest odometer reading of each car, one per plate (odometer:<plate>)",
     "category": "temporal", "type": "number"},
    {"key": "quote", "description": "The price of the current job the customer agreed to", "category": "temporal",
     "type": "money"},
]  # fmt: skip


def test_a_plate_said_in_groups_keys_its_cars_readings_and_its_name_points_at_it() -> None:
    """ "And the registration on the Corolla?" — "BX21 TRM." makes BX21TRM the Corolla's;
    "my Kuga, MK 66 ZPL" the Kuga's; a reading then asked of the Kuga is the Kuga's; "98 400"
    is one number; "like 61k" answers a mileage question with a count, not money."""
    facts = _facts([
        ("a", "And the registration on the Corolla?"),
        ("u", "BX21 TRM."),
        ("a", "What's the mileage on it?"),
        ("u", "like 61k"),
        ("a", "Anything else today?"),
        ("u", "Yes, and my Kuga, MK 66 ZPL, needs new tyres."),
        ("a", "Mileage on the Kuga?"),
        ("u", "98 400 km"),
    ], TYRES)  # fmt: skip
    assert facts["odometer:BX21TRM"] == 61000
    assert facts["odometer:MK66ZPL"] == 98400
    assert "quote" not in facts
    assert not any(
        k.startswith("car:") and str(v).replace(" ", "") in k for k, v in facts.items()
    ), facts


def test_a_correction_in_the_users_next_message_answers_the_same_question() -> None:
    facts = _facts([("a", "Reading on the dash for BX21 TRM?"), ("u", "62,310"),
                    ("u", "sorry, I meant 26,310. typo")], TYRES)  # fmt: skip
    assert facts["odometer:BX21TRM"] == 26310


def test_current_in_a_question_names_no_field() -> None:
    """ "Current reading?" asks for the odometer, not the price of "the current job"."""
    facts = _facts([("a", "Plate BX21 TRM, thanks. Current mileage?"), ("u", "about 40k")], TYRES)
    assert facts == {"odometer:BX21TRM": 40000}


def test_a_day_turned_down_with_another_asked_for_is_booked_when_the_agent_offers_it() -> None:
    """ "Thursday's tricky, what about Friday?" (a weekday's "'s" is "is", nobody's) — "Friday
    the 15th, 10am, is free." — "Great, book it"."""
    facts = _facts([("a", "I can do Thursday at 11."), ("u", "Thursday's tricky, what about Friday?"),
                    ("a", "Friday the 15th, 10am, is free."), ("u", "Great, book it")], SALON)  # fmt: skip
    assert facts["next_booking"] == "2026-05-15"


def test_a_question_put_off_is_answered_by_a_later_yes() -> None:
    """ "Shall I add the puppy trim?" — "hmm let me think" writes no answer; "ok yes, add it"
    two turns later answers it."""
    fields = [*SALON, {"key": "nail_clip", "description": "Does the owner want the nails clipped?",
                       "category": "temporal", "type": "boolean"}]  # fmt: skip
    put_off = _facts(
        [("a", "Would you like us to clip his nails too? It's £8."), ("u", "hmm let me think")],
        fields,
    )
    assert "nail_clip" not in put_off
    later = _facts([("a", "Would you like us to clip his nails too? It's £8."), ("u", "hmm let me think"),
                    ("a", "Sure, no rush."), ("u", "ok yes, go on then")], fields)  # fmt: skip
    assert later["nail_clip"] is True


def test_a_past_verb_dates_only_the_day_it_governs() -> None:
    """ "Your induction was moved, it's now on the 24th" is ahead, not last month's 24th; "the
    31st" told in the past on 5 March is 31 January (February has none)."""
    moved = _facts([("a", "Your induction was moved, it's now on the 24th."), ("u", "ok")], GYM)
    assert moved["induction_date"] == "2026-05-24"
    window = [WindowTurn(0, "s", 0, "assistant", "Your induction was done on the 31st.",
                         datetime.datetime(2026, 3, 5, 9, 0, tzinfo=datetime.UTC), "Kit", "Nadia"),
              WindowTurn(1, "s", 1, "user", "ok", datetime.datetime(2026, 3, 5, 9, 1, tzinfo=datetime.UTC),
                         "Nadia", "Kit")]  # fmt: skip
    facts = {f.key: f.value for f in RulesExtractor().extract_facts(window, GYM, Usage(), None)}
    assert facts["induction_date"] == "2026-01-31"


def test_a_plate_after_reg_is_one_code_and_a_day_out_is_not_a_refusal_of_anything_else() -> None:
    """ "My reg is LR17 KXD." keys the reading that follows by the whole plate (not "LR17");
    "my husband's out" accepts the groom offered."""
    facts = _facts([("a", "What is the reg?"), ("u", "My reg is LR17 KXD."), ("a", "And the mileage?"),
                    ("u", "41,200")], TYRES)  # fmt: skip
    assert facts == {"odometer:LR17KXD": 41200}
    groom = _facts([("a", "Shall I book Rolo in for a full groom?"),
                    ("u", "Yes please, my husband's out so I'll bring Rolo myself.")], SALON)  # fmt: skip
    assert groom["groom_package"] == "full groom"


CLINIC: list[dict[str, Any]] = [
    {"key": "next_appointment", "description": "Date of the patient's next appointment", "category": "temporal", "type": "date"},
    {"key": "last_visit", "description": "Date of the patient's last visit", "category": "temporal", "type": "date"},
]  # fmt: skip


def test_a_slot_picked_from_those_offered_by_its_weekday() -> None:
    """ "I've got Wednesday the 22nd or Friday the 24th. Which suits?" — "Friday's better": the
    Friday offered, for the field that can take a day ahead (not the last visit)."""
    turns = [("a", "I've got Wednesday the 20th at 9 or Friday the 22nd at 4. Which suits?"),
             ("u", "Friday's better for me")]  # fmt: skip
    assert _facts(turns, CLINIC) == {"next_appointment": "2026-05-22"}


def test_a_day_offered_to_move_a_held_date_is_taken_with_a_yes() -> None:
    turns = [("u", "I need to move my appointment, sorry"), ("a", "No problem. How about Tuesday the 26th?"),
             ("u", "Yes, that's fine")]  # fmt: skip
    assert _facts(turns, CLINIC, {"next_appointment": "2026-05-19"}) == {
        "next_appointment": "2026-05-26"
    }


def test_a_month_said_as_gone_by_and_a_week_on_a_weekday() -> None:
    assert _facts([("a", "When were you last seen?"), ("u", "Back in January, the 9th")],
                     CLINIC) == {"last_visit": "2026-01-09"}  # fmt: skip
    assert _facts([("u", "Can I come in a week on Thursday?"), ("a", "Yes, booked.")],
                     CLINIC)["next_appointment"] == "2026-05-21"  # fmt: skip
