"""Page contexts: what each template gets, in one UI language.

Every page is found by convention: ``<name>.html`` in ``templates/`` renders
``<name>.html`` in the site (``models/<id>.html`` for ``model.html``, ``levels/<level>.html``
for ``level.html``); the Arabic tree is the same under ``ar/``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from urllib.parse import quote

import jinja2
import pandas as pd
from markupsafe import Markup, escape

from ..benchmark import LANGS
from . import figures as F
from .data import METHODS, STATUSES, Entry, SiteData, safe_url
from .i18n import DIRECTION, LANG_NAMES, LEVEL_NAMES, METHOD_NAMES, STATUS_NAMES, translator

COMPARE_SLOTS = 4  # models side by side on the compare page
PAGES = ("index.html", "compare.html", "levels/index.html", "about.html", "downloads.html")


def _nan(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _score(value: object) -> float | None:
    return None if _nan(value) else float(value)


def level_slug(level: str) -> str:
    return level.lower()


def build_command(data: SiteData) -> str:
    parts = ["bloombench build", f"--submissions {data.submissions_label}/"]
    if data.dataset_file:
        parts.append(f"--dataset {data.dataset_file}")
    parts.append("--out site/")
    return " ".join(parts)


def score_command(data: SiteData, entry_id: str) -> str:
    extra = f" --dataset {data.dataset_file}" if data.dataset_file else ""
    return f"bloombench score {data.submissions_label}/{entry_id}{extra} --format json"


def score_formatter(t):
    """``score(value, ci=None)``: a score cell's HTML: the value, ± half its 95% interval, or N/A.

    A Python function rather than a Jinja macro: the overview calls it thousands of times.
    """
    na = Markup('<span class="na" title="{}">{}</span>').format(t("na_title"), t("na"))
    ci_title = str(escape(t("ci_title")))  # escaped once; the rest is numbers formatted here

    def score(value: object, ci: tuple | None = None) -> Markup:
        if _nan(value):
            return na
        text = f"{float(value):.3f}"
        if ci is not None and not _nan(ci[0]) and not _nan(ci[1]):
            lo, hi = float(ci[0]), float(ci[1])
            return Markup(f'{text} <small title="{ci_title}: {lo:.3f}–{hi:.3f}">±{(hi - lo) / 2:.3f}</small>')
        return Markup(text)

    return score


class PageContext:
    """Shared context for one UI language: strings, labels and relative links."""

    def __init__(self, data: SiteData, lang: str):
        self.data = data
        self.lang = lang
        self.t = translator(lang)
        self.score = score_formatter(self.t)
        self.levels = LEVEL_NAMES[lang]
        self.methods = METHOD_NAMES[lang]
        self.langs = LANG_NAMES[lang]
        self.statuses = STATUS_NAMES[lang]
        self.series = {(lg, m): f"{self.langs[lg]} · {self.methods[m]}" for lg in LANGS for m in METHODS}

    def base(self, rel_path: str, page: str) -> dict:
        depth = rel_path.count("/") + (1 if self.lang == "ar" else 0)
        site_root = "../" * depth
        other = ("../" * depth) + ("" if self.lang == "ar" else "ar/") + rel_path
        return {
            "lang": self.lang,
            "dir": DIRECTION[self.lang],
            "t": self.t,
            "score": self.score,
            "page": page,
            "site_root": site_root,
            "root": site_root + ("ar/" if self.lang == "ar" else ""),
            "other_lang_href": other,
            "other_lang": "ar" if self.lang == "en" else "en",
            "level_names": self.levels,
            "method_names": self.methods,
            "lang_names": self.langs,
            "status_names": self.statuses,
            "build_command": build_command(self.data),
            "tool_version": self.data.tool_version,
            "dataset_label": self.data.dataset_label,
            "spec": self.data.spec,
            "level_slug": level_slug,
            "quote": quote,
        }


class SiteRenderer:
    """Renders every page; the per-entry tables are split once and shared by both languages."""

    def __init__(self, env: jinja2.Environment, data: SiteData, results: pd.DataFrame, levels: pd.DataFrame):
        self.env, self.data = env, data
        self.results, self.levels = results, levels
        self.contexts = {lang: PageContext(data, lang) for lang in ("en", "ar")}
        self.levels_by_entry = dict(tuple(levels.groupby("entry_id", sort=False))) if not levels.empty else {}
        self.results_by_entry = dict(tuple(results.groupby("entry_id", sort=False)))
        self.compare_models = compare_models(data)

    def common_pages(self, lang: str) -> Iterator[tuple[str, str]]:
        """``(path relative to the site root, html)`` for every page of ``lang`` except the model pages."""
        ctx = self.contexts[lang]
        prefix = "ar/" if lang == "ar" else ""
        pages = {
            "index.html": overview_context(ctx, self.results, self.levels),
            "compare.html": compare_context(ctx, self.compare_models),
            "levels/index.html": levels_index_context(ctx),
            "about.html": about_context(ctx),
            "downloads.html": {},
        }
        for rel_path, extra in pages.items():
            template = "levels.html" if rel_path == "levels/index.html" else rel_path
            yield prefix + rel_path, self.env.get_template(template).render(**ctx.base(rel_path, rel_path.split(".")[0]), **extra)
        level_template = self.env.get_template("level.html")
        for level in self.data.spec.levels:
            rel_path = f"levels/{level_slug(level.name)}.html"
            extra = level_context(ctx, self.levels, level.name, level.count)
            yield prefix + rel_path, level_template.render(**ctx.base(rel_path, "levels"), **extra)

    def model_page(self, lang: str, entry: Entry) -> tuple[str, str]:
        ctx = self.contexts[lang]
        rel_path = f"models/{entry.id}.html"
        levels = self.levels_by_entry.get(entry.id, self.levels.iloc[0:0])
        extra = model_context(ctx, entry, self.results_by_entry[entry.id], levels)
        html = self.env.get_template("model.html").render(**ctx.base(rel_path, "model"), **extra)
        return ("ar/" if lang == "ar" else "") + rel_path, html


# ---------------------------------------------------------------- overview


def _row_sort_key(row: dict) -> tuple:
    return (
        LANGS.index(row["lang"]),
        METHODS.index(row["method"]),
        -(row["micro"] if row["micro"] is not None else -1.0),
        row["name"],
        row["entry_id"],
    )


def table_rows(results: pd.DataFrame, spec_levels: list[str]) -> list[dict]:
    rows = []
    for rec in results.to_dict("records"):
        size = rec["parameters_b"]
        rows.append(
            {
                "entry_id": rec["entry_id"],
                "name": rec["name"],
                "organization": rec["organization"] or "",
                "status": rec["status"],
                "open_weights": rec["open_weights"],
                "weights": "open" if rec["open_weights"] is True else ("closed" if rec["open_weights"] is False else ""),
                "size": None if _nan(size) else float(size),
                "size_text": "" if _nan(size) else f"{float(size):g}",
                "lang": rec["lang"],
                "method": rec["method"],
                "evaluated": bool(rec["evaluated"]),
                "micro": _score(rec["micro"]),
                "macro": _score(rec["macro"]),
                "micro_ci": (rec["micro_lo"], rec["micro_hi"]),
                "macro_ci": (rec["macro_lo"], rec["macro_hi"]),
                "rank": None if _nan(rec["micro_rank"]) else int(rec["micro_rank"]),
                "levels": [(_score(rec[f"level:{lv}"]), (rec[f"level:{lv}_lo"], rec[f"level:{lv}_hi"])) for lv in spec_levels],
            }
        )
    return sorted(rows, key=_row_sort_key)


def overview_radars(ctx: PageContext, levels: pd.DataFrame) -> dict | None:
    """The overview's radars as compact data for site.js to draw: each model's name once; per
    chart its layout and one ``[name index, scores, lo, hi]`` row per model, best micro first
    (``lo``/``hi`` left out without intervals; None = N/A); the trace style once.
    None when no model has level scores."""
    index: dict[str, int] = {}  # entry id -> position in names
    names: list[str] = []
    charts = []
    for lang in LANGS:
        for method in METHODS:
            block = levels[(levels["lang"] == lang) & (levels["method"] == method)] if not levels.empty else levels
            if block.empty or block["score"].notna().sum() == 0:
                continue
            block = block.sort_values(["micro", "name", "entry_id"], ascending=[False, True, True], na_position="last")
            name_of = dict(zip(block["entry_id"].tolist(), block["name"].tolist(), strict=True))
            rows = []
            for entry_id, scores, lo, hi in F.radar_points(block.assign(trace=block["entry_id"]), ctx.data.spec.level_names):
                if entry_id not in index:
                    index[entry_id] = len(names)
                    names.append(name_of[entry_id])
                has_ci = any(v is not None for v in lo + hi)
                rows.append([index[entry_id], scores, lo, hi] if has_ci else [index[entry_id], scores])
            title = ctx.series[(lang, method)]
            layout = F.layout_json(F.radar_layout(len(rows), title=title))
            charts.append({"id": f"radar-{lang}-{method}", "title": title, "layout": layout, "rows": rows})
    if not charts:
        return None
    return {
        "charts": charts,
        "names": names,
        "theta": [ctx.levels[lv] for lv in ctx.data.spec.level_names],
        "trace": F.RADAR_TRACE,
        "max_visible": F.RADAR_MAX_VISIBLE,
        "na": ctx.t("na"),
    }


def overview_context(ctx: PageContext, results: pd.DataFrame, levels: pd.DataFrame) -> dict:
    rows = table_rows(results, ctx.data.spec.level_names)
    orgs = sorted({r["organization"] for r in rows if r["organization"]}, key=str.casefold)
    has_rank = any(r["rank"] is not None for r in rows)
    has_ci = any(not _nan(r["micro_ci"][0]) for r in rows)
    radars = overview_radars(ctx, levels)
    return {
        "rows": rows,
        "radars": radars,
        "organizations": orgs,
        "statuses": STATUSES,
        "methods": METHODS,
        "langs": LANGS,
        "has_rank": has_rank,
        "has_ci": has_ci,
        "n_entries": len(ctx.data.entries),
        "placeholder": None if radars else F.figure_json(F.placeholder(ctx.t("placeholder_no_data"))),
    }


# ---------------------------------------------------------------- model page


def hub_url(repo_id: object, revision: object = "", kind: str = "") -> str | None:
    """The Hugging Face Hub page of a repository (at a revision); None unless both look like Hub names."""
    if not isinstance(repo_id, str) or not isinstance(revision, str) or revision is None:
        return None
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*", repo_id) or not re.fullmatch(
        r"[A-Za-z0-9._-]*", revision
    ):
        return None
    return safe_url(f"https://huggingface.co/{kind}{repo_id}" + (f"/tree/{revision}" if revision else ""))


def _meta_rows(ctx: PageContext, entry: Entry) -> list[dict]:
    t, meta = ctx.t, entry.meta
    prov = meta.get("provenance") or {}
    verified = meta.get("verified")
    rows: list[tuple[str, object, str | None]] = [
        (t("meta_model"), meta.get("model"), None),
        (t("meta_variant"), meta.get("variant"), None),
        (t("meta_org"), meta.get("organization"), None),
        (t("meta_status"), ctx.statuses[entry.status], None),
        (t("meta_kind"), meta.get("kind"), None),
        (t("meta_weights"), t("open") if meta.get("open_weights") else t("closed"), None),
        (t("meta_params"), meta.get("parameters_b"), None),
        (t("meta_active"), meta.get("active_parameters_b"), None),
        (t("meta_license"), meta.get("license"), None),
        (t("meta_link"), meta.get("link"), safe_url(meta.get("link"))),
        (t("meta_model_id"), meta.get("model_id"), hub_url(meta.get("model_id"))),
        (t("meta_revision"), meta.get("revision"), hub_url(meta.get("model_id"), meta.get("revision"))),
        (
            t("meta_dataset_revision"),
            meta.get("dataset_revision"),
            hub_url(ctx.data.spec.dataset["repo_id"], meta.get("dataset_revision"), "datasets/"),
        ),
        (t("meta_dataset_sha"), prov.get("dataset_sha256"), None),
        (t("meta_tool_version"), prov.get("tool_version"), None),
        (t("meta_date"), meta.get("date"), None),
        (t("meta_submitted_by"), meta.get("submitted_by"), None),
        (t("meta_source"), meta.get("source"), safe_url(meta.get("source"))),
        (t("meta_hardware"), prov.get("hardware"), None),
        (t("meta_duration"), prov.get("duration_s"), None),
        (t("meta_languages"), ", ".join(ctx.langs.get(x, str(x)) for x in meta.get("languages") or []), None),
        (t("meta_methods"), ", ".join(ctx.methods.get(x, str(x)) for x in meta.get("methods") or []), None),
        (t("meta_notes"), meta.get("notes"), None),
    ]
    if isinstance(verified, dict):
        text = t("meta_verified_by", by=verified.get("by", ""), date=verified.get("date", ""))
        details = [str(verified[k]) for k in ("hardware", "rerun", "tool_version") if verified.get(k)]
        rows.append((t("meta_verified"), text + (" — " + "; ".join(details) if details else ""), None))
    else:
        rows.append((t("meta_verified"), t("meta_not_verified"), None))
    return [{"label": label, "value": value, "href": href} for label, value, href in rows if value not in (None, "", [])]


def entry_leaves(entry: Entry, spec) -> pd.DataFrame:
    """One entry's leaf scores in the long shape of :func:`leaves_frame`, built from its score dict."""
    rows = []
    for lang in LANGS:
        for method in METHODS:
            scores = (entry.block(lang, method) or {}).get("leaves") or {}
            if not scores:
                continue
            for leaf in spec.leaves:
                value = scores.get(leaf.id)
                rows.append(
                    (lang, method, leaf.level, leaf.subcategory, leaf.name, leaf.id, math.nan if value is None else float(value))
                )
    return pd.DataFrame(rows, columns=["lang", "method", "level", "subcategory", "leaf", "leaf_id", "score"])


