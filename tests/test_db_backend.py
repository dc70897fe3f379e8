"""The database backend's health check (config/db/base.py, ADR 0030): no round trip while the
connection is quiet, Django's SELECT 1 (and a reconnect) once the server has gone away."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import connection, connections

pytestmark = pytest.mark.django_db


def test_a_quiet_connection_is_reused_without_a_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    connection.ensure_connection()
    checks: list[int] = []

    def usable() -> bool:
        checks.append(1)
        return True

    monkeypatch.setattr(connection, "is_usable", usable)
    connection.health_check_enabled, connection.health_check_done = True, False  # type: ignore[attr-defined]
    connection.close_if_health_check_failed()
    assert checks == [] and connection.health_check_done  # type: ignore[attr-defined]


def test_a_connection_the_server_ended_is_checked_and_dropped() -> None:
    other: Any = connections.create_connection("default")
    try:
        other.ensure_connection()
        pid = other.connection.info.backend_pid
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        time.sleep(0.2)  # the termination notice reaches the socket
        other.health_check_enabled, other.health_check_done = True, False
        other.close_if_health_check_failed()
        assert other.connection is None  # the SELECT 1 failed: closed, reconnects on next use
        with other.cursor() as cursor:
            cursor.execute("SELECT 1")
            assert cursor.fetchone() == (1,)
    finally:
        other.close()
