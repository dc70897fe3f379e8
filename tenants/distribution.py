"""How the schema distributes by tenant (ADR 0028): which tables are sharded by ``tenant_id``,
which are reference tables copied to every node, and the keys that make that possible.

Citus (and PostgreSQL's own partitioning by tenant) needs ``tenant_id`` in every primary and
unique key of a distributed table, and a foreign key between two distributed tables to carry
``tenant_id`` on both sides. So every tenant table's primary key is ``(id, tenant_id)``, and the
foreign keys between them are ``(x_id, tenant_id) → (id, tenant_id)``. Django cannot model
either (a ForeignKey to a model with a CompositePrimaryKey is check error fields.E347, and the
admin refuses such a model), so the models keep ``id`` as their identity, their ForeignKeys
carry ``db_constraint=False``, and the migrations below hold the database's real keys.

This module names tables only (strings): it imports no app, so it sits at the bottom of the
layers with the rest of ``tenants``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.migrations.operations.special import RunPython, RunSQL

from tenants.rls import ROLE, tenant_row_security

# The distribution column of every distributed table, and the table it points at.
COLUMN = "tenant_id"


@dataclass(frozen=True)
class ForeignKey:
    table: str
    column: str
    target: str

    @property
    def name(self) -> str:
        # Stable, readable, and within PostgreSQL's 63 characters for every pair below.
        return f"{self.table}_{self.column.removesuffix('_id')}_tenant_fk"


# Sharded by tenant_id, colocated with each other (create_distributed_table, docs/deploy.md).
# Listed parents first: the order in which Citus must distribute them.
DISTRIBUTED = [
    "schemas_agent",
    "schemas_extractionschema",
    "memory_enduser",
    "memory_session",
    "memory_turn",
    "memory_hotdocument",
    "memory_entity",
    "memory_acu",
    "memory_erasure",
    "extraction_extractionrun",
    "tenants_auditevent",
    "webhooks_webhookendpoint",
    "webhooks_webhookevent",
    "webhooks_webhookdelivery",
]

# Copied whole to every node (create_reference_table): small, read far more than written, and
# read without a tenant (the API key lookup by prefix, a login's memberships, Django's own).
# Their tenant tables still key on (id, tenant_id); the API key's prefix stays unique on its
# own, which a reference table may (authentication finds a key by prefix before any tenant).
REFERENCE = [
    "tenants_tenant",
    "tenants_membership",
    "tenants_apikey",
    "auth_user",
    "auth_group",
    "auth_permission",
    "auth_group_permissions",
    "auth_user_groups",
    "auth_user_user_permissions",
    "django_content_type",
]

# Tables keyed (id, tenant_id): every table with a tenant_id column.
TENANT_KEYED = [*DISTRIBUTED, "tenants_membership", "tenants_apikey"]

FOREIGN_KEYS = [
    ForeignKey("schemas_extractionschema", "agent_id", "schemas_agent"),
    ForeignKey("memory_session", "agent_id", "schemas_agent"),
    ForeignKey("memory_session", "end_user_id", "memory_enduser"),
    ForeignKey("memory_turn", "session_id", "memory_session"),
    ForeignKey("memory_turn", "agent_id", "schemas_agent"),
    ForeignKey("memory_turn", "end_user_id", "memory_enduser"),
    ForeignKey("memory_hotdocument", "agent_id", "schemas_agent"),
    ForeignKey("memory_hotdocument", "end_user_id", "memory_enduser"),
    ForeignKey("memory_entity", "agent_id", "schemas_agent"),
    ForeignKey("memory_entity", "end_user_id", "memory_enduser"),
    ForeignKey("memory_entity", "superseded_by_id", "memory_entity"),
    ForeignKey("memory_acu", "agent_id", "schemas_agent"),
    ForeignKey("memory_acu", "end_user_id", "memory_enduser"),
    ForeignKey("memory_acu", "session_id", "memory_session"),
    ForeignKey("memory_erasure", "end_user_id", "memory_enduser"),
    ForeignKey("extraction_extractionrun", "agent_id", "schemas_agent"),
    ForeignKey("extraction_extractionrun", "end_user_id", "memory_enduser"),
    ForeignKey("webhooks_webhookdelivery", "event_id", "webhooks_webhookevent"),
    ForeignKey("webhooks_webhookdelivery", "endpoint_id", "webhooks_webhookendpoint"),
    ForeignKey("webhooks_webhookdelivery", "replay_of_id", "webhooks_webhookdelivery"),
    # A reference table may not point at a distributed one in Citus: docs/deploy.md drops this
    # one there (Django's on_delete=PROTECT still guards it).
    ForeignKey("tenants_apikey", "agent_id", "schemas_agent"),
]

# The turn log, the largest table, is hash-partitioned by tenant (ADR 0028: measured against
# partitioning by time in bench/partitioning.py).
TURN_TABLE = "memory_turn"
TURN_PARTITIONS = 8


def _pkey(table: str, columns: str) -> list[str]:
    return [
        f'ALTER TABLE "{table}" DROP CONSTRAINT "{table}_pkey"',
        f'ALTER TABLE "{table}" ADD CONSTRAINT "{table}_pkey" PRIMARY KEY ({columns})',
    ]


def _fk_add(fk: ForeignKey) -> str:
    # Deferred to commit like Django's own, so its deletion order inside a transaction holds.
    return (
        f'ALTER TABLE "{fk.table}" ADD CONSTRAINT "{fk.name}" FOREIGN KEY ("{fk.column}", '
        f'"{COLUMN}") REFERENCES "{fk.target}" (id, "{COLUMN}") DEFERRABLE INITIALLY DEFERRED'
    )


def tenant_keys(tables: list[str], foreign_keys: list[ForeignKey] | None = None) -> RunSQL:
    """A migration operation: primary keys (id, tenant_id) for ``tables``, then composite
    foreign keys: ``foreign_keys``, by default those of FOREIGN_KEYS between two of ``tables``.

    Each app's ``*_tenant_keys`` migration names its own tables as they stood when it was
    written, so a table or foreign key added here later changes no applied migration (a later
    foreign key that leaves the migration's tables is passed to its migration explicitly; the
    migration test checks that the database ends with exactly FOREIGN_KEYS). Runs after the
    models' single-column foreign key constraints were dropped (their ``db_constraint=False``);
    its reverse restores the single-column primary keys, after which reversing those
    AlterFields puts Django's constraints back.
    """
    unknown = sorted(set(tables) - set(TENANT_KEYED))
    if unknown:
        raise ValueError(f"not tenant tables (TENANT_KEYED): {unknown}")
    if foreign_keys is None:
        foreign_keys = [fk for fk in FOREIGN_KEYS if fk.table in tables and fk.target in tables]
    forward: list[Any] = [sql for table in tables for sql in _pkey(table, f'id, "{COLUMN}"')]
    forward += [_fk_add(fk) for fk in foreign_keys]
    backward: list[Any] = [
        f'ALTER TABLE "{fk.table}" DROP CONSTRAINT "{fk.name}"' for fk in foreign_keys
    ]
    backward += [sql for table in tables for sql in _pkey(table, "id")]
    return RunSQL(forward, backward)


def _rebuild(cursor: Any, table: str, partitions: int | None) -> None:
    """Rebuild ``table`` as hash-partitioned by tenant (``partitions``) or as a plain table
    (None), rows, keys, indexes, row security and id sequence included, in the migration's
    transaction. Nothing may point at the table (nothing points at the turn log)."""
    new = f"{table}_rebuilt"
    cursor.execute(
        "SELECT count(*) FROM pg_constraint WHERE confrelid = %s::regclass AND contype = 'f'",
        [table],
    )
    if cursor.fetchone()[0]:
        raise RuntimeError(f"{table} is referenced by a foreign key; it cannot be rebuilt")
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = "
        "%s::regclass AND contype IN ('p', 'u', 'c', 'f') ORDER BY contype = 'f', conname",
        [table],
    )
    constraints = cursor.fetchall()
    cursor.execute(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %s "
        "AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass) "
        "ORDER BY indexname",
        [table, table],
    )
    indexes = [row[0] for row in cursor.fetchall()]
    cursor.execute("SELECT relrowsecurity FROM pg_class WHERE oid = %s::regclass", [table])
    row_security = cursor.fetchone()[0]
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = %s AND is_generated = 'NEVER' ORDER BY ordinal_position",
        [table],
    )
    columns = ", ".join(f'"{row[0]}"' for row in cursor.fetchall())
    cursor.execute(f'SELECT COALESCE(max(id), 0) FROM "{table}"')  # noqa: S608 (a table name)
    next_id = cursor.fetchone()[0]
    cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
    sequence = cursor.fetchone()[0]
    if sequence:
        cursor.execute(f"SELECT last_value FROM {sequence}")  # noqa: S608 (a sequence name)
        next_id = max(next_id, cursor.fetchone()[0])

    partitioned = f" PARTITION BY HASH ({COLUMN})" if partitions else ""
    cursor.execute(
        f'CREATE TABLE "{new}" (LIKE "{table}" INCLUDING DEFAULTS INCLUDING GENERATED '
        f"INCLUDING STORAGE){partitioned}"
    )
    cursor.execute(f'ALTER TABLE "{new}" ALTER COLUMN id DROP DEFAULT')
    for remainder in range(partitions or 0):
        cursor.execute(
            f'CREATE TABLE "{table}_p{remainder}" PARTITION OF "{new}" '
            f"FOR VALUES WITH (MODULUS {partitions}, REMAINDER {remainder})"
        )
    cursor.execute(f'INSERT INTO "{new}" ({columns}) SELECT {columns} FROM "{table}"')  # noqa: S608
    cursor.execute(f'DROP TABLE "{table}"')
    cursor.execute(f'ALTER TABLE "{new}" RENAME TO "{table}"')
    if partitions:
        # PostgreSQL 16 has no identity column on a partitioned table (17 does): a sequence.
        cursor.execute(f'CREATE SEQUENCE "{table}_id_seq" OWNED BY "{table}".id')
        cursor.execute(
            f'ALTER TABLE "{table}" ALTER COLUMN id SET DEFAULT nextval(\'"{table}_id_seq"\')'
        )
    else:
        cursor.execute(
            f'ALTER TABLE "{table}" ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY'
        )
    if next_id:
        cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'id'), %s)", [table, next_id])
    for name, definition in constraints:
        cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}')
    for definition in indexes:
        cursor.execute(definition)
    if row_security:
        for statement in tenant_row_security(table).sql:
            cursor.execute(statement)
    cursor.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{table}" TO {ROLE}')
    cursor.execute(f'GRANT USAGE, SELECT ON SEQUENCE "{table}_id_seq" TO {ROLE}')
    for remainder in range(partitions or 0):
        # The policy is the parent's: the scoped role reaches turns through it, never directly.
        cursor.execute(f'REVOKE ALL ON "{table}_p{remainder}" FROM {ROLE}')
    cursor.execute(f'ANALYZE "{table}"')


def turn_partitioning() -> RunPython:
    """A migration operation: the turn log hash-partitioned by tenant into TURN_PARTITIONS;
    its reverse makes it one plain table again. Rows are copied in the migration's
    transaction (an exclusive lock on the turn log while it runs: docs/deploy.md)."""

    def forward(apps: Any, schema_editor: Any) -> None:
        with schema_editor.connection.cursor() as cursor:
            _rebuild(cursor, TURN_TABLE, TURN_PARTITIONS)

    def backward(apps: Any, schema_editor: Any) -> None:
        with schema_editor.connection.cursor() as cursor:
            _rebuild(cursor, TURN_TABLE, None)

    return RunPython(forward, backward)