def model_context(ctx: PageContext, entry: Entry, results: pd.DataFrame, levels: pd.DataFrame) -> dict:
    spec = ctx.data.spec
    t = ctx.t
    radars = []
    for lang in LANGS:
        block = levels[levels["lang"] == lang]
        if block.empty:
            continue
        block = block.assign(trace=block["method"].map(ctx.methods))
        fig = F.radar(
            block,
            ctx.levels,
            title=ctx.langs[lang],
            max_visible=len(METHODS),
            height=380,
            empty_message=t("placeholder_no_data"),
            na=t("na"),
        )
        radars.append({"id": f"radar-{lang}", "figure": F.figure_json(fig)})
    level_rows = table_rows(results, spec.level_names)
    heatmap = F.leaf_heatmap(entry_leaves(entry, spec), ctx.series, ctx.levels, t("no_leaves"))
    gap_ci = {
        (method, lv): tuple(ci)
        for method, block in entry.gaps.get("en-ar", {}).items()
        for lv, ci in (block.get("levels_ci95") or {}).items()
    }
    gap = F.gap_bars(levels, ctx.levels, ctx.methods, t("axis_gap"), t("placeholder_no_data"), intervals=gap_ci)
    gap_rows = []
    for method in METHODS:
        en, ar = entry.block("en", method), entry.block("ar", method)
        if en and ar:
            gaps = []
            for lv in spec.level_names:
                a, b = (en.get("levels") or {}).get(lv), (ar.get("levels") or {}).get(lv)
                gaps.append(None if a is None or b is None else (float(a) - float(b), gap_ci.get((method, lv))))
            gap_rows.append({"method": method, "gaps": gaps})
    scatter = F.rae_vs_lbs(rae_lbs_points(ctx, entry), ctx.langs, t("placeholder_no_data"), ctx.methods["lbs"])
    leaf_groups = leaf_table(ctx, entry)
    base = ctx.data.files_url
    files = [
        {
            "name": name,
            "href": f"{base}/{quote(entry.id)}/{quote(name)}" if base else f"{quote(entry.id)}/{quote(name)}",
            "external": bool(base),
        }
        for name in entry.files
    ]
    return {
        "entry": entry,
        "name": entry.name,
        "meta_rows": _meta_rows(ctx, entry),
        "radars": radars,
        "level_rows": level_rows,
        "heatmap": F.figure_json(heatmap),
        "gap": F.figure_json(gap),
        "gap_rows": gap_rows,
        "scatter": F.figure_json(scatter),
        "leaf_groups": leaf_groups,
        "leaf_columns": leaf_groups and leaf_groups[0]["columns"] or [],
        "files": files,
        "reproduce": score_command(ctx.data, entry.id),
    }


