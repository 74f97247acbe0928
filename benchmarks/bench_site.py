"""Build the site for many synthetic full submissions; print build time and page sizes.

Targets (issue): the build under 20 s on a 2-core machine for 200 submissions, and the
overview page under 3 MB including Plotly: index.html plus every asset it loads, raw bytes
(gzip transfer sizes are printed too, but the target is met without them).

    python benchmarks/bench_site.py                  # 200 submissions on the full 7,747-item dataset
    python benchmarks/bench_site.py --per-leaf 3     # the same on 318 items (3 per leaf): the rendering cost
"""

from __future__ import annotations

import argparse
import gzip
import random
import shutil
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

from leaderboard import synthetic
from leaderboard.benchmark import load_spec
from leaderboard.options import dataset_loader
from leaderboard.site.build import make_env, render_site
from leaderboard.site.data import load_site_data
from leaderboard.submission import submission_id

TARGET_S = 20.0
TARGET_OVERVIEW_MB = 3.0
ORGS = ["Alpha Lab", "Beta Corp", "Gamma AI", "Delta Research", "Epsilon", "Zeta Institute", "Eta", "Theta Labs"]


def make_inputs(root: Path, n: int, per_leaf: int | None, seed: int = 0) -> tuple[Path, Path]:
    rng = random.Random(seed)
    levels = load_spec().level_names
    records = synthetic.make_dataset(per_leaf=per_leaf, seed=seed)
    dataset = root / "BloomBench.json"
    synthetic.write_json(dataset, records)
    subs = root / "submissions"
    for i in range(n):
        closed = i % 10 == 9  # some closed models: RAE only
        meta = {
            "schema_version": 1,
            "model": f"Synthetic-VL {i:03d} {rng.choice([1, 2, 4, 7, 8, 12, 27, 72])}B",
            "organization": ORGS[i % len(ORGS)],
            "kind": "predictions",
            "languages": ["en", "ar"],
            "methods": ["rae"] if closed else ["rae", "lbs"],
            "open_weights": not closed,
            "parameters_b": None if closed else float(rng.choice([1, 2, 4, 7, 8, 12, 27, 72])),
            "date": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
            "link": f"https://example.org/models/{i}",
            "provenance": {"tool_version": "0.1.0", "hardware": "synthetic", "duration_s": 1.0},
        }
        if i % 4 == 0:
            meta["verified"] = {"by": "maintainer", "date": "2026-06-01", "hardware": "1x H100"}
        accuracy = {lv: rng.uniform(0.3, 0.95) for lv in levels}
        folder = subs / submission_id(meta)
        synthetic.write_json(folder / "metadata.json", meta)
        synthetic.write_jsonl(
            folder / "predictions.jsonl", synthetic.make_predictions(records, accuracy, lbs=not closed, seed=seed + i)
        )
    return subs, dataset


def mb(n: int) -> str:
    return f"{n / 1e6:.2f} MB"


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 6, mtime=0))


class _Assets(HTMLParser):
    """The files a page loads: script sources, stylesheets and icons (not links to other pages)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        elif tag == "link" and a.get("href") and set((a.get("rel") or "").split()) & {"stylesheet", "icon", "preload"}:
            self.urls.append(a["href"])


def page_assets(page: Path) -> list[Path]:
    parser = _Assets()
    parser.feed(page.read_text(encoding="utf-8"))
    paths = [(page.parent / url).resolve() for url in parser.urls]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise SystemExit(f"{page} loads missing files: {missing}")
    return list(dict.fromkeys(paths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--per-leaf", type=int, default=None, help="items per leaf (default: the full dataset, 7,747 items)")
    parser.add_argument("--no-ci", action="store_true", help="build without intervals and shared ranks")
    parser.add_argument("--workdir", type=Path, default=None, help="keep inputs and site here (default: a temp folder, removed)")
    args = parser.parse_args()

    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-site-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        subs, dataset = make_inputs(work, args.entries, args.per_leaf)
        print(
            f"generated {args.entries} submissions ({'full dataset' if args.per_leaf is None else f'{args.per_leaf} items per leaf'}) in {time.perf_counter() - t0:.1f} s"
        )
        out = work / "site"
        cache = work / "score-cache"  # starts empty: the first build is cold
        timings = []
        for label in ("cold build (every entry validated and scored)", "rebuild, entries unchanged (score cache)"):
            t1 = time.perf_counter()
            data = load_site_data(subs, dataset_loader(str(dataset)), dataset.name, intervals=not args.no_ci, cache_dir=cache)
            t2 = time.perf_counter()
            result = render_site(data, out, subs, make_env())
            t3 = time.perf_counter()
            total = t3 - t1
            timings.append(total)
            print(
                f"{label}: {total:.1f} s  (validate + score{'' if args.no_ci else ' + intervals + ranks'}: {t2 - t1:.1f} s, render + write: {t3 - t2:.1f} s)"
            )
            print(
                f"       {result.pages} pages, {result.entries} entries; target {TARGET_S:.0f} s -> ratio {total / TARGET_S:.2f}"
            )

        html = sorted(out.rglob("*.html"))
        pages_bytes = sum(p.stat().st_size for p in html)
        all_bytes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        copied = sum(p.stat().st_size for p in (out / "submissions").rglob("*") if p.is_file())
        print(
            f"site: {mb(all_bytes)} in all: {mb(pages_bytes)} of HTML in {len(html)} pages, {mb(copied)} of copied submission files"
        )

        overview = out / "index.html"
        loaded = page_assets(overview)
        assets_raw = sum(p.stat().st_size for p in loaded)
        raw = overview.stat().st_size + assets_raw
        packed = gz(overview) + sum(gz(p) for p in loaded)
        print(f"overview: index.html {mb(overview.stat().st_size)} + the {len(loaded)} assets it loads {mb(assets_raw)}:")
        for path in loaded:
            print(f"  {path.relative_to(out)!s:28s} {mb(path.stat().st_size)}  [{mb(gz(path))}]")
        print(
            f"  = {mb(raw)} raw ({mb(packed)} gzip-transferred); target {TARGET_OVERVIEW_MB:.0f} MB raw "
            f"-> ratio {raw / 1e6 / TARGET_OVERVIEW_MB:.2f} (gzip {packed / 1e6 / TARGET_OVERVIEW_MB:.2f})"
        )
        groups = {
            "overview (en)": [out / "index.html"],
            "overview (ar)": [out / "ar" / "index.html"],
            "compare": [out / "compare.html"],
            "model pages": sorted((out / "models").glob("*.html")),
            "level pages": [p for p in sorted((out / "levels").glob("*.html")) if p.name != "index.html"],
            "about": [out / "about.html"],
            "downloads/results.json": [out / "downloads" / "results.json"],
            "downloads/results.csv": [out / "downloads" / "results.csv"],
            "downloads/leaves.csv": [out / "downloads" / "leaves.csv"],
        }
        print("per page (HTML without the shared assets; gzip in brackets):")
        for name, paths in groups.items():
            sizes = [p.stat().st_size for p in paths]
            zipped = [gz(p) for p in paths[:20]]
            label = f"mean {mb(sum(sizes) / len(sizes))}, max {mb(max(sizes))}" if len(paths) > 1 else mb(sizes[0])
            print(f"  {name:24s} {label}  [{mb(sum(zipped) / len(zipped))}]")
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
