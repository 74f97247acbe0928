"""The built site in a real headless Chromium: charts drawn, no console errors, sorting,
filters and URL state, the compare page, Arabic right-to-left, phone width, hostile names.

Chromium is Debian's package (/usr/bin/chromium) driven by Playwright from PyPI.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from leaderboard.benchmark import load_spec
from leaderboard.site import build_site
from leaderboard.site.build import make_env, render_site
from leaderboard.site.data import Entry, SiteData

from .site_support import HOSTILE, make_site_inputs

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser

playwright_api = pytest.importorskip("playwright.sync_api", reason="install playwright from PyPI (pip install playwright)")
if not CHROMIUM.exists() and shutil.which("chromium") is None:  # pragma: no cover - depends on the machine
    if os.environ.get("CI"):  # CI installs it (.ci/run): a missing browser is a failure there, not a skip
        pytest.fail("Debian's chromium package is not installed (apt-get install chromium)", pytrace=False)
    pytest.skip("Debian's chromium package is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    subs, dataset = make_site_inputs(root)
    out = root / "public" / "bloombench"  # served from a sub-path, as on GitHub Pages
    build_site(subs, out, dataset)
    return out


@pytest.fixture(scope="module")
def many_site(tmp_path_factory) -> Path:
    """Twelve published entries rendered straight from SiteData (no scoring): more than the ten
    radar traces shown at first; "Model 05" has no Apply score."""
    spec = load_spec()
    entries = []
    for i in range(12):
        levels = {lv: round(0.9 - 0.05 * i - 0.01 * k, 4) for k, lv in enumerate(spec.level_names)}
        if i == 5:
            del levels["Apply"]
        meta = {"model": f"Model {i:02d}", "organization": "Org", "kind": "reported", "date": "2026-01-01"}
        block = {"micro": round(0.9 - 0.05 * i, 4), "macro": round(0.88 - 0.05 * i, 4), "levels": levels}
        entries.append(Entry(id=f"model-{i:02d}", meta=meta, status="reported", scores={"en": {"rae": block}}))
    data = SiteData(spec, tuple(entries), (), "0.0.0", "test data", None)
    root = tmp_path_factory.mktemp("many")
    render_site(data, root / "site", root / "submissions", make_env())
    return root / "site"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def http_root(site: Path):
    """The site served over HTTP on 127.0.0.1 (random port) under /bloombench/."""
    handler = functools.partial(_QuietHandler, directory=str(site.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/bloombench/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def file_root(site: Path) -> str:
    """The same site opened from disk."""
    return site.as_uri() + "/"


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
        b = p.chromium.launch(executable_path=executable, args=ARGS)
        yield b
        b.close()


class Page:
    """A page that records console errors, uncaught exceptions, dialogs and requests leaving the site."""

    def __init__(self, browser, width: int = 1280):
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.page.set_default_timeout(5000)
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.external: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.on("request", self._request)

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request):
        if not request.url.startswith(("file://", "http://127.0.0.1", "data:", "blob:", "about:")):
            self.external.append(request.url)

    def open(self, url: str):
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        return self.page

    def close(self):
        assert self.errors == [], self.errors
        assert self.dialogs == [], self.dialogs
        assert self.external == [], self.external
        self.page.close()


@pytest.fixture
def tab(browser):
    opened: list[Page] = []

    def make(width: int = 1280) -> Page:
        opened.append(Page(browser, width))
        return opened[-1]

    yield make
    for p in opened:
        p.close()


def visible_rows(page) -> list[dict]:
    return page.eval_on_selector_all(
        "#results tbody tr:not([hidden])",
        """rows => rows.map(r => ({lang: r.dataset.lang, method: r.dataset.method, status: r.dataset.status,
            weights: r.dataset.weights, size: r.dataset.size, name: r.querySelector('th a').textContent,
            micro: r.cells[[...r.parentNode.parentNode.tHead.rows[0].cells].findIndex(c => c.querySelector('[data-sort=micro]'))].textContent.trim()}))""",
    )


def drawn_traces(page, element_id: str) -> int:
    return page.evaluate(
        f"() => {{ const el = document.getElementById('{element_id}'); return el && el._fullData ? el._fullData.length : -1; }}"
    )


def test_every_page_loads_without_errors_and_draws_its_charts(tab, http_root):
    t = tab()
    for prefix in ("", "ar/"):
        for path in (
            "index.html",
            "compare.html",
            "about.html",
            "downloads.html",
            "levels/index.html",
            "levels/apply.html",
            "models/alpha-vl-7b.html",
            "models/paper-vl-4b.html",
        ):
            page = t.open(http_root + prefix + path)
            expected = page.eval_on_selector_all("[data-figure], [data-radar]", "els => els.length")
            drawn = page.eval_on_selector_all(
                "[data-figure] .main-svg:first-child, [data-radar] .main-svg:first-child", "els => els.length"
            )
            assert drawn >= expected, f"{prefix}{path}: {drawn} of {expected} charts drawn"
    page = t.open(http_root + "index.html")
    assert drawn_traces(page, "radar-en-rae") == 4  # alpha, the paper's entry, the hostile one, beta
    assert drawn_traces(page, "radar-ar-rae") == 3
    assert page.eval_on_selector_all("#radar-en-rae .scatterlayer .trace path.js-line", "els => els.length") == 4
    # models are toggled from the legend
    page.click("#radar-en-rae .legend .traces >> nth=0")
    page.wait_for_function("() => document.getElementById('radar-en-rae')._fullData[0].visible === 'legendonly'")


def test_the_custom_plotly_bundle_draws_every_chart_kind(tab, http_root):
    t = tab()
    page = t.open(http_root + "models/alpha-vl-7b.html")
    assert page.evaluate("() => Object.keys(Plotly.PlotSchema.get().traces).sort()") == [
        "bar",
        "heatmap",
        "scatter",
        "scatterpolar",
    ]
    kinds = page.evaluate(
        """() => Object.fromEntries(['radar-en', 'radar-ar', 'gap', 'rae-lbs', 'leaves'].map(id => {
            const el = document.getElementById(id);
            return [id, el._fullData.map(t => t.type).join(',') + ':' + el.querySelectorAll('.main-svg').length];
        }))"""
    )
    assert kinds == {
        "radar-en": "scatterpolar,scatterpolar,scatterpolar:3",  # RAE, LBS, LBS-char
        "radar-ar": "scatterpolar,scatterpolar,scatterpolar:3",
        "gap": "bar,bar,bar:3",
        "rae-lbs": "scatter,scatter:3",
        "leaves": "heatmap:3",
    }
    assert page.eval_on_selector_all("#leaves .heatmaplayer image, #leaves .hm image", "els => els.length") >= 1
    assert page.eval_on_selector_all("#gap .bars .point path", "els => els.length") == 3 * 6
    assert page.eval_on_selector_all("#gap .errorbar path", "els => els.length") == 3 * 6  # paired 95% intervals
    page = t.open(http_root + "compare.html?m=alpha-vl-7b&m=img-src-x-onerror-alert-1&lang=en&method=rae")
    assert page.evaluate("() => document.getElementById('compare-leaves')._fullData.map(t => t.type)") == ["bar"]
    assert page.eval_on_selector_all("#compare-leaves .bars path", "els => els.length") >= 1


def test_overview_radars_show_the_interval_in_the_hover(tab, http_root):
    page = tab().open(http_root + "index.html")
    texts = page.evaluate("() => document.getElementById('radar-en-rae').data.map(t => t.text)")
    assert len(texts) == 4 and all(len(t) == 7 and t[0] == t[6] for t in texts)  # six levels, closed polygon
    assert all(re.fullmatch(r"[01]\.\d{3} \[[01]\.\d{3}, [01]\.\d{3}\]", x) for t in texts for x in t)
    page.evaluate("() => Plotly.Fx.hover('radar-en-rae', [{curveNumber: 0, pointNumber: 1}], 'polar')")
    label = page.text_content("#radar-en-rae .hoverlayer")
    assert re.search(r"Understand: [01]\.\d{3} \[[01]\.\d{3}, [01]\.\d{3}\]", label), label


def test_overview_radars_show_the_first_ten_and_na_as_a_gap(tab, many_site):
    t = tab()
    for prefix, na in (("", "N/A"), ("ar/", "غير متاح")):
        page = t.open(many_site.as_uri() + "/" + prefix + "index.html")
        traces = page.evaluate(
            "() => document.getElementById('radar-en-rae').data.map(t => [t.name, t.visible, t.r[2], t.text[2]])"
        )
        assert [x[0] for x in traces] == [f"Model {i:02d}" for i in range(12)]  # best first
        assert [x[1] for x in traces] == [True] * 10 + ["legendonly"] * 2
        assert traces[5][2] is None and traces[5][3] == na  # no Apply score: a gap, never 0
        assert traces[4][2] == 0.68 and traces[4][3] == "0.680"
        assert page.eval_on_selector_all("#radar-en-rae .legendtext", "ts => ts.length") == 12
        assert page.eval_on_selector_all("#radar-en-rae .scatterlayer .trace path.js-line", "els => els.length") >= 10


def test_sorting_changes_the_row_order_and_is_keyboard_usable(tab, http_root):
    page = tab().open(http_root + "index.html?lang=en&method=rae")
    before = [r["name"] for r in visible_rows(page)]
    page.focus("button[data-sort=name]")
    page.keyboard.press("Enter")
    after = [r["name"] for r in visible_rows(page)]
    assert after == sorted(after, key=str.lower) and after != before
    assert page.get_attribute("th:has(button[data-sort=name])", "aria-sort") == "ascending"
    page.click("button[data-sort=micro]")
    micro = [float(r["micro"].split()[0]) for r in visible_rows(page)]
    assert micro == sorted(micro, reverse=True)
    assert page.get_attribute("th:has(button[data-sort=micro])", "aria-sort") == "descending"
    page.click("button[data-sort=micro]")
    micro = [float(r["micro"].split()[0]) for r in visible_rows(page)]
    assert micro == sorted(micro)
    assert "sort=micro" in page.url and "dir=asc" in page.url


def test_filters_change_the_rows_and_na_sorts_last(tab, http_root):
    page = tab().open(http_root + "index.html")
    assert len(visible_rows(page)) == 24
    page.select_option("#f-lang", "ar")
    rows = visible_rows(page)
    assert len(rows) == 12 and {r["lang"] for r in rows} == {"ar"}
    page.select_option("#f-method", "lbs")
    page.click("button[data-sort=micro]")
    rows = visible_rows(page)
    assert [r["micro"] for r in rows][-2:] == ["N/A", "N/A"]  # not evaluated: N/A, last, never 0
    page.select_option("#f-method", "")
    page.select_option("#f-weights", "closed")
    assert {r["name"] for r in visible_rows(page)} == {"Beta-VL 2B"}
    page.select_option("#f-weights", "")
    page.select_option("#f-status", "reported")
    assert {r["name"] for r in visible_rows(page)} == {"Paper-VL 4B"}
    page.select_option("#f-status", "verified")
    assert {r["name"] for r in visible_rows(page)} == {"Alpha-VL 7B"}
    page.select_option("#f-status", "")
    page.fill("#f-size-min", "5")
    page.fill("#f-size-max", "10")
    assert {r["name"] for r in visible_rows(page)} == {"Alpha-VL 7B"}
    page.fill("#f-size-min", "")
    page.fill("#f-size-max", "")
    page.select_option("#f-org", "Beta Corp")
    assert {r["name"] for r in visible_rows(page)} == {"Beta-VL 2B"}
    page.select_option("#f-org", "")
    page.fill("#f-q", "paper")
    assert {r["name"] for r in visible_rows(page)} == {"Paper-VL 4B"}
    assert page.text_content("#row-count-n") == str(len(visible_rows(page)))
    page.click("#f-reset")
    page.wait_for_function("() => document.querySelectorAll('#results tbody tr:not([hidden])').length === 24")
    assert "q=" not in page.url


def test_a_filtered_url_restores_the_view(tab, http_root):
    first = tab().open(http_root + "index.html")
    first.select_option("#f-lang", "en")
    first.select_option("#f-method", "rae")
    first.fill("#f-q", "vl")
    first.click("button[data-sort=micro]")
    url = first.url
    assert "lang=en" in url and "method=rae" in url and "q=vl" in url and "sort=micro" in url
    expected = visible_rows(first)
    assert 0 < len(expected) < 24 and {(r["lang"], r["method"]) for r in expected} == {("en", "rae")}
    # the language switch keeps the filters
    assert first.get_attribute("a.lang-switch", "href").endswith("?" + url.split("?", 1)[1])
    second = tab().open(url)
    assert (
        second.input_value("#f-lang") == "en" and second.input_value("#f-method") == "rae" and second.input_value("#f-q") == "vl"
    )
    assert visible_rows(second) == expected
    assert second.get_attribute("th:has(button[data-sort=micro])", "aria-sort") == "descending"


def test_the_site_works_from_file_urls(tab, file_root):
    t = tab()
    page = t.open(file_root + "index.html")
    assert drawn_traces(page, "radar-en-rae") == 4
    page.select_option("#f-lang", "ar")
    assert len(visible_rows(page)) == 12
    page.click("#results tbody tr:not([hidden]) a[href='models/alpha-vl-7b.html'] >> nth=0")
    page.wait_for_selector("#leaves .main-svg")
    assert page.url.startswith("file://") and page.url.endswith("models/alpha-vl-7b.html")
    assert drawn_traces(page, "leaves") == 1
    page = t.open(file_root + "ar/compare.html")
    assert drawn_traces(page, "compare-radar") == 2


def test_arabic_pages_are_right_to_left(tab, http_root):
    page = tab().open(http_root + "ar/index.html")
    assert page.evaluate(
        "() => [document.documentElement.lang, document.documentElement.dir, getComputedStyle(document.body).direction]"
    ) == ["ar", "rtl", "rtl"]
    assert page.text_content("h1") == "لوحة صدارة BloomBench"
    headers = page.eval_on_selector_all("#results thead th", "ths => ths.map(th => th.getBoundingClientRect().x)")
    assert headers[0] > headers[-1], "the first column must be at the right"
    assert "تذكر" in page.text_content("#results thead")
    about = tab().open(http_root + "ar/about.html")
    assert "الدقة الجزئية والدقة الكلية" in about.text_content("main")
    about.click("a.lang-switch")
    assert about.evaluate("() => document.documentElement.dir") == "ltr" and about.url.endswith("/bloombench/about.html")


def test_hostile_model_name_is_shown_as_text(tab, http_root):
    t = tab()
    page = t.open(http_root + "index.html")
    names = page.eval_on_selector_all("#results tbody th a", "as => as.map(a => a.textContent)")
    assert HOSTILE in names
    assert page.eval_on_selector_all("img", "imgs => imgs.length") == 0
    legend = page.eval_on_selector_all("#radar-en-rae .legendtext", "ts => ts.map(t => t.textContent)")
    assert HOSTILE in legend
    page = t.open(http_root + "models/img-src-x-onerror-alert-1.html")
    assert page.text_content("h1").strip() == HOSTILE
    assert page.eval_on_selector_all("img", "imgs => imgs.length") == 0
    assert page.eval_on_selector_all("a[href^='javascript']", "as => as.length") == 0
    page = t.open(http_root + "compare.html?m=img-src-x-onerror-alert-1&m=alpha-vl-7b&lang=en&method=rae")
    legend = page.eval_on_selector_all("#compare-radar .legendtext", "ts => ts.map(t => t.textContent)")
    assert HOSTILE in legend
    assert page.eval_on_selector_all("img", "imgs => imgs.length") == 0


def test_compare_two_to_four_models_and_restore_from_the_url(tab, http_root):
    t = tab()
    page = t.open(http_root + "compare.html")
    assert drawn_traces(page, "compare-radar") == 2  # the two best by default
    page.select_option("#c-m1", "alpha-vl-7b")
    page.select_option("#c-m2", "img-src-x-onerror-alert-1")
    page.select_option("#c-m3", "beta-vl-2b")
    assert drawn_traces(page, "compare-radar") == 3
    assert drawn_traces(page, "compare-leaves") == 2  # differences from model 1
    diffs = page.evaluate("() => document.getElementById('compare-leaves')._fullData[0].x.length")
    assert diffs == 106
    assert page.eval_on_selector_all("#compare-leaves-table tbody tr", "rs => rs.length") == 106
    url = page.url
    assert url.count("m=") == 3
    again = t.open(url)
    assert [again.input_value(f"#c-m{i}") for i in (1, 2, 3, 4)] == ["alpha-vl-7b", "img-src-x-onerror-alert-1", "beta-vl-2b", ""]
    assert drawn_traces(again, "compare-radar") == 3
    again.select_option("#c-lang", "ar")
    assert drawn_traces(again, "compare-radar") == 2  # Beta has no Arabic scores
    assert "N/A" in again.text_content("#compare-levels-table")


def test_phone_width_has_no_horizontal_page_scroll(tab, http_root):
    t = tab(width=390)
    for path in (
        "index.html",
        "ar/index.html",
        "models/alpha-vl-7b.html",
        "ar/models/alpha-vl-7b.html",
        "compare.html",
        "levels/remember.html",
    ):
        page = t.open(http_root + path)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{path} overflows by {overflow}px"
    page = t.open(http_root + "index.html")
    page.select_option("#f-lang", "en")  # controls still usable at phone width
    assert len(visible_rows(page)) == 12