def rae_lbs_points(ctx: PageContext, entry: Entry) -> pd.DataFrame:
    """Per language, (RAE, LBS) pairs over leaves when both have leaf scores, else over levels."""
    rows = []
    for lang in LANGS:
        rae, lbs = entry.block(lang, "rae"), entry.block(lang, "lbs")
        if rae is None or lbs is None:
            continue
        rae_leaves, lbs_leaves = rae.get("leaves") or {}, lbs.get("leaves") or {}
        pairs = [
            (f"{ctx.levels[leaf.level]} · {leaf.name}", rae_leaves[leaf.id], lbs_leaves[leaf.id])
            for leaf in ctx.data.spec.leaves
            if leaf.id in rae_leaves and leaf.id in lbs_leaves
        ]
        if not pairs:
            rae_levels, lbs_levels = rae.get("levels") or {}, lbs.get("levels") or {}
            pairs = [
                (ctx.levels[lv], rae_levels[lv], lbs_levels[lv])
                for lv in ctx.data.spec.level_names
                if lv in rae_levels and lv in lbs_levels
            ]
        rows.extend({"lang": lang, "label": label, "rae": a, "lbs": b} for label, a, b in pairs)
    return pd.DataFrame(rows, columns=["lang", "label", "rae", "lbs"])


