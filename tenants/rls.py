"""PostgreSQL row-level security: defence in depth under the tenant filters of the code.

Every tenant table carries a policy for the role ``handover_tenant``: a row is visible and
writable only when its ``tenant_id`` equals the setting ``handover.tenant_id``. An API request,
once its key is known, switches its connection to that role and tenant
(``tenant_scope_enter``), so that a query that forgot its tenant filter still sees one tenant's
rows. Anything else that uses the connection (the admin, health checks, the API key lookup)
leaves the scope first (``tenant_scope_exit``). The admin, Celery tasks and migrations run as
the connecting role (the tables' owner), which the policies do not restrict. ADR 0022.
"""

from __future__ import annotations

from django.db import connection
from django.db.migrations.operations.special import RunSQL

ROLE = "handover_tenant"
SETTING = "handover.tenant_id"
_SCOPED = "_handover_tenant_scope"  # on the connection wrapper: (driver connection, tenant id)


def _predicate(column: str) -> str:
    # The setting is read once per statement (an InitPlan), not once per row.
    return f"{column} = (SELECT NULLIF(current_setting('{SETTING}', true), '')::bigint)"


def tenant_row_security(table: str, column: str = "tenant_id") -> RunSQL:
    """A migration operation: enable the tenant policy on ``table``."""
    return RunSQL(
        [
            f'ALTER TABLE "{table}" ENABLE ROW LEVEL SECURITY',
            f'CREATE POLICY tenant_isolation ON "{table}" TO {ROLE} '
            f"USING ({_predicate(column)}) WITH CHECK ({_predicate(column)})",
        ],
        [
            f'DROP POLICY IF EXISTS tenant_isolation ON "{table}"',
            f'ALTER TABLE "{table}" DISABLE ROW LEVEL SECURITY',
        ],
    )


ROLE_SQL = RunSQL(
    [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') "  # noqa: S608 (constants)
        f"THEN CREATE ROLE {ROLE} NOLOGIN NOINHERIT; END IF; END $$",
        # The connecting role must be able to SET ROLE to it (a superuser always can).
        f"DO $$ BEGIN IF NOT pg_has_role(current_user, '{ROLE}', 'MEMBER') "
        f"THEN GRANT {ROLE} TO CURRENT_USER; END IF; END $$",
        f"GRANT USAGE ON SCHEMA public TO {ROLE}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {ROLE}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {ROLE}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {ROLE}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {ROLE}",
    ],
    RunSQL.noop,
)


def _scoped_tenant() -> int | None:
    """The tenant this very database session is scoped to, if any. Keyed by the driver
    connection, so a reconnect (a new, unscoped session) is never mistaken for a scoped one."""
    state = getattr(connection, _SCOPED, None)
    if state is None or connection.connection is None or state[0] is not connection.connection:
        return None
    return int(state[1])


def tenant_scope_enter(tenant_id: int) -> None:
    """From now on this connection sees only ``tenant_id``'s rows.

    One round trip when the connection was not already scoped to this tenant, none when it was:
    the scope stays on the connection between requests (an API worker thread mostly serves one
    tenant after another with the same connection), and is left only when something else needs
    the connection (``tenant_scope_exit``).
    """
    if _scoped_tenant() == tenant_id:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('role', %s, false), set_config(%s, %s, false)",
            [ROLE, SETTING, str(int(tenant_id))],
        )
    setattr(connection, _SCOPED, (connection.connection, int(tenant_id)))


def tenant_scope_exit() -> None:
    """Back to the connecting role (one round trip); a no-op when the connection is unscoped."""
    scoped = _scoped_tenant() is not None
    setattr(connection, _SCOPED, None)
    if not scoped:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config(%s, '', false), set_config('role', 'none', false)", [SETTING]
        )
