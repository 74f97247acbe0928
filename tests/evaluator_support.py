"""Fixtures for the evaluator tests: a tiny random Gemma 3 and a small dataset with local images."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from leaderboard.synthetic import make_dataset, write_json

N_ITEMS = 12


def write_dataset(root: Path, n_items: int = N_ITEMS, seed: int = 5) -> tuple[Path, Path]:
    """A BloomBench.json of ``n_items`` spread over the six levels, and a folder with their images.

    Half the records reference their image by a relative path, half keep a URL whose
    file name is found in the folder: both ways ``--images DIR`` resolves.
    """
    from PIL import Image

    by_level: dict[str, list[dict]] = {}
    for rec in make_dataset(per_leaf=1, seed=seed):
        by_level.setdefault(re.split(r"-[>_]", rec["hierarchy"]["lvl1"])[0].strip().lower(), []).append(rec)
    per_level = -(-n_items // len(by_level))
    records = [rec for level in by_level.values() for rec in level[::3][:per_level]][:n_items]
    images = root / "images"
    for i, rec in enumerate(records):
        qid = rec["question_id"]
        if i % 2 == 0:
            rec.pop("image_url")
            rec["image"] = f"img/{qid}.png"
            path = images / "img" / f"{qid}.png"
        else:
            rec["image_url"] = f"https://example.org/bloombench-sample/{qid}.png"
            path = images / f"{qid}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (40 + 3 * i, 30 + 2 * i), ((37 * i) % 256, (91 * i) % 256, (53 * i + 80) % 256)).save(path)
    dataset = root / "BloomBench.json"
    write_json(dataset, records)
    return dataset, images


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from evaluator.tiny import build_tiny_gemma3

    return build_tiny_gemma3(tmp_path_factory.mktemp("tiny-gemma3"))


@pytest.fixture(scope="session")
def eval_data(tmp_path_factory) -> tuple[Path, Path]:
    return write_dataset(tmp_path_factory.mktemp("eval-data"))


@pytest.fixture(scope="module")
def one_thread():
    """Tiny models run fastest on one thread (and do not fight other processes for cores)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
