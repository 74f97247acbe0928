"""The static site without a browser: pages, escaping, N/A, determinism, atomic builds, downloads."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import plotly
import pytest
from click.testing import CliRunner

from leaderboard.benchmark import load_spec
from leaderboard.cli import main
from leaderboard.site import build_site
from leaderboard.site import figures as F
from leaderboard.site.build import PLOTLY_JS, plotly_js_path
from leaderboard.site.data import safe_url
from leaderboard.site.i18n import LEVEL_NAMES

from .site_support import HOSTILE, HOSTILE_ORG, make_site_inputs

REPO = Path(__file__).resolve().parent.parent
ENTRY_IDS = ["alpha-vl-7b", "beta-vl-2b", "img-src-x-onerror-alert-1", "paper-vl-4b"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, Path]:
    return make_site_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def site(inputs, tmp_path_factory) -> Path:
    subs, dataset = inputs
    out = tmp_path_factory.mktemp("build") / "site"
    build_site(subs, out, dataset)
    return out


def html_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def test_every_page_exists_in_english_and_arabic(site: Path):
    for prefix in ("", "ar/"):
        for page in ("index.html", "compare.html", "about.html", "downloads.html", "levels/index.html"):
            assert (site / prefix / page).is_file(), prefix + page
        for level in ("remember", "understand", "apply", "analyze", "evaluate", "create"):
            assert (site / prefix / "levels" / f"{level}.html").is_file()
        for entry_id in ENTRY_IDS:
            assert (site / prefix / "models" / f"{entry_id}.html").is_file()
    # the pending model request gets no page and no row, but is listed on the About page
    assert not (site / "models" / "gamma-vl-1b.html").exists()
    assert "gamma-vl-1b" not in (site / "index.html").read_text(encoding="utf-8")
    assert "gamma/gamma-vl-1b" in (site / "about.html").read_text(encoding="utf-8")


def test_plotly_is_served_from_the_site_not_a_cdn(site: Path):
    assert (site / "assets" / PLOTLY_JS).read_bytes() == plotly_js_path().read_bytes()
    assert not (site / "assets" / "plotly.min.js").exists()  # the full bundle (4.8 MB) is not shipped
    for page in html_files(site):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"<script[^>]+src=\"(https?:)?//", text), page
        assert not re.search(r"<link[^>]+href=\"(https?:)?//", text), page


def _bundle_header() -> tuple[str, list[str]]:
    head = plotly_js_path().read_text(encoding="utf-8")[:4000]
    match = re.search(r"plotly\.js v(\d+\.\d+\.\d+), traces: ([a-z, ]+) \(", head)
    assert match, "the bundle's header must name the plotly.js version and the traces"
    return match.group(1), match.group(2).split(", ")


def test_the_plotly_bundle_matches_pythons_plotly_and_keeps_its_license():
    version, _ = _bundle_header()
    pinned = json.loads((REPO / "scripts" / "plotly-bundle" / "package.json").read_text(encoding="utf-8"))
    assert pinned["devDependencies"]["plotly.js"] == version
    embedded = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    python_side = re.search(r"plotly\.js v(\S+)", embedded.read_text(encoding="utf-8")[:500]).group(1)
    # The figures are made by Python's plotly for the plotly.js it embeds: draw them with the same one.
    assert python_side == version, (
        f"Python plotly {plotly.__version__} embeds plotly.js {python_side} but the site's bundle is {version}: "
        "set plotly.js in scripts/plotly-bundle/package.json to it and run scripts/plotly-bundle/build.sh"
    )
    text = plotly_js_path().read_text(encoding="utf-8")
    assert "Permission is hereby granted, free of charge" in text and "Plotly Technologies Inc." in text
    assert len(text.encode()) < 1_500_000  # the full plotly.min.js is 4.8 MB


def _trace_types(value) -> set[str]:
    if isinstance(value, dict):
        found = {value["type"]} if isinstance(value.get("type"), str) and "hovertemplate" in value else set()
        return found.union(*(_trace_types(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_trace_types(v) for v in value))
    return set()


def test_the_bundle_holds_every_trace_type_the_site_draws(site: Path):
    _, traces = _bundle_header()
    used: set[str] = set()
    for page in html_files(site):
        for blob in re.findall(r'<script type="application/json" id="[^"]+">(.*?)</script>', page.read_text(encoding="utf-8")):
            used |= _trace_types(json.loads(blob))
    site_js = (site / "assets" / "site.js").read_text(encoding="utf-8")
    used |= set(re.findall(r'type: "([a-z]+)"', site_js))
    assert {"scatterpolar", "heatmap", "bar", "scatter"} <= used  # the check sees every chart kind
    assert used <= set(traces), f"add {sorted(used - set(traces))} to scripts/plotly-bundle/entry.js and rebuild"


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def test_every_relative_link_resolves_inside_the_site(site: Path):
    checked = 0
    for page in html_files(site):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            if link.startswith(("https://", "http://", "#")):
                continue
            assert not link.startswith("/"), f"{page}: absolute link {link} breaks under a sub-path"
            target = (page.parent / unquote(urlsplit(link).path)).resolve()
            assert target.is_file(), f"{page.relative_to(site)} links to missing {link}"
            assert site.resolve() in target.parents
            checked += 1
    assert checked > 500


def test_hostile_strings_are_escaped_everywhere(site: Path):
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in index
    assert "&lt;script&gt;alert(2)&lt;/script&gt; Labs" in index
    for page in html_files(site):
        text = page.read_text(encoding="utf-8")
        assert HOSTILE not in text, page
        assert "<script>alert(2)" not in text, page
        assert "<b>bold?</b>" not in text, page
    model = (site / "models" / "img-src-x-onerror-alert-1.html").read_text(encoding="utf-8")
    # in figure JSON made in Python the name is escaped twice: for the HTML page and for Plotly's own markup
    assert "\\u0026lt;img src=x onerror=alert(1)\\u0026gt;" in (site / "levels" / "apply.html").read_text(encoding="utf-8")
    # the overview's radar data carries the name as JSON-escaped data; site.js escapes it for Plotly
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in index
    assert HOSTILE in _radar_data(site / "index.html")["names"]
    # the source is not http(s): it is shown as text, never as a link
    assert "javascript:alert(3)" in model
    assert 'href="javascript' not in model


def test_only_http_links_become_links(site: Path):
    alpha = (site / "models" / "alpha-vl-7b.html").read_text(encoding="utf-8")
    assert '<a href="https://example.org/alpha" rel="nofollow noopener">https://example.org/alpha</a>' in alpha
    assert 'href="https://huggingface.co/alpha/alpha-vl-7b/tree/0123456789abcdef0123456789abcdef01234567"' in alpha
    assert safe_url("https://example.org/x") == "https://example.org/x"
    for bad in (
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,x",
        "//evil.example",
        'https://x" onclick="y',
        None,
        3,
    ):
        assert safe_url(bad) is None, bad


def _row(index_html: str, lang: str, method: str, name: str) -> str:
    """The results table's row of one model, language and method (one line per row)."""
    pattern = rf'^<tr data-lang="{lang}" data-method="{method}"[^>\n]*>([^\n]*<bdi>{re.escape(name)}</bdi>[^\n]*)</tr>$'
    matches = re.findall(pattern, index_html, re.M)
    assert len(matches) == 1, (lang, method, name)
    return matches[0]


