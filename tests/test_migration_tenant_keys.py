"""The distributable schema (ADR 0028) on a populated database: back to the state before it,
rows in every tenant table, forward again; no row lost, and the keys and partitions are what
tenants/distribution.py says; and back again, populated, without losing a row. The webhook
tables (webhooks.0002_tenant_keys) are among them."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from tenants.distribution import (
    COLUMN,
    DISTRIBUTED,
    FOREIGN_KEYS,
    REFERENCE,
    TENANT_KEYED,
    TURN_PARTITIONS,
    TURN_TABLE,
)

BEFORE = [
    ("tenants", "0004_extraction_budget"),
    ("schemas", "0007_model_connections"),
    ("memory", "0008_hot_cache_keyed_names"),
    ("extraction", "0005_run_explanations"),
    ("webhooks", "0001_initial"),
]
TURNS_PER_TENANT = 300
NOW = datetime.datetime(2026, 5, 1, tzinfo=datetime.UTC)


def _migrate(targets: list[tuple[str, str]] | None = None) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    plan = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(plan)
    return executor.loader.project_state(plan).apps


def _primary_keys() -> dict[str, list[tuple[str, list[str]]]]:
    return {table: _key_columns(table, "p") for table in TENANT_KEYED}


def _counts() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in TENANT_KEYED:
            cursor.execute(f'SELECT count(*) FROM "{table}"')
            counts[table] = cursor.fetchone()[0]
    return counts


def _fill(apps: Any) -> None:
    """Two tenants, every tenant table holding rows, with the old (pre-0028) models."""
    User = apps.get_model("auth", "User")
    login = User.objects.create(username="op")
    for n in (1, 2):
        tenant = apps.get_model("tenants", "Tenant").objects.create(name=f"T{n}", slug=f"t{n}")
        agent = apps.get_model("schemas", "Agent").objects.create(tenant=tenant, slug="a", name="A")
        apps.get_model("schemas", "ExtractionSchema").objects.create(
            tenant=tenant, agent=agent, version=1, fields=[], is_active=True, created_by="t"
        )
        apps.get_model("tenants", "Membership").objects.create(tenant=tenant, user=login)
        apps.get_model("tenants", "ApiKey").objects.create(
            tenant=tenant, agent=agent, name="k", prefix=f"p{n}", secret_hash="0" * 64
        )
        apps.get_model("tenants", "AuditEvent").objects.create(
            tenant=tenant, actor="t", action="x", target_type="y", target_id="1"
        )
        user = apps.get_model("memory", "EndUser").objects.create(tenant=tenant, external_id="u")
        session = apps.get_model("memory", "Session").objects.create(
            tenant=tenant, agent=agent, end_user=user, external_id="s", started_at=NOW,
            last_activity_at=NOW, next_seq=TURNS_PER_TENANT + 1,
        )  # fmt: skip
        apps.get_model("memory", "Turn").objects.bulk_create(
            apps.get_model("memory", "Turn")(
                tenant=tenant,
                session=session,
                agent=agent,
                end_user=user,
                seq=seq,
                role="user",
                text=f"turn {seq} of tenant {n}",
                tokens=4,
                occurred_at=NOW,
                recorded_at=NOW,
            )
            for seq in range(1, TURNS_PER_TENANT + 1)
        )
        apps.get_model("memory", "HotDocument").objects.create(
            tenant=tenant, agent=agent, end_user=user, cache_key=f"hot:{{{n}:a:u}}"
        )
        Entity = apps.get_model("memory", "Entity")
        common = {"tenant": tenant, "agent": agent, "end_user": user, "key": "budget",
                  "field": "budget", "category": "temporal", "source": "explicit",
                  "valid_from": NOW, "recorded_at": NOW, "created_by": "t"}  # fmt: skip
        new = Entity.objects.create(**common, value=80, value_text="80")
        Entity.objects.create(**common, value=50, value_text="50", status="superseded",
                              superseded_by=new)  # fmt: skip
        apps.get_model("memory", "ACU").objects.create(
            tenant=tenant, agent=agent, end_user=user, session=session, text="x",
            occurred_at=NOW, content_hash="h",
        )  # fmt: skip
        apps.get_model("memory", "Erasure").objects.create(
            tenant=tenant, subject_hash="s", end_user=user, actor="t"
        )
        apps.get_model("extraction", "ExtractionRun").objects.create(
            tenant=tenant, agent=agent, end_user=user, status="succeeded"
        )
        endpoint = apps.get_model("webhooks", "WebhookEndpoint").objects.create(
            tenant=tenant, url=f"https://t{n}.example/hook", event_types=["fact.created"],
            secret="whsec_x", created_by="t",
        )  # fmt: skip
        event = apps.get_model("webhooks", "WebhookEvent").objects.create(
            tenant=tenant, type="fact.created", payload={"type": "fact.created"},
            end_user_id=user.id,
        )  # fmt: skip
        Delivery = apps.get_model("webhooks", "WebhookDelivery")
        first = Delivery.objects.create(
            tenant=tenant, event=event, endpoint=endpoint, next_attempt_at=NOW, status="failed"
        )
        Delivery.objects.create(
            tenant=tenant, event=event, endpoint=endpoint, next_attempt_at=NOW, replay_of=first
        )


def _key_columns(table: str, kind: str) -> list[tuple[str, list[str]]]:
    """The (name, columns) of each primary key ('p'), unique index ('u') of ``table``."""
    condition = "i.indisprimary" if kind == "p" else "i.indisunique AND NOT i.indisprimary"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, array_agg(a.attname ORDER BY k.n) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid "
            "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) "
            "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
            f"WHERE i.indrelid = %s::regclass AND {condition} GROUP BY c.relname ORDER BY 1",
            [table],
        )
        return [(name, list(columns)) for name, columns in cursor.fetchall()]


@pytest.fixture
def pre_change_database() -> Iterator[Any]:
    apps = _migrate(BEFORE)
    try:
        yield apps
    finally:
        _migrate()  # whatever happened, the next test gets the current schema


@pytest.mark.django_db(transaction=True)
def test_tenant_keys_and_partitions_on_a_populated_database(pre_change_database: Any) -> None:
    _fill(pre_change_database)
    before = _counts()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT max(id), sum(hashtext(text)) FROM {TURN_TABLE}")
        max_turn, turn_digest = cursor.fetchone()
    assert before[TURN_TABLE] == 2 * TURNS_PER_TENANT and all(before.values()), before

    _migrate()

    assert _counts() == before
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT max(id), sum(hashtext(text)) FROM {TURN_TABLE}")
        assert cursor.fetchone() == (max_turn, turn_digest)
    for table in TENANT_KEYED:
        assert _key_columns(table, "p") == [(f"{table}_pkey", ["id", COLUMN])], table
        for name, columns in _key_columns(table, "u"):
            if (table, name) == ("tenants_apikey", "tenants_apikey_prefix_key"):
                continue  # a reference table: the key lookup is by prefix alone (ADR 0028)
            assert COLUMN in columns, (table, name, columns)

    with connection.cursor() as cursor:
        # Every foreign key between tenant tables carries tenant_id on both sides.
        cursor.execute(
            "SELECT conrelid::regclass::text, conname, array_length(conkey, 1), "
            "confrelid::regclass::text FROM pg_constraint WHERE contype = 'f' "
            "AND conrelid::regclass::text = ANY(%s) AND confrelid::regclass::text = ANY(%s)",
            [TENANT_KEYED, TENANT_KEYED],
        )
        found = {(table, name): (width, target) for table, name, width, target in cursor}
        assert found == {(fk.table, fk.name): (2, fk.target) for fk in FOREIGN_KEYS}
        # The turn log: hash-partitioned, every row in the partition of its tenant, row
        # security on the parent, the partitions out of the scoped role's reach.
        cursor.execute(
            "SELECT c.relkind, pg_get_partkeydef(c.oid), c.relrowsecurity FROM pg_class c "
            "WHERE c.oid = %s::regclass",
            [TURN_TABLE],
        )
        assert cursor.fetchone() == ("p", f"HASH ({COLUMN})", True)
        # Each tenant's turns in one partition (two tenants may share one).
        cursor.execute(
            f"SELECT count(*), count(DISTINCT tableoid) FROM {TURN_TABLE} GROUP BY tenant_id"
        )
        assert cursor.fetchall() == [(TURNS_PER_TENANT, 1), (TURNS_PER_TENANT, 1)]
        cursor.execute(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = %s::regclass", [TURN_TABLE]
        )
        assert cursor.fetchone()[0] == TURN_PARTITIONS
        cursor.execute("SELECT has_table_privilege('handover_tenant', 'memory_turn_p0', 'SELECT')")
        assert cursor.fetchone()[0] is False

        # The id sequence goes on after the copied rows; the same (session, seq) is refused.
        cursor.execute(
            "SELECT tenant_id, session_id, agent_id, end_user_id FROM memory_turn WHERE seq = 1 "
            "ORDER BY tenant_id LIMIT 1"
        )
        tenant_id, session_id, agent_id, end_user_id = cursor.fetchone()
        insert = (
            "INSERT INTO memory_turn (tenant_id, session_id, agent_id, end_user_id, seq, role, "
            "text, tokens, occurred_at, recorded_at) VALUES (%s, %s, %s, %s, %s, 'user', 'x', 1, "
            "now(), now()) RETURNING id"
        )
        cursor.execute(insert, [tenant_id, session_id, agent_id, end_user_id, 10_000])
        assert cursor.fetchone()[0] > max_turn
        with pytest.raises(IntegrityError), transaction.atomic():
            cursor.execute(insert, [tenant_id, session_id, agent_id, end_user_id, 1])
        # A composite foreign key refuses a row pointing at another tenant's session.
        with pytest.raises(IntegrityError), transaction.atomic():
            cursor.execute(insert, [tenant_id + 1, session_id, agent_id, end_user_id, 10_001])
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        # Likewise a webhook delivery of another tenant's event.
        cursor.execute(
            "SELECT tenant_id, event_id, endpoint_id FROM webhooks_webhookdelivery "
            "ORDER BY tenant_id LIMIT 1"
        )
        tenant_id, event_id, endpoint_id = cursor.fetchone()
        with pytest.raises(IntegrityError), transaction.atomic():
            cursor.execute(
                "INSERT INTO webhooks_webhookdelivery (id, tenant_id, event_id, endpoint_id, "
                "status, attempts, next_attempt_at, error, created_by, created_at) VALUES "
                "(gen_random_uuid(), %s, %s, %s, 'pending', 0, now(), '', '', now())",
                [tenant_id + 1, event_id, endpoint_id],
            )
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")

    # And back to the state before, populated: no row lost, the single-column keys again.
    after = _counts()
    _migrate(BEFORE)
    assert _counts() == after
    assert _primary_keys() == {table: [(f"{table}_pkey", ["id"])] for table in TENANT_KEYED}


@pytest.mark.django_db
def test_every_table_with_a_tenant_column_is_keyed_by_it() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE a.attname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
            "AND c.relnamespace = current_schema()::regnamespace ORDER BY 1",
            [COLUMN],
        )
        tables = [row[0] for row in cursor.fetchall()]
    assert tables == sorted(TENANT_KEYED)


def test_the_citus_steps_in_deploy_md_distribute_every_table_as_listed() -> None:
    """docs/deploy.md's SQL (never run here: Citus cannot be installed) names exactly the tables
    tenants/distribution.py distributes and copies, distributed parents first."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "deploy.md").read_text()
    distributed = re.findall(r"create_distributed_table\('(\w+)'", text)
    reference = re.findall(r"create_reference_table\('(\w+)'", text)
    assert distributed == DISTRIBUTED
    assert sorted(reference) == sorted(REFERENCE)
    assert "citus_set_coordinator_host" in text  # local admin tables point at reference ones
