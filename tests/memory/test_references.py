"""Reference resolution: the rules (pure) and memory search with a session to resolve in."""

from __future__ import annotations

from memory.models import EndUser, Session
from memory.search import memory_search
from memory.search.references import TurnView, references_resolve
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from schemas.models import Agent

TWO_ACCOUNTS = [
    ("user", "I have a savings account with HDFC ending 4417, my salary lands there."),
    ("assistant", "Noted, the HDFC savings account."),
    ("user", "There is also a joint current account at ICICI ending 9032 for the house."),
    ("assistant", "Noted, the ICICI joint current account."),
    ("user", "Is there a limit on UPI payments per day?"),
    ("assistant", "Most banks allow one lakh rupees a day."),
    ("user", "Please move 20,000 rupees from the HDFC savings account into my PPF."),
    ("assistant", "Done: 20,000 rupees moved from the HDFC savings account."),
    ("user", "Do you ship cheque books to Pune?"),
    ("assistant", "Yes, within three days."),
]


def _turns(lines: list[tuple[str, str]]) -> list[TurnView]:
    return [TurnView(f"s:{i + 1}", role, text) for i, (role, text) in enumerate(lines)]


def _keys(query: str, lines: list[tuple[str, str]], **kwargs: object) -> list[str]:
    return [t.key for t in references_resolve(query, _turns(lines), **kwargs).turns]  # type: ignore[arg-type]


def test_the_other_account_is_the_one_not_acted_on() -> None:
    keys = _keys("Do that again but for the other account.", TWO_ACCOUNTS)
    assert keys[0] == "s:7"  # "that": the transfer
    assert "s:3" in keys and "s:1" not in keys  # the other account: ICICI, not HDFC


def test_the_other_one_finds_the_kind_from_the_request() -> None:
    keys = _keys("Can you repeat that for the other one?", TWO_ACCOUNTS)
    assert "s:3" in keys and "s:1" not in keys


def test_a_question_about_shipping_is_not_a_request_to_repeat() -> None:
    assert _keys("Please do it again.", TWO_ACCOUNTS)[0] == "s:7"


OFFERS = [
    ("user", "What options do I have?"),
    ("assistant", "A fixed deposit for 18 months at 7.1 percent."),
    ("user", "Anything else?"),
    ("assistant", "A recurring deposit of 5,000 a month at 6.8 percent."),
    ("user", "What else is there?"),
    ("assistant", "A liquid fund with no lock-in at 6.5 percent."),
]


def test_the_previous_one_is_the_offer_before_the_last() -> None:
    assert _keys("No, the previous one.", OFFERS)[0] == "s:4"
    assert _keys("Go back to the first option.", OFFERS)[0] == "s:2"


def test_a_pronoun_is_the_person_last_named_with_it() -> None:
    lines = [
        ("user", "My sister Kavya wants an account with no minimum balance."),
        ("assistant", "Noted."),
        ("user", "My accountant Rohan said he needs the interest certificates by June."),
        ("assistant", "Okay."),
    ]
    assert _keys("What did I tell you about her?", lines)[0] == "s:1"
    assert _keys("Remind me what he needs.", lines)[0] == "s:3"


def test_my_usual_branch_is_the_fact() -> None:
    resolution = references_resolve(
        "Use my usual branch for the locker.",
        [],
        facts={"preferred_branch": "Koramangala", "city": "Pune"},
    )
    assert resolution.fact_keys == ["preferred_branch"]


def test_same_as_last_time_is_the_last_request_of_the_previous_session() -> None:
    history = _turns([("user", "Book a full service for the Honda City this Saturday."),
                      ("assistant", "Booked."), ("user", "Thanks, bye.")])  # fmt: skip
    resolution = references_resolve("Same as last time, please.", [], history=history)
    assert resolution.turns[0].key == "s:1"


def test_no_cue_resolves_nothing() -> None:
    assert references_resolve("What is my budget?", _turns(TWO_ACCOUNTS)).kind is None


