"""The write lane end to end, in process: budget scenario, crash safety, locking, schema change."""

from __future__ import annotations

import datetime
import threading
from typing import Any

import pytest
from django.db import connection

from extraction import pipeline
from extraction.models import ExtractionRun, RunStatus
from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import ACU, EndUser, Entity, HotDocument, Session, Turn
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from schemas.defaults import PROPERTY_ADVISOR
from schemas.models import Agent
from schemas.services import agent_create, schema_publish
from tenants.models import Tenant

UTC = datetime.UTC
SESSION_3 = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
SESSION_9 = datetime.datetime(2026, 5, 9, 10, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests run the pipeline themselves, at the moment they choose."""
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)


@pytest.fixture
def advisor(tenant_a: Tenant) -> Agent:
    return agent_create(
        tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR, actor="t"
    )


@pytest.fixture
def priya(tenant_a: Tenant, advisor: Agent) -> EndUser:
    user = EndUser.objects.create(tenant=tenant_a, external_id="priya")
    hot_document_load(agent=advisor, end_user=user)
    return user


def _say(agent: Agent, user: EndUser, when: datetime.datetime, *lines: tuple[str, str]) -> Session:
    opened = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk,
                          metadata={"participants": {"user": "Priya", "assistant": "Asha"}})  # fmt: skip
    turn_append(
        tenant_id=agent.tenant_id, session_id=opened.id,
        turns=[TurnIn(role, text, occurred_at=when + datetime.timedelta(minutes=i)) for i, (role, text) in enumerate(lines)],
    )  # fmt: skip
    return Session.objects.get(pk=opened.id)


def _run(agent: Agent, user: EndUser) -> ExtractionRun:
    run = extraction_run_request(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None
    return run


def _results(user: EndUser) -> dict[str, Any]:
    return {
        "entities": sorted(
            Entity.objects.filter(end_user=user).values_list(
                "key", "value_text", "status", "source"
            )
        ),
        "acus": sorted(ACU.objects.filter(end_user=user).values_list("text", flat=True)),
    }


def test_budget_scenario_through_the_pipeline(
    advisor: Agent, priya: EndUser, settings: Any
) -> None:
    _say(advisor, priya, SESSION_3, ("user", "Hi, I'm Priya. My budget is 50 lakhs, looking for a flat in Pune."),
         ("assistant", "Noted. What size?"), ("user", "A 3BHK apartment please."))  # fmt: skip
    _say(
        advisor,
        priya,
        SESSION_9,
        ("user", "Good news, my budget is now 80 lakhs."),
        ("assistant", "Great!"),
    )
    run = extraction_run_execute(run_id=_run(advisor, priya).pk)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    budget = list(
        Entity.objects.filter(end_user=priya, key="budget")
        .order_by("valid_from")
        .values_list("value_text", "status")
    )
    assert budget == [("₹50 lakh", "superseded"), ("₹80 lakh", "active")]
    document = HotDocument.objects.get(agent=advisor, end_user=priya)
    assert "- budget: ₹80 lakh" in document.stable_block
    # the old budget only as history, said by the facts themselves
    assert "Budget: ₹50 lakh until 9 May 2026; ₹80 lakh since." in document.summary
    assert document.stable_block.count("₹50 lakh") == 1
    assert document.watermark_turn_id == Turn.objects.filter(end_user=priya).latest("id").id
    assert document.pending_tokens == 0
    assert "Priya" in document.summary and "80 lakhs" not in document.summary  # facts say it
    assert run.counts["facts"] >= 5 and run.counts["superseded"] == 1 and run.counts["acus"] > 0
    assert set(run.timings) >= {
        "smart_keep",
        "extract",
        "compress",
        "embed",
        "dedup",
        "summary",
        "write",
        "total",
    }
    # Archived: everything but the kept turns; the last min_kept_turns (1) is always kept.
    kept = list(
        Turn.objects.filter(end_user=priya, archived_at__isnull=True).values_list("id", flat=True)
    )
    last = list(
        Turn.objects.filter(end_user=priya).order_by("-id").values_list("id", flat=True)[:1]
    )
    assert len(kept) == run.counts["kept"] >= 1 and set(last) <= set(kept)
    assert run.counts["archived"] == 5 - len(kept)
    units = list(ACU.objects.filter(end_user=priya).values_list("text", flat=True))
    assert "On 3 March 2026, Priya's budget is 50 lakhs, looking for a flat in Pune." in units


def test_a_unit_said_again_in_a_later_run_is_dropped_against_the_stored_ones(
    advisor: Agent, priya: EndUser
) -> None:
    """The dedup reads each new unit's nearest stored units (one statement for the run)."""
    line = ("user", "We adopted a golden retriever puppy named Oscar last weekend.")
    _say(advisor, priya, SESSION_3, line, ("assistant", "Lovely!"))
    first = extraction_run_execute(run_id=_run(advisor, priya).pk)
    assert first is not None and first.status == RunStatus.SUCCEEDED
    before = ACU.objects.filter(end_user=priya).count()
    _say(
        advisor,
        priya,
        SESSION_3 + datetime.timedelta(hours=2),
        line,
        ("user", "The Baner flat has a gym."),
    )
    second = extraction_run_execute(run_id=_run(advisor, priya).pk)
    assert second is not None and second.status == RunStatus.SUCCEEDED
    assert second.counts["duplicates_dropped"] >= 1
    oscar = [
        t for t in ACU.objects.filter(end_user=priya).values_list("text", flat=True) if "Oscar" in t
    ]
    assert len(oscar) == 1 and ACU.objects.filter(end_user=priya).count() > before  # the gym is new


def test_a_crash_before_commit_writes_nothing_and_the_retry_writes_one_set(
    advisor: Agent, priya: EndUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    _say(
        advisor,
        priya,
        SESSION_3,
        ("user", "My budget is 50 lakhs and I live in Pune."),
        ("user", "I have a dog named Max."),
    )
    run = _run(advisor, priya)
    last_write = pipeline.hot_document_rebuild

    def crash_after_the_last_write(**kwargs: Any) -> Any:
        last_write(**kwargs)  # facts, units, archive, hot document: all written, uncommitted
        raise RuntimeError("worker died")

    monkeypatch.setattr(pipeline, "hot_document_rebuild", crash_after_the_last_write)
    with pytest.raises(RuntimeError):
        extraction_run_execute(run_id=run.pk)
    monkeypatch.undo()
    assert _results(priya) == {"entities": [], "acus": []}
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.PENDING
    assert HotDocument.objects.get(agent=advisor, end_user=priya).watermark_turn_id == 0

    done = extraction_run_execute(run_id=run.pk)
    assert done is not None and done.status == RunStatus.SUCCEEDED
    once = _results(priya)
    assert len(once["entities"]) == 2 and len(once["acus"]) == 2
    # Running the (finished) run again changes nothing.
    assert extraction_run_execute(run_id=run.pk) is None
    assert _results(priya) == once


def test_two_workers_on_one_run_one_does_the_work(advisor: Agent, priya: EndUser) -> None:
    _say(
        advisor,
        priya,
        SESSION_3,
        *[
            ("user", f"My budget is {40 + i} lakhs, I think about flat number {i}.")
            for i in range(6)
        ],
    )
    run = _run(advisor, priya)
    outcomes: list[Any] = []
    barrier = threading.Barrier(2)

    def worker() -> None:
        try:
            barrier.wait()
            outcomes.append(extraction_run_execute(run_id=run.pk))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(o is None for o in outcomes) == [False, True]
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED
    assert Entity.objects.filter(end_user=priya, key="budget", status="active").count() == 1
    texts = list(ACU.objects.filter(end_user=priya).values_list("text", flat=True))
    assert len(texts) == len(set(texts)) == 6


def test_the_next_run_uses_the_newly_activated_schema(advisor: Agent, priya: EndUser) -> None:
    _say(advisor, priya, SESSION_3, ("user", "My budget is 50 lakhs."))
    first = extraction_run_execute(run_id=_run(advisor, priya).pk)
    fields = [*PROPERTY_ADVISOR, {"key": "pet_name", "description": "The name of the buyer's pet",
                                  "category": "profile", "type": "string"}]  # fmt: skip
    schema_publish(agent=advisor, fields=fields, actor="op")
    _say(advisor, priya, SESSION_9, ("user", "My pet name is Bruno."))
    second = extraction_run_execute(run_id=_run(advisor, priya).pk)
    assert first is not None and second is not None
    assert (first.schema_version, second.schema_version) == (1, 2)
    assert Entity.objects.get(end_user=priya, key="pet_name").value_text == "Bruno"


def test_nothing_new_after_the_watermark_is_a_quick_success(advisor: Agent, priya: EndUser) -> None:
    run = extraction_run_execute(run_id=_run(advisor, priya).pk)
    assert run is not None and run.status == RunStatus.SUCCEEDED and run.counts["turns"] == 0
    assert _results(priya) == {"entities": [], "acus": []}
