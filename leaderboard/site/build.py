"""Render the static site from the scored entries: HTML pages in English and Arabic,
chart data, downloads and the assets (a custom Plotly.js bundle served from the site, not a CDN).

The site is written to a temporary folder beside ``out`` and swapped in only when
complete, so a failed build leaves the previous site untouched. Output is
deterministic: fixed ordering, no timestamps except the data's own dates.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import jinja2
import pandas as pd

import leaderboard

from ..errors import BloomBenchError, Problem
from . import figures as F
from . import pages
from .data import SiteData, leaves_frame, levels_frame, load_site_data, results_frame, safe_page_name, safe_url
from .i18n import UI_LANGS
from .parallel import default_workers, fork_map

MARKER = ".bloombench-site"


def _first_existing(candidates: list[Path], probe: str) -> Path:
    return next((c for c in candidates if (c / probe).is_file()), candidates[0])


def default_templates_dir() -> Path:
    """The repository's top-level ``templates/``: beside the package in a source tree or an
    editable install, inside the package in a regular install, else in the current folder."""
    return _first_existing(
        [
            Path(leaderboard.__file__).resolve().parent.parent / "templates",  # source tree, editable install
            Path(__file__).resolve().parent / "templates",  # a regular install (package data)
            Path.cwd() / "templates",
        ],
        "base.html",
    )


def static_dir() -> Path:
    """site.js, site.css, the favicon and vendor/ (Plotly.js): shipped in the package (package data), or in a checkout."""
    here = Path(__file__).resolve().parent / "static"
    return _first_existing([here, Path.cwd() / "leaderboard" / "site" / "static"], "site.js")


@dataclass(frozen=True)
class BuildResult:
    out: Path
    pages: int
    entries: int


def build_site(
    submissions: Path,
    out: Path,
    dataset: Path | str | None = None,
    templates: Path | None = None,
    dataset_revision: str | None = None,
    intervals: bool = True,
    workers: int | None = None,
    files_url: str | None = None,
    cache_dir: Path | None = None,
) -> BuildResult:
    """Validate and score every submission, then render the site into ``out`` (replaced atomically).

    ``dataset`` is a local BloomBench.json; without it the pinned revision is downloaded,
    and only when some entry has predictions to score. ``files_url`` (http or https): link
    each entry's submission files under that address instead of copying them into the site.
    ``cache_dir``: reuse the scores of entries whose files did not change (:mod:`leaderboard.cache`).
    """
    from ..options import dataset_loader

    out, submissions = Path(out), Path(submissions)
    if files_url is not None and safe_url(files_url) is None:
        raise BloomBenchError(
            Problem(
                "--files-url",
                None,
                f"'{files_url}' is not an http(s) address",
                "pass e.g. https://github.com/ORG/REPO/blob/main/submissions",
            )
        )
    check_output_folder(out, submissions)
    env = make_env(templates)  # a missing templates folder fails before any scoring
    load = dataset_loader(str(dataset) if dataset is not None else None, dataset_revision)
    data = load_site_data(
        submissions,
        load,
        Path(dataset).name if dataset is not None else None,
        intervals=intervals,
        workers=workers,
        cache_dir=cache_dir,
    )
    if files_url is not None:
        data = replace(data, files_url=files_url.rstrip("/"))
    return render_site(data, out, submissions, env, workers=workers)


def check_output_folder(out: Path, submissions: Path) -> None:
    """Refuse to replace anything but an earlier build (or an empty or missing folder)."""
    if out.exists() and not out.is_dir():
        raise BloomBenchError(Problem(str(out), None, "exists and is not a folder", "pass a folder path with --out"))
    resolved = out.resolve()
    if resolved == submissions.resolve() or resolved in submissions.resolve().parents:
        raise BloomBenchError(
            Problem(str(out), None, "would replace the submissions", "pass a separate folder with --out, e.g. site/")
        )
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise BloomBenchError(
            Problem(
                str(out),
                None,
                "is not empty and was not built by bloombench build",
                "pass a new or empty folder with --out, e.g. site/",
            )
        )


def make_env(templates: Path | None = None) -> jinja2.Environment:
    folder = Path(templates) if templates else default_templates_dir()
    if not (folder / "base.html").is_file():
        raise BloomBenchError(
            Problem(str(folder), None, "templates folder has no base.html", "pass the repository's templates/ with --templates")
        )
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False, "separators": (",", ":")}
    return env


def render_site(
    data: SiteData, out: Path, submissions: Path, env: jinja2.Environment | None = None, workers: int | None = None
) -> BuildResult:
    """Write every page, the assets, the downloads and the submission files, then swap the site in.

    Model pages are rendered by ``workers`` processes (default: one per CPU, at most 4,
    when there are enough pages to be worth it); the output does not depend on it.
    """
    env = env or make_env()
    for entry in data.entries:
        safe_page_name(entry.id)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    try:
        results = results_frame(data.entries, data.spec)
        levels = levels_frame(results, data.spec)
        leaves = leaves_frame(data.entries, data.spec)
        renderer = pages.SiteRenderer(env, data, results, levels)
        n_pages = _write_pages(renderer, tmp, leaves, workers)
        _write_assets(tmp)
        if data.files_url is None:
            _copy_submission_files(tmp / "submissions", data, submissions)
        _write(tmp / ".nojekyll", "")
        _write(tmp / MARKER, "Built by bloombench build; this folder is replaced by the next build.\n")
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return BuildResult(out=out, pages=n_pages, entries=len(data.entries))


def _write_pages(renderer: pages.SiteRenderer, root: Path, leaves: pd.DataFrame, workers: int | None) -> int:
    """Every page in both languages and the downloads, as jobs shared by ``workers`` forked processes
    (each writes its own files); the largest jobs first, so the workers finish together."""
    data = renderer.data

    def job(spec: tuple) -> int:
        kind, arg = spec
        if kind == "downloads":
            _write_downloads(root / "downloads", data, renderer.results, leaves)
            return 0
        if kind == "common":
            written = 0
            for rel_path, html in renderer.common_pages(arg):
                _write(root / rel_path, html)
                written += 1
            return written
        for lang, index in arg:
            rel_path, html = renderer.model_page(lang, data.entries[index])
            _write(root / rel_path, html)
        return len(arg)

    model_jobs = [(lang, i) for lang in UI_LANGS for i in range(len(data.entries))]
    n = default_workers(len(model_jobs), 30) if workers is None else max(1, workers)
    per_chunk = max(1, len(model_jobs) // (4 * n))
    jobs = [("downloads", None)] + [("common", lang) for lang in UI_LANGS]
    jobs += [("model", model_jobs[k : k + per_chunk]) for k in range(0, len(model_jobs), per_chunk)]
    return sum(fork_map(job, jobs, n))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def _swap_in(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp``: two renames, the old site deleted only after the new one is in place."""
    os.chmod(tmp, 0o755)
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.replace(out, old / "site")
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)


