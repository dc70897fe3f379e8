from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from core.errors import Conflict, Invalid
from memory.models import EndUser, Entity, HotDocument, Status
from memory.selectors import entity_list
from memory.services import (
    entity_correct,
    entity_end,
    entity_forget,
    entity_pin_set,
    entity_upsert,
)
from schemas.models import Agent
from tenants.models import AuditEvent

UTC = datetime.UTC
SESSION_3 = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
SESSION_9 = datetime.datetime(2026, 5, 9, 10, 0, tzinfo=UTC)
LAKH = 100_000


def _budget(agent: Agent, user: EndUser, lakhs: int, when: datetime.datetime) -> Entity:
    entity, _ = entity_upsert(
        agent=agent, end_user=user, key="budget", value={"amount": lakhs * LAKH, "currency": "INR"},
        valid_from=when, actor="test",
    )  # fmt: skip
    return entity


def test_design_scenario_budget_50_then_80_lakhs(advisor: Agent, priya: EndUser) -> None:
    first = _budget(advisor, priya, 50, SESSION_3)
    between = timezone.now()
    second = _budget(advisor, priya, 80, SESSION_9)

    current = list(entity_list(agent=advisor, end_user=priya))
    assert [(e.key, e.value_text) for e in current] == [("budget", "₹80 lakh")]

    timeline = list(entity_list(agent=advisor, end_user=priya, status="any"))
    assert [(e.value_text, e.status) for e in timeline] == [
        ("₹50 lakh", "superseded"),
        ("₹80 lakh", "active"),
    ]
    first.refresh_from_db()
    assert first.valid_until == SESSION_9 and first.superseded_by_id == second.id

    before_9 = SESSION_9 - datetime.timedelta(days=1)
    assert [e.value_text for e in entity_list(agent=advisor, end_user=priya, as_of=before_9)] == [
        "₹50 lakh"
    ]
    assert [e.value_text for e in entity_list(agent=advisor, end_user=priya, known_at=between)] == [
        "₹50 lakh"
    ]
    # What was known before the second write, about a time after session 9: still 50.
    assert [
        e.value_text
        for e in entity_list(agent=advisor, end_user=priya, as_of=SESSION_9, known_at=between)
    ] == ["₹50 lakh"]
    before_3 = SESSION_3 - datetime.timedelta(days=1)
    assert list(entity_list(agent=advisor, end_user=priya, as_of=before_3)) == []

    document = HotDocument.objects.get(agent=advisor, end_user=priya)
    assert "₹80 lakh" in document.stable_block and "₹50 lakh" not in document.stable_block


def test_an_ended_fact_is_history_from_then_and_nothing_replaces_it(
    advisor: Agent, priya: EndUser
) -> None:
    first = _budget(advisor, priya, 50, SESSION_3)
    version = HotDocument.objects.get(agent=advisor, end_user=priya).version
    ended = entity_end(
        agent=advisor, end_user=priya, key="budget", valid_until=SESSION_9, actor="t"
    )
    assert ended is not None and ended.pk == first.pk
    first.refresh_from_db()
    assert (first.status, first.valid_until, first.superseded_by_id) == (
        "superseded",
        SESSION_9,
        None,
    )
    assert list(entity_list(agent=advisor, end_user=priya)) == []
    before_9 = SESSION_9 - datetime.timedelta(days=1)
    assert [e.value_text for e in entity_list(agent=advisor, end_user=priya, as_of=before_9)] == [
        "₹50 lakh"
    ]
    assert HotDocument.objects.get(agent=advisor, end_user=priya).version > version
    audit = AuditEvent.objects.filter(action="entity.end").get()
    assert audit.after is not None and "amount" not in str(audit.after)
    assert audit.after["key"] == "budget"
    # nothing active, or an end before the value began: nothing to end
    assert (
        entity_end(agent=advisor, end_user=priya, key="budget", valid_until=SESSION_9, actor="t")
        is None
    )
    _budget(advisor, priya, 80, SESSION_9)
    assert (
        entity_end(agent=advisor, end_user=priya, key="budget", valid_until=SESSION_3, actor="t")
        is None
    )
    assert [e.value_text for e in entity_list(agent=advisor, end_user=priya)] == ["₹80 lakh"]


def test_same_value_again_changes_nothing(advisor: Agent, priya: EndUser) -> None:
    first = _budget(advisor, priya, 50, SESSION_3)
    again, created = entity_upsert(
        agent=advisor,
        end_user=priya,
        key="budget",
        value={"amount": 50 * LAKH, "currency": "INR"},
        actor="t",
    )
    assert not created and again.pk == first.pk
    assert Entity.objects.filter(end_user=priya).count() == 1


def test_confirmation_of_an_inferred_value_keeps_its_start(advisor: Agent, priya: EndUser) -> None:
    inferred, _ = entity_upsert(
        agent=advisor,
        end_user=priya,
        key="city",
        value="Pune",
        source="inferred",
        valid_from=SESSION_3,
        actor="t",
    )
    confirmed, created = entity_upsert(
        agent=advisor, end_user=priya, key="city", value="Pune", source="explicit", actor="t"
    )
    assert created and confirmed.valid_from == SESSION_3 and confirmed.source == "explicit"
    inferred.refresh_from_db()
    assert inferred.status == Status.SUPERSEDED


def test_a_value_learnt_late_becomes_history_not_current(advisor: Agent, priya: EndUser) -> None:
    _budget(advisor, priya, 80, SESSION_9)
    late = _budget(advisor, priya, 50, SESSION_3)
    assert late.status == Status.SUPERSEDED and late.valid_until == SESSION_9
    assert [e.value_text for e in entity_list(agent=advisor, end_user=priya)] == ["₹80 lakh"]
    middle = SESSION_3 + datetime.timedelta(days=10)
    assert [e.value_text for e in entity_list(agent=advisor, end_user=priya, as_of=middle)] == [
        "₹50 lakh"
    ]


