"""Maintainers' and workflows' commands: gates, verify, and the small steps the GitHub workflows run.

Every step of .github/workflows/*.yml that does more than install is one of these commands
(or validate, evaluate, merge, build), so each step runs and is tested locally.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import ci
from .errors import BloomBenchError, Problem
from .options import dataset_loader, dataset_options

FORMATS = click.Choice(["text", "github"])


def _format_option(f):
    return click.option(
        "--format",
        "fmt",
        type=FORMATS,
        default="text",
        show_default=True,
        help="github: also print problems as GitHub annotations (::error file=...,line=...::).",
    )(f)


def _summary_option(f):
    return click.option(
        "--summary",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="PATH",
        help='Append a Markdown report to PATH (in a workflow: "$GITHUB_STEP_SUMMARY").',
    )(f)


def _hub_options(f):
    f = click.option(
        "--submissions-root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        metavar="DIR",
        help="Where to look for duplicates (default: the submission's parent folder).",
    )(f)
    f = click.option(
        "--offline-responses",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        metavar="DIR",
        envvar="BLOOMBENCH_HUB_RESPONSES",
        show_envvar=True,
        help="Replay recorded Hub responses from DIR instead of asking the Hub (tests, offline runs).",
    )(f)
    return f


def _hub_client(offline: Path | None):
    from .gates import HfHubClient, RecordedHubClient

    return RecordedHubClient(offline) if offline is not None else HfHubClient()


def _say(line: str, fmt: str) -> None:
    """Print a line; in github format, untrusted text cannot start a workflow command."""
    click.echo(ci.escape_data(line) if fmt == "github" else line)


def _read_list(from_file: Path | None) -> list[str]:
    if from_file is None:
        return []
    text = sys.stdin.read() if str(from_file) == "-" else Path(from_file).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


@click.command()
@click.argument("submission", type=click.Path(path_type=Path))
@_hub_options
@_format_option
@_summary_option
def gates(
    submission: Path, offline_responses: Path | None, submissions_root: Path | None, fmt: str, summary: Path | None
) -> None:
    """Check a model-id request before any GPU time is spent: one PASS/FAIL line per gate.

    \b
    exists          the model is public on the Hugging Face Hub
    pinned          revision is a 40-hex commit, not a branch or tag
    model-card      the revision has a README.md model card
    license         the card declares a license
    safetensors     the revision ships .safetensors weights
    no-remote-code  no auto_map in its configs (no trust_remote_code)
    not-duplicate   no other entry has the same model_id and revision

    Exit 0 when every gate passes, else 1.

    \b
    Example:
      bloombench gates submissions/my-model-request
      bloombench gates submissions/x --offline-responses tests/data/hub --format github
    """
    from .gates import check_gates

    report = check_gates(submission, _hub_client(offline_responses), submissions_root)
    for line in ci.gate_lines(report):
        _say(line, fmt)
    if fmt == "github":
        for problem in ci.gate_problems(report):
            click.echo(ci.annotation(problem))
    ci.append_summary(
        summary, f"### Gates: `{ci.md(report.model_id)}` at `{ci.md(report.revision)}`\n\n" + ci.markdown_gates(report)
    )
    if not report.passed:
        raise SystemExit(1)


@click.command()
@click.argument("submission", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--rerun",
    required=True,
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="The maintainer's re-run: the folder bloombench evaluate wrote, or its predictions.jsonl.",
)
@dataset_options
@click.option(
    "--atol",
    type=click.FloatRange(min=0),
    default=0.05,
    show_default=True,
    help="Largest difference in mean log-probability per token (nats) that counts as agreement.",
)
@click.option(
    "--min-agreement",
    type=click.FloatRange(0, 1),
    default=0.99,
    show_default=True,
    help="Smallest share of agreeing (item, language) pairs, for RAE, LBS and log-probabilities each.",
)
@click.option("--by", default=None, help="Who re-ran it (default: $GITHUB_ACTOR, else git config user.name).")
@click.option(
    "--hardware", default=None, help="Hardware of the re-run (default: provenance.hardware of the re-run's metadata.json)."
)
@click.option("--rerun-url", default=None, help="Where the re-run can be found (workflow run URL); default: the --rerun path.")
@click.option("--show", type=click.IntRange(min=0), default=10, show_default=True, help="How many disagreeing items to print.")
@click.option("--dry-run", is_flag=True, help="Compare and print, but do not write metadata.json.")
def verify(
    submission: Path,
    rerun: Path,
    dataset_path: str | None,
    dataset_revision: str | None,
    atol: float,
    min_agreement: float,
    by: str | None,
    hardware: str | None,
    rerun_url: str | None,
    show: int,
    dry_run: bool,
) -> None:
    """Compare a maintainer's re-run with a submission; on agreement, mark it verified.

    Per (item, language): the answers extracted from both replies agree (RAE), the
    LBS choices agree, and the four options' token counts are equal with mean
    log-probabilities per token within --atol. Verified when each share reaches
    --min-agreement; then metadata.json gets "verified": {by, date, hardware,
    agreement, rerun, tool_version}, the rest of the file unchanged. Exit 1 otherwise.

    \b
    Example:
      bloombench verify submissions/qwen2.5-vl-7b --rerun runs/qwen2.5-vl-7b --by alice
      bloombench verify submissions/my-model --rerun rerun/predictions.jsonl --hardware "1x H100 80GB" --dry-run
    """
    from .submission import load_submission, require_predictions
    from .verify import compare, format_comparison, load_rerun, verified_record, who_verifies, write_verified

    load = dataset_loader(dataset_path, dataset_revision)
    sub = require_predictions(load_submission(submission, load), "to verify")
    rerun_sub, rerun_meta = load_rerun(rerun, sub, load())
    comparison = compare(sub, rerun_sub, load(), atol=atol, rerun_path=str(rerun))
    click.echo(format_comparison(comparison, show))
    low = {k: v for k, v in comparison.shares().items() if v < min_agreement}
    if low or comparison.n == 0:
        detail = ", ".join(f"{k} {v:.4f}" for k, v in low.items()) or "nothing compared"
        click.echo(f"not verified: {detail} below --min-agreement {min_agreement}", err=True)
        raise SystemExit(1)
    hw = hardware or (rerun_meta.get("provenance") or {}).get("hardware")
    if not hw:
        raise BloomBenchError(Problem(str(rerun), None, "the re-run does not say its hardware", 'pass --hardware "1x H100 80GB"'))
    record = verified_record(comparison, who_verifies(by), hw, rerun_url or str(rerun))
    if dry_run:
        click.echo("agrees (dry run, metadata.json unchanged): " + json.dumps(record, ensure_ascii=False))
        return
    path = write_verified(submission, record)
    click.echo(f"verified: {path} now records {record['by']}, {record['date']}, {hw}")


@click.command("changed-submissions")
@click.argument("paths", nargs=-1)
@click.option(
    "--since",
    metavar="BASE",
    default=None,
    help="Take the changed files from git diff --name-only BASE...HEAD in the current repository.",
)
@click.option(
    "--from-file",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="Read changed file paths from a file ('-': standard input), one per line.",
)
@click.option("--root", default="submissions", show_default=True, help="The submissions folder, relative to the repository root.")
def changed_submissions(paths: tuple[str, ...], since: str | None, from_file: Path | None, root: str) -> None:
    """Print the submission folders that changed files belong to, one per line.

    Folders that no longer exist (a removed submission) are named on standard error
    and not printed. Paths are repository-relative, as git prints them.

    \b
    Example:
      bloombench changed-submissions --since "$BASE_SHA" > changed.txt
      git diff --name-only main...HEAD | bloombench changed-submissions --from-file -
    """
    changed = list(paths) + _read_list(from_file)
    if since:
        changed += ci.git_changed_paths(since)
    for folder in ci.changed_submissions(changed, root):
        if Path(folder).is_dir() or Path(folder).is_symlink():
            click.echo(folder)
        else:
            click.echo(f"note: {folder} was removed; nothing to validate", err=True)


@click.command("ci-report")
@click.argument("submissions", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--from-file",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="Read submission folders from a file ('-': standard input), one per line.",
)
@_hub_options
@dataset_options
@_format_option
@_summary_option
def ci_report(
    submissions: tuple[Path, ...],
    from_file: Path | None,
    offline_responses: Path | None,
    submissions_root: Path | None,
    dataset_path: str | None,
    dataset_revision: str | None,
    fmt: str,
    summary: Path | None,
) -> None:
    """Validate submissions and report: problems (as annotations), scores or gate results.

    For each folder: validation problems; for predictions and reported entries the
    accuracy per language, method and Bloom level; for model-id requests the gates.
    Exit 0 when every submission is valid and every gate passes, else 1.

    \b
    Example:
      bloombench ci-report --from-file changed.txt --format github --summary "$GITHUB_STEP_SUMMARY"
      bloombench ci-report submissions/my-model --dataset BloomBench.json
    """
    folders = list(submissions) + [Path(p) for p in _read_list(from_file)]
    load = dataset_loader(dataset_path, dataset_revision)
    clients: list = []

    def hub():
        if not clients:
            clients.append(_hub_client(offline_responses))
        return clients[0]

    sections = []
    failed = False
    for folder in folders:
        report = ci.report_submission(folder, load, hub, submissions_root)
        for problem in report.problems:
            _say(f"error: {problem}", fmt)
        if report.gates is not None:
            for line in ci.gate_lines(report.gates):
                _say(f"{folder}: {line}", fmt)
        if fmt == "github":
            for problem in report.all_problems():
                click.echo(ci.annotation(problem))
        if report.passed:
            _say(f"ok: {folder}", fmt)
        failed |= not report.passed
        sections.append(report.markdown())
    if not folders:
        click.echo("no submission changed")
        sections.append("No submission folder changed.")
    ci.append_summary(summary, "## BloomBench submission check\n\n" + "\n\n".join(sections))
    if failed:
        raise SystemExit(1)


REQUEST_FIELDS = (
    "model_id",
    "revision",
    "languages",
    "methods",
    "model",
    "variant",
    "organization",
    "license",
    "link",
    "submitted_by",
)


def github_output_option(what: str):
    """--github-output PATH: also append ``what`` to PATH (in a workflow, "$GITHUB_OUTPUT")."""
    return click.option(
        "--github-output",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="PATH",
        help=f'Also append {what} to PATH (in a workflow: "$GITHUB_OUTPUT").',
    )


@click.command("request-info")
@click.argument("submission", type=click.Path(exists=True, file_okay=False, path_type=Path))
@github_output_option("the lines")
def request_info(submission: Path, github_output: Path | None) -> None:
    """Print a valid model-id request's fields as key=value lines, for the evaluate workflow.

    Keys: id (the folder name, which the evaluation keeps), model_id, revision,
    languages and methods (comma-separated, as evaluate --langs/--methods take
    them), model, variant, organization, license, link, submitted_by (empty when
    absent). The request must pass bloombench validate and be of kind 'model'.

    \b
    Example:
      bloombench request-info submissions/my-model --github-output "$GITHUB_OUTPUT"
    """
    from .submission import load_submission

    sub = load_submission(submission)
    where = str(submission / "metadata.json")
    if sub.kind != "model":
        raise BloomBenchError(
            Problem(where, None, f"kind is '{sub.kind}', not 'model'", "only model-id requests are evaluated by the workflow")
        )
    values = {"id": sub.id}
    for key in REQUEST_FIELDS:
        value = sub.meta.get(key)
        values[key] = ",".join(value) if isinstance(value, list) else ("" if value is None else str(value))
    lines = []
    for key, value in values.items():
        if "\n" in value or "\r" in value:
            raise BloomBenchError(Problem(where, None, f"'{key}' contains a line break", "write it on one line"))
        lines.append(f"{key}={value}")
    click.echo("\n".join(lines))
    if github_output:
        with open(github_output, "a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


@click.command()
@click.argument("count", type=click.IntRange(1, 64))
@github_output_option('"shards=<list>"')
def shards(count: int, github_output: Path | None) -> None:
    """Print the shard list [1, ..., COUNT] as JSON, for a workflow matrix.

    \b
    Example:
      bloombench shards 4 --github-output "$GITHUB_OUTPUT"
    """
    text = json.dumps(list(range(1, count + 1)))
    click.echo(text)
    if github_output:
        with open(github_output, "a", encoding="utf-8") as fh:
            fh.write(f"shards={text}\n")


@click.command("failure-summary")
@click.argument("logs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--title", default="The run failed", show_default=True, help="Heading of the report.")
@click.option(
    "--tail", type=click.IntRange(min=0), default=30, show_default=True, help="How many last lines of each log to show."
)
@_summary_option
def failure_summary(logs: tuple[Path, ...], title: str, tail: int, summary: Path | None) -> None:
    """Say why a workflow step failed: the error lines and the end of each log, as Markdown.

    \b
    Example:
      bloombench failure-summary logs/evaluate.log --title "Shard 2/4 failed" --summary "$GITHUB_STEP_SUMMARY"
    """
    text = ci.failure_markdown(title, logs, tail)
    if summary:
        ci.append_summary(summary, text)
    else:
        click.echo(text)


COMMANDS = [gates, verify, changed_submissions, ci_report, request_info, shards, failure_summary]
