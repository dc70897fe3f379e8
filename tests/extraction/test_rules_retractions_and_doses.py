"""Things taken back ("forget the porting thing"), where someone is now against where they are
moving, "it's X" after the thing it names, how often as a yes, medicines learnt from what is
said with them and their doses changed by "it", a scale's bounds, and a day the agent fixes for
the weekday the user asked for (issue 15: supersession, corrections, qualifiers, references,
confirmed, distractors). Written from the fifteenth session's development suite misses, in
other words than theirs."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

T = datetime.datetime(2027, 5, 11, 10, 0, tzinfo=datetime.UTC)  # a Tuesday
_facts = functools.partial(dialogue_facts, start=T, user="Nadia Berg", agent="Omar")


def _field(key: str, type_: str, description: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **more}


SWITCH = [_field("switching_supplier", "boolean", "Whether the customer has asked to switch to another energy supplier")]  # fmt: skip
HOME = [_field("home_city", "string", "The city of the customer's home address")]
INSURER = [_field("insurer", "string", "The customer's car insurance company", examples=["Aviva"])]
DRINKS = [_field("drinks_alcohol", "boolean", "Whether the patient drinks alcohol")]
MEDS = [
    _field("medication", "string", "A medicine the patient takes, one fact per medicine "
           "(medication:metformin), value: the dose and how often"),
    _field("pain_score", "number", "The patient's pain on a scale of 0 to 10"),
]  # fmt: skip
DOSES = [_field("dose_mg", "number", "Strength in mg of each medicine the patient refills, one fact per medicine (dose_mg:metformin)")]  # fmt: skip
VISIT = [_field("visit_date", "date", "The date of the engineer's visit")]


def test_a_yes_or_no_taken_back_is_no() -> None:
    known = {"switching_supplier": "true"}
    for said in ("All sorted now. Forget the switching thing, we're staying.",
                 "Scratch the switch request please, the new tariff is fine."):  # fmt: skip
        assert _facts([("u", said)], SWITCH, known) == {"switching_supplier": False}, said


def test_where_they_are_for_now_not_where_they_are_moving() -> None:
    said = "We're still in Leeds for now, but we'll probably move to York in June."
    assert _facts([("a", "Where are you based?"), ("u", said)], HOME) == {"home_city": "Leeds"}
    said = "All done! We're in York now, the keys came Friday."
    assert _facts([("a", "How did the move go?"), ("u", said)], HOME, {"home_city": "Leeds"}) == {
        "home_city": "York"
    }


def test_its_value_in_the_clause_after_the_thing_named() -> None:
    for said in ("Renewal went through, new insurer. It's Direct Line now.",
                 "My insurer changed, it's Direct Line now."):  # fmt: skip
        assert _facts([("a", "Anything new since last year?"), ("u", said)], INSURER,
                      {"insurer": "Aviva"}) == {"insurer": "Direct Line"}, said  # fmt: skip
    said = "We sorted the insurer thing. It's fine now."
    assert _facts([("u", said)], INSURER, {"insurer": "Aviva"}) == {}


def test_how_often_answers_yes() -> None:
    for said in ("Socially. Maybe three a month.", "Only at weekends really.", "a couple a week"):
        assert _facts([("a", "Do you drink?"), ("u", said)], DRINKS) == {"drinks_alcohol": True}
    assert _facts([("a", "Do you drink?"), ("u", "Not at all.")], DRINKS) == {
        "drinks_alcohol": False
    }


def test_a_medicine_named_with_its_dose_in_a_reply() -> None:
    said = "Ramipril, 5 mg every morning."
    assert _facts([("a", "Any regular medications?"), ("u", said)], MEDS) == {
        "medication:ramipril": "5 mg every morning"
    }
    said = "I take atorvastatin 20 mg at night."
    assert _facts([("u", said)], MEDS) == {"medication:atorvastatin": "20 mg at night"}


def test_a_dose_changed_by_it_is_the_medicine_asked_about_not_a_pain_score() -> None:
    known = {"medication:ramipril": "5 mg every morning"}
    said = "They upped it to 10 mg last week."
    assert _facts([("a", "Still on ramipril 5 mg?"), ("u", said)], MEDS, known) == {
        "medication:ramipril": "10 mg"
    }
    # someone else's dose is not hers
    said = "My husband's doctor bumped his to 10 mg."
    assert _facts([("a", "Still on ramipril 5 mg?"), ("u", said)], MEDS, known) == {}


def test_a_number_beyond_the_scale_is_not_its_value() -> None:
    assert _facts([("a", "How's the pain out of ten?"), ("u", "About a 6.")], MEDS) == {
        "pain_score": 6
    }
    assert "pain_score" not in _facts([("a", "How's the pain?"), ("u", "Bad, honestly 15 out of 10")], MEDS)  # fmt: skip


def test_medicines_read_out_with_their_doses_are_things_of_the_field() -> None:
    asked = "I have bisoprolol 5 milligrams on file. Still 5?"
    assert _facts([("a", asked), ("u", "No, they put me up to 10 last month.")], DOSES) == {
        "dose_mg:bisoprolol": 10
    }
    # "Still 5?" names no medicine
    assert _facts([("a", asked), ("u", "yes")], DOSES) == {"dose_mg:bisoprolol": 5}
    listed = "So metformin 500, sertraline 50 and bisoprolol 2.5, a month each. Right?"
    assert _facts([("a", listed), ("u", "Yes, that's it.")], DOSES) == {
        "dose_mg:metformin": 500,
        "dose_mg:sertraline": 50,
        "dose_mg:bisoprolol": 2.5,
    }


def test_a_dose_said_again_is_the_same_medicines() -> None:
    asked = "I see sertraline 50 milligrams and bisoprolol 5 milligrams. Is that right?"
    said = "the bisoprolol yes. the sertraline, they, they lowered it, it's 25 now. 25 milligrams."
    facts = _facts([("a", asked), ("u", said)], DOSES)
    assert facts.get("dose_mg:sertraline") == 25
    assert facts.get("dose_mg:bisoprolol") != 25


def test_the_day_the_agent_fixes_for_the_weekday_asked_for() -> None:
    turns = [("a", "The engineer can come next Tuesday, does that work?"),
             ("u", "Can't do Tuesday. Thursday?"),
             ("a", "Thursday the 20th at 9, then."),
             ("u", "Perfect.")]  # fmt: skip
    assert _facts(turns, VISIT) == {"visit_date": "2027-05-20"}


GYM = [
    _field("membership_frozen", "boolean", "Whether the member has asked to freeze the membership"),
    _field("postcode", "string", "The member's postcode", examples=["LS1 4AB"]),
    _field("guests", "number", "How many guests the booking is for"),
]


def test_a_request_called_off_in_the_next_breath_is_not_written() -> None:
    turns = [("u", "I'd like to freeze my membership for a month please."),
             ("a", "Sure, I can do that for you."),
             ("u", "Actually forget it, I'll keep coming.")]  # fmt: skip
    assert "membership_frozen" not in _facts(turns, GYM)
    turns = [("u", "Can we go up to 14 guests?"), ("a", "Yes, we can."),
             ("u", "Never mind, it'll stay as it is.")]  # fmt: skip
    assert _facts(turns, GYM, {"guests": "12"}) == {}
    # what was told, not asked for, stands: "never mind" calls off no postcode
    turns = [("a", "What's your postcode?"), ("u", "It's LS6 2QT."), ("a", "Sorry, our system is down."),
             ("u", "Never mind, I'll ring back tomorrow.")]  # fmt: skip
    assert _facts(turns, GYM) == {"postcode": "LS6 2QT"}


MOVERS = [
    _field("current_city", "string", "The city the customer lives in now"),
    _field("destination_city", "string", "The city the customer is moving to"),
]


def test_a_move_to_come_is_not_where_they_live_but_is_where_they_are_going() -> None:
    said = "We're in Derby for now but moving to Bath in September."
    assert _facts([("a", "Where are you now?"), ("u", said)], MOVERS) == {
        "current_city": "Derby",
        "destination_city": "Bath",
    }
    said = "For now, yes, but we're moving to Bath in September."
    assert (
        _facts([("a", "Is your home still in Derby?"), ("u", said)], HOME, {"home_city": "Derby"})
        == {}
    )


FLATS = [
    _field("city", "string", "The city or locality the buyer is searching in", examples=["Baner", "a villa in Kokapet"]),
    _field("bedrooms", "number", "How many bedrooms the buyer wants"),
]  # fmt: skip
CARS = [_field("vehicle", "string", "The customer's vehicle, one fact per vehicle type (vehicle:car), value: its make and model")]  # fmt: skip


def test_whom_the_agent_greets_and_what_a_neighbour_bought_are_no_values() -> None:
    turns = [("a", "Hello Ms Nair, did you get a chance to look at the options?"),
             ("u", "Yes, thank you. My neighbour bought a villa in Tellapur, so I wonder.")]  # fmt: skip
    assert _facts(turns, FLATS) == {}
    turns = [("a", "Is now a good time to go through everything in one go?"),
             ("u", "Yes, I've blocked out an hour.")]  # fmt: skip
    assert _facts(turns, FLATS) == {}
    said = "Thanks. My neighbour's claim was bigger, his car is a Range Rover."
    assert _facts([("u", said)], CARS, {"vehicle:car": "Skoda Fabia"}) == {}


WORK = [
    _field("current_employer", "string", "Company the candidate works for now", examples=["Tesco"]),
    _field("laptop_model", "string", "Model of the user's work laptop"),
    _field("registration", "string", "The registration plate of the user's car"),
    _field("upgrade_request", "string", "The plan upgrade the customer has asked for"),
]


def test_its_value_said_after_the_key_or_kind_it_names() -> None:
    assert _facts([("u", "Changed jobs recently, it's Ocado now.")], WORK, {"current_employer": "Tesco"}) == {
        "current_employer": "Ocado"
    }  # fmt: skip
    assert _facts([("u", "New laptop, it's a MacBook Air now.")], WORK) == {
        "laptop_model": "MacBook Air"
    }
    # a word of its description only ("car" for a registration), or no name after "it's": nothing
    assert _facts([("u", "New car, it's a Kia Niro now.")], WORK) == {}
    assert _facts([("u", "Hmm, never mind the upgrade, it's too pricey.")], WORK) == {}


SMOKES = [_field("smokes", "boolean", "Whether the user smokes"),
          _field("stretches", "boolean", "Whether the patient does their stretches")]  # fmt: skip


def test_how_often_and_since_when_answer_a_yes_or_no() -> None:
    assert _facts([("a", "Do you smoke at all?"), ("u", "Not since 2019.")], SMOKES) == {
        "smokes": False
    }
    assert _facts(
        [("a", "Do you smoke?"), ("u", "Once or twice a month, at parties.")], SMOKES
    ) == {"smokes": True}
    assert _facts([("a", "Do you do your stretches?"), ("u", "Every morning.")], SMOKES) == {
        "stretches": True
    }


HABITS = [
    _field("smokes", "boolean", "Whether the user smokes"),
    _field("exercise_days_per_week", "number", "How many days a week the user exercises"),
]


def test_a_count_of_days_a_week_is_never_more_than_seven() -> None:
    assert _facts([("a", "Do you smoke?"), ("u", "Yes, about ten a day.")], HABITS) == {
        "smokes": True
    }
    assert _facts([("a", "How often do you exercise?"), ("u", "About 4 days a week.")], HABITS) == {
        "exercise_days_per_week": 4
    }