def test_ephemeral_fact_is_hidden_after_its_ttl_but_kept(advisor: Agent, priya: EndUser) -> None:
    old = timezone.now() - datetime.timedelta(hours=30)  # site_visit_today has a 24 h TTL
    visit, _ = entity_upsert(
        agent=advisor,
        end_user=priya,
        key="site_visit_today",
        value="Baner, 5 pm",
        valid_from=old,
        actor="t",
    )
    assert visit.expires_at == old + datetime.timedelta(hours=24)
    assert list(entity_list(agent=advisor, end_user=priya)) == []
    timeline = list(entity_list(agent=advisor, end_user=priya, status="any"))
    assert [e.pk for e in timeline] == [visit.pk]
    assert Entity.objects.filter(pk=visit.pk).exists()
    within = old + datetime.timedelta(hours=2)
    assert [e.pk for e in entity_list(agent=advisor, end_user=priya, as_of=within)] == [visit.pk]


def test_multi_valued_facts_use_qualifiers(advisor: Agent, priya: EndUser) -> None:
    entity_upsert(agent=advisor, end_user=priya, key="pet:Max", value="dog", actor="t")
    entity_upsert(agent=advisor, end_user=priya, key="pet:Luna", value="cat", actor="t")
    assert sorted(e.key for e in entity_list(agent=advisor, end_user=priya)) == [
        "pet:Luna",
        "pet:Max",
    ]


@pytest.mark.parametrize(
    ("key", "value", "place"),
    [
        ("salary", 10, "key"),
        ("budget", "80 lakhs", "value"),
        ("budget", {"amount": 1, "currency": "rupees"}, "value"),
        ("bedrooms", True, "value"),
        ("property_type", "castle", "value"),
        ("move_in_date", "next June", "value"),
        ("loan_preapproved", "yes", "value"),
        ("pet:", "dog", "key"),
    ],
)
def test_invalid_fact_is_rejected_and_writes_nothing(
    advisor: Agent, priya: EndUser, key: str, value: object, place: str
) -> None:
    with pytest.raises(Invalid) as caught:
        entity_upsert(agent=advisor, end_user=priya, key=key, value=value, actor="t")
    assert place in (caught.value.fields or {})
    assert not Entity.objects.filter(end_user=priya).exists()


def test_correct_supersedes_with_operator_source_from_the_same_start(
    advisor: Agent, priya: EndUser
) -> None:
    wrong = _budget(advisor, priya, 5, SESSION_3)
    right, created = entity_correct(
        entity=wrong, value={"amount": 50 * LAKH, "currency": "INR"}, actor="user:op"
    )
    assert created and right.source == "operator" and right.valid_from == SESSION_3
    wrong.refresh_from_db()
    assert wrong.status == Status.SUPERSEDED
    with pytest.raises(Conflict):
        entity_correct(entity=wrong, value={"amount": 1, "currency": "INR"}, actor="user:op")


def test_pin_moves_the_fact_to_the_pinned_section_and_survives_supersession(
    advisor: Agent, priya: EndUser
) -> None:
    budget = _budget(advisor, priya, 50, SESSION_3)
    entity_pin_set(entity=budget, pinned=True, actor="t")
    document = HotDocument.objects.get(agent=advisor, end_user=priya)
    assert [f["key"] for f in document.pinned] == ["budget"] and document.facts == []
    newer = _budget(advisor, priya, 80, SESSION_9)
    assert newer.pinned
    entity_pin_set(entity=newer, pinned=False, actor="t")
    document.refresh_from_db()
    assert document.pinned == [] and [f["key"] for f in document.facts] == ["budget"]


def test_forget_deletes_every_version_and_audits_without_the_value(
    advisor: Agent, priya: EndUser
) -> None:
    _budget(advisor, priya, 50, SESSION_3)
    current = _budget(advisor, priya, 80, SESSION_9)
    assert entity_forget(entity=current, actor="user:op").versions == 2
    assert not Entity.objects.filter(end_user=priya).exists()
    for event in AuditEvent.objects.filter(target_type="entity"):
        assert "lakh" not in str(event.before) + str(event.after)
        assert "5000000" not in str(event.after) and "8000000" not in str(event.after)
    document = HotDocument.objects.get(agent=advisor, end_user=priya)
    assert "budget" not in document.stable_block


def test_every_change_bumps_the_hot_version(advisor: Agent, priya: EndUser) -> None:
    _budget(advisor, priya, 50, SESSION_3)
    first = HotDocument.objects.get(agent=advisor, end_user=priya).version
    _budget(advisor, priya, 80, SESSION_9)
    assert HotDocument.objects.get(agent=advisor, end_user=priya).version == first + 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_writes_of_a_key_both_land_one_active(tenant_a: Any) -> None:
    import threading

    from django.db import connection

    from schemas.defaults import PROPERTY_ADVISOR
    from schemas.services import agent_create

    agent = agent_create(
        tenant_id=tenant_a.pk, slug="race", name="r", schema_fields=PROPERTY_ADVISOR, actor="t"
    )
    user = EndUser.objects.create(tenant=tenant_a, external_id="racer")
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def write(city: str) -> None:
        try:
            barrier.wait()
            entity_upsert(agent=agent, end_user=user, key="city", value=city, actor="t")
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=write, args=(city,)) for city in ("Pune", "Mumbai", "Delhi", "Goa")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    rows = list(Entity.objects.filter(end_user=user, key="city").values_list("status", flat=True))
    assert sorted(rows) == ["active", "superseded", "superseded", "superseded"]
