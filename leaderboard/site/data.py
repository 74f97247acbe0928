"""The site's data: every submission loaded, validated and scored, as entries and tidy tables.

I/O happens in :func:`load_site_data` (which uses the library's loaders and scorer);
everything after it is pure: entries in, DataFrames out. A language or method that an
entry did not evaluate is absent from its scores and becomes NaN here, shown as N/A.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from ..benchmark import LANGS, Dataset, Spec, load_spec
from ..cache import ScoreCache, entry_key
from ..errors import BloomBenchError, Problem
from .parallel import fork_map

METHODS = ("rae", "lbs", "lbs_char")
STATUSES = ("verified", "submitted", "reported")
_SAFE_URL = re.compile(r"^https?://[^\s<>\"'`]+$", re.IGNORECASE)
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def safe_url(value: object) -> str | None:
    """The value if it is an http(s) URL without spaces or quotes, else None (shown as text)."""
    if isinstance(value, str) and _SAFE_URL.match(value.strip()):
        return value.strip()
    return None


@dataclass(frozen=True)
class Entry:
    """One leaderboard entry: a scored submission."""

    id: str
    meta: dict
    status: str
    scores: dict
    files: tuple[str, ...] = ()
    ranks: dict = field(default_factory=dict)  # {lang: {method: {"micro": rank, ...}}} when known
    gaps: dict = field(default_factory=dict)  # paired gap intervals (uncertainty.gap_intervals) when item data exists

    @property
    def name(self) -> str:
        model = str(self.meta.get("model", self.id))
        variant = self.meta.get("variant")
        return f"{model} ({variant})" if variant else model

    @property
    def link(self) -> str | None:
        return safe_url(self.meta.get("link"))

    def block(self, lang: str, method: str) -> dict | None:
        """The score dict of one language and method, or None when it was not evaluated."""
        block = (self.scores.get(lang) or {}).get(method)
        return block if isinstance(block, dict) else None

    def blocks(self) -> Iterator[tuple[str, str, dict]]:
        """(lang, method, score dict) for every evaluated language and method, in a fixed order."""
        for lang in LANGS:
            for method in METHODS:
                block = self.block(lang, method)
                if block is not None:
                    yield lang, method, block

    def rank(self, lang: str, method: str, metric: str = "micro") -> int | None:
        value = ((self.ranks.get(lang) or {}).get(method) or {}).get(metric)
        if value is None:
            block = self.block(lang, method) or {}
            value = block.get(f"{metric}_rank", block.get("rank") if metric == "micro" else None)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class SiteData:
    spec: Spec
    entries: tuple[Entry, ...]
    pending: tuple[dict, ...]  # kind=model requests not evaluated yet: {"id", "meta"}
    tool_version: str
    dataset_label: str  # "QCRI/BloomBench@<revision>" or "<file name> (sha256 <prefix>)"
    dataset_file: str | None  # the --dataset file name, for the build command in the footer
    submissions_label: str = "submissions"
    files_url: str | None = None  # link submission files here instead of copying them into the site

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}


# ---------------------------------------------------------------- loading (I/O)


def _submission_files(path: Path) -> tuple[str, ...]:
    return tuple(sorted(p.name for p in path.iterdir() if p.is_file() and not p.name.startswith(".")))


class _RecordingLoader:
    """Wraps a dataset loader so that the build knows whether (and which) dataset was loaded."""

    def __init__(self, load: Callable[[], Dataset]):
        self._load = load
        self.dataset: Dataset | None = None

    def __call__(self) -> Dataset:
        if self.dataset is None:
            self.dataset = self._load()
        return self.dataset


def load_site_data(
    submissions: Path,
    load_dataset: Callable[[], Dataset] | None = None,
    dataset_file: str | None = None,
    intervals: bool = True,
    workers: int | None = None,
    cache_dir: Path | None = None,
) -> SiteData:
    """Load, validate and score every submission under ``submissions``.

    ``load_dataset`` is called only when some entry has predictions (a site of reported
    entries builds offline). Every invalid submission is reported, not only the first,
    with the validator's one-line problems in a single :class:`BloomBenchError`.
    With ``intervals``, scores carry 95% intervals and entries shared ranks
    (:mod:`leaderboard.uncertainty`). Submissions are scored in ``workers`` processes;
    with ``cache_dir``, an entry whose files, dataset and scoring code are unchanged is
    read back from :mod:`leaderboard.cache` instead of being validated and scored again.
    """
    from .. import __version__
    from ..submission import find_submissions

    spec = load_spec()
    submissions = Path(submissions)
    if not submissions.is_dir():
        raise BloomBenchError(
            Problem(str(submissions), None, "submissions folder not found", "pass an existing folder with --submissions DIR")
        )
    loader = _RecordingLoader(load_dataset or (lambda: _default_dataset()))
    paths = find_submissions(submissions)
    if any(_declared_kind(p) == "predictions" for p in paths):
        loader()  # load once here: forked workers share it

    cache = ScoreCache(cache_dir)
    scored = fork_map(lambda path: _score_one(path, loader, intervals, cache), paths, workers)
    problems = [problem for item in scored for problem in item.problems]
    if problems:
        raise BloomBenchError(problems)
    entries = [item.entry for item in scored if item.entry is not None]
    pending = [item.pending for item in scored if item.pending is not None]
    if intervals:
        entries = with_shared_ranks(entries, {item.entry.id: item.rank_input for item in scored if item.entry is not None})

    dataset = loader.dataset
    if dataset is None or dataset.revision:
        revision = dataset.revision if dataset is not None else spec.dataset["revision"]
        label = f"{spec.dataset['repo_id']}@{revision}"
    else:
        label = f"{Path(dataset.path).name} (sha256 {dataset.sha256[:12]})"
    return SiteData(
        spec=spec,
        entries=tuple(sorted(entries, key=lambda e: e.id)),
        pending=tuple(sorted(pending, key=lambda p: p["id"])),
        tool_version=__version__,
        dataset_label=label,
        dataset_file=dataset_file,
        submissions_label=submissions.name or "submissions",
    )


def _declared_kind(path: Path) -> str | None:
    try:
        return json.loads((path / "metadata.json").read_text(encoding="utf-8")).get("kind")
    except (OSError, ValueError, AttributeError):
        return None  # the validator reports it


@dataclass
class _Scored:
    problems: list[Problem]
    entry: Entry | None = None
    pending: dict | None = None
    rank_input: object = None  # the item table, or the reported scores


RANK_COLUMNS = ["question_id", "lang", "level", "leaf_id"]


def _score_one(path: Path, loader: Callable[[], Dataset], intervals: bool, cache: ScoreCache) -> _Scored:
    """Validate and score one submission (run in a worker process), or read it from the cache."""
    key = None
    if cache.dir is not None and path.is_dir():
        dataset = getattr(loader, "dataset", None)
        key = entry_key(path, dataset.sha256 if dataset is not None else None, {"intervals": intervals, "rae_mode": "robust"})
        hit = cache.load(key)
        if hit is not None:
            fields, rank_input = hit
            entry = Entry(
                fields["id"],
                fields["meta"],
                fields["status"],
                fields["scores"],
                _submission_files(path),
                gaps=fields.get("gaps", {}),
            )
            return _Scored([], entry, rank_input=rank_input)
    scored = _score_fresh(path, loader, intervals)
    if key is not None and scored.entry is not None and not scored.problems:
        e = scored.entry
        cache.store(key, {"id": e.id, "meta": e.meta, "status": e.status, "scores": e.scores, "gaps": e.gaps}, scored.rank_input)
    return scored


def _score_fresh(path: Path, loader: Callable[[], Dataset], intervals: bool) -> _Scored:
    from .. import uncertainty
    from ..scoring import aggregate, item_table, score_submission
    from ..submission import load_submission

    try:
        sub = load_submission(path, loader)
    except BloomBenchError as exc:
        return _Scored(list(exc.problems))
    meta = dict(sub.meta)
    if sub.predictions is None and sub.kind != "reported":
        return _Scored([], pending={"id": sub.id, "meta": meta})
    rank_input: object = None
    gaps: dict = {}
    if sub.predictions is not None:
        table = item_table(sub, loader())
        scores = aggregate(table)
        if intervals:  # one resampling gives the intervals and what ranking needs (small: not the table)
            found, rank_input, gaps = uncertainty.intervals_and_rank_draws(table, "micro")
            scores = uncertainty.add_intervals(scores, table, found=found)
    else:
        scores = score_submission(sub, None)
        if intervals:
            scores = uncertainty.approximate_intervals(scores)
            rank_input = scores
    entry = Entry(sub.id, meta, sub.status, scores, _submission_files(Path(sub.dir)), gaps=gaps)
    return _Scored([], entry, rank_input=rank_input)


def _default_dataset() -> Dataset:
    from ..benchmark import load_dataset as load

    return load(None)


def with_shared_ranks(entries: list[Entry], rank_inputs: dict[str, object]) -> list[Entry]:
    """Attach shared micro ranks per (language, method): 1 + the number of entries significantly better.

    ``rank_inputs``: per entry, its resampled micro accuracies (``uncertainty.rank_draws``) or,
    for a reported entry, its score dict.
    """
    from .. import uncertainty

    ranks: dict[str, dict] = {e.id: {} for e in entries}
    for lang in LANGS:
        for method in METHODS:
            paired, reported = {}, {}
            for entry_id, found in rank_inputs.items():
                if not isinstance(found, dict):
                    continue
                if (lang, method) in found:
                    paired[entry_id] = found[(lang, method)]
                elif lang in found:
                    interval = uncertainty.reported_interval(found, lang, method, "micro")
                    if interval is not None:
                        reported[entry_id] = interval
            for entry_id, rank in uncertainty.shared_ranks_from(paired, reported).items():
                ranks[entry_id].setdefault(lang, {}).setdefault(method, {})["micro"] = int(rank)
    return [replace(e, ranks=ranks[e.id]) for e in entries]


# ---------------------------------------------------------------- tables (pure)


def _num(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    return float(value)


def _interval(block: dict, key: str, sub: str | None = None) -> tuple[float, float]:
    raw = block.get(key)
    if sub is not None:
        raw = raw.get(sub) if isinstance(raw, dict) else None
    if isinstance(raw, (list, tuple)) and len(raw) == 2:
        return _num(raw[0]), _num(raw[1])
    return math.nan, math.nan


RESULT_META_COLUMNS = [
    "entry_id",
    "model",
    "name",
    "variant",
    "organization",
    "status",
    "kind",
    "open_weights",
    "parameters_b",
    "date",
]


def results_frame(entries: Iterable[Entry], spec: Spec | None = None) -> pd.DataFrame:
    """One row per (entry, language, method), every combination included; NaN = not evaluated.

    Columns: entry metadata, ``lang``, ``method``, ``evaluated``, ``micro``/``macro`` with
    ``_lo``/``_hi`` interval bounds and ``_rank``, and one ``level:<Level>`` column (plus
    ``_lo``/``_hi``) per Bloom level.
    """
    spec = spec or load_spec()
    rows = []
    for e in entries:
        for lang in LANGS:
            for method in METHODS:
                block = e.block(lang, method)
                row = {
                    "entry_id": e.id,
                    "model": str(e.meta.get("model", e.id)),
                    "name": e.name,
                    "variant": e.meta.get("variant"),
                    "organization": e.meta.get("organization"),
                    "status": e.status,
                    "kind": e.meta.get("kind"),
                    "open_weights": e.meta.get("open_weights"),
                    "parameters_b": _num(e.meta.get("parameters_b")),
                    "date": e.meta.get("date"),
                    "lang": lang,
                    "method": method,
                    "evaluated": block is not None,
                }
                b = block or {}
                for metric in ("micro", "macro"):
                    row[metric] = _num(b.get(metric))
                    row[f"{metric}_lo"], row[f"{metric}_hi"] = _interval(b, f"{metric}_ci95")
                    rank = e.rank(lang, method, metric)
                    row[f"{metric}_rank"] = math.nan if rank is None else float(rank)
                levels = b.get("levels") or {}
                for level in spec.level_names:
                    row[f"level:{level}"] = _num(levels.get(level))
                    row[f"level:{level}_lo"], row[f"level:{level}_hi"] = _interval(b, "levels_ci95", level)
                rows.append(row)
    columns = RESULT_META_COLUMNS + ["lang", "method", "evaluated"]
    for metric in ("micro", "macro"):
        columns += [metric, f"{metric}_lo", f"{metric}_hi", f"{metric}_rank"]
    for level in spec.level_names:
        columns += [f"level:{level}", f"level:{level}_lo", f"level:{level}_hi"]
    return pd.DataFrame(rows, columns=columns)


def levels_frame(results: pd.DataFrame, spec: Spec | None = None) -> pd.DataFrame:
    """Long form of the level scores: one row per (entry, lang, method, level) that was evaluated."""
    spec = spec or load_spec()
    rows = []
    evaluated = results[results["evaluated"]]
    for rec in evaluated.to_dict("records"):
        for level in spec.level_names:
            rows.append(
                {
                    "entry_id": rec["entry_id"],
                    "name": rec["name"],
                    "status": rec["status"],
                    "lang": rec["lang"],
                    "method": rec["method"],
                    "level": level,
                    "score": rec[f"level:{level}"],
                    "lo": rec[f"level:{level}_lo"],
                    "hi": rec[f"level:{level}_hi"],
                    "micro": rec["micro"],
                }
            )
    return pd.DataFrame(rows, columns=["entry_id", "name", "status", "lang", "method", "level", "score", "lo", "hi", "micro"])


def leaves_frame(entries: Iterable[Entry], spec: Spec | None = None) -> pd.DataFrame:
    """One row per (entry, language, method, leaf) for every evaluated block; NaN where a leaf is missing."""
    spec = spec or load_spec()
    rows = []
    for e in entries:
        for lang, method, block in e.blocks():
            leaves = block.get("leaves") or {}
            cis = block.get("leaves_ci95") or {}
            for leaf in spec.leaves:
                lo, hi = (cis.get(leaf.id) or (math.nan, math.nan)) if isinstance(cis, dict) else (math.nan, math.nan)
                rows.append(
                    {
                        "entry_id": e.id,
                        "lang": lang,
                        "method": method,
                        "level": leaf.level,
                        "subcategory": leaf.subcategory,
                        "leaf": leaf.name,
                        "leaf_id": leaf.id,
                        "items": leaf.count,
                        "score": _num(leaves.get(leaf.id)),
                        "lo": _num(lo),
                        "hi": _num(hi),
                    }
                )
    return pd.DataFrame(
        rows, columns=["entry_id", "lang", "method", "level", "subcategory", "leaf", "leaf_id", "items", "score", "lo", "hi"]
    )


def safe_page_name(entry_id: str) -> str:
    """The file name of an entry's page; ids are slugs already, anything else is rejected."""
    if not _SAFE_ID.match(entry_id) or entry_id in {".", ".."}:
        raise BloomBenchError(
            Problem(
                entry_id, None, "submission id is not a plain folder name", "use the folder name bloombench validate suggests"
            )
        )
    return entry_id