def _radar_data(page: Path) -> dict:
    match = re.search(r'<script type="application/json" id="radar-data">(.*?)</script>', page.read_text(encoding="utf-8"))
    assert match, page
    return json.loads(match.group(1))


def test_not_evaluated_is_na_never_zero(site: Path):
    index = (site / "index.html").read_text(encoding="utf-8")
    beta_ar = _row(index, "ar", "rae", "Beta-VL 2B")  # Beta was evaluated in English with RAE only
    assert beta_ar.count(">N/A<") == 8 and "0.000" not in beta_ar
    paper_lbs = _row(index, "en", "lbs", "Paper-VL 4B")
    assert paper_lbs.count(">N/A<") == 8
    beta_en = _row(index, "en", "rae", "Beta-VL 2B")
    assert "N/A" not in beta_en and re.search(r"0\.\d{3}", beta_en)
    rows = list(csv.DictReader(io.StringIO((site / "downloads" / "results.csv").read_text(encoding="utf-8"))))
    beta = {(r["lang"], r["method"]): r for r in rows if r["entry_id"] == "beta-vl-2b"}
    assert beta[("ar", "rae")]["micro"] == "" and beta[("ar", "rae")]["evaluated"] == "False"
    assert float(beta[("en", "rae")]["micro"]) > 0


