"""One function per chart: a DataFrame in, a Plotly figure out.

An empty input gives a readable placeholder figure, never an exception. Figures
carry no random ids and no timestamps; :func:`figure_json` turns one into plain,
JSON-safe data (NaN becomes null) for a ``<script type="application/json">`` tag.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache

import pandas as pd
import plotly.graph_objects as go

# Distinguishable colours, each at least 3:1 against white (WCAG 1.4.11 for graphical objects).
COLORWAY = ["#0072B2", "#D55E00", "#007A5A", "#B3478A", "#8C6D00", "#6A3D9A", "#8C564B", "#595959", "#0E7C86", "#A6192E"]
FONT = dict(
    family="system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans Arabic', Tahoma, sans-serif", size=13, color="#1b1b1b"
)


def _layout(**extra) -> dict:
    base = dict(
        template="none",
        font=FONT,
        colorway=COLORWAY,
        paper_bgcolor="#ffffff",
        plot_bgcolor="#ffffff",
        margin=dict(l=40, r=40, t=40, b=40),
        hoverlabel=dict(namelength=-1),
    )
    base.update(extra)
    return base


def plotly_text(value: object) -> str:
    """Text for Plotly labels: Plotly reads a subset of HTML in names and labels, so escape it."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _r(value: object, digits: int = 4) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(float(value), digits)


def _ci_text(lo: object, hi: object) -> str:
    lo_, hi_ = _r(lo, 3), _r(hi, 3)
    return "" if lo_ is None or hi_ is None else f" [{lo_:.3f}, {hi_:.3f}]"


class Figure:
    """A Plotly figure as plain data. Building go.Figure objects (Plotly's validators) took a third of
    a site build, so the build skips them; tests/test_site.py validates every chart function's output
    with go.Figure instead. ``validated()`` gives the checked go.Figure."""

    __slots__ = ("data", "layout")

    def __init__(self, data: list[dict], layout: dict):
        self.data, self.layout = data, layout

    def to_plotly_json(self) -> dict:
        layout = dict(self.layout)
        if layout.get("template") == "none":  # what go.Figure puts there for the named template
            layout["template"] = _none_template()
        return {"data": list(self.data), "layout": layout}

    def validated(self) -> Figure:
        return go.Figure(self.to_plotly_json())


@cache
def _none_template() -> dict:
    import plotly.io as pio

    return pio.templates["none"].to_plotly_json()


def _figure(data: list[dict], layout: dict) -> Figure:
    return Figure(data, layout)


