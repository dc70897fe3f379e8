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
