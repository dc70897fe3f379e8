"""Django's PostgreSQL backend, with a health check that costs no round trip while the
connection shows no sign of trouble (ADR 0030).

``CONN_HEALTH_CHECKS`` makes Django run ``SELECT 1`` on a reused connection at the start of
every request: a round trip and a statement for PostgreSQL on each call-path request, a third of
the database work of an append. An idle connection's socket has nothing to read unless the
server is going away (it sends a termination notice, then closes), so a socket with nothing to
read is taken as usable, and only one with something to read gets the ``SELECT 1`` (which then
fails, and Django reconnects). A server that vanished without a word fails the request's own
statement instead: 503 ``database_unavailable``, and the connection is dropped for the next.
"""

from __future__ import annotations

import select

import psycopg
from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled  # type: ignore[attr-defined]
            and not self.health_check_done  # type: ignore[has-type]
            and self._quiet()
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        """Whether the idle connection's socket has nothing to read and no error or hang-up."""
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            poller = select.poll()
            poller.register(connection.pgconn.socket, select.POLLIN | select.POLLPRI)
            return not poller.poll(0)
        except (OSError, ValueError, psycopg.Error):
            return False
