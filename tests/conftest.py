"""Shared fixtures: the shipped sample dataset and a factory for submission folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.benchmark import SAMPLE_DATASET, load_dataset
from leaderboard.submission import submission_id
from leaderboard.synthetic import make_meta, make_predictions, write_json, write_jsonl

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def _private_score_cache(tmp_path_factory):
    """Builds in tests never read or write the user's score cache."""
    mp = pytest.MonkeyPatch()
    mp.setenv("BLOOMBENCH_CACHE", str(tmp_path_factory.mktemp("score-cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def sample_path() -> Path:
    return SAMPLE_DATASET


@pytest.fixture(scope="session")
def sample_records(sample_path) -> list[dict]:
    return json.loads(sample_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def sample_dataset(sample_path):
    return load_dataset(sample_path)


@pytest.fixture
def write_submission(tmp_path, sample_records):
    """write_submission(meta=None, lines=None, **pred_kwargs) -> folder named after the model."""

    def write(meta: dict | None = None, lines: list[dict] | None = None, root: Path | None = None, **kwargs) -> Path:
        meta = meta or make_meta()
        folder = (root or tmp_path / "submissions") / submission_id(meta)
        write_json(folder / "metadata.json", meta)
        if meta["kind"] == "predictions":
            if lines is None:
                kwargs.setdefault("lbs", "lbs" in meta["methods"])
                kwargs.setdefault("langs", tuple(meta["languages"]))
                lines = make_predictions(sample_records, **kwargs)
            write_jsonl(folder / "predictions.jsonl", lines)
        return folder

    return write