def leaf_table(ctx: PageContext, entry: Entry) -> list[dict]:
    """Leaves grouped by level and subcategory, one score column per evaluated (lang, method) with leaf scores."""
    columns = [k for k in ctx.series if (entry.block(*k) or {}).get("leaves")]
    if not columns:
        return []
    scores = [entry.block(*k)["leaves"] for k in columns]
    groups = []
    for level in ctx.data.spec.level_names:
        rows = []
        for leaf in ctx.data.spec.leaves_of(level):
            values = [_score(s.get(leaf.id)) for s in scores]
            rows.append({"subcategory": leaf.subcategory, "leaf": leaf.name, "n_items": leaf.count, "scores": values})
        groups.append({"level": level, "rows": rows, "columns": [{"key": k, "label": ctx.series[k]} for k in columns]})
    return groups


# ---------------------------------------------------------------- compare, levels, about


def compare_models(data: SiteData) -> list[dict]:
    """Each entry's level and leaf scores as arrays in spec order (None = N/A), for the compare page."""
    spec = data.spec
    models = []
    for e in sorted(data.entries, key=lambda e: (e.name.casefold(), e.id)):
        levels: dict = {}
        leaves: dict = {}
        for lang, method, block in e.blocks():
            lv = block.get("levels") or {}
            levels.setdefault(lang, {})[method] = [None if _nan(lv.get(n)) else round(float(lv[n]), 4) for n in spec.level_names]
            lf = block.get("leaves") or {}
            if lf:
                leaves.setdefault(lang, {})[method] = [
                    None if _nan(lf.get(x.id)) else round(float(lf[x.id]), 4) for x in spec.leaves
                ]
        models.append({"id": e.id, "name": e.name, "status": e.status, "levels": levels, "leaves": leaves})
    return models