def test_search_in_a_session_leads_with_the_other_account(advisor: Agent, priya: EndUser) -> None:
    hot_document_load(agent=advisor, end_user=priya)
    opened = session_open(tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk)
    session = Session.objects.get(pk=opened.id, tenant_id=advisor.tenant_id)
    lines = [*TWO_ACCOUNTS, ("user", "Do that again but for the other account.")]
    turn_append(tenant_id=advisor.tenant_id, session_id=session.pk,
                turns=[TurnIn(role=role, text=text) for role, text in lines])  # fmt: skip
    result = memory_search(
        agent=advisor, end_user=priya, query="Do that again but for the other account.", k=5,
        resolve_in=session,
    )  # fmt: skip
    refs = [(hit.source, hit.turns[0]["seq"]) for hit in result.hits if "reference" in hit.legs]
    assert refs[0] == ("turn", 7) and ("turn", 3) in refs and ("turn", 1) not in refs
    assert result.hits[0].confidence == "high" and result.hits[0].score == 1.0
    assert "ICICI" in " ".join(hit.text for hit in result.hits[:4])


# Phrasings and structures the first rules missed (blind probe sets, ADR 0010 "referents beyond
# the rule"); each conversation here is new, none is copied from a probe set.


def test_again_in_a_question_asks_to_be_reminded_not_to_repeat() -> None:
    lines = [
        ("user", "Could you book the van for Saturday morning?"),
        ("assistant", "Booked for 9 am Saturday."),
        ("user", "My landlord Mr Okoye says he wants the keys back by noon."),
        ("assistant", "Noted."),
    ]
    resolution = references_resolve("Sorry, what did he want again?", _turns(lines))
    assert resolution.kind == "pronoun" and resolution.turns[0].key == "s:3"
    assert _keys("Could you do that again for Sunday?", lines)[0] == "s:1"


def test_a_person_named_by_title_or_after_a_role_and_a_comma() -> None:
    lines = [
        ("user", "The woman at the desk, Ms Adeyemi, said she'd keep the parcel until Friday."),
        ("assistant", "Good to know."),
        ("user", "And his physio, Gareth, thinks he should rest the knee for a week."),
        ("assistant", "Sensible."),
        ("user", "Is it going to rain tomorrow?"),
        ("assistant", "Light showers in the afternoon."),
    ]
    assert _keys("Until when did she say she'd keep it?", lines)[0] == "s:1"
    assert _keys("What did he say about the knee?", lines)[0] == "s:3"


def test_a_query_that_names_the_person_is_no_pronoun_reference() -> None:
    lines = [("user", "My sister Dana is flying in on Monday."), ("assistant", "Noted.")]
    assert references_resolve("What has Melanie done with her family?", _turns(lines)).kind is None


def test_the_usual_one_is_read_from_the_words_or_the_exchange_it_answers() -> None:
    facts = {"payment_card": "Visa ending 2210", "delivery_slot": "evenings after 6",
             "home_branch": "Canal Street branch"}  # fmt: skip
    card = references_resolve("just put it on the card I normally use", [], facts=facts)
    assert card.kind == "usual" and card.fact_keys[0] == "payment_card"
    asked = _turns([("user", "I'd like to collect the book in person."),
                    ("assistant", "Sure, which branch should we send it to?")])  # fmt: skip
    branch = references_resolve("the one I always go to", asked, facts=facts)
    assert branch.fact_keys[0] == "home_branch"


def test_the_other_thing_listed_in_one_answer_is_among_the_referents() -> None:
    lines = [
        ("user", "Hi, I have two appointments with you and need to move one."),
        (
            "assistant",
            "I can see a hygienist clean on the 4th at 10:00 and a filling with "
            "Dr Lund on the 9th at 15:30.",
        ),
        ("user", "Can you move the clean to the afternoon?"),
        ("assistant", "Done, the 4th at 14:00."),
        ("user", "Do you have parking?"),
        ("assistant", "Two spaces behind the building."),
    ]
    keys = _keys("ok and the other one, same thing please", lines)
    assert "s:3" in keys and "s:2" in keys  # the request to repeat, and the filling listed


