"""NUL in a path segment or a query value is a 400 that writes nothing, on every route that
takes one (issue 16: these answered 500)."""

from __future__ import annotations

import pytest

from memory.models import EndUser
from tests.conftest import Key

ROUTES = [
    ("get", "/v1/users/a%00b/entities?agent=advisor"),
    ("post", "/v1/users/a%00b/facts"),
    ("get", "/v1/users/a%00b/runs?agent=advisor"),
    ("get", "/v1/users/a%00b/export"),
    ("delete", "/v1/users/a%00b"),
    ("get", "/v1/agents/adv%00isor"),
    ("get", "/v1/agents/adv%00isor/settings"),
    ("get", "/v1/agents/adv%00isor/schemas"),
    ("get", "/v1/entities/a%00b"),
    ("get", "/v1/erasures/a%00b"),
    ("get", "/v1/users/priya/entities?agent=adv%00isor"),
    ("get", "/v1/users/priya/entities?agent=advisor&key=bud%00get"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_nul_in_the_path_or_query_is_a_400(operator_key_a: Key, method: str, path: str) -> None:
    client = operator_key_a.client()
    response = getattr(client, method)(
        path,
        {"agent": "advisor", "key": "name", "value": "x"} if method == "post" else None,
        format="json",
    )
    assert response.status_code == 400, (path, response.content)
    assert response.json()["code"] == "invalid_text"
    assert EndUser.objects.count() == 0
