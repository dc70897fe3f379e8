from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tenants.models import ApiKey
from tenants.services import api_key_revoke
from tests.conftest import DEAD_REDIS, Key


def _get(client: APIClient) -> Any:
    return client.get("/v1/agents")


def test_missing_key_is_401_with_code(db: None) -> None:
    response = _get(APIClient())
    assert response.status_code == 401
    assert response.json()["code"] == "missing_api_key"
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("Token abc", "invalid_authorization_header"),
        ("Bearer", "invalid_authorization_header"),
        ("Bearer not-a-key", "invalid_api_key"),
        ("Bearer hv_000000000000_secret", "invalid_api_key"),
    ],
)
def test_malformed_or_unknown_key_is_401(db: None, header: str, code: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = _get(client)
    assert response.status_code == 401
    assert response.json()["code"] == code


def test_right_prefix_wrong_secret_is_401(operator_key_a: Key) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer hv_{operator_key_a.model.prefix}_wrong")
    assert _get(client).json()["code"] == "invalid_api_key"


def test_revoked_key_is_401_even_when_it_was_cached(operator_key_a: Key) -> None:
    client = operator_key_a.client()
    assert _get(client).status_code == 200  # now cached
    api_key_revoke(api_key=operator_key_a.model, actor="test")
    response = _get(client)
    assert response.status_code == 401
    assert response.json()["code"] == "revoked_api_key"


def test_cached_key_adds_no_query(
    operator_key_a: Key, django_assert_num_queries: Any, sticky_tenant_scope: None
) -> None:
    client = operator_key_a.client()
    _get(client)  # warms the principal cache and writes last_used_at
    with django_assert_num_queries(1):  # the agent list itself; nothing for authentication
        assert _get(client).status_code == 200


def test_last_used_at_is_written_at_most_once_a_minute(operator_key_a: Key) -> None:
    client = operator_key_a.client()
    _get(client)
    first = ApiKey.objects.get(pk=operator_key_a.model.pk).last_used_at
    assert first is not None
    _get(client)
    assert ApiKey.objects.get(pk=operator_key_a.model.pk).last_used_at == first


def test_database_never_holds_the_secret_in_clear(operator_key_a: Key) -> None:
    secret = operator_key_a.raw.split("_", 2)[2]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
        )
        tables = [row[0] for row in cursor.fetchall()]
        assert "tenants_apikey" in tables
        for table in tables:
            cursor.execute(
                f'SELECT count(*) FROM "{table}" t WHERE t::text LIKE %s',
                [f"%{secret}%"],
            )
            assert cursor.fetchone()[0] == 0, f"{table} holds the secret"


def test_authentication_degrades_to_postgres_when_redis_is_down(
    operator_key_a: Key, django_assert_num_queries: Any
) -> None:
    from django.test import override_settings

    with (
        override_settings(CACHES=DEAD_REDIS),
        django_assert_num_queries(4),
    ):  # key, tenant scope, agent list (and the tests' own leaving of the scope)
        assert _get(operator_key_a.client()).status_code == 200
    api_key_revoke(api_key=operator_key_a.model, actor="test")
    with override_settings(CACHES=DEAD_REDIS):
        assert _get(operator_key_a.client()).json()["code"] == "revoked_api_key"


def test_an_unknown_prefix_costs_the_same_hash_and_constant_time_compare_as_a_wrong_secret(
    operator_key_a: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Timing must not tell a guessed prefix from a wrong one (issue 16)."""
    import hmac

    from tenants import authentication

    work: list[str] = []
    real_hash, real_compare = authentication.api_key_hash, hmac.compare_digest

    def hashing(secret: str) -> str:
        work.append("hash")
        return real_hash(secret)

    def comparing(a: str, b: str) -> bool:
        work.append("compare")
        return real_compare(a, b)

    monkeypatch.setattr(authentication, "api_key_hash", hashing)
    monkeypatch.setattr(authentication.hmac, "compare_digest", comparing)
    prefix = operator_key_a.raw.split("_")[1]
    for raw, expected in [
        (f"hv_{prefix}_wrong-secret", ["hash", "compare"]),
        ("hv_000000000000_wrong-secret", ["hash", "compare"]),
    ]:
        work.clear()
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert _get(client).status_code == 401
        assert work == expected, raw


def _revoke_elsewhere(key: ApiKey) -> None:
    """What another API process's revoke leaves for this one: the row revoked, Redis's copy
    gone, and this process's own copy untouched."""
    from django.core.cache import cache
    from django.utils import timezone

    from tenants.services import api_key_cache_key

    ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())
    cache.delete(api_key_cache_key(key.prefix))


def test_a_key_revoked_by_another_process_is_refused_once_this_process_copy_expires(
    operator_key_a: Key, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    from tenants import principal

    settings.API_KEY_LOCAL_CACHE_SECONDS = 2
    clock = [1000.0]
    monkeypatch.setattr(principal.time, "monotonic", lambda: clock[0])
    client = operator_key_a.client()
    assert _get(client).status_code == 200  # read from PostgreSQL, kept in Redis and here
    _revoke_elsewhere(operator_key_a.model)
    clock[0] += 1.5
    assert _get(client).status_code == 200  # this process's copy, within its 2 s
    clock[0] += 1.0
    response = _get(client)
    assert response.status_code == 401
    assert response.json()["code"] == "revoked_api_key"


def test_with_no_process_copy_a_revoke_elsewhere_is_refused_at_once(
    operator_key_a: Key, settings: Any
) -> None:
    settings.API_KEY_LOCAL_CACHE_SECONDS = 0
    client = operator_key_a.client()
    assert _get(client).status_code == 200
    _revoke_elsewhere(operator_key_a.model)
    assert _get(client).json()["code"] == "revoked_api_key"


def test_a_key_held_by_the_process_needs_no_redis(
    operator_key_a: Key, settings: Any, django_assert_num_queries: Any
) -> None:
    from django.test import override_settings

    settings.API_KEY_LOCAL_CACHE_SECONDS = 60
    assert _get(operator_key_a.client()).status_code == 200
    with (
        override_settings(CACHES=DEAD_REDIS),
        django_assert_num_queries(3),
    ):  # no key lookup: tenant scope, agent list, the tests' own leaving of the scope
        assert _get(operator_key_a.client()).status_code == 200
