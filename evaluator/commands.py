"""`bloombench evaluate` and `bloombench merge`.

Importing this module must not import torch or transformers: the CLI imports it at
start, and validate/build never need them. The commands import the evaluator lazily.
"""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.options import dataset_options


def _csv(allowed: tuple[str, ...]):
    def convert(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
        parts = tuple(dict.fromkeys(p.strip() for p in value.split(",") if p.strip()))
        bad = [p for p in parts if p not in allowed]
        if bad or not parts:
            raise click.BadParameter(f"'{value}': use a comma-separated subset of {','.join(allowed)}")
        return parts

    return convert


@click.command()
@click.option(
    "--model", required=True, metavar="ID_OR_PATH", help="Hub id (org/name) or a local folder saved with save_pretrained."
)
@click.option(
    "--revision", default=None, metavar="SHA", help="Hub commit, branch or tag (recorded as the resolved 40-hex commit)."
)
@dataset_options
@click.option("--langs", default="en,ar", show_default=True, callback=_csv(("en", "ar")), help="Languages to evaluate.")
@click.option(
    "--methods",
    default="rae,lbs",
    show_default=True,
    callback=_csv(("rae", "lbs")),
    help="rae: generate a reply; lbs: score the options.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="submissions/ (writes submissions/<id>/) or the submission folder itself (named by the id); with --shard, the shard's own folder.",
)
@click.option(
    "--images",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Read images from DIR (references relative to it; URLs by file name) instead of fetching URLs.",
)
@click.option(
    "--image-cache",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Where fetched images are kept [default: $BLOOMBENCH_IMAGE_CACHE or ~/.cache/bloombench/images].",
)
@click.option(
    "--shard",
    default=None,
    metavar="K/N",
    help="Evaluate slice K of N (items K-1, K-1+N, ...); join the slices with bloombench merge.",
)
@click.option(
    "--batch-size",
    default=8,
    show_default=True,
    type=click.IntRange(1),
    help="Item-language pairs per batch (generation and LBS).",
)
@click.option(
    "--max-new-tokens",
    default=128,
    show_default=True,
    type=click.IntRange(1),
    help="Reply length limit for RAE (greedy decoding).",
)
@click.option("--device", default="auto", show_default=True, help="auto (cuda if available, else cpu), cpu, cuda, cuda:1, ...")
@click.option(
    "--device-map",
    default=None,
    metavar="MAP",
    help="Passed to from_pretrained, e.g. auto to spread a model larger than one GPU.",
)
@click.option(
    "--dtype",
    type=click.Choice(["auto", "bfloat16", "float16", "float32"]),
    default="auto",
    show_default=True,
    help="auto: bfloat16 on GPU, float32 on CPU.",
)
@click.option("--trust-remote-code", is_flag=True, help="Allow the model's own Python code from the Hub (off by default).")
@click.option(
    "--lbs-impl",
    type=click.Choice(["shared", "plain"]),
    default="shared",
    show_default=True,
    help="shared: image+question once per item (KV cache); plain: a full pass per option.",
)
@click.option("--name", default=None, help="Display name (default: the model's name).")
@click.option("--variant", default=None, help="Distinguishes two entries of one model; part of the folder name.")
@click.option("--organization", default=None, help="Organisation (default: the Hub id's owner; required for a local folder).")
@click.option("--model-id", default=None, metavar="ORG/NAME", help="Hub id to record for a local folder.")
@click.option("--license", "license_", default=None, help="Model licence to record.")
@click.option("--link", default=None, help="Model card or paper URL (default: the Hub page).")
@click.option("--submitted-by", default=None, metavar="HANDLE", help="Your GitHub handle.")
@click.option("--notes", default=None, help="Free text for metadata.json.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar with items/s.")
def evaluate(**opts) -> None:
    """Run a vision-language model on BloomBench and write a submission.

    Any image-text-to-text model that transformers loads with AutoProcessor and
    AutoModelForImageTextToText and that has a chat template. RAE: the paper's
    zero-shot prompt (options numbered 1-4), greedy decoding, raw replies saved.
    LBS: each option's summed log-probability and token count, scored as the start
    of the model's reply. Writes predictions.jsonl and metadata.json (with the
    exact prompts and full provenance) to OUT/<id>/, or to OUT itself when it is
    named by the submission id (the slug of the model's name). A stopped run
    resumes where it ended when the same command is run again.

    \b
    Examples:
      bloombench evaluate --model google/gemma-3-4b-it --out submissions/
      bloombench evaluate --model ./my-vlm --organization Me --dataset BloomBench.json \\
          --images images/ --langs en --methods rae --out submissions/my-vlm/
      bloombench evaluate --model google/gemma-3-27b-it --device-map auto --shard 2/4 --out shards/2
    """
    from .runner import EvalConfig, parse_shard, run_evaluation

    shard = opts.pop("shard")
    opts["license"] = opts.pop("license_")
    cfg = EvalConfig(shard=parse_shard(shard) if shard else None, **opts)
    run_evaluation(cfg)


@click.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.argument("shard_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--dataset",
    "dataset_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="PATH",
    help="Also check that the shards cover every item of this BloomBench.json.",
)
@click.option("--force", is_flag=True, help="Replace the files of an existing OUT folder.")
def merge(out: Path, shard_dirs: tuple[Path, ...], dataset_path: str | None, force: bool) -> None:
    """Join the folders of evaluate --shard K/N runs into one submission.

    Checks that the shards come from one configuration, are finished, cover 1..N
    once each and share no item. Writes OUT/<id>/ (or OUT itself when it is
    named by the submission id), atomically.

    \b
    Example:
      bloombench merge submissions/ shards/1 shards/2 shards/3 shards/4
    """
    from leaderboard.benchmark import load_dataset

    from .merge import merge_shards

    dataset = load_dataset(dataset_path) if dataset_path else None
    folder = merge_shards(out, list(shard_dirs), dataset, force)
    click.echo(f"wrote {folder}")


COMMANDS = [evaluate, merge]
