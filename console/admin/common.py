"""What every console page shares: who acts, how a domain error reads, and 404 for NotFound."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django import forms
from django.http import Http404, HttpRequest

from core.errors import DomainError, Invalid, NotFound
from tenants.services import actor_for_user


def request_actor(request: HttpRequest) -> str:
    return actor_for_user(request.user)  # type: ignore[arg-type]


@contextmanager
def not_found_is_404(message: str) -> Iterator[None]:
    """A selector's NotFound as the console's plain 404: "not yours" looks like "missing"."""
    try:
        yield
    except NotFound:
        raise Http404(message) from None


def form_invalid(form: forms.BaseForm) -> Invalid:
    """A form's errors as one Invalid, each problem at its place (``error_text`` shows them)."""
    fields = {place: [str(p) for p in problems] for place, problems in form.errors.items()}
    detail = "; ".join(f"{place}: {' '.join(problems)}" for place, problems in fields.items())
    return Invalid(detail or "Invalid input.", fields=fields or None)


def error_text(exc: DomainError) -> str:
    """Every problem at its place; the detail alone when the error names no place (an error
    with places repeats the first of them in its detail)."""
    if not exc.fields:
        return exc.detail
    return "; ".join(f"{place}: {' '.join(problems)}" for place, problems in exc.fields.items())