def compare_context(ctx: PageContext, models: list[dict]) -> dict:
    spec = ctx.data.spec
    best = sorted(
        ctx.data.entries,
        key=lambda e: (-((e.block("en", "rae") or {}).get("micro") or -1.0), e.name.casefold(), e.id),
    )
    payload = {
        "default": [e.id for e in best[:2]],
        "models": models,
        "levels": [ctx.levels[lv] for lv in spec.level_names],
        "leaves": [f"{ctx.levels[leaf.level]} · {leaf.subcategory} · {leaf.name}" for leaf in spec.leaves],
        "radar_layout": F.layout_json(F.radar_layout(COMPARE_SLOTS)),
        "trace": F.RADAR_TRACE,
        "text": {
            "pick": ctx.t("compare_pick"),
            "na": ctx.t("na"),
            "accuracy": ctx.t("axis_accuracy"),
            "no_leaves": ctx.t("no_leaves"),
        },
    }
    return {"compare": payload, "slots": list(range(1, COMPARE_SLOTS + 1)), "langs": LANGS, "methods": METHODS}


def levels_index_context(ctx: PageContext) -> dict:
    return {"level_list": [{"name": lv.name, "count": lv.count, "slug": level_slug(lv.name)} for lv in ctx.data.spec.levels]}


