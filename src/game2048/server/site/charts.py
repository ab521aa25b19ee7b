"""Charts as inline SVG, drawn by pygal and coloured by the page's CSS variables.

The colours are ``var(--c0)`` … ``var(--c5)`` and ``var(--fg)``, so a chart
follows the page into dark mode; every chart on the site has a table with the
same figures beside it.

A chart is drawn WIDTH units wide with text of at least MIN_FONT units, and
scales with the page: on a 360 px phone (328 px of content) its smallest text
is 328 / 480 × 17 ≈ 11.6 px, and the page caps the chart at 36rem, where it is
about 20 px.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from markupsafe import Markup

#: The chart's width in SVG units, and its smallest text in the same units.
WIDTH = 480
MIN_FONT = 17

_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _style():  # type: ignore[no-untyped-def]
    from pygal.style import Style

    return Style(
        background="transparent",
        plot_background="transparent",
        foreground="var(--fg)",
        foreground_strong="var(--fg)",
        foreground_subtle="var(--line)",
        opacity="1",
        opacity_hover=".75",
        colors=tuple(f"var(--c{i})" for i in range(6)),
        value_colors=("var(--fg)",) * 6,
        font_family="inherit",
        label_font_size=MIN_FONT,
        major_label_font_size=MIN_FONT,
        legend_font_size=MIN_FONT,
        title_font_size=MIN_FONT + 2,
        value_font_size=MIN_FONT,
        tooltip_font_size=MIN_FONT,
    )


def _common(title: str, n_series: int, x_title: str, y_title: str) -> dict:
    """Settings every chart shares: size, titles, and a legend below with one entry a row
    (side by side, long names overlap at WIDTH)."""
    legend_rows = n_series if n_series > 1 else 0
    return {
        "style": _style(),
        "js": [],
        "disable_xml_declaration": True,
        "width": WIDTH,
        "height": 340 + 28 * legend_rows,
        "title": title,
        "x_title": x_title or None,
        "y_title": y_title or None,
        "legend_at_bottom": True,
        "legend_at_bottom_columns": 1,
        "show_legend": n_series > 1,
        "show_y_guides": True,
        "truncate_legend": -1,
        "truncate_label": -1,
        "margin": 12,
        "margin_bottom": 12 + 12 * legend_rows,
    }


def _name(chart, title: str, x_labels: Sequence[str], series: Sequence) -> None:  # type: ignore[no-untyped-def]
    """pygal names each chart by a random uuid; one made from the figures keeps a page's bytes,
    and so its compressed length and ETag, the same on every request."""
    chart.uuid = hashlib.sha256(repr((title, list(x_labels), list(series))).encode()).hexdigest()[:32]


def bar_chart(
    title: str,
    x_labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    percent: bool = True,
    x_title: str = "",
    y_title: str = "",
) -> Markup:
    """A grouped bar chart, one group per x label and one bar colour per series.

    With ``percent`` the values are shares (0..1) shown as percentages.
    """
    import pygal

    chart = pygal.Bar(
        **_common(title, len(series), x_title, y_title),
        print_values=len(series) == 1,
        print_values_position="top",
        # many groups on a narrow chart: slanted labels keep every digit
        x_label_rotation=-40 if len(x_labels) > 6 else 0,
        value_formatter=(lambda v: f"{v:.0%}") if percent else (lambda v: f"{v:,.0f}"),
        range=(0, 1) if percent else None,
    )
    _name(chart, title, x_labels, series)
    chart.x_labels = list(x_labels)
    for name, values in series:
        chart.add(name, list(values))
    return _svg(chart, title)


def scatter_chart(title: str, points: Sequence[tuple[float, float]], *, x_title: str = "",
                  y_title: str = "") -> Markup:
    """Points without lines (pygal's XY chart), one series."""
    import pygal

    chart = pygal.XY(**_common(title, 1, x_title, y_title), stroke=False, dots_size=2)
    _name(chart, title, [], [(title, [y for _, y in points])])
    chart.add(title, list(points))
    return _svg(chart, title)


def _svg(chart, title: str) -> Markup:  # type: ignore[no-untyped-def]
    """The chart as inline SVG without pygal's scripts and comments, labelled for screen readers."""
    svg = chart.render(is_unicode=True)
    svg = _COMMENT.sub("", _SCRIPT.sub("", svg))
    return Markup(svg.replace("<svg ", f'<svg role="img" aria-label="{_attr(title)}" ', 1))


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
