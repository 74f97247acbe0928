"""Options shared by several commands, as small decorators, and the lazy dataset loader."""

from __future__ import annotations

from collections.abc import Callable

import click

from .benchmark import Dataset, load_dataset


def dataset_options(f: Callable) -> Callable:
    """--dataset PATH and --dataset-revision REV (default: the spec's pinned Hub revision)."""
    f = click.option(
        "--dataset-revision",
        default=None,
        metavar="REV",
        help="Hub revision of QCRI/BloomBench to download (default: the pinned one in leaderboard/spec/bloombench.json).",
    )(f)
    f = click.option(
        "--dataset",
        "dataset_path",
        type=click.Path(dir_okay=False),
        default=None,
        metavar="PATH",
        help="A local BloomBench.json (default: download the pinned revision from the Hub, cached).",
    )(f)
    return f


def dataset_loader(dataset_path: str | None, dataset_revision: str | None = None) -> Callable[[], Dataset]:
    """A function that loads the dataset on first call only (reported entries never need it)."""
    cache: list[Dataset] = []

    def load() -> Dataset:
        if not cache:
            cache.append(load_dataset(dataset_path, dataset_revision))
        return cache[0]

    return load
