"""What the validators share: the error they raise, and how it becomes the domain's 400."""

from __future__ import annotations

from core.errors import Invalid


class ValidationFailed(Exception):
    """Carries ``{place: [message, ...]}``."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{place}: {', '.join(m)}" for place, m in errors.items()))
        self.errors = errors

    def invalid(self, prefix: str = "", *, fields_as: str = "fields") -> Invalid:
        """The ``Invalid`` services raise for this failure, its places named as the caller's
        input names them: ``prefix`` before each (``settings.``), ``fields[2]`` as
        ``{fields_as}[2]`` (a schema sent as ``schema_fields``). The detail is the first."""
        fields = {
            prefix
            + (
                fields_as + place.removeprefix("fields") if place.startswith("fields") else place
            ): messages
            for place, messages in self.errors.items()
        }
        first_place, first_messages = next(iter(fields.items()))
        return Invalid(f"{first_place}: {first_messages[0]}", code="invalid", fields=fields)


def is_whole_number(value: object) -> bool:
    """An int that is not a bool (JSON's true is not 1 here)."""
    return isinstance(value, int) and not isinstance(value, bool)
