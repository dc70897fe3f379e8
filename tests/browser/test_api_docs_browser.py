"""The API docs (/v1/docs) in a real Chromium with the network cut to loopback: Swagger UI must
render from this server's own files, and nothing may be fetched from, or point the browser at,
another host (issue 19; tests/security/test_headers.py checks the HTML and the policy)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}

# Every URL the page's elements load or would load: scripts, styles, images, frames, icons.
LOADED_URLS = """() => [
  ...[...document.querySelectorAll('[src]')].map(e => e.src),
  ...[...document.querySelectorAll('link[href]')].map(e => e.href),
  ...performance.getEntriesByType('resource').map(e => e.name),
]"""


def test_api_docs_render_offline_and_reference_no_other_host(live_server: Any, page: Any) -> None:
    requested: list[str] = []
    aborted: list[str] = []

    def only_loopback(route: Any) -> None:
        url = route.request.url
        requested.append(url)
        if urlsplit(url).hostname in LOOPBACK:
            route.continue_()
        else:
            aborted.append(url)
            route.abort()

    page.route("**/*", only_loopback)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    response = page.goto(f"{live_server.url}/v1/docs")
    assert response.status == 200
    # Swagger UI fetched the schema and rendered it: operations are on the page, and one opens.
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").evaluate_all("els => els.map(e => e.textContent)")
    assert "/v1/sessions" in [p.replace("\u200b", "") for p in paths]
    assert len(paths) >= 29  # as many operations as the schema has (test_client_coverage)
    session_open = page.locator(".opblock-post", has_text="/v1/sessions").first
    session_open.locator(".opblock-summary").click()
    session_open.locator(".opblock-body").wait_for()
    assert "Request body" in session_open.inner_text()
    assert page.title() == "Handover API"

    assert aborted == []
    assert any(urlsplit(url).path == "/v1/schema" for url in requested)
    assert any("swagger-ui-bundle" in url for url in requested)
    foreign = [
        url
        for url in page.evaluate(LOADED_URLS)
        if url.startswith(("http:", "https:", "//")) and urlsplit(url).hostname not in LOOPBACK
    ]
    assert foreign == []
    assert problems == []  # no Content-Security-Policy violation, no script error
