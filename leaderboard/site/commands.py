"""`bloombench build`: the static site from every valid submission."""

from __future__ import annotations

from pathlib import Path

import click

from ..options import dataset_options


@click.command()
@click.option(
    "--submissions",
    "submissions",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("submissions"),
    show_default=True,
    help="Folder holding one folder per submission.",
)
@dataset_options
@click.option(
    "--out", type=click.Path(path_type=Path), default=Path("site"), show_default=True, help="Output folder, replaced as a whole."
)
@click.option(
    "--templates",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Jinja2 templates folder (default: the repository's templates/).",
)
@click.option("--ci/--no-ci", default=True, show_default=True, help="Show 95% intervals and shared ranks.")
@click.option(
    "--files-url",
    metavar="URL",
    default=None,
    help="Link submission files under this http(s) address (e.g. the repository's submissions/ on GitHub) "
    "instead of copying them into the site.",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where scores of unchanged entries are kept between builds [default: $BLOOMBENCH_CACHE or ~/.cache/bloombench/scores].",
)
@click.option("--no-cache", is_flag=True, help="Validate and score every entry again, and keep nothing.")
def build(
    submissions: Path,
    dataset_path: str | None,
    dataset_revision: str | None,
    out: Path,
    templates: Path | None,
    ci: bool,
    files_url: str | None,
    cache_dir: Path | None,
    no_cache: bool,
) -> None:
    """Build the static leaderboard site from every valid submission.

    Any invalid submission stops the build with the validator's messages and
    leaves the previous site untouched. The site uses relative links and ships
    its own Plotly, so it works from file://, from a sub-path and offline.

    \b
    Example:
      bloombench build --out site/
      bloombench build --submissions submissions/ --dataset BloomBench.json --out site/
    """
    from ..cache import default_dir
    from .build import build_site

    cache = None if no_cache else (cache_dir or default_dir())
    result = build_site(
        submissions, out, dataset_path, templates, dataset_revision, intervals=ci, files_url=files_url, cache_dir=cache
    )
    index = (result.out / "index.html").resolve()
    click.echo(f"Built {result.pages} pages for {result.entries} entries into {result.out}/")
    click.echo(f"Open {index.as_uri()} in a browser, or serve it: python -m http.server -d {result.out} 8000")


COMMANDS = [build]
