from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Input serializer that refuses what it does not know: a misspelt field is an error,
    not a silently ignored no-op."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {"body": [f"Expected a JSON object, got {type(data).__name__}."]}
            )
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would turn 5 into "5"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only that: DRF's IntegerField would accept "5" and 5.0."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class AwareDateTimeField(serializers.DateTimeField):
    """An ISO 8601 moment *with* its offset (``2026-05-09T10:02:00+05:30`` or ``…Z``), within a
    window: a naive time would be read in the server's zone, silently shifting what the user
    said, and year 1 or 9999 is a client bug, not a date of a conversation."""

    default_error_messages = {
        "naive": "Include the UTC offset (…Z or …+05:30).",
        "window": "Must be between {low} and {high}.",
    }

    def __init__(
        self, *, earliest: datetime.datetime, future: datetime.timedelta, **kwargs: Any
    ) -> None:
        self.earliest = earliest
        self.future = future
        super().__init__(**kwargs)

    def enforce_timezone(self, value: datetime.datetime) -> datetime.datetime:
        """The moment at the offset it was given with (DRF would move it to the server's zone):
        a turn's offset is the user's clock, kept so that its day is the user's day."""
        return value if timezone.is_aware(value) else super().enforce_timezone(value)

    def to_internal_value(self, value: Any) -> datetime.datetime:
        if isinstance(value, str):
            parsed = parse_datetime(value.strip())
            if parsed is not None and parsed.tzinfo is None:
                self.fail("naive")
        moment: datetime.datetime = super().to_internal_value(value)
        latest = timezone.now() + self.future
        if not self.earliest <= moment <= latest:
            self.fail(
                "window", low=self.earliest.date().isoformat(), high=latest.date().isoformat()
            )
        return moment


# When a turn happened: not before the epoch, not more than a day ahead (clock skew).
TURN_EARLIEST = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
TURN_FUTURE = datetime.timedelta(days=1)
# When a fact holds: history from 1900, plans up to a century ahead.
FACT_EARLIEST = datetime.datetime(1900, 1, 1, tzinfo=datetime.UTC)
FACT_FUTURE = datetime.timedelta(days=365 * 100)


def occurred_at_field(**kwargs: Any) -> AwareDateTimeField:
    return AwareDateTimeField(earliest=TURN_EARLIEST, future=TURN_FUTURE, **kwargs)


def valid_from_field(**kwargs: Any) -> AwareDateTimeField:
    return AwareDateTimeField(earliest=FACT_EARLIEST, future=FACT_FUTURE, **kwargs)


def moment_field(**kwargs: Any) -> AwareDateTimeField:
    """``as_of`` / ``known_at``: any moment a timeline can be asked about."""
    return AwareDateTimeField(earliest=FACT_EARLIEST, future=FACT_FUTURE, **kwargs)
