"""The fact timeline, drawn server-side as inline SVG: pure functions, no ORM, no JavaScript.

One row per entity key; each version a bar over its world time (``valid_from`` to
``valid_until``, open-ended with an arrow while active), a tick at ``recorded_at`` (when
Handover learnt it), superseded and retracted versions greyed, an ephemeral expiry marked in
red. Hovering a bar shows its value, source and source turns; clicking it jumps to the version's
row in the table under the chart.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

SOURCE_COLOURS = {
    "explicit": "#2563eb",
    "confirmed": "#059669",
    "inferred": "#d97706",
    "operator": "#7c3aed",
}
GREY = "#b8bec7"
EXPIRED = "#dc2626"

LABEL_WIDTH = 190
CHART_WIDTH = 720
ROW_HEIGHT = 30
BAR_HEIGHT = 16
TOP = 46  # legend and axis labels
CHAR_WIDTH = 6.6  # of the 11 px sans-serif the labels use, for fitting text in a bar


@dataclass(frozen=True)
class Version:
    id: str
    key: str
    value_text: str
    source: str
    status: str
    valid_from: datetime.datetime
    valid_until: datetime.datetime | None
    recorded_at: datetime.datetime
    expires_at: datetime.datetime | None
    pinned: bool
    source_turns: Sequence[str]


def _bounds(
    versions: Sequence[Version], now: datetime.datetime
) -> tuple[datetime.datetime, datetime.datetime]:
    moments = [now]
    for v in versions:
        moments += [v.valid_from, v.recorded_at]
        moments += [m for m in (v.valid_until, v.expires_at) if m is not None]
    start, end = min(moments), max(moments)
    span = max(end - start, datetime.timedelta(days=1))
    # Room on the right for the open-ended arrows of active versions.
    return start - span * 0.03, end + span * 0.08


def _ticks(start: datetime.datetime, end: datetime.datetime) -> list[datetime.datetime]:
    span = end - start
    steps = [
        datetime.timedelta(hours=1),
        datetime.timedelta(hours=6),
        datetime.timedelta(days=1),
        datetime.timedelta(days=7),
        datetime.timedelta(days=30),
        datetime.timedelta(days=91),
        datetime.timedelta(days=365),
    ]
    step = next((s for s in steps if span / s <= 8), steps[-1])
    first = start.replace(minute=0, second=0, microsecond=0)
    if step >= datetime.timedelta(days=1):
        first = first.replace(hour=0)
    ticks = []
    moment = first
    while moment <= end:
        if moment >= start:
            ticks.append(moment)
        moment += step
    return ticks[:12]


def _tick_label(moment: datetime.datetime, start: datetime.datetime, end: datetime.datetime) -> str:
    if end - start <= datetime.timedelta(days=2):
        return moment.strftime("%d %b %H:%M")
    return moment.strftime("%d %b %Y")


def _when(moment: datetime.datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "open"


def version_tooltip(v: Version) -> str:
    lines = [
        f"{v.key} = {v.value_text}",
        f"{v.status}, source {v.source}{', pinned' if v.pinned else ''}",
        f"true from {_when(v.valid_from)} until {_when(v.valid_until)}",
        f"recorded {_when(v.recorded_at)}",
    ]
    if v.expires_at:
        lines.append(f"expires {_when(v.expires_at)}")
    if v.source_turns:
        lines.append("from turns " + ", ".join(v.source_turns[:6]))
    return "\n".join(lines)


def timeline_svg(versions: Sequence[Version], *, now: datetime.datetime) -> str:
    """The timeline as an ``<svg>`` string; every text in it is escaped."""
    keys = sorted({v.key for v in versions})
    height = TOP + ROW_HEIGHT * max(len(keys), 1) + 10
    width = LABEL_WIDTH + CHART_WIDTH + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="hv-timeline" width="100%" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Fact timeline" font-family="system-ui, sans-serif" font-size="11">'
    ]
    x: float = LABEL_WIDTH
    for name, colour in [*SOURCE_COLOURS.items(), ("superseded", GREY)]:
        out.append(f'<rect x="{x}" y="4" width="12" height="10" rx="2" fill="{colour}"/>')
        out.append(f'<text x="{x + 16}" y="13" fill="currentColor">{name}</text>')
        x += 22 + len(name) * CHAR_WIDTH
    out.append(f'<line x1="{x}" y1="4" x2="{x}" y2="14" stroke="{EXPIRED}" stroke-width="2"/>')
    out.append(f'<text x="{x + 5}" y="13" fill="currentColor">expiry</text>')
    x += 50
    out.append(f'<line x1="{x}" y1="3" x2="{x}" y2="15" stroke="currentColor" stroke-width="1.5"/>')
    out.append(f'<text x="{x + 5}" y="13" fill="currentColor">recorded</text>')
    if not versions:
        out.append(
            f'<text x="{LABEL_WIDTH}" y="{TOP + 18}" fill="currentColor">No facts yet.</text>'
        )
        out.append("</svg>")
        return "".join(out)

    start, end = _bounds(versions, now)
    total = (end - start).total_seconds()

    def at(moment: datetime.datetime) -> float:
        return LABEL_WIDTH + CHART_WIDTH * (moment - start).total_seconds() / total

    for tick in _ticks(start, end):
        tx = at(tick)
        out.append(
            f'<line x1="{tx:.1f}" y1="{TOP - 8}" x2="{tx:.1f}" y2="{height - 6}" '
            f'stroke="currentColor" stroke-opacity="0.12"/>'
        )
        out.append(
            f'<text x="{tx:.1f}" y="{TOP - 12}" text-anchor="middle" fill="currentColor" '
            f'fill-opacity="0.7">{escape(_tick_label(tick, start, end))}</text>'
        )
    nx = at(now)
    out.append(
        f'<line x1="{nx:.1f}" y1="{TOP - 8}" x2="{nx:.1f}" y2="{height - 6}" stroke="{EXPIRED}" '
        f'stroke-opacity="0.5" stroke-dasharray="3 3"><title>now</title></line>'
    )

    for row, key in enumerate(keys):
        y = TOP + row * ROW_HEIGHT
        label = key if len(key) <= 28 else key[:27] + "…"
        out.append(
            f'<text x="{LABEL_WIDTH - 8}" y="{y + BAR_HEIGHT - 4}" text-anchor="end" '
            f'fill="currentColor">{escape(label)}</text>'
        )
        for v in sorted((v for v in versions if v.key == key), key=lambda v: v.valid_from):
            out.append(_bar(v, y, at, now))
    out.append("</svg>")
    return "".join(out)


def _bar(
    v: Version, y: int, place: Callable[[datetime.datetime], float], now: datetime.datetime
) -> str:
    active = v.status == "active"
    ends = [m for m in (v.valid_until, v.expires_at) if m is not None]
    stop = min(ends) if ends else None
    x1 = place(v.valid_from)
    x2 = place(stop) if stop is not None else LABEL_WIDTH + CHART_WIDTH - 10
    x2 = max(x2, x1 + 3)
    expired = v.expires_at is not None and v.expires_at <= now
    colour = SOURCE_COLOURS.get(v.source, GREY) if active and not expired else GREY
    parts = [
        f'<a href="#version-{escape(v.id)}" class="hv-version hv-{escape(v.status)}" '
        f'data-entity="{escape(v.id)}">',
        f"<title>{escape(version_tooltip(v))}</title>",
        f'<rect x="{x1:.1f}" y="{y}" width="{x2 - x1:.1f}" height="{BAR_HEIGHT}" rx="3" '
        f'fill="{colour}"' + (' stroke="#111827" stroke-width="1.5"' if v.pinned else "") + "/>",
    ]
    if stop is None:  # open-ended: still true
        parts.append(
            f'<path d="M{x2:.1f},{y} l8,{BAR_HEIGHT / 2} l-8,{BAR_HEIGHT / 2} z" fill="{colour}"/>'
        )
    room = int((x2 - x1 - 8) / CHAR_WIDTH)
    if room >= 3:
        text = v.value_text if len(v.value_text) <= room else v.value_text[: room - 1] + "…"
        fill = "#ffffff" if colour != GREY else "#1f2937"
        parts.append(
            f'<text x="{x1 + 4:.1f}" y="{y + BAR_HEIGHT - 4}" fill="{fill}">{escape(text)}</text>'
        )
    if v.expires_at is not None:
        ex = place(v.expires_at)
        parts.append(
            f'<line x1="{ex:.1f}" y1="{y - 3}" x2="{ex:.1f}" y2="{y + BAR_HEIGHT + 3}" '
            f'stroke="{EXPIRED}" stroke-width="2"/>'
        )
    rx = place(v.recorded_at)
    parts.append(
        f'<line x1="{rx:.1f}" y1="{y - 4}" x2="{rx:.1f}" y2="{y + 3}" stroke="currentColor" '
        f'stroke-width="1.5"/>'
    )
    parts.append("</a>")
    return "".join(parts)
