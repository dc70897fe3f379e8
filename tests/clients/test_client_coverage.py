"""The client and the OpenAPI schema agree: a method for every operation, and every call the
client makes (method, path, body fields, query parameters) is one the schema describes, so an
endpoint added, moved or changed on either side fails here."""

from __future__ import annotations

import inspect
import io
import json
import re
from typing import Any
from urllib.parse import unquote

from django.core.management import call_command
from handover_client import AsyncHandover, Handover, _calls

_SENTINEL_INT = 987654321


def _client_calls() -> list[Any]:
    calls = []
    for name, function in inspect.getmembers(_calls, inspect.isfunction):
        if name.startswith("_") or function.__module__ != _calls.__name__:
            continue
        arguments: dict[str, Any] = {}
        # Every argument given (nothing left out of a body), so each field the call can send is
        # checked against the schema.
        for parameter in inspect.signature(function).parameters.values():
            annotation = str(parameter.annotation)
            if parameter.name == "version":
                arguments[parameter.name] = _SENTINEL_INT
            elif parameter.name in {"turns", "fields"}:
                arguments[parameter.name] = []
            elif parameter.name == "changes":
                arguments[parameter.name] = {}
            elif annotation == "bool":
                arguments[parameter.name] = True
            else:
                arguments[parameter.name] = "{x}"
        variants = [arguments]
        if "pinned" in arguments:  # one function, two endpoints
            variants.append({**arguments, "pinned": False})
        calls += [function(**variant) for variant in variants]
    return calls


def _template(call: Any) -> str:
    return unquote(call.path).replace(str(_SENTINEL_INT), "{x}").replace("{x}", "{}")


def _client_operations() -> set[tuple[str, str]]:
    return {(call.method, _template(call)) for call in _client_calls()}


def _schema() -> dict[str, Any]:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    return dict(json.loads(out.getvalue()))


def _schema_operations(schema: dict[str, Any] | None = None) -> dict[tuple[str, str], Any]:
    paths = (schema or _schema())["paths"]
    return {
        (method.upper(), re.sub(r"\{[^}]+\}", "{}", path)): operation
        for path, item in paths.items()
        for method, operation in item.items()
        if not path.startswith(("/v1/schema", "/v1/docs"))
    }


def test_every_operation_has_a_client_call_and_every_call_an_operation(db: None) -> None:
    schema, client = set(_schema_operations()), _client_operations()
    assert len(schema) >= 29  # as of issue 16
    assert schema - client == set(), "operations without a client method"
    assert client - schema == set(), "client calls the schema does not describe"


def _properties(schema: dict[str, Any], node: dict[str, Any]) -> set[str]:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return set(node.get("properties", {}))


def test_every_client_call_sends_only_fields_and_parameters_the_schema_names(db: None) -> None:
    schema = _schema()
    operations = _schema_operations(schema)
    for call in _client_calls():
        operation = operations[(call.method, _template(call))]
        where = f"{call.method} {call.path}"
        named = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        assert set(call.params or {}) <= named, (where, set(call.params or {}) - named)
        if call.json and not call.path.endswith("/settings"):  # settings: any of SETTINGS
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            fields = _properties(schema, body)
            assert set(call.json) <= fields, (where, set(call.json) - fields)


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
