"""A content-addressed cache of scored entries, so a rebuild only rescores what changed.

The key is a hash of everything a score depends on: the submission's files, the dataset's
sha256, the options, and the source of the code that validates and scores (any change to
it invalidates every entry). A value is a JSON file (the entry) and an .npz file (its
resampled micro accuracies, for shared ranks). Writes are atomic; an unreadable value is
a miss. ``BLOOMBENCH_CACHE`` (or ``--cache-dir``) moves the cache; ``--no-cache`` skips it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from .uncertainty import RankDraws

_CODE = ("benchmark.py", "extract.py", "scoring.py", "submission.py", "uncertainty.py", "spec/bloombench.json")


def default_dir() -> Path:
    env = os.environ.get("BLOOMBENCH_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "bloombench" / "scores"


@cache
def code_fingerprint() -> str:
    """Hash of the sources that decide a score: editing any of them invalidates the cache."""
    root = Path(__file__).parent
    digest = hashlib.sha256()
    files = (
        [root / name for name in _CODE]
        + sorted((root.parent / "validator").rglob("*.py"))
        + sorted((root.parent / "validator").rglob("*.json"))
    )
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def entry_key(folder: Path, dataset_sha256: str | None, options: dict) -> str:
    digest = hashlib.sha256()
    digest.update(code_fingerprint().encode())
    digest.update(json.dumps({"dataset": dataset_sha256, **options}, sort_keys=True).encode())
    for path in sorted(p for p in Path(folder).iterdir() if p.is_file()):
        digest.update(path.name.encode() + b"\0")
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


class ScoreCache:
    def __init__(self, directory: Path | None):
        self.dir = Path(directory) if directory is not None else None

    def load(self, key: str) -> tuple[dict, object] | None:
        """(entry fields, rank input) or None."""
        if self.dir is None:
            return None
        try:
            record = json.loads((self.dir / f"{key}.json").read_text(encoding="utf-8"))
            rank_input: object = record.pop("rank_scores", None)
            if record.pop("has_draws", False):
                with np.load(self.dir / f"{key}.npz") as npz:
                    rank_input = {
                        tuple(name.split("|")): RankDraws(
                            str(npz[f"{name}|key"]), float(npz[f"{name}|point"]), npz[f"{name}|draws"]
                        )
                        for name in {n.rsplit("|", 1)[0] for n in npz.files}
                    }
            return record, rank_input
        except (OSError, ValueError, KeyError):
            return None

    def store(self, key: str, fields: dict, rank_input: object) -> None:
        if self.dir is None:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        record = dict(fields)
        if isinstance(rank_input, dict) and rank_input and all(isinstance(v, RankDraws) for v in rank_input.values()):
            arrays = {}
            for (lang, method), d in rank_input.items():
                arrays[f"{lang}|{method}|key"] = np.array(d.key)
                arrays[f"{lang}|{method}|point"] = np.array(d.point)
                arrays[f"{lang}|{method}|draws"] = d.draws
            _atomic(self.dir / f"{key}.npz", lambda fh: np.savez(fh, **arrays))
            record["has_draws"] = True
        elif rank_input is not None:
            record["rank_scores"] = rank_input
        _atomic(self.dir / f"{key}.json", lambda fh: fh.write(json.dumps(record, ensure_ascii=False).encode()))


def _atomic(path: Path, write) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