def test_the_first_suggestion_is_among_the_referents_when_questions_came_between() -> None:
    lines = [
        ("user", "We need a room for a team dinner of twelve."),
        ("assistant", "I'd suggest the Garden Room: seats fourteen, set menu at £38 a head."),
        ("user", "Does it have a screen? We want to show a video."),
        ("assistant", "No screen there, sorry."),
        ("user", "Hmm, what else is there?"),
        ("assistant", "The Vault downstairs has a projector, £45 a head."),
        ("user", "Is the Vault step-free?"),
        ("assistant", "There are six steps down, no lift."),
    ]
    keys = _keys("let's just go with what you suggested at the very start", lines)
    assert "s:2" in keys[:3]


def test_that_code_is_the_turn_that_gave_it_when_the_word_is_not_repeated() -> None:
    lines = [
        ("user", "I'm switching provider, can I get my switching code?"),
        ("assistant", "Your PAC is QTX 551 208, valid for 30 days."),
        ("user", "Great. Will I lose my voicemail?"),
        ("assistant", "Voicemail goes when the number moves."),
    ]
    assert "s:2" in _keys("what was that code again?", lines)


def test_runners_up_never_take_more_than_their_share_of_the_slots() -> None:
    from memory.search.reference_candidates import MAX_REFERENT_TURNS

    lines = [("user", f"Could you check order {n}00{n} for me?") for n in range(1, 10)]
    assert len(_keys("Could you do that again?", lines)) <= MAX_REFERENT_TURNS


def test_the_turn_log_fallback_never_takes_a_referents_place(
    advisor: Agent, priya: EndUser
) -> None:
    from memory.search.reference_candidates import MAX_REFERENT_TURNS

    # No memory units yet, so the turn-log fallback is due; it used to take the last third of
    # the slots from whatever came last — here the referents the cue could also mean.
    hot_document_load(agent=advisor, end_user=priya)
    earlier = session_open(tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk)
    turn_append(
        tenant_id=advisor.tenant_id,
        session_id=earlier.id,
        turns=[
            TurnIn(role="user", text=f"The water level was low again, the same thing as week {n}.")
            for n in range(1, 6)
        ],
    )  # fmt: skip — turns the fallback finds for the probe's words
    opened = session_open(tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk)
    session = Session.objects.get(pk=opened.id, tenant_id=advisor.tenant_id)
    lines = [
        ("user", "Hi, I've got two kids who need swimming lessons, Omar is 8 and Lina is 5."),
        ("assistant", "Lovely. We run Stage 2 on Mondays at 4 and Stage 1 on Wednesdays at 5."),
        ("user", "Could you book Omar into the Monday Stage 2 for the term please?"),
        ("assistant", "Done, Omar is in Monday Stage 2 from the 6th."),
        ("user", "Can you also add Omar to the Saturday squad training?"),
        ("assistant", "Added: Saturdays at 9, starting on the 11th."),
        ("user", "Is there parking at the pool?"),
        ("assistant", "Yes, the leisure centre car park, free for two hours."),
        ("user", "Great. And the other one, same thing please, at her level."),
    ]
    turn_append(tenant_id=advisor.tenant_id, session_id=session.pk,
                turns=[TurnIn(role=role, text=text) for role, text in lines])  # fmt: skip
    query = lines[-1][1]
    resolution = references_resolve(
        query, [TurnView(f"{session.pk}:{i + 1}", r, t) for i, (r, t) in enumerate(lines[:-1])]
    )
    result = memory_search(agent=advisor, end_user=priya, query=query, k=8, resolve_in=session)
    refs = [f"{session.pk}:{hit.turns[0]['seq']}" for hit in result.hits if "reference" in hit.legs]
    assert len(resolution.turns) == MAX_REFERENT_TURNS and result.fallback
    assert refs == [t.key for t in resolution.turns]  # every referent kept, in order
