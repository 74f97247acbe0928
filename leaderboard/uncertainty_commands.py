"""`bloombench compare`: the paired difference between two submissions, per level, with its interval."""

from __future__ import annotations

import json
import math
from pathlib import Path

import click

from .benchmark import LANGS
from .extract import MODES
from .options import dataset_loader, dataset_options
from .uncertainty import METHODS, N_RESAMPLES, SEED


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _signed(x: float) -> str:
    return f"{100 * x:+.1f}"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _clean(value):
    """JSON-ready: NaN as None, floats to 6 decimals (the score JSON's precision)."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    return value


def compare_table(rows: list[dict], header: str) -> str:
    """Plain-text table of compare()'s rows: accuracies and differences in percentage points."""
    lines = [["metric", "A", "B", "A-B", "95% CI", "p", "test"]]
    for r in rows:
        lines.append(
            [
                r["metric"],
                _pct(r["a"]),
                _pct(r["b"]),
                _signed(r["diff"]),
                f"[{_signed(r['ci95_lo'])}, {_signed(r['ci95_hi'])}]",
                _p(r["p_value"]),
                r["p_method"],
            ]
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    body = "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip()
        for line in lines
    )
    return f"{header}\n{body}"


def _table_of(folder: Path, load, rae_mode: str):
    from .scoring import item_table
    from .submission import load_submission, require_predictions

    sub = require_predictions(load_submission(folder, load), "to compare item by item")
    return sub, item_table(sub, load(), rae_mode)


@click.command()
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", type=click.Path(path_type=Path))
@dataset_options
@click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True, help="Language to compare.")
@click.option("--method", type=click.Choice(METHODS), default="rae", show_default=True, help="Scoring method to compare.")
@click.option("--leaves", is_flag=True, help="Also one row per leaf (106 rows).")
@click.option("--rae-mode", type=click.Choice(MODES), default="robust", show_default=True, help="Answer extraction for rae.")
@click.option(
    "--resamples", type=click.IntRange(100, 100_000), default=N_RESAMPLES, show_default=True, help="Bootstrap resamples."
)
@click.option("--seed", type=int, default=SEED, show_default=True, help="Bootstrap seed (same seed, same intervals).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def compare(
    a: Path,
    b: Path,
    dataset_path: str | None,
    dataset_revision: str | None,
    lang: str,
    method: str,
    leaves: bool,
    rae_mode: str,
    resamples: int,
    seed: int,
    fmt: str,
) -> None:
    """Compare two submissions on the same items: A - B per level, micro and macro.

    Prints each accuracy of A and B, the paired difference A - B with its 95%
    bootstrap interval (items resampled within leaves, both models on the same
    resamples) and a p-value: exact McNemar test on the items only one of them
    got right (macro: bootstrap p-value). Accuracies in the table are percentages,
    differences percentage points; --format json gives fractions.

    \b
    Example:
      bloombench compare submissions/model-a submissions/model-b --dataset BloomBench.json
      bloombench compare submissions/model-a submissions/model-b --lang ar --method lbs --format json
    """
    from .uncertainty import compare as compare_tables
    from .uncertainty import make_bootstrap

    load = dataset_loader(dataset_path, dataset_revision)
    sub_a, table_a = _table_of(a, load, rae_mode)
    sub_b, table_b = _table_of(b, load, rae_mode)
    boot = make_bootstrap(table_a, n_resamples=resamples, seed=seed)
    frame = compare_tables(table_a, table_b, lang=lang, method=method, leaves=leaves, bootstrap=boot)
    rows = [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict("records")]
    if fmt == "json":
        out = {
            "a": sub_a.id,
            "b": sub_b.id,
            "lang": lang,
            "method": method,
            "ci95_method": "paired bootstrap",
            "resamples": resamples,
            "seed": seed,
            "rows": rows,
        }
        click.echo(json.dumps(out, indent=2))
    else:
        header = (
            f"A = {sub_a.id}, B = {sub_b.id}; {lang} {method}; paired bootstrap, {resamples} resamples "
            f"(seed {seed}); p: exact McNemar (macro: bootstrap)"
        )
        click.echo(compare_table(rows, header))


COMMANDS = [compare]
