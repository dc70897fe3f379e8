"""The timeline SVG and the schema diff are pure: checked on plain values."""

from __future__ import annotations

import datetime

from console.forms import operator_value_parse
from console.schema_diff import schema_diff
from console.timeline import GREY, SOURCE_COLOURS, Version, timeline_svg

NOW = datetime.datetime(2026, 11, 30, 12, tzinfo=datetime.UTC)
DAY = datetime.timedelta(days=1)


def _v(key: str, value: str, **kw: object) -> Version:
    base: dict[str, object] = {
        "id": f"{key}-{value}", "key": key, "value_text": value, "source": "explicit",
        "status": "active", "valid_from": NOW - 10 * DAY, "valid_until": None,
        "recorded_at": NOW - 10 * DAY, "expires_at": None, "pinned": False, "source_turns": [],
    }  # fmt: skip
    base.update(kw)
    return Version(**base)  # type: ignore[arg-type]


def test_one_row_per_key_superseded_grey_active_coloured_open_ended() -> None:
    svg = timeline_svg(
        [
            _v("budget", "50 lakh", status="superseded", valid_until=NOW - 5 * DAY),
            _v("budget", "80 lakh", valid_from=NOW - 5 * DAY, recorded_at=NOW - 4 * DAY),
            _v("city", "Pune", source="inferred"),
        ],
        now=NOW,
    )
    assert svg.count('text-anchor="end"') == 2  # two row labels
    old = svg[svg.index('data-entity="budget-50 lakh"') :]
    assert f'fill="{GREY}"' in old[: old.index("</a>")]
    new = svg[svg.index('data-entity="budget-80 lakh"') :]
    new = new[: new.index("</a>")]
    assert f'fill="{SOURCE_COLOURS["explicit"]}"' in new and "<path" in new  # arrow: still true
    assert "recorded 2026-11-26" in new
    city = svg[svg.index('data-entity="city-Pune"') :]
    assert SOURCE_COLOURS["inferred"] in city[: city.index("</a>")]


def test_expired_ephemeral_is_grey_with_a_red_expiry_mark() -> None:
    svg = timeline_svg([_v("visit", "5 pm", expires_at=NOW - DAY)], now=NOW)
    bar = svg[svg.index('data-entity="visit-5 pm"') :]
    assert f'fill="{GREY}"' in bar and 'stroke="#dc2626" stroke-width="2"' in bar
    assert "expires 2026-11-29" in bar


def test_text_is_escaped() -> None:
    svg = timeline_svg([_v("name", "<script>alert(1)</script>")], now=NOW)
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_empty_timeline_says_so() -> None:
    assert "No facts yet." in timeline_svg([], now=NOW)


def test_schema_diff_names_added_removed_changed_and_order() -> None:
    a = [
        {"key": "x", "type": "string"},
        {"key": "y", "type": "number"},
        {"key": "z", "type": "string"},
    ]
    b = [
        {"key": "y", "type": "money"},
        {"key": "x", "type": "string"},
        {"key": "w", "type": "string"},
    ]
    diff = schema_diff(a, b)
    assert diff.added == ["w"] and diff.removed == ["z"]
    assert diff.changed == {"y": ["type: number → money"]} and diff.reordered
    assert schema_diff(a, a).empty


def test_operator_values_are_typed_by_the_field() -> None:
    assert operator_value_parse("number", "3", None) == 3
    assert operator_value_parse("money", "8,000,000", {"amount": 1, "currency": "INR"}) == {
        "amount": 8_000_000, "currency": "INR",
    }  # fmt: skip
    assert operator_value_parse("money", "250000 usd", None) == {
        "amount": 250000,
        "currency": "USD",
    }
    assert operator_value_parse("boolean", "No", None) is False
    assert operator_value_parse("string", "Pune", None) == "Pune"
    assert operator_value_parse("money", "a lot", None) == "a lot"  # the service says why not
