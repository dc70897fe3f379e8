"""Forms of the operator console. They parse what a person types; the services validate it."""

from __future__ import annotations

import datetime
import json
from typing import Any

from django import forms
from django.utils import timezone

from schemas.validation import CATEGORIES, TYPES


def _utc(moment: datetime.datetime | None) -> datetime.datetime | None:
    """A ``datetime-local`` input has no zone: the console's times are UTC."""
    if moment is None:
        return None
    if timezone.is_naive(moment):
        return moment.replace(tzinfo=datetime.UTC)
    return moment


class UtcDateTimeField(forms.DateTimeField):
    widget = forms.DateTimeInput(attrs={"type": "datetime-local", "step": "1"})

    def to_python(self, value: Any) -> datetime.datetime | None:
        return _utc(super().to_python(value))


class AsOfForm(forms.Form):
    as_of = UtcDateTimeField(required=False, label="As of (world time, UTC)")
    known_at = UtcDateTimeField(required=False, label="As known at (UTC)")


class CorrectForm(forms.Form):
    entity = forms.UUIDField(widget=forms.HiddenInput)
    value = forms.CharField(max_length=1000, label="New value")
    valid_from = UtcDateTimeField(required=False, label="Valid from (UTC, optional)")


def operator_value_parse(field_type: str, text: str, current: Any) -> Any:
    """Turn what an operator typed into the typed value the field expects.

    JSON is accepted as is; otherwise numbers become numbers, money keeps the current currency
    unless one is typed ("80 lakh" is not parsed: type 8000000 INR), yes/no become booleans.
    """
    text = text.strip()
    if text[:1] in "{[" or text in ("true", "false"):
        try:
            return json.loads(text)
        except ValueError:
            return text
    if field_type in ("number", "money"):
        number_text, _, currency = text.replace(",", "").partition(" ")
        try:
            number: float | int = float(number_text)
        except ValueError:
            return text
        if number.is_integer():
            number = int(number)
        if field_type == "number":
            return number
        if not currency and isinstance(current, dict):
            currency = current.get("currency") or ""
        return {"amount": number, "currency": currency.strip().upper() or None}
    if field_type == "boolean":
        lowered = text.lower()
        if lowered in ("yes", "y", "true", "1"):
            return True
        if lowered in ("no", "n", "false", "0"):
            return False
    return text


class ForgetForm(forms.Form):
    confirm = forms.BooleanField(
        required=True,
        label="Yes, delete every version of this fact and the memory units stating it",
    )
    redact_turns = forms.BooleanField(
        required=False, label="Also redact the turns it came from (their text is replaced)"
    )


class EraseForm(forms.Form):
    confirm = forms.CharField(max_length=200, label="Type the user's external id to confirm")

    def __init__(self, *args: Any, external_id: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.external_id = external_id

    def clean_confirm(self) -> str:
        typed = str(self.cleaned_data["confirm"])
        if typed != self.external_id:
            raise forms.ValidationError("That is not this user's external id; nothing was erased.")
        return typed


# --- Schema editor -------------------------------------------------------------------------------


class SchemaFieldForm(forms.Form):
    key = forms.CharField(max_length=63, required=False)
    description = forms.CharField(
        max_length=500, required=False, widget=forms.TextInput(attrs={"size": 48})
    )
    category = forms.ChoiceField(choices=[(c, c) for c in CATEGORIES], initial="profile")
    type = forms.ChoiceField(choices=[(t, t) for t in TYPES], initial="string")
    choices = forms.CharField(
        required=False,
        help_text="enum only, comma-separated",
        widget=forms.TextInput(attrs={"size": 24}),
    )
    ttl_hours = forms.IntegerField(
        required=False, min_value=1, widget=forms.NumberInput(attrs={"style": "width:6em"})
    )
    examples = forms.CharField(
        required=False,
        max_length=2000,
        help_text="how users say it, one per line: they teach the offline extractor",
        widget=forms.Textarea(attrs={"rows": 2, "cols": 28}),
    )

    def field_dict(self) -> dict[str, Any] | None:
        """The schema field as the validator wants it; None for a blank extra row."""
        data = self.cleaned_data
        if not data or (not data.get("key") and not data.get("description")):
            return None
        field: dict[str, Any] = {
            "key": data["key"].strip(),
            "description": data["description"].strip(),
            "category": data["category"],
            "type": data["type"],
        }
        choices = [c.strip() for c in (data.get("choices") or "").split(",") if c.strip()]
        if choices:
            field["choices"] = choices
        if data.get("ttl_hours") is not None:
            field["ttl_hours"] = data["ttl_hours"]
        examples = [e.strip() for e in (data.get("examples") or "").splitlines() if e.strip()]
        if examples:
            field["examples"] = examples
        return field


SchemaFieldFormSet = forms.formset_factory(
    SchemaFieldForm, extra=1, can_order=True, can_delete=True, max_num=200
)


def schema_field_initial(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "key": f["key"],
            "description": f.get("description", ""),
            "category": f.get("category", "profile"),
            "type": f.get("type", "string"),
            "choices": ", ".join(f.get("choices") or []),
            "ttl_hours": f.get("ttl_hours"),
            "examples": "\n".join(f.get("examples") or []),
            "ORDER": index + 1,
        }
        for index, f in enumerate(fields)
    ]


def schema_fields_from(formset: Any) -> list[tuple[int, dict[str, Any]]]:
    """(form index, field) in the operator's order, without deleted and blank rows."""
    rows = []
    for position, form in enumerate(formset.forms):
        if not form.is_valid() or form.cleaned_data.get("DELETE"):
            continue
        field = form.field_dict()
        if field is None:
            continue
        order = form.cleaned_data.get("ORDER")
        rows.append((order if order is not None else 10_000 + position, position, field))
    return [(position, field) for _, position, field in sorted(rows, key=lambda r: (r[0], r[1]))]