def test_overview_radars_send_each_number_once_as_compact_data(site: Path):
    index = (site / "index.html").read_text(encoding="utf-8")
    data = _radar_data(site / "index.html")
    ids = [c["id"] for c in data["charts"]]
    assert ids == [f"radar-{lang}-{m}" for lang in ("en", "ar") for m in ("rae", "lbs", "lbs_char")]
    assert index.count("hovertemplate") == 1 and index.count('"layout"') == len(ids)  # trace style once, a layout per chart
    assert sorted(data["names"]) == sorted(["Alpha-VL 7B", "Beta-VL 2B", HOSTILE, "Paper-VL 4B"])
    assert data["theta"] == list(LEVEL_NAMES["en"].values()) and data["na"] == "N/A"
    shown = {e["id"]: e for e in json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))["entries"]}
    by_name = {e["metadata"]["model"]: e for e in shown.values()}
    for chart in data["charts"]:
        lang, method = chart["id"].split("-")[1:]
        micro = [by_name[data["names"][row[0]]]["scores"][lang][method]["micro"] for row in chart["rows"]]
        assert micro == sorted(micro, reverse=True)  # best first: the first ten are the ones shown
        for row in chart["rows"]:
            block = by_name[data["names"][row[0]]]["scores"][lang][method]
            assert row[1] == [round(block["levels"][lv], 3) for lv in LEVEL_NAMES["en"]]
            bounds = zip(row[2], row[1], row[3], strict=True)  # 95% interval, each value rounded on its own
            assert len(row) == 4 and all(lo - 0.001 <= v <= hi + 0.001 and lo <= hi for lo, v, hi in bounds)
    en_rae = next(c for c in data["charts"] if c["id"] == "radar-en-rae")
    assert len(en_rae["rows"]) == 4 and en_rae["layout"]["title"]["text"] == "English · RAE"
    ar_rows = next(c for c in data["charts"] if c["id"] == "radar-ar-rae")["rows"]
    assert "Beta-VL 2B" not in [data["names"][row[0]] for row in ar_rows]  # not evaluated in Arabic: no trace, not zeros
    ar_data = _radar_data(site / "ar" / "index.html")
    assert ar_data["theta"] == list(LEVEL_NAMES["ar"].values()) and ar_data["na"] == "غير متاح"


def test_reported_entry_is_labelled_and_has_no_leaves(site: Path):
    page = (site / "models" / "paper-vl-4b.html").read_text(encoding="utf-8")
    assert "Reported by the paper, not re-run." in page
    assert "No per-task scores for this entry." in page
    assert "BloomBench paper, Table 1 and Table 2" in page
    ar_page = (site / "ar" / "models" / "paper-vl-4b.html").read_text(encoding="utf-8")
    assert "منشور في الورقة، ولم يُعَد تشغيله." in ar_page


