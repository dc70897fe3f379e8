"""OpenAPI: describe the Bearer API key to drf-spectacular (imported in ApiConfig.ready)."""

from typing import Any

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "tenants.authentication.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "bearerFormat": "hv_<prefix>_<secret>"}


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's, and a DELETE that declares a body (forgetting a fact takes
    ``{"redact_turns"}``) has it in the schema: drf-spectacular leaves DELETE bodies out."""

    def _get_request_body(self, direction: str = "request") -> Any:
        if self.method != "DELETE" or self.get_request_serializer() is None:
            return super()._get_request_body(direction)
        self.method = "POST"  # the only check that keeps a DELETE's body out
        try:
            body = super()._get_request_body(direction)
        finally:
            self.method = "DELETE"
        if body is not None:
            body["required"] = False  # the body is optional: a bare DELETE forgets, unredacted
        return body


# Every operation can answer these, in the one error envelope (api.exceptions.error_body).
_ERRORS = {
    "400": "Bad input: `fields` names each place at fault. Nothing was written.",
    "401": "No API key, or not a valid one.",
    "403": "This key's role or scope may not do this.",
    "404": "No such object, or another tenant's (they look the same).",
    "413": "The body is over API_MAX_BODY_BYTES.",
    "429": "Over the key's rate limit; `Retry-After` says when to retry.",
    "503": "A dependency (PostgreSQL) is unavailable; `Retry-After` says when to retry.",
}
_ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "detail"],
    "properties": {
        "code": {"type": "string", "description": "stable, machine-readable"},
        "detail": {"type": "string"},
        "fields": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
            "description": "input place (`turns[3].text`) → messages",
        },
    },
}


class ErrorSerializer(serializers.Serializer):
    """The error envelope, for an operation that names an error status of its own (409); the
    hook below replaces the component with ``_ERROR_SCHEMA`` (the same shape, typed fields)."""

    code = serializers.CharField()
    detail = serializers.CharField()
    fields = serializers.DictField(required=False)  # type: ignore[assignment]  # DRF pops declared fields

    class Meta:
        ref_name = "Error"


def conflict(*codes: str) -> OpenApiResponse:
    """A 409 this operation can answer, with its codes."""
    return OpenApiResponse(
        ErrorSerializer, description="Conflict: " + ", ".join(f"`{c}`" for c in codes)
    )


def error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the error envelope as a component, and the error
    statuses on every operation that does not describe them itself."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = _ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/Error"}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, description in _ERRORS.items():
                operation["responses"].setdefault(
                    status,
                    {"description": description,
                     "content": {"application/json": {"schema": reference}}},
                )  # fmt: skip
    return result