def level_context(ctx: PageContext, levels: pd.DataFrame, level: str, count: int) -> dict:
    sub = levels[levels["level"] == level] if not levels.empty else levels
    fig = F.level_ranking(
        sub[["name", "lang", "method", "score"]] if not sub.empty else pd.DataFrame(columns=["name", "lang", "method", "score"]),
        ctx.series,
        ctx.t("axis_accuracy"),
        ctx.t("placeholder_no_data"),
    )
    tables = []
    by_key = {k: g for k, g in sub.groupby(["lang", "method"], sort=False)} if not sub.empty else {}
    for lang in LANGS:
        for method in METHODS:
            rows = []
            group = by_key.get((lang, method))
            scored = {} if group is None else {r.entry_id: (r.score, r.lo, r.hi) for r in group.itertuples()}
            for entry in ctx.data.entries:
                score, lo, hi = scored.get(entry.id, (math.nan, math.nan, math.nan))
                rows.append({"entry": entry, "score": _score(score), "ci": (lo, hi)})
            if all(r["score"] is None for r in rows):
                continue
            rows.sort(key=lambda r: (r["score"] is None, -(r["score"] or 0.0), r["entry"].name, r["entry"].id))
            rank, previous = 0, object()
            for i, row in enumerate(rows, 1):
                if row["score"] != previous:
                    rank, previous = i, row["score"]
                row["rank"] = rank if row["score"] is not None else None
            tables.append({"id": f"rank-{lang}-{method}", "title": ctx.series[(lang, method)], "rows": rows})
    return {
        "level": level,
        "count": count,
        "figure": F.figure_json(fig),
        "tables": tables,
        "level_list": levels_index_context(ctx)["level_list"],
    }


def about_context(ctx: PageContext) -> dict:
    events = []
    for e in ctx.data.entries:
        events.append({"date": str(e.meta.get("date", "")), "entry": e, "what": "added"})
        verified = e.meta.get("verified")
        if isinstance(verified, dict):
            events.append({"date": str(verified.get("date", "")), "entry": e, "what": "verified", "by": verified.get("by", "")})
    events.sort(key=lambda ev: (ev["date"], ev["entry"].id, ev["what"]), reverse=True)
    from .. import uncertainty

    return {"changelog": events, "pending": list(ctx.data.pending), "uncertainty_text": uncertainty.EXPLANATION}