def test_model_page_shows_provenance_and_the_command_that_reproduces_it(site: Path, inputs):
    subs, dataset = inputs
    page = (site / "models" / "alpha-vl-7b.html").read_text(encoding="utf-8")
    for text in (
        "0123456789abcdef0123456789abcdef01234567",
        "Verified by maintainer-a on 2026-03-05",
        "1x A100",
        "1x test GPU",
        "alpha/alpha-vl-7b",
    ):
        assert text in page
    command = "bloombench score submissions/alpha-vl-7b --dataset BloomBench.json --format json"
    assert command in page
    assert 'href="../submissions/alpha-vl-7b/predictions.jsonl"' in page
    assert (site / "submissions" / "alpha-vl-7b" / "predictions.jsonl").read_bytes() == (
        subs / "alpha-vl-7b" / "predictions.jsonl"
    ).read_bytes()
    # the command gives the numbers the site shows
    result = CliRunner().invoke(main, ["score", str(subs / "alpha-vl-7b"), "--dataset", str(dataset), "--format", "json"])
    assert result.exit_code == 0, result.output
    scored = json.loads(result.output)
    shown = json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))
    alpha = next(e for e in shown["entries"] if e["id"] == "alpha-vl-7b")
    for lang in ("en", "ar"):
        for method in ("rae", "lbs", "lbs_char"):
            assert alpha["scores"][lang][method]["micro"] == scored[lang][method]["micro"]
            assert alpha["scores"][lang][method]["levels"] == scored[lang][method]["levels"]
            assert f"{scored[lang][method]['micro']:.3f}" in page
    footer = (site / "index.html").read_text(encoding="utf-8")
    assert "bloombench build --submissions submissions/ --dataset BloomBench.json --out site/" in footer


