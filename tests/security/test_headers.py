"""Content-Security-Policy on the admin and the API docs; the docs page loads nothing from
another host (issue 16; the browser test checks it with every foreign request aborted)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client


@pytest.mark.parametrize("path", ["/admin/login/", "/v1/docs", "/v1/agents"])
def test_every_page_has_a_strict_content_security_policy(db: None, path: str) -> None:
    policy = Client().get(path)["Content-Security-Policy"]
    directives = dict(
        (part.split()[0], part.split()[1:]) for part in policy.split(";") if part.strip()
    )
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["object-src"] == ["'none'"]


def test_the_api_docs_reference_no_other_host_and_no_inline_script(db: None, settings: Any) -> None:
    # `make run` and the image collect static files; here whitenoise finds them in the wheels.
    settings.WHITENOISE_USE_FINDERS = True
    page = Client().get("/v1/docs")
    assert page.status_code == 200
    html = page.content.decode()
    assert "swagger-ui" in html.lower()
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html), html
    # Every script is a file of this origin.
    assert all(re.search(r"\bsrc=", tag) for tag in re.findall(r"<script[^>]*>", html)), html
    for url in re.findall(r"""src=["']([^"']+)["']""", html):
        assert Client().get(url).status_code == 200, url
