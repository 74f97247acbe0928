"""Small submission folders for the site tests: synthetic predictions (one with a hostile
name), a published ("reported") entry and a pending model request, on a tiny dataset."""

from __future__ import annotations

import json
from pathlib import Path

from leaderboard import synthetic
from leaderboard.benchmark import load_spec
from leaderboard.submission import submission_id

HOSTILE = "<img src=x onerror=alert(1)>"
HOSTILE_ORG = "<script>alert(2)</script> Labs"
LEVELS = load_spec().level_names


def _meta(model: str, **extra) -> dict:
    meta = {
        "schema_version": 1,
        "model": model,
        "organization": "Alpha Lab",
        "kind": "predictions",
        "languages": ["en", "ar"],
        "methods": ["rae", "lbs"],
        "open_weights": True,
        "parameters_b": 7,
        "date": "2026-03-01",
        "provenance": {"tool_version": "0.1.0", "hardware": "1x test GPU", "duration_s": 12.5},
    }
    meta.update(extra)
    return meta


def write_submission(root: Path, meta: dict, predictions: list[dict] | None = None, reported: dict | None = None) -> Path:
    folder = root / submission_id(meta)
    synthetic.write_json(folder / "metadata.json", meta)
    if predictions is not None:
        synthetic.write_jsonl(folder / "predictions.jsonl", predictions)
    if reported is not None:
        synthetic.write_json(folder / "reported.json", reported)
    return folder


def reported_scores() -> dict:
    en = dict(zip(LEVELS, [0.85, 0.94, 0.82, 0.87, 0.89, 0.79], strict=True))
    ar = dict(zip(LEVELS, [0.78, 0.90, 0.70, 0.80, 0.85, 0.65], strict=True))
    return {
        "en": {"rae": {"micro": 0.868, "macro": 0.86, "levels": en}},
        "ar": {"rae": {"micro": 0.792, "macro": 0.777, "levels": ar}},
    }


def make_site_inputs(root: Path, per_leaf: int = 1) -> tuple[Path, Path]:
    """Write a dataset and a submissions folder under ``root``; returns (submissions, dataset)."""
    records = synthetic.make_dataset(per_leaf=per_leaf, seed=0)
    dataset = root / "BloomBench.json"
    synthetic.write_json(dataset, records)
    subs = root / "submissions"
    write_submission(
        subs,
        _meta(
            "Alpha-VL 7B",
            link="https://example.org/alpha",
            model_id="alpha/alpha-vl-7b",
            revision="0123456789abcdef0123456789abcdef01234567",
            verified={"by": "maintainer-a", "date": "2026-03-05", "hardware": "1x A100"},
        ),
        synthetic.make_predictions(records, accuracy=dict(zip(LEVELS, [0.9, 0.95, 0.7, 0.85, 0.9, 0.6], strict=True)), seed=1),
    )
    write_submission(
        subs,
        _meta(
            "Beta-VL 2B",
            organization="Beta Corp",
            languages=["en"],
            methods=["rae"],
            open_weights=False,
            parameters_b=2,
            date="2026-02-01",
        ),
        synthetic.make_predictions(records, accuracy=0.45, langs=("en",), lbs=False, seed=2),
    )
    write_submission(
        subs,
        _meta(
            HOSTILE,
            organization=HOSTILE_ORG,
            parameters_b=30,
            source="javascript:alert(3)",
            notes="<b>bold?</b>",
            date="2026-04-01",
        ),
        synthetic.make_predictions(records, accuracy=0.6, seed=3),
    )
    write_submission(
        subs,
        _meta(
            "Paper-VL 4B",
            organization="Paper Org",
            kind="reported",
            methods=["rae"],
            parameters_b=4,
            date="2026-01-15",
            source="BloomBench paper, Table 1 and Table 2",
            provenance=None,
        ),
        reported=reported_scores(),
    )
    write_submission(
        subs,
        _meta("Gamma-VL 1B", kind="model", model_id="gamma/gamma-vl-1b", revision="f" * 40, date="2026-05-01", provenance=None),
    )
    for meta_path in subs.glob("*/metadata.json"):  # the schema has no null provenance: drop it
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("provenance") is None:
            meta.pop("provenance", None)
            synthetic.write_json(meta_path, meta)
    return subs, dataset
