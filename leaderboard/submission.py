"""A submission on disk: ``submissions/<id>/`` with metadata and predictions or reported scores."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .benchmark import OPTIONS, Dataset
from .errors import BloomBenchError, Problem

METADATA = "metadata.json"
PREDICTIONS = "predictions.jsonl"
REPORTED = "reported.json"


def slug(text: str) -> str:
    """Lower-case, keep letters, digits and dots, join the rest with '-'."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.") or "model"


def submission_id(meta: dict) -> str:
    """The folder name a submission must have: slug of the model [+ '--' + slug of the variant]."""
    base = slug(str(meta.get("model", "")))
    variant = meta.get("variant")
    return f"{base}--{slug(str(variant))}" if variant else base


def find_submissions(root: str | Path) -> list[Path]:
    """Every folder under ``root`` that holds a metadata.json, sorted by name."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p.parent for p in root.glob(f"*/{METADATA}"))


@dataclass
class Submission:
    dir: Path
    id: str
    meta: dict
    predictions: pd.DataFrame | None
    reported: dict | None

    @property
    def kind(self) -> str:
        return self.meta["kind"]

    @property
    def status(self) -> str:
        """'verified' (re-run by maintainers), 'reported' (published, not re-run) or 'submitted'."""
        if isinstance(self.meta.get("verified"), dict):
            return "verified"
        return "reported" if self.kind == "reported" else "submitted"


def require_predictions(sub: Submission, purpose: str) -> Submission:
    """``sub`` if it has item-level predictions; otherwise a one-line error saying what needs them."""
    if sub.predictions is None:
        raise BloomBenchError(
            Problem(
                str(sub.dir / METADATA),
                None,
                f"kind '{sub.kind}' has no predictions {purpose}",
                "use a submission with predictions.jsonl",
            )
        )
    return sub


def predictions_frame(columns: dict[str, list]) -> pd.DataFrame:
    """Build the predictions DataFrame from the validator's parsed columns."""
    frame = pd.DataFrame(
        {
            "question_id": columns["question_id"],
            "lang": columns["lang"],
            "response": columns["response"],
        }
    )
    lp = np.asarray(columns["lp"], dtype=float).reshape(-1, 4)
    tok = np.asarray(columns["tok"], dtype=float).reshape(-1, 4)
    for k, o in enumerate(OPTIONS):
        frame[f"lp_{o}"] = lp[:, k]
    for k, o in enumerate(OPTIONS):
        frame[f"tok_{o}"] = tok[:, k]
    return frame


def load_submission(path: str | Path, dataset: Dataset | None = None) -> Submission:
    """Validate and load a submission; raises BloomBenchError with every problem found.

    ``dataset`` is needed for predictions submissions (item coverage) and may be
    None for ``reported`` and ``model`` entries.
    """
    from validator.validate import check_submission

    result = check_submission(Path(path), dataset)
    if result.problems:
        raise BloomBenchError(result.problems)
    predictions = predictions_frame(result.columns) if result.columns is not None else None
    return Submission(Path(path), submission_id(result.meta), result.meta, predictions, result.reported)