def placeholder(message: str) -> Figure:
    """A figure with no axes that says why there is nothing to plot."""
    return _figure(
        [],
        _layout(
            height=220,
            xaxis=dict(visible=False),
            yaxis=dict(visible=False),
            annotations=[dict(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper", font=dict(size=15))],
        ),
    )


def _pairs(frame: pd.DataFrame, keys: list[str], value: str = "score") -> dict:
    """{(key values...): value} from a long frame, without per-cell pandas lookups."""
    columns = [frame[k].tolist() for k in keys]
    return dict(zip(zip(*columns, strict=True), frame[value].tolist(), strict=True))


RADAR_MAX_VISIBLE = 10  # traces after these start hidden and are toggled from the legend
# Every radar trace's style; site.js applies the same dict to the traces it builds (overview, compare).
RADAR_TRACE = dict(
    type="scatterpolar",
    mode="lines+markers",
    line=dict(width=2),
    marker=dict(size=5),
    hovertemplate="%{theta}: %{text}<extra>%{fullData.name}</extra>",
)


def radar_layout(n_traces: int, *, title: str | None = None, height: int = 420) -> dict:
    """The layout of a radar with ``n_traces`` traces: a square polar area above a legend of up to 8 rows."""
    rows = max(1, min(n_traces, 8))  # legend rows shown; more entries scroll inside the legend
    layout = _layout(
        height=height + 21 * rows,
        showlegend=True,
        polar=dict(
            domain=dict(y=[1 - (height - 90) / (height + 21 * rows), 1]),
            radialaxis=dict(
                range=[0, 1], tickvals=[0.25, 0.5, 0.75], angle=90, tickangle=90, gridcolor="#d0d0d0", tickfont=dict(size=10)
            ),
            angularaxis=dict(direction="clockwise", rotation=90, gridcolor="#d0d0d0"),
        ),
        legend=dict(orientation="v", y=0, x=0.5, xanchor="center", yanchor="bottom", maxheight=21 * rows + 10),
        margin=dict(l=75, r=75, t=70 if title else 40, b=10),
    )
    if title:
        layout["title"] = dict(text=title, x=0.5)
    return layout


def layout_json(layout: dict) -> dict:
    """A layout as plain JSON-safe data (for charts site.js builds; validated in the tests)."""
    return figure_json(Figure([], layout))["layout"]


def radar_points(levels: pd.DataFrame, level_order: Sequence[str]) -> list[tuple[str, list, list, list]]:
    """``(trace, scores, lo, hi)`` per ``trace`` value, in order of first appearance, each list in
    ``level_order``; scores and bounds rounded to 3 digits as the tables show them, None = N/A."""
    score = _pairs(levels, ["trace", "level"])
    lo = _pairs(levels, ["trace", "level"], "lo") if "lo" in levels else {}
    hi = _pairs(levels, ["trace", "level"], "hi") if "hi" in levels else {}
    return [
        (
            trace,
            [_r(score.get((trace, lv)), 3) for lv in level_order],
            [_r(lo.get((trace, lv)), 3) for lv in level_order],
            [_r(hi.get((trace, lv)), 3) for lv in level_order],
        )
        for trace in dict.fromkeys(levels["trace"].tolist())
    ]


def radar(
    levels: pd.DataFrame,
    level_labels: Mapping[str, str],
    *,
    max_visible: int = RADAR_MAX_VISIBLE,
    title: str | None = None,
    empty_message: str = "No data to plot.",
    height: int = 420,
    na: str = "N/A",
) -> Figure:
    """A radar with the Bloom levels as axes and one trace per ``trace`` value.

    ``levels`` has columns ``trace``, ``level``, ``score`` and optionally ``lo``/``hi``
    (a 95% interval shown in the hover). Traces keep the order of first appearance;
    traces after the first ``max_visible`` start hidden and are toggled from the legend.
    """
    if levels is None or levels.empty or levels["score"].notna().sum() == 0:
        return placeholder(empty_message)
    theta = list(level_labels.values())
    traces = []
    for i, (trace, scores, lo, hi) in enumerate(radar_points(levels, list(level_labels))):
        text = [(na if s is None else f"{s:.3f}") + _ci_text(a, b) for s, a, b in zip(scores, lo, hi, strict=True)]
        traces.append(
            dict(
                RADAR_TRACE,
                r=scores + scores[:1],
                theta=theta + theta[:1],
                name=plotly_text(trace),
                text=text + text[:1],
                visible=True if i < max_visible else "legendonly",
            )
        )
    return _figure(traces, radar_layout(len(traces), title=title, height=height))


def leaf_heatmap(
    leaves: pd.DataFrame, column_labels: Mapping[tuple[str, str], str], level_labels: Mapping[str, str], empty_message: str
) -> Figure:
    """Leaf scores as a heatmap: a row per leaf (in input order), a column per (lang, method).

    ``leaves`` has columns ``lang``, ``method``, ``level``, ``subcategory``, ``leaf``,
    ``leaf_id``, ``score``; missing scores stay empty cells.
    """
    if leaves is None or leaves.empty or leaves["score"].notna().sum() == 0:
        return placeholder(empty_message)
    present = set(zip(leaves["lang"].tolist(), leaves["method"].tolist(), strict=True))
    columns = [key for key in column_labels if key in present]
    score = _pairs(leaves, ["leaf_id", "lang", "method"])
    rows = leaves.drop_duplicates("leaf_id")
    y = [plotly_text(f"{level_labels.get(lv, lv)} · {leaf}") for lv, leaf in zip(rows["level"], rows["leaf"], strict=True)]
    z = [[_r(score.get((leaf_id, lang, method))) for lang, method in columns] for leaf_id in rows["leaf_id"]]
    heatmap = dict(
        type="heatmap",
        z=z,
        x=[column_labels[k] for k in columns],
        y=y,
        zmin=0,
        zmax=1,
        colorscale="Viridis",
        hoverongaps=False,
        xgap=1,
        ygap=1,
        colorbar=dict(thickness=12, len=0.3, y=1, yanchor="top"),
        hovertemplate="%{y}<br>%{x}: %{z:.3f}<extra></extra>",
    )
    layout = _layout(
        height=max(300, 16 * len(y) + 120),
        margin=dict(l=10, r=10, t=30, b=10),
        yaxis=dict(autorange="reversed", automargin=True, tickfont=dict(size=10)),
        xaxis=dict(side="top", automargin=True),
    )
    return _figure([heatmap], layout)


def gap_bars(
    levels: pd.DataFrame,
    level_labels: Mapping[str, str],
    method_labels: Mapping[str, str],
    axis_title: str,
    empty_message: str,
    intervals: Mapping[tuple[str, str], Sequence[float]] | None = None,
) -> Figure:
    """English minus Arabic accuracy per level, one bar trace per method.

    ``levels`` has columns ``lang``, ``method``, ``level``, ``score``; a method with
    only one language has no gap and is left out. ``intervals``: (method, level) ->
    the paired 95% interval of the gap, drawn as error bars and shown in the hover.
    """
    if levels is None or levels.empty:
        return placeholder(empty_message)
    score = _pairs(levels, ["method", "lang", "level"])
    traces = []
    for method, label in method_labels.items():
        gaps = []
        for lv in level_labels:
            en, ar = score.get((method, "en", lv)), score.get((method, "ar", lv))
            gaps.append(None if _r(en) is None or _r(ar) is None else _r(en - ar))
        if all(g is None for g in gaps):
            continue
        trace = dict(
            type="bar",
            x=list(level_labels.values()),
            y=gaps,
            name=label,
            hovertemplate="%{x}: %{y:+.3f}<extra>" + label + "</extra>",
        )
        cis = [(intervals or {}).get((method, lv)) for lv in level_labels]
        if any(ci is not None for ci in cis):
            up = [None if g is None or ci is None else _r(ci[1] - g) for g, ci in zip(gaps, cis, strict=True)]
            down = [None if g is None or ci is None else _r(g - ci[0]) for g, ci in zip(gaps, cis, strict=True)]
            trace["error_y"] = dict(type="data", symmetric=False, array=up, arrayminus=down, color="#333", thickness=1.2)
            trace["customdata"] = [_ci_text(*ci) if ci is not None else "" for ci in cis]
            trace["hovertemplate"] = "%{x}: %{y:+.3f}%{customdata}<extra>" + label + "</extra>"
        traces.append(trace)
    if not traces:
        return placeholder(empty_message)
    layout = _layout(
        height=340,
        barmode="group",
        title=dict(text=axis_title, x=0, xanchor="left", font=dict(size=13)),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"),
        margin=dict(l=60, r=20, t=60, b=40),
        yaxis=dict(
            zeroline=True,
            zerolinecolor="#555",
            gridcolor="#e3e3e3",
            tickformat="+.2f",
            automargin=True,
        ),
        xaxis=dict(automargin=True),
    )
    return _figure(traces, layout)


def rae_vs_lbs(points: pd.DataFrame, lang_labels: Mapping[str, str], empty_message: str, lbs_label: str = "LBS") -> Figure:
    """RAE accuracy (x) against LBS accuracy (y), one trace per language, with the diagonal.

    ``points`` has columns ``lang``, ``label``, ``rae``, ``lbs``.
    """
    if points is None or points.empty:
        return placeholder(empty_message)
    points = points.dropna(subset=["rae", "lbs"])
    if points.empty:
        return placeholder(empty_message)
    traces = []
    for lang, label in lang_labels.items():
        group = points[points["lang"] == lang]
        if group.empty:
            continue
        traces.append(
            dict(
                type="scatter",
                x=[_r(v) for v in group["rae"].tolist()],
                y=[_r(v) for v in group["lbs"].tolist()],
                text=[plotly_text(v) for v in group["label"].tolist()],
                mode="markers",
                name=label,
                marker=dict(size=7, opacity=0.8),
                hovertemplate="%{text}<br>RAE %{x:.3f} · " + lbs_label + " %{y:.3f}<extra>" + label + "</extra>",
            )
        )
    layout = _layout(
        height=420,
        legend=dict(orientation="h", y=1.1, x=0),
        shapes=[dict(type="line", x0=0, y0=0, x1=1, y1=1, line=dict(color="#888", dash="dot", width=1))],
        xaxis=dict(title=dict(text="RAE"), range=[0, 1.02], gridcolor="#e3e3e3", constrain="domain"),
        yaxis=dict(title=dict(text=lbs_label), range=[0, 1.02], gridcolor="#e3e3e3", scaleanchor="x", scaleratio=1),
    )
    return _figure(traces, layout)


def level_ranking(
    scores: pd.DataFrame, series_labels: Mapping[tuple[str, str], str], axis_title: str, empty_message: str, visible=("en", "ar")
) -> Figure:
    """Every model's accuracy on one level: a row per model, a marker trace per (lang, method).

    ``scores`` has columns ``name``, ``lang``, ``method``, ``score``; rows are ordered by
    the first series' score (best first). Series other than RAE start hidden.
    """
    if scores is None or scores.empty or scores["score"].notna().sum() == 0:
        return placeholder(empty_message)
    score = {k: v for k, v in _pairs(scores, ["lang", "method", "name"]).items() if _r(v) is not None}
    first = next((k for k in series_labels if any(key[:2] == k for key in score)), None)
    names = sorted(dict.fromkeys(scores["name"].tolist()), key=lambda n: (-score.get((*first, n), -1.0), n))
    traces = []
    for (lang, method), label in series_labels.items():
        x = [_r(score.get((lang, method, n))) for n in names]
        if all(v is None for v in x):
            continue
        traces.append(
            dict(
                type="scatter",
                x=x,
                y=[plotly_text(n) for n in names],
                mode="markers",
                name=label,
                marker=dict(size=9, symbol="circle" if lang == "en" else "diamond"),
                visible=True if method == "rae" and lang in visible else "legendonly",
                hovertemplate="%{y}: %{x:.3f}<extra>" + label + "</extra>",
            )
        )
    layout = _layout(
        height=max(260, 22 * len(names) + 120),
        legend=dict(orientation="h", y=-0.01, yanchor="top", x=0),
        yaxis=dict(autorange="reversed", automargin=True, gridcolor="#eeeeee"),
        xaxis=dict(title=dict(text=axis_title), range=[0, 1], gridcolor="#e3e3e3", side="top"),
    )
    return _figure(traces, layout)


def figure_json(fig: Figure | go.Figure) -> dict:
    """Plain JSON-safe data of a figure: lists and dicts, NaN as null, no uids."""
    return _clean(fig.to_plotly_json())


def _clean(value):
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items() if k != "uid"}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "tolist"):
        return _clean(value.tolist())
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    return value
