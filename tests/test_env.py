from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from core import env


@pytest.mark.parametrize("value", ["ture", "2", "enabled"])
def test_bad_boolean_is_an_error_not_false(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("DJANGO_DEBUG", value)
    with pytest.raises(ImproperlyConfigured, match="DJANGO_DEBUG"):
        env.boolean("DJANGO_DEBUG", False)


@pytest.mark.parametrize(
    ("value", "expected"), [("true", True), ("0", False), ("YES", True), ("off", False)]
)
def test_booleans(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("DJANGO_DEBUG", value)
    assert env.boolean("DJANGO_DEBUG", not expected) is expected


def test_secret_from_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("from-a-file\n")
    monkeypatch.setenv("SECRET_KEY_FILE", str(secret))
    assert env.string("SECRET_KEY") == "from-a-file"


def test_unreadable_secret_file_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SECRET_KEY_FILE", str(tmp_path / "missing"))
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY_FILE"):
        env.string("SECRET_KEY")


def test_required_and_integers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("SECRET_KEY_FILE", raising=False)
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set"):
        env.string("SECRET_KEY", required=True)
    monkeypatch.setenv("PORT", "80a")
    with pytest.raises(ImproperlyConfigured, match="not an integer"):
        env.integer("PORT", 8000)
    monkeypatch.setenv("PORT", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        env.integer("PORT", 8000, minimum=1)


def test_url_scheme_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "mysql://root@localhost/db")
    with pytest.raises(ImproperlyConfigured, match="postgres://"):
        env.url("DATABASE_URL", "", schemes=("postgres", "postgresql"))


def test_env_example_lists_every_variable_read() -> None:
    import re

    root = env.BASE_DIR
    read: set[str] = set()
    apps = ("config", "tenants", "schemas", "memory", "extraction", "api")
    for path in [p for app in apps for p in (root / app).rglob("*.py")]:
        read |= set(re.findall(r'env\.\w+\(\s*"([A-Z_]+)"', path.read_text()))
        read |= set(re.findall(r'environ\.get\("([A-Z_]+)"', path.read_text()))
    example = (root / ".env.example").read_text()
    listed = set(re.findall(r"^#?\s*([A-Z_]+)=", example, re.MULTILINE))
    assert read - {"DJANGO_SETTINGS_MODULE"} <= listed, read - listed
    assert {"OPENAI_TIMEOUT", "OPENAI_BASE_URL", "EMBEDDINGS_BASE_URL"} <= read
    assert "SECRET_KEY_FILE" in listed
