"""The admin login is throttled per username and per client address (django-axes), audited,
and unlockable by a documented command."""

from __future__ import annotations

from typing import Any

import pytest
from axes.models import AccessAttempt, AccessFailureLog
from django.core.management import call_command
from django.test import Client

from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"


@pytest.fixture
def operator(db: None, settings: Any) -> Any:
    # A fast hasher: each attempt would otherwise spend a second in PBKDF2.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user: Any = UserFactory(username="ops", is_staff=True, is_superuser=True)
    user.set_password(PASSWORD)
    user.save()
    return user


def _attempt(username: str, password: str, address: str = "198.51.100.7") -> str:
    """ "in" (redirected into the admin), "form" (the login form again) or "locked" (429)."""
    client = Client(REMOTE_ADDR=address)
    response = client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}
    )
    if response.status_code == 302 and response["Location"] == "/admin/":
        return "in"
    if response.status_code == 429:
        return "locked"
    assert response.status_code == 200, response.status_code
    return "form"


def test_the_right_password_after_too_many_wrong_ones_is_refused(
    operator: Any, settings: Any
) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _attempt("ops", "wrong") == "form"
    assert _attempt("ops", "wrong") == "locked"  # the failure that reaches the limit
    assert _attempt("ops", PASSWORD) == "locked"
    assert AccessFailureLog.objects.filter(username="ops").count() >= settings.AXES_FAILURE_LIMIT


def test_the_lockout_is_per_username_from_any_address(operator: Any, settings: Any) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT):
        _attempt("ops", "wrong", address=f"198.51.100.{n + 1}")
    assert _attempt("ops", PASSWORD, address="203.0.113.9") == "locked"


def test_the_lockout_is_per_address_for_any_username(operator: Any, settings: Any) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT):
        _attempt(f"guess-{n}", "wrong", address="198.51.100.50")
    assert _attempt("ops", PASSWORD, address="198.51.100.50") == "locked"
    assert _attempt("ops", PASSWORD, address="198.51.100.51") == "in"


def test_a_few_mistakes_then_the_right_password_logs_in(operator: Any, settings: Any) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _attempt("ops", "wrong")
    assert _attempt("ops", PASSWORD) == "in"


def test_the_documented_unlock_lets_the_user_in_again(operator: Any, settings: Any) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT):
        _attempt("ops", "wrong", address=f"198.51.100.{n + 1}")
    assert _attempt("ops", PASSWORD, address="203.0.113.9") == "locked"
    call_command("axes_reset_username", "ops")
    assert _attempt("ops", PASSWORD, address="203.0.113.9") == "in"


def test_failed_attempts_never_store_the_password(operator: Any) -> None:
    _attempt("ops", "hunter2-secret")
    stored = " ".join(str(a.get_data) + str(a.post_data) for a in AccessAttempt.objects.all())
    assert "hunter2-secret" not in stored