def test_arabic_pages_are_right_to_left_with_translated_levels(site: Path):
    index = (site / "ar" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="ar" dir="rtl">' in index
    for name in LEVEL_NAMES["ar"].values():
        assert name in index
    about = (site / "ar" / "about.html").read_text(encoding="utf-8")
    assert "الدقة الجزئية والدقة الكلية" in about and "كيف تشارك" in about
    assert '<html lang="en" dir="ltr">' in (site / "index.html").read_text(encoding="utf-8")


def test_downloads_hold_every_entry(site: Path):
    results = pd.read_csv(site / "downloads" / "results.csv")
    assert sorted(results["entry_id"].unique()) == ENTRY_IDS
    assert len(results) == len(ENTRY_IDS) * 2 * 3
    leaves = pd.read_csv(site / "downloads" / "leaves.csv")
    # alpha and the hostile entry: 2 langs x 3 methods; beta: 1 x 1; paper: reported, levels only (2 blocks, no leaf scores)
    assert len(leaves) == (6 + 6 + 1 + 2) * 106
    assert leaves[leaves["entry_id"] == "paper-vl-4b"]["score"].isna().all()
    data = json.loads((site / "downloads" / "results.json").read_text(encoding="utf-8"))
    assert [e["id"] for e in data["entries"]] == ENTRY_IDS
    assert data["entries"][2]["metadata"]["model"] == HOSTILE
    assert data["entries"][2]["metadata"]["organization"] == HOSTILE_ORG


def test_same_inputs_give_byte_identical_output(inputs, site: Path, tmp_path: Path):
    subs, dataset = inputs
    moved = tmp_path / "elsewhere"
    shutil.copytree(subs, moved / "submissions")
    shutil.copy(dataset, moved / "BloomBench.json")
    again = tmp_path / "other-out"
    build_site(moved / "submissions", again, moved / "BloomBench.json", workers=2)  # forked workers: same bytes
    first = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    different = [str(k) for k in first if first[k] != second[k]]
    assert different == []
    assert '"uid"' not in (site / "index.html").read_text(encoding="utf-8")


def test_invalid_submission_stops_the_build_and_keeps_the_previous_site(inputs, tmp_path: Path):
    subs, dataset = inputs
    work = tmp_path / "submissions"
    shutil.copytree(subs, work)
    out = tmp_path / "site"
    runner = CliRunner()
    ok = runner.invoke(main, ["build", "--submissions", str(work), "--dataset", str(dataset), "--out", str(out)])
    assert ok.exit_code == 0, ok.output
    assert "index.html" in ok.output and "Built 30 pages for 4 entries" in ok.output
    before = (out / "index.html").read_bytes()
    meta_path = work / "beta-vl-2b" / "metadata.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    del meta["organization"]
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with open(work / "alpha-vl-7b" / "predictions.jsonl", "a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    bad = runner.invoke(main, ["build", "--submissions", str(work), "--dataset", str(dataset), "--out", str(out)])
    assert bad.exit_code == 1
    errors = [line for line in bad.output.splitlines() if line.startswith("error: ")]
    assert any("beta-vl-2b/metadata.json" in line and "organization" in line for line in errors), bad.output
    assert any("alpha-vl-7b/predictions.jsonl" in line for line in errors), bad.output  # every bad submission, not only the first
    assert "Traceback" not in bad.output
    assert (out / "index.html").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "submissions"]  # no half-written build left behind


def test_refuses_to_replace_a_folder_it_did_not_build(inputs, tmp_path: Path):
    subs, dataset = inputs
    precious = tmp_path / "docs"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "--submissions", str(subs), "--dataset", str(dataset), "--out", str(precious)])
    assert result.exit_code == 1
    assert "was not built by bloombench build" in result.output
    assert (precious / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_reported_entries_build_without_the_dataset(inputs, tmp_path: Path):
    subs, _ = inputs
    only = tmp_path / "submissions"
    shutil.copytree(subs / "paper-vl-4b", only / "paper-vl-4b")
    meta_path = only / "paper-vl-4b" / "metadata.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    del meta["source"]  # optional in the schema
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    out = tmp_path / "site"
    build_site(only, out)  # no --dataset: would need the network if it were loaded
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Paper-VL 4B" in index and "QCRI/BloomBench@" in index
    assert "Reported by the paper, not re-run." in (out / "models" / "paper-vl-4b.html").read_text(encoding="utf-8")


def test_files_url_links_submission_files_instead_of_copying(inputs, tmp_path: Path):
    subs, dataset = inputs
    out = tmp_path / "site"
    base = "https://github.com/example/bloombench/blob/main/submissions"
    build_site(subs, out, dataset, files_url=base + "/")
    assert not (out / "submissions").exists()
    page = (out / "ar" / "models" / "alpha-vl-7b.html").read_text(encoding="utf-8")
    assert f'href="{base}/alpha-vl-7b/predictions.jsonl"' in page
    result = CliRunner().invoke(
        main,
        ["build", "--submissions", str(subs), "--dataset", str(dataset), "--out", str(out), "--files-url", "javascript:alert(1)"],
    )
    assert result.exit_code == 1 and "is not an http(s) address" in result.output


def test_without_intervals_nothing_breaks(inputs, tmp_path: Path):
    subs, dataset = inputs
    out = tmp_path / "site"
    build_site(subs, out, dataset, intervals=False)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "±" not in index and 'data-sort="rank"' not in index
    assert 'data-sort="micro"' in index


def test_intervals_and_shared_ranks_are_shown(site: Path):
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'data-sort="rank"' in index
    paper = _row(index, "en", "rae", "Paper-VL 4B")  # reported: approximate Wilson intervals, never zero width
    assert re.search(r'<small title="95% CI: 0\.\d{3}–0\.\d{3}">±0\.0(0[1-9]|[1-9]\d)</small>', paper)


def test_every_figure_function_gives_a_placeholder_for_empty_input():
    empty_levels = pd.DataFrame(columns=["trace", "level", "score"])
    levels = LEVEL_NAMES["en"]
    figures = [
        F.radar(empty_levels, levels, empty_message="nothing"),
        F.leaf_heatmap(
            pd.DataFrame(columns=["lang", "method", "level", "subcategory", "leaf", "leaf_id", "score"]), {}, levels, "nothing"
        ),
        F.gap_bars(pd.DataFrame(columns=["lang", "method", "level", "score"]), levels, {"rae": "RAE"}, "gap", "nothing"),
        F.rae_vs_lbs(pd.DataFrame(columns=["lang", "label", "rae", "lbs"]), {"en": "English"}, "nothing"),
        F.level_ranking(
            pd.DataFrame(columns=["name", "lang", "method", "score"]), {("en", "rae"): "English · RAE"}, "acc", "nothing"
        ),
    ]
    for fig in figures:
        data = F.figure_json(fig)
        assert data["data"] == []
        assert data["layout"]["annotations"][0]["text"] == "nothing"


def test_radar_keeps_na_as_gaps_and_hides_traces_past_the_first_ten():
    rows = [
        {"trace": f"m{i:02d}", "level": lv, "score": 0.5 if lv != "Apply" else float("nan")}
        for i in range(12)
        for lv in LEVEL_NAMES["en"]
    ]
    data = F.figure_json(F.radar(pd.DataFrame(rows), LEVEL_NAMES["en"]))
    assert len(data["data"]) == 12
    assert [t["visible"] for t in data["data"]] == [True] * 10 + ["legendonly"] * 2
    assert data["data"][0]["r"][2] is None  # Apply is N/A: a gap, not 0
    json.dumps(data, allow_nan=False)


def test_build_help_has_an_example():
    result = CliRunner().invoke(main, ["build", "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output and "bloombench build --out site/" in result.output


def test_gap_error_bars_are_the_paired_intervals_that_score_gaps_prints(site: Path, inputs):
    subs, dataset = inputs
    result = CliRunner().invoke(main, ["score", str(subs / "alpha-vl-7b"), "--dataset", str(dataset), "--gaps"])
    assert result.exit_code == 0, result.output
    gaps = json.loads(result.output)
    assert set(gaps) >= {"en-ar", "rae-lbs", "rae-lbs_char"}
    block = gaps["en-ar"]["rae"]
    lo, hi = block["micro_ci95"]
    assert lo <= block["micro"] <= hi
    page = (site / "models" / "alpha-vl-7b.html").read_text(encoding="utf-8")
    figure = json.loads(re.search(r'<script type="application/json" id="gap-data">(.*?)</script>', page, re.S).group(1))
    rae = next(t for t in figure["data"] if "error_y" in t and t["name"] == "RAE")
    spec_levels = load_spec().level_names
    for k, level in enumerate(spec_levels):
        g_lo, g_hi = block["levels_ci95"][level]
        assert rae["y"][k] - rae["error_y"]["arrayminus"][k] == pytest.approx(g_lo, abs=2e-4)
        assert rae["y"][k] + rae["error_y"]["array"][k] == pytest.approx(g_hi, abs=2e-4)
        assert f"[{g_lo:+.3f}, {g_hi:+.3f}]" in page  # the chart's data table shows the interval too
    # a reported entry has no item-level data: no gap intervals, and the command says so in one line
    refused = CliRunner().invoke(main, ["score", str(subs / "paper-vl-4b"), "--gaps"])
    assert refused.exit_code == 1 and "has no predictions for paired gap intervals" in refused.output


def test_every_figure_on_the_site_passes_plotlys_validators(site: Path):
    """The build writes figures as plain data without Plotly's validators; here each one is checked."""
    import plotly.graph_objects as go

    checked = 0
    for page in html_files(site):
        for blob in re.findall(
            r'<script type="application/json" id="[^"]+">(.*?)</script>', page.read_text(encoding="utf-8"), re.S
        ):
            value = json.loads(blob)
            if isinstance(value, dict) and "data" in value and "layout" in value:
                go.Figure(value)  # raises ValueError on any invalid property
                checked += 1
            for layout in _layouts(value):  # the compact radar data: a layout per chart, traces built in site.js
                go.Figure(layout=layout)
                checked += 1
    assert checked >= 20


def _layouts(value) -> list[dict]:
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("layout", "radar_layout") and isinstance(item, dict) and "data" not in value:
                found.append(item)
            else:
                found += _layouts(item)
    elif isinstance(value, list):
        for item in value:
            found += _layouts(item)
    return found


def test_plain_figures_validate_and_match_plotlys_json():
    import plotly.graph_objects as go

    rows = [{"trace": "m", "level": lv, "score": 0.5, "lo": 0.4, "hi": 0.6} for lv in LEVEL_NAMES["en"]]
    fig = F.radar(pd.DataFrame(rows), LEVEL_NAMES["en"])
    assert F.figure_json(fig) == F.figure_json(fig.validated())
    with pytest.raises(ValueError):
        F.Figure([{"type": "bar", "no_such_property": 1}], {}).validated()
    assert isinstance(fig.validated(), go.Figure)
