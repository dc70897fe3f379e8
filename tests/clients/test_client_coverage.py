"""The client has a method for every operation in the OpenAPI schema, so a new endpoint without
one fails here."""

from __future__ import annotations

import inspect
import io
import json
import re
from typing import Any
from urllib.parse import unquote

from django.core.management import call_command
from handover_client import AsyncHandover, Handover, _calls

# Added to the client ahead of the GDPR issue's endpoints (same paths); they join the schema then.
PENDING = {
    ("GET", "/v1/users/{}/export"),
    ("DELETE", "/v1/users/{}"),
    ("GET", "/v1/erasures/{}"),
}
_SENTINEL_INT = 987654321


def _client_operations() -> set[tuple[str, str]]:
    operations = set()
    for name, function in inspect.getmembers(_calls, inspect.isfunction):
        if name.startswith("_") or function.__module__ != _calls.__name__:
            continue
        arguments: dict[str, Any] = {}
        for parameter in inspect.signature(function).parameters.values():
            annotation = str(parameter.annotation)
            if parameter.name == "version":
                arguments[parameter.name] = _SENTINEL_INT
            elif parameter.name in {"turns", "fields"}:
                arguments[parameter.name] = []
            elif parameter.name == "changes":
                arguments[parameter.name] = {}
            elif annotation == "bool":
                arguments[parameter.name] = False
            elif annotation.startswith("str"):
                arguments[parameter.name] = "{x}"
            else:
                arguments[parameter.name] = None
        variants = [arguments]
        if "pinned" in arguments:  # one function, two endpoints
            variants.append({**arguments, "pinned": True})
        for variant in variants:
            call = function(**variant)
            path = unquote(call.path).replace(str(_SENTINEL_INT), "{x}")
            operations.add((call.method, path.replace("{x}", "{}")))
    return operations


def _schema_operations() -> set[tuple[str, str]]:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    paths = json.loads(out.getvalue())["paths"]
    return {
        (method.upper(), re.sub(r"\{[^}]+\}", "{}", path))
        for path, item in paths.items()
        for method in item
        if path.startswith("/v1/") and not path.startswith(("/v1/schema", "/v1/docs"))
    }


def test_every_v1_operation_has_a_client_call(db: None) -> None:
    schema, client = _schema_operations(), _client_operations()
    assert len(schema) >= 24  # as of issue 9
    assert schema - client == set(), "operations without a client method"
    assert client - schema <= PENDING | {("GET", "/healthz"), ("GET", "/readyz")}


def test_sync_and_async_clients_have_the_same_methods() -> None:
    def public(cls: type) -> dict[str, inspect.Signature]:
        return {
            name: inspect.signature(member)
            for name, member in vars(cls).items()
            if callable(member) and not name.startswith("_") and name not in {"close", "aclose"}
        }

    sync, asynchronous = public(Handover), public(AsyncHandover)
    assert sync.keys() == asynchronous.keys()
    assert all(sync[name].parameters == asynchronous[name].parameters for name in sync)
    for name, member in vars(AsyncHandover).items():
        if name in asynchronous:
            assert inspect.iscoroutinefunction(member), name
    # Every call in _calls is used by both clients: by the client's module or its base's.
    calls = [n for n, f in inspect.getmembers(_calls, inspect.isfunction)
             if not n.startswith("_") and f.__module__ == _calls.__name__]  # fmt: skip
    for cls in (Handover, AsyncHandover):
        modules = {inspect.getmodule(k) for k in cls.__mro__ if k is not object}
        source = "".join(inspect.getsource(module) for module in modules if module)
        assert [n for n in calls if f"c.{n}(" not in source] == [], cls.__name__