PLOTLY_JS = "plotly-custom.min.js"  # served as assets/plotly-custom.min.js


def plotly_js_path() -> Path:
    """The committed Plotly.js bundle with only the trace types the site draws (scatter, bar,
    heatmap, scatterpolar): about a quarter of the full plotly.min.js. Rebuilt, never at build
    or test time, by scripts/plotly-bundle/build.sh."""
    return static_dir() / "vendor" / PLOTLY_JS


def _write_assets(root: Path) -> None:
    assets = root / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js_path(), assets / PLOTLY_JS)
    for name in ("site.js", "site.css", "favicon.svg"):
        shutil.copyfile(static_dir() / name, assets / name)


def _copy_submission_files(root: Path, data: SiteData, submissions: Path) -> None:
    """Each entry's submission files, so its page can link to them (hard links when possible)."""
    for entry in data.entries:
        target = root / entry.id
        target.mkdir(parents=True, exist_ok=True)
        for name in entry.files:
            src = submissions / entry.id / name
            try:
                os.link(src, target / name)
            except OSError:
                shutil.copyfile(src, target / name)


def frame_to_csv(frame: pd.DataFrame) -> str:
    """CSV with floats as Python writes them and N/A as an empty field."""
    return frame.to_csv(index=False, lineterminator="\n", na_rep="")


def results_json(data: SiteData) -> dict:
    return {
        "benchmark": data.spec.name,
        "tool_version": data.tool_version,
        "dataset": data.dataset_label,
        "levels": data.spec.level_names,
        "entries": [
            {"id": e.id, "status": e.status, "metadata": e.meta, "scores": e.scores, "ranks": e.ranks, "files": list(e.files)}
            for e in data.entries
        ],
    }


def _write_downloads(folder: Path, data: SiteData, results: pd.DataFrame, leaves: pd.DataFrame) -> None:
    columns = [c for c in results.columns if c not in ("model",)]
    _write(folder / "results.csv", frame_to_csv(results[columns]))
    _write(folder / "leaves.csv", frame_to_csv(leaves))
    _write(
        folder / "results.json", json.dumps(_json_safe(results_json(data)), ensure_ascii=False, sort_keys=True, indent=1) + "\n"
    )


def _json_safe(value):
    return F._clean(value)
