"""`bloombench validate` and `bloombench score`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .errors import BloomBenchError
from .extract import MODES
from .options import dataset_loader, dataset_options
from .scoring import score_submission
from .submission import load_submission


@click.command()
@click.argument("submissions", nargs=-1, required=True, type=click.Path(path_type=Path))
@dataset_options
def validate(submissions: tuple[Path, ...], dataset_path: str | None, dataset_revision: str | None) -> None:
    """Check submission folders: schema, item coverage, duplicates, log-probabilities.

    Exit 0 when every folder is valid; otherwise 1, with one line per problem
    naming the file, the line and the fix.

    \b
    Example:
      bloombench validate submissions/my-model --dataset BloomBench.json
    """
    from validator.validate import validate_submission

    load = dataset_loader(dataset_path, dataset_revision)
    failed = False
    for folder in submissions:
        problems = validate_submission(folder, load)
        for p in problems:
            click.echo(f"error: {p}", err=True)
        if problems:
            failed = True
        else:
            click.echo(f"ok: {folder}")
    if failed:
        raise SystemExit(1)


def score_table(scores: dict) -> str:
    """A plain-text table: one row per language and method, micro, macro and the six levels."""
    from .benchmark import load_spec

    levels = load_spec().level_names
    header = ["lang", "method", "micro", "macro"] + levels
    rows = [header]
    for lang, per_method in scores.items():
        for method, s in per_method.items():
            cells = [lang, method, s.get("micro"), s.get("macro")] + [s["levels"].get(lv) for lv in levels]
            rows.append([c if isinstance(c, str) else ("N/A" if c is None else f"{c:.3f}") for c in cells])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows)


@click.command()
@click.argument("submission", type=click.Path(path_type=Path))
@dataset_options
@click.option("--format", "fmt", type=click.Choice(["json", "table"]), default="json", show_default=True)
@click.option(
    "--rae-mode",
    type=click.Choice(MODES),
    default="robust",
    show_default=True,
    help="robust: the leaderboard's extractor; paper: exactly one ASCII digit 1-4 (reproduces the paper).",
)
@click.option("--ci/--no-ci", default=True, show_default=True, help="Add 95% bootstrap intervals (*_ci95) to the JSON.")
@click.option(
    "--gaps",
    is_flag=True,
    help="Print the English-Arabic and RAE-LBS gaps with paired 95% intervals instead (needs predictions).",
)
def score(
    submission: Path, dataset_path: str | None, dataset_revision: str | None, fmt: str, rae_mode: str, ci: bool, gaps: bool
) -> None:
    """Score a submission: micro, macro, per level and per leaf, per language and method.

    Methods: rae (answer read from the reply), lbs (logprob / tokens, the paper),
    lbs_char (logprob / characters of the option). A language or method that was
    not evaluated is absent (N/A), never 0. Reported entries print their published
    scores in the same shape.

    \b
    Example:
      bloombench score submissions/qwen2.5-vl-7b --format table
      bloombench score submissions/my-model --dataset BloomBench.json --format json
      bloombench score submissions/my-model --dataset BloomBench.json --gaps
    """
    load = dataset_loader(dataset_path, dataset_revision)
    sub = load_submission(submission, load)
    dataset = load() if sub.predictions is not None else None
    if gaps:
        from . import uncertainty
        from .scoring import item_table
        from .submission import require_predictions

        require_predictions(sub, "for paired gap intervals (reported entries have no item-level data)")
        click.echo(json.dumps(uncertainty.gap_intervals(item_table(sub, dataset, rae_mode)), ensure_ascii=False, indent=2))
        return
    scores = score_submission(sub, dataset, rae_mode=rae_mode)
    if fmt == "json" and ci:
        scores = _with_intervals(sub, dataset, scores, rae_mode)
    if fmt == "table":
        click.echo(score_table(scores))
    else:
        click.echo(json.dumps(scores, ensure_ascii=False, indent=2))


def _with_intervals(sub, dataset, scores: dict, rae_mode: str) -> dict:
    try:
        from . import uncertainty
    except ModuleNotFoundError:  # pragma: no cover - the uncertainty module ships with the package
        raise BloomBenchError("the uncertainty module is missing; reinstall bloombench") from None
    if sub.kind == "reported":
        return uncertainty.approximate_intervals(scores)
    from .scoring import item_table

    return uncertainty.add_intervals(scores, item_table(sub, dataset, rae_mode))


COMMANDS = [validate, score]
