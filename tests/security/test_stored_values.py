"""One stored value must not break a user for good (issue 16): session metadata is validated on
write, readers tolerate rows written before, and a run that fails deterministically fails once."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Session
from tests.conftest import Key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    "participants",
    [7, "Priya", ["Priya"], {"user": 7}, {"user": ""}, {"user": "x" * 201}, {"user": None}],
)
def test_participants_that_are_not_names_are_refused_on_write(
    agent_key_a: Key, participants: Any
) -> None:
    response = agent_key_a.client().post(
        "/v1/sessions",
        {"agent": "advisor", "user": "priya", "metadata": {"participants": participants}},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert any(place.startswith("metadata.participants") for place in response.json()["fields"])
    assert not Session.objects.exists()


def test_metadata_nested_hundreds_of_levels_is_a_400(agent_key_a: Key) -> None:
    deep: Any = "leaf"
    for _ in range(300):
        deep = {"d": deep}
    response = agent_key_a.client().post(
        "/v1/sessions", {"agent": "advisor", "user": "priya", "metadata": deep}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["fields"] == {"metadata": ["at most 32 levels of nesting"]}


@pytest.mark.parametrize("stored", [7, "Priya", ["a", "b"], {"user": 7, "assistant": "Asha"}])
def test_search_context_and_extraction_tolerate_participants_stored_before_validation(
    agent_key_a: Key, stored: Any
) -> None:
    client = agent_key_a.client()
    opened = client.post("/v1/sessions", {"agent": "advisor", "user": "priya"}, format="json")
    session = opened.json()["session_id"]
    Session.objects.filter(pk=session).update(metadata={"participants": stored})  # an old row
    turn = client.post(
        f"/v1/sessions/{session}/turns",
        {"role": "user", "text": "My budget is 80 lakhs and I live in Pune."},
        format="json",
    )
    assert turn.status_code == 201
    search = client.post(
        "/v1/memory/search", {"agent": "advisor", "user": "priya", "query": "budget"}, format="json"
    )
    assert search.status_code == 200, search.content
    context = client.post("/v1/context", {"session": session, "query": "budget"}, format="json")
    assert context.status_code == 200, context.content
    runs = client.get("/v1/users/priya/runs?agent=advisor")
    assert runs.status_code in (200, 403)  # agent keys may not list runs; the run itself:
    from extraction.models import ExtractionRun
    from extraction.services import extraction_run_execute, extraction_run_request
    from memory.models import EndUser

    user = EndUser.objects.get(external_id="priya")
    run = extraction_run_request(
        tenant_id=user.tenant_id, agent_id=Session.objects.get(pk=session).agent_id,
        end_user_id=user.pk,
    )  # fmt: skip
    if run is None:  # the append already scheduled one (eager): it ran to its end
        run = ExtractionRun.objects.filter(end_user=user).latest("id")
    else:
        extraction_run_execute(run_id=run.pk)
        run.refresh_from_db()
    assert run.status == "succeeded", run.error


def test_hot_cache_key_names_reveal_no_user_id_and_a_guess_cannot_be_confirmed() -> None:
    import hashlib

    from memory.hot.cache import hot_cache_key

    key = hot_cache_key(tenant_id=1, agent_slug="advisor", user_external_id="priya@example.com")
    assert "priya" not in key
    unkeyed = hashlib.sha256(b"priya@example.com").hexdigest()[:32]
    assert unkeyed not in key  # a plain hash of a guessed id is not in the name
    assert key.startswith("hot:{") and key.endswith("}")  # one Redis Cluster slot per document


def test_rekeying_recomputes_stored_names_and_leaves_detached_ones(
    agent_key_a: Key, settings: Any
) -> None:
    from memory.models import HotDocument
    from memory.services.hot_keys import hot_cache_keys_rekey

    agent_key_a.client().post("/v1/sessions", {"agent": "advisor", "user": "priya"}, format="json")
    agent_key_a.client().post("/v1/sessions", {"agent": "advisor", "user": "ravi"}, format="json")
    assert hot_cache_keys_rekey() == 0
    settings.SECRET_KEY = "rotated-" + "x" * 40
    first, second = HotDocument.objects.order_by("pk")
    HotDocument.objects.filter(pk=second.pk).update(cache_key=second.cache_key + "~erasing")
    assert hot_cache_keys_rekey() == 1
    assert HotDocument.objects.get(pk=first.pk).cache_key != first.cache_key
    assert HotDocument.objects.get(pk=second.pk).cache_key == second.cache_key + "~erasing"
