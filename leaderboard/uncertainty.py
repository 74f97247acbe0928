"""Uncertainty for every number on the board: bootstrap intervals, paired comparisons, shared ranks.

Method (the About page explains it with :data:`EXPLANATION`)
  * Item bootstrap, stratified by leaf. A resample draws, within each leaf, as many items as the
    leaf holds, with replacement; leaf and level sizes stay those of the benchmark (a fixed design),
    and macro is recomputed within each resample as the mean of its six level accuracies.
  * Items, not rows, are resampled: an item's English and Arabic rows and all its scoring methods
    carry the same weight in a resample, so the en-ar and rae-lbs gaps are paired differences.
  * One weight matrix W (resamples x items: how often each item is drawn) is drawn once per item
    set and seed and shared by every submission scored on those items, so model-versus-model
    differences are paired too. Every accuracy is then a matrix product.
  * 95% percentile intervals (2.5th and 97.5th percentiles) of 1,000 resamples, seed 20261121:
    the same inputs give the same intervals (bounds rounded to 4 decimals). Measured coverage on
    300 simulated full submissions (tests/test_uncertainty.py): micro 0.95, macro 0.94, levels 0.94,
    leaves 0.94 (35 to 95 items each). On tiny item sets (the 3-per-leaf sample file) leaf intervals
    are crude and can have zero width.
  * Entries with no item-level data (kind ``reported``): Wilson intervals from the item counts of
    the spec (a level: n = the level's count; a leaf: the leaf's count); micro and macro: a Wilson
    interval at the effective sample size p(1-p)/var, with var = sum n_l p_l(1-p_l) / N^2 (micro)
    or sum p_l(1-p_l)/n_l / 36 (macro). Labelled approximate: published numbers are rounded (the
    paper's Table 2 to two decimals), and that rounding is not in the interval.
  * Two submissions on the same items: the paired bootstrap interval of A - B, and a p-value from
    the exact McNemar test (two-sided binomial on the items one gets right and the other wrong);
    macro has no McNemar test and takes the bootstrap p-value.
  * Shared rank = 1 + the number of models significantly better: a paired difference whose interval
    lies above 0 when both have items on the same item set; otherwise (a reported entry) the other's
    lower bound above this one's upper bound (Chatbot Arena's rule).

Public API
  bootstrap_weights(n_items, n_resamples=1000, seed=SEED, strata=None) -> ndarray (R x n, float32)
  make_bootstrap(item_table, n_resamples=1000, seed=SEED) -> Bootstrap  (cached per item set)
  intervals(item_table, bootstrap=None) -> {lang: {method: {micro, micro_ci95, macro, macro_ci95,
      levels, levels_ci95, leaves, leaves_ci95, ci95_method, ci95_resamples, ci95_seed}}}
  add_intervals(score, item_table=None) -> score with *_ci95 keys (approximate when item_table is None)
  approximate_intervals(score) -> score with Wilson-based *_ci95 keys (reported entries)
  gap_intervals(item_table, bootstrap=None) -> {"en-ar": {method: {...}}, "rae-lbs": {lang: {...}},
      "rae-lbs_char": {lang: {...}}}, each {micro, micro_ci95, macro, macro_ci95, levels, levels_ci95}
  compare(table_a, table_b, lang="en", method="rae", leaves=False, paired=True) -> DataFrame
      (rows micro, macro, levels[, leaves]; columns metric, a, b, diff, ci95_lo, ci95_hi, p_value,
      p_method, a_only, b_only)
  shared_ranks(entries, lang="en", method="rae", metric="micro", bootstrap=None) -> {entry_id: rank}
      entries: {entry_id: item table (DataFrame) or a score dict (reported)}; metric: micro, macro
      or a level name. An entry without that language, method or metric is left out (N/A).
  wilson(p, n) -> (lo, hi); mcnemar_exact(b, c) -> p-value
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .benchmark import LANGS, load_spec
from .errors import BloomBenchError, Problem
from .scoring import METHODS

SEED = 20261121
N_RESAMPLES = 1000
Z95 = 1.959963984540054
BOOTSTRAP = "bootstrap"
APPROXIMATE = "approximate (from item counts)"
ROUND = 4

EXPLANATION = (
    "Every accuracy carries a 95% interval. For submissions with predictions it comes from an item "
    "bootstrap: 1,000 resamples of the benchmark's items (fixed seed), drawn within each leaf so that "
    "leaf and level sizes stay those of BloomBench; micro, macro, level and leaf accuracies are "
    "recomputed in every resample and the interval spans the middle 95% of them. An item's English "
    "and Arabic answers and all scoring methods stay together in a resample, and every model is "
    "resampled on the same items, so gaps (English minus Arabic, RAE minus LBS) and differences "
    "between models are paired. Published (reported) numbers have no item-level data: their intervals "
    "are approximate, Wilson intervals from the item counts of each level or leaf. Ranks are shared: "
    "a model's rank is 1 + the number of models significantly better than it (the paired difference's "
    "interval excludes 0, or, with a reported entry, the other model's interval lies wholly above)."
)


# ---------------------------------------------------------------- resampling weights


def bootstrap_weights(n_items: int, n_resamples: int = N_RESAMPLES, seed: int = SEED, strata=None) -> np.ndarray:
    """How often each item is drawn in each resample: a (n_resamples x n_items) float32 count matrix.

    ``strata`` (one label per item) draws each stratum's own size within it; None resamples all items.
    """
    rng = np.random.default_rng(seed)
    weights = np.zeros((n_resamples, n_items), dtype=np.float32)
    if strata is None:
        groups = [np.arange(n_items)]
    else:
        labels = np.asarray(strata)
        if labels.shape != (n_items,):
            raise ValueError(f"strata must give one label per item ({n_items}), got shape {labels.shape}")
        _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        order = np.argsort(first)  # strata in order of first appearance: independent of label sorting
        groups = [np.flatnonzero(inverse == k) for k in order]
    for idx in groups:
        m = len(idx)
        flat = (np.arange(n_resamples)[:, None] * m + rng.integers(0, m, size=(n_resamples, m))).ravel()
        counts = np.bincount(flat, minlength=n_resamples * m).reshape(n_resamples, m)
        if m and idx[-1] - idx[0] == m - 1:  # contiguous stratum: a slice, no fancy indexing
            weights[:, idx[0] : idx[-1] + 1] = counts
        else:
            weights[:, idx] = counts
    return weights


@dataclass(frozen=True, eq=False)
class Bootstrap:
    """Items in a canonical order (grouped by leaf, leaves in spec order) and their resample weights."""

    question_ids: pd.Index
    leaf_ids: tuple[str, ...]
    leaf_levels: tuple[str, ...]
    level_names: tuple[str, ...]
    bounds: np.ndarray  # leaf j holds items bounds[j]:bounds[j+1]
    weights_t: np.ndarray  # (n_items, n_resamples) float32, contiguous: each leaf's rows are one block
    seed: int
    key: str  # identifies the item set (stable across processes: cached rank draws keep it)

    @property
    def weights(self) -> np.ndarray:
        """W: (n_resamples x n_items), how often each item is drawn in each resample."""
        return self.weights_t.T

    @property
    def n_resamples(self) -> int:
        return self.weights_t.shape[1]

    @property
    def level_starts(self) -> np.ndarray:
        """Index of each level's first leaf (leaves are grouped by level, levels in spec order)."""
        return np.array([self.leaf_levels.index(lv) for lv in self.level_names])

    @property
    def level_matrix(self) -> np.ndarray:
        """(levels x leaves) 0/1: which leaf belongs to which level."""
        return np.array([[lv == leaf_lv for leaf_lv in self.leaf_levels] for lv in self.level_names], dtype=np.float64)


_CACHE: OrderedDict[tuple, Bootstrap] = OrderedDict()


def _canonical_items(table: pd.DataFrame) -> pd.DataFrame:
    spec = load_spec()
    level_rank = {name: i for i, name in enumerate(spec.level_names)}
    leaf_rank = {leaf.id: i for i, leaf in enumerate(spec.leaves)}
    items = table[["question_id", "level", "leaf_id"]].drop_duplicates("question_id")
    unknown = sorted(set(items["level"]) - set(level_rank))
    if unknown:
        raise BloomBenchError(
            Problem("item table", None, f"unknown Bloom level {unknown[0]!r}", f"levels are {', '.join(level_rank)}")
        )
    items = items.assign(
        _lv=items["level"].map(level_rank),
        _leaf=items["leaf_id"].map(leaf_rank).fillna(len(leaf_rank)),
    )
    return items.sort_values(["_lv", "_leaf", "leaf_id", "question_id"], kind="stable").reset_index(drop=True)


def make_bootstrap(item_table: pd.DataFrame, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> Bootstrap:
    """The resampling design for the items in ``item_table`` (cached: same items and seed, same W)."""
    pairs = sorted(set(zip(item_table["question_id"].tolist(), item_table["leaf_id"].tolist(), strict=True)))
    key = hashlib.sha256("\n".join(f"{q}|{leaf}" for q, leaf in pairs).encode()).hexdigest()[:16]  # the item set, any row order
    cache_key = (key, n_resamples, seed)
    if cache_key in _CACHE:
        _CACHE.move_to_end(cache_key)
        return _CACHE[cache_key]
    items = _canonical_items(item_table)
    qids = items["question_id"].astype(str).to_numpy()
    leaves = items["leaf_id"].astype(str).to_numpy()
    starts = np.flatnonzero(np.r_[True, leaves[1:] != leaves[:-1]])
    bounds = np.r_[starts, len(leaves)]
    leaf_levels = tuple(items["level"].iloc[starts])
    boot = Bootstrap(
        question_ids=pd.Index(qids),
        leaf_ids=tuple(leaves[starts]),
        leaf_levels=leaf_levels,
        level_names=tuple(lv for lv in load_spec().level_names if lv in set(leaf_levels)),
        bounds=bounds,
        weights_t=np.ascontiguousarray(
            bootstrap_weights(len(qids), n_resamples, seed, strata=np.repeat(np.arange(len(starts)), np.diff(bounds))).T
        ),
        seed=seed,
        key=key,
    )
    _CACHE[cache_key] = boot
    while len(_CACHE) > 4:
        _CACHE.popitem(last=False)
    return boot


# ---------------------------------------------------------------- per-resample accuracies


def _columns(table: pd.DataFrame, boot: Bootstrap, wanted=None) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The (lang, method) columns a table holds and its items x columns correctness (NaN = no row)."""
    pos = boot.question_ids.get_indexer(table["question_id"])
    if (pos < 0).any():
        raise BloomBenchError(
            Problem("item table", None, "holds items outside the bootstrap's item set", "build the bootstrap from this table")
        )
    cols, data = [], []
    langs = table["lang"].to_numpy()
    for lang in LANGS:
        mask = langs == lang
        if not mask.any():
            continue
        for m in METHODS:
            name = f"correct_{m}"
            if name not in table.columns or (wanted is not None and (lang, m) not in wanted):
                continue
            values = pd.to_numeric(table.loc[mask, name], errors="coerce").to_numpy(dtype=np.float64)
            if np.isnan(values).all():
                continue
            column = np.full(len(boot.question_ids), np.nan)
            column[pos[mask]] = values
            cols.append((lang, m))
            data.append(column)
    matrix = np.stack(data, axis=1) if data else np.zeros((len(boot.question_ids), 0))
    return cols, matrix


def _stats(num: np.ndarray, den: np.ndarray, level_starts: np.ndarray) -> np.ndarray:
    """Leaf sums (leaves, ...) -> (2 + levels + leaves, ...): micro, macro, levels, leaves."""
    with np.errstate(invalid="ignore", divide="ignore"):
        leaf_acc = num / den
        lv_acc = np.add.reduceat(num, level_starts, axis=0) / np.add.reduceat(den, level_starts, axis=0)
        micro = num.sum(0) / den.sum(0)
    macro = lv_acc.mean(0)
    return np.concatenate([micro[None], macro[None], lv_acc, leaf_acc], axis=0)


def _resample(boot: Bootstrap, matrix: np.ndarray, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Point estimates (k, S) and per-resample values (k, S, R) of the S statistics of the k columns.

    Items are grouped by leaf, so a leaf's sum in every resample is one small product
    ``correct[leaf].T @ W.T[leaf]``; levels, micro and macro follow from the leaf sums.
    """
    wt = boot.weights_t if weights is None else np.ascontiguousarray(weights.T, dtype=np.float32)
    present = ~np.isnan(matrix)
    correct = np.where(present, matrix, 0.0)
    starts, level_starts = boot.bounds[:-1], boot.level_starts
    pt_den = np.add.reduceat(present.astype(np.float64), starts, axis=0)
    point = _stats(np.add.reduceat(correct, starts, axis=0), pt_den, level_starts).T
    c32, p32 = correct.astype(np.float32), present.astype(np.float32)  # (items, k): a leaf's rows are contiguous
    n_leaves, k = len(starts), matrix.shape[1]
    num = np.empty((n_leaves, k, wt.shape[1]), dtype=np.float32)
    full = present.all()
    den = pt_den[:, :, None].astype(np.float32) if full else np.empty_like(num)  # stratified: a full leaf keeps its size
    for j, (s, e) in enumerate(zip(boot.bounds[:-1], boot.bounds[1:], strict=True)):
        np.dot(c32[s:e].T, wt[s:e], out=num[j])  # contiguous blocks: BLAS, not numpy's strided loop
        if not full:
            np.dot(p32[s:e].T, wt[s:e], out=den[j])
    draws = np.ascontiguousarray(_stats(num, den, level_starts).transpose(1, 0, 2))
    return point, draws


def _resampled(item_table: pd.DataFrame, bootstrap: Bootstrap | None) -> tuple[Bootstrap, list, np.ndarray, np.ndarray]:
    """The design, the table's (lang, method) columns, and their point and resampled statistics."""
    boot = bootstrap or make_bootstrap(item_table)
    cols, matrix = _columns(item_table, boot)
    point, draws = _resample(boot, matrix)
    return boot, cols, point, draws


def _quantiles(draws: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """(2, ...) lower and upper percentile bounds over the last axis (the resamples)."""
    q = [alpha / 2, 1 - alpha / 2]
    if np.isnan(draws).any():  # rows missing in a resample: quantiles of what is there (all-NaN stays NaN)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanquantile(draws, q, axis=-1)
    return np.quantile(draws, q, axis=-1)


def _r(x: float) -> float:
    return round(float(x), ROUND)


def _block(boot: Bootstrap, point: np.ndarray, lo: np.ndarray, hi: np.ndarray, leaves: bool = True) -> dict:
    """One (lang, method) block of the score shape with its *_ci95 keys; NaN statistics are left out."""
    n_lv = len(boot.level_names)
    names = ["micro", "macro"]
    block: dict = {}
    for i, name in enumerate(names):
        if not np.isnan(point[i]):
            block[name], block[f"{name}_ci95"] = _r(point[i]), [_r(lo[i]), _r(hi[i])]
    parts = [("levels", boot.level_names, 2)] + ([("leaves", boot.leaf_ids, 2 + n_lv)] if leaves else [])
    for key, labels, offset in parts:
        block[key] = {lab: _r(point[offset + j]) for j, lab in enumerate(labels) if not np.isnan(point[offset + j])}
        block[f"{key}_ci95"] = {
            lab: [_r(lo[offset + j]), _r(hi[offset + j])] for j, lab in enumerate(labels) if not np.isnan(point[offset + j])
        }
    return block


def intervals(item_table: pd.DataFrame, bootstrap: Bootstrap | None = None, alpha: float = 0.05) -> dict:
    """Score-shaped accuracies with bootstrap intervals, for every (lang, method) the table holds."""
    boot, cols, point, draws = _resampled(item_table, bootstrap)
    return _interval_blocks(boot, cols, point, draws, alpha)


def intervals_and_rank_draws(
    item_table: pd.DataFrame, metric: str = "micro", bootstrap: Bootstrap | None = None, alpha: float = 0.05
) -> tuple[dict, dict[tuple[str, str], RankDraws], dict]:
    """:func:`intervals`, :func:`rank_draws` and :func:`gap_intervals` from one resampling (a site entry's needs)."""
    boot, cols, point, draws = _resampled(item_table, bootstrap)
    return (
        _interval_blocks(boot, cols, point, draws, alpha),
        _rank_draws_of(boot, cols, point, draws, metric),
        _gap_blocks(boot, cols, point, draws, alpha),
    )


def _interval_blocks(boot: Bootstrap, cols: list, point: np.ndarray, draws: np.ndarray, alpha: float) -> dict:
    lo, hi = _quantiles(draws, alpha)
    result: dict = {}
    for j, (lang, m) in enumerate(cols):
        block = _block(boot, point[j], lo[j], hi[j])
        block.update(ci95_method=BOOTSTRAP, ci95_resamples=boot.n_resamples, ci95_seed=boot.seed)
        result.setdefault(lang, {})[m] = block
    return result


def add_intervals(
    score: dict, item_table: pd.DataFrame | None = None, bootstrap: Bootstrap | None = None, found: dict | None = None
) -> dict:
    """``score`` (the score JSON) with *_ci95 keys next to each accuracy; approximate without an item table.

    ``found``: the result of :func:`intervals` for this table, when already computed.
    """
    if item_table is None and found is None:
        return approximate_intervals(score)
    found = found if found is not None else intervals(item_table, bootstrap)
    out: dict = {}
    for lang, per_method in score.items():
        out[lang] = {}
        for m, block in per_method.items():
            new = dict(block)
            ci = found.get(lang, {}).get(m)
            if ci is not None:
                for name in ("micro", "macro"):
                    if name in block and f"{name}_ci95" in ci:
                        new[f"{name}_ci95"] = ci[f"{name}_ci95"]
                for key in ("levels", "leaves"):
                    if key in block:
                        new[f"{key}_ci95"] = {k: ci[f"{key}_ci95"][k] for k in block[key] if k in ci[f"{key}_ci95"]}
                new.update({k: ci[k] for k in ("ci95_method", "ci95_resamples", "ci95_seed")})
            out[lang][m] = new
    return out


def gap_intervals(item_table: pd.DataFrame, bootstrap: Bootstrap | None = None, alpha: float = 0.05) -> dict:
    """Paired gaps with intervals: English - Arabic per method, RAE - LBS (and RAE - LBS-char) per language."""
    boot, cols, point, draws = _resampled(item_table, bootstrap)
    return _gap_blocks(boot, cols, point, draws, alpha)


def _gap_blocks(boot: Bootstrap, cols: list, point: np.ndarray, draws: np.ndarray, alpha: float) -> dict:
    where = {c: j for j, c in enumerate(cols)}
    pairs = [("en-ar", m, ("en", m), ("ar", m)) for m in METHODS]
    pairs += [(f"rae-{m}", lang, (lang, "rae"), (lang, m)) for m in ("lbs", "lbs_char") for lang in LANGS]
    result: dict = {}
    for gap, key, a, b in pairs:
        if a not in where or b not in where:
            continue
        top = 2 + len(boot.level_names)  # micro, macro, levels: per-leaf gaps have too few items to say much
        d_point = point[where[a], :top] - point[where[b], :top]
        lo, hi = _quantiles(draws[where[a], :top] - draws[where[b], :top], alpha)
        block = _block(boot, d_point, lo, hi, leaves=False)
        block["ci95_method"] = BOOTSTRAP
        result.setdefault(gap, {})[key] = block
    return result


# ---------------------------------------------------------------- reported entries


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion p observed on n items."""
    if n <= 0:
        return (0.0, 1.0)
    p = min(max(p, 0.0), 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if p == 0 else lo, 1.0 if p == 1 else hi)  # exact ends where rounding would miss them


def _combined_wilson(p: float, parts: list[tuple[float, float, float]]) -> tuple[float, float]:
    """Wilson interval at the effective n of a weighted mean of proportions: parts = (weight, p_l, n_l)."""
    var = sum(w * w * q * (1 - q) / n for w, q, n in parts)
    floor = 1 / sum(w * w / n for w, _, n in parts)  # effective n when every p_l is 0 or 1
    n_eff = p * (1 - p) / var if var > 0 and 0 < p < 1 else floor
    return wilson(p, n_eff)


def approximate_intervals(score: dict) -> dict:
    """Reported scores (no item data) with approximate *_ci95 keys from the spec's item counts."""
    spec = load_spec()
    level_n = {lv.name: lv.count for lv in spec.levels}
    leaf_n = {leaf.id: leaf.count for leaf in spec.leaves}
    out: dict = {}
    for lang, per_method in score.items():
        out[lang] = {}
        for m, block in per_method.items():
            new = dict(block)
            levels = {k: v for k, v in block.get("levels", {}).items() if k in level_n and v is not None}
            if "levels" in block:
                new["levels_ci95"] = {k: [_r(x) for x in wilson(v, level_n[k])] for k, v in levels.items()}
            if "leaves" in block:
                new["leaves_ci95"] = {
                    k: [_r(x) for x in wilson(v, leaf_n[k])] for k, v in block["leaves"].items() if k in leaf_n and v is not None
                }
            if len(levels) == len(level_n):
                total = sum(level_n.values())
                if block.get("micro") is not None:
                    parts = [(level_n[k] / total, v, level_n[k]) for k, v in levels.items()]
                    new["micro_ci95"] = [_r(x) for x in _combined_wilson(block["micro"], parts)]
                if block.get("macro") is not None:
                    parts = [(1 / len(levels), v, level_n[k]) for k, v in levels.items()]
                    new["macro_ci95"] = [_r(x) for x in _combined_wilson(block["macro"], parts)]
            new["ci95_method"] = APPROXIMATE
            out[lang][m] = new
    return out


# ---------------------------------------------------------------- comparisons and ranks


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value: b, c = items only A got right, only B got right."""
    n, k = b + c, min(b, c)
    if n == 0:
        return 1.0
    term, tail = 1, 1
    for i in range(1, k + 1):
        term = term * (n - i + 1) // i
        tail += term
    return min(1.0, 2 * tail / (1 << n))


def _bootstrap_p(diff: np.ndarray) -> np.ndarray:
    """Two-sided bootstrap p-value of 'difference = 0' from per-resample differences (..., R)."""
    r = diff.shape[-1]
    below, above = (diff <= 0).sum(-1), (diff >= 0).sum(-1)
    return np.minimum(1.0, 2 * (np.minimum(below, above) + 1) / (r + 1))


def compare(
    table_a: pd.DataFrame,
    table_b: pd.DataFrame,
    lang: str = "en",
    method: str = "rae",
    leaves: bool = False,
    paired: bool = True,
    bootstrap: Bootstrap | None = None,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """A - B per statistic on the same items: paired bootstrap interval and p-value (exact McNemar).

    ``paired=False`` resamples B independently of A (for comparison only: wider intervals).
    """
    boot = bootstrap or make_bootstrap(table_a)
    qa, qb = set(table_a["question_id"]), set(table_b["question_id"])
    if qa != qb:
        raise BloomBenchError(
            Problem(
                "predictions.jsonl",
                None,
                f"the two submissions cover different items ({len(qa ^ qb)} differ)",
                "score both on the same dataset revision",
            )
        )
    cols = []
    for name, table in (("A", table_a), ("B", table_b)):
        found, matrix = _columns(table, boot, wanted={(lang, method)})
        if not found:
            raise BloomBenchError(
                Problem(
                    f"submission {name}",
                    None,
                    f"has no {method} scores in {lang}",
                    "pick a --lang/--method both submissions were evaluated with",
                )
            )
        cols.append(matrix[:, 0])
    matrix = np.stack(cols, axis=1)
    point, draws = _resample(boot, matrix)
    if not paired:
        other = bootstrap_weights(
            len(boot.question_ids),
            boot.n_resamples,
            boot.seed + 1,
            strata=np.repeat(np.arange(len(boot.leaf_ids)), np.diff(boot.bounds)),
        )
        draws[1] = _resample(boot, matrix[:, 1:], other)[1][0]
    diff = draws[0] - draws[1]
    lo, hi = _quantiles(diff, alpha)
    p_boot = _bootstrap_p(diff)
    both = ~np.isnan(matrix).any(axis=1)
    a_only = ((matrix[:, 0] == 1) & (matrix[:, 1] == 0) & both).astype(np.float64)
    b_only = ((matrix[:, 0] == 0) & (matrix[:, 1] == 1) & both).astype(np.float64)
    leaf_a = np.add.reduceat(a_only, boot.bounds[:-1])
    leaf_b = np.add.reduceat(b_only, boot.bounds[:-1])
    lm = boot.level_matrix
    counts_a = np.r_[leaf_a.sum(), np.nan, lm @ leaf_a, leaf_a]
    counts_b = np.r_[leaf_b.sum(), np.nan, lm @ leaf_b, leaf_b]
    names = ["micro", "macro", *boot.level_names, *boot.leaf_ids]
    rows = []
    for i, name in enumerate(names[: len(names) if leaves else 2 + len(boot.level_names)]):
        if np.isnan(point[0, i]) or np.isnan(point[1, i]):
            continue
        exact = not np.isnan(counts_a[i])
        rows.append(
            {
                "metric": name,
                "a": float(point[0, i]),
                "b": float(point[1, i]),
                "diff": float(point[0, i] - point[1, i]),
                "ci95_lo": float(lo[i]),
                "ci95_hi": float(hi[i]),
                "p_value": mcnemar_exact(int(counts_a[i]), int(counts_b[i])) if exact else float(p_boot[i]),
                "p_method": "mcnemar" if exact else BOOTSTRAP,
                "a_only": int(counts_a[i]) if exact else None,
                "b_only": int(counts_b[i]) if exact else None,
            }
        )
    frame = pd.DataFrame(rows)
    for col in ("a_only", "b_only"):  # counts or None (macro): keep ints, not floats
        frame[col] = pd.Series([r[col] for r in rows], dtype=object)
    return frame


def _metric_index(boot: Bootstrap, metric: str) -> int | None:
    if metric in ("micro", "macro"):
        return ("micro", "macro").index(metric)
    return 2 + boot.level_names.index(metric) if metric in boot.level_names else None


@dataclass(frozen=True)
class RankDraws:
    """One entry's statistic on one item set: its point value and its value in every resample."""

    key: str  # the item set (entries with the same key are compared by paired differences)
    point: float
    draws: np.ndarray  # (R,)


def rank_draws(
    item_table: pd.DataFrame, metric: str = "micro", bootstrap: Bootstrap | None = None
) -> dict[tuple[str, str], RankDraws]:
    """Per (lang, method): the resampled values of ``metric`` that :func:`shared_ranks_from` compares."""
    boot, cols, point, draws = _resampled(item_table, bootstrap)
    return _rank_draws_of(boot, cols, point, draws, metric)


def _rank_draws_of(
    boot: Bootstrap, cols: list, point: np.ndarray, draws: np.ndarray, metric: str
) -> dict[tuple[str, str], RankDraws]:
    i = _metric_index(boot, metric)
    if i is None:
        return {}
    return {
        col: RankDraws(boot.key, float(point[j, i]), draws[j, i].copy())
        for j, col in enumerate(cols)
        if not np.isnan(point[j, i])
    }


def reported_interval(entry: dict, lang: str, method: str, metric: str) -> tuple[float, tuple[float, float]] | None:
    block = approximate_intervals({lang: {method: entry[lang][method]}} if method in entry.get(lang, {}) else {})
    block = block.get(lang, {}).get(method, {})
    if metric in ("micro", "macro"):
        v, ci = block.get(metric), block.get(f"{metric}_ci95")
    else:
        v, ci = block.get("levels", {}).get(metric), block.get("levels_ci95", {}).get(metric)
    return None if v is None or ci is None else (float(v), (float(ci[0]), float(ci[1])))


def _pairwise_better(x: np.ndarray, alpha: float, chunk: int = 25) -> np.ndarray:
    """``out[n, m]``: the alpha/2 percentile of ``x[m] - x[n]`` over the resamples is above 0.

    The same decision as ``_quantiles(x - x[n], alpha)[0] > 0`` (numpy's linear interpolation) for
    every pair at once: with c = how many differences are <= 0 and k = floor((R - 1) * alpha / 2),
    the bound is above 0 when c <= k and not when c >= k + 2; only c == k + 1 needs the two order
    statistics, computed for those pairs alone.
    """
    n, r = x.shape
    if n == 0 or r < 2 or np.isnan(x).any():
        return np.stack([_quantiles(x - x[i], alpha)[0] > 0 for i in range(n)]) if n else np.zeros((0, 0), bool)
    h = (r - 1) * (alpha / 2)
    k = int(np.floor(h))
    out = np.empty((n, n), dtype=bool)
    for start in range(0, n, chunk):
        d = x[None, :, :] - x[start : start + chunk, None, :]  # (c, n, R): other - this
        c = np.count_nonzero(d <= 0, axis=-1)
        block = c <= k
        for i, j in zip(*np.nonzero(c == k + 1), strict=True):
            block[i, j] = _quantiles(d[i, j][None, :], alpha)[0][0] > 0
        out[start : start + chunk] = block
    return out


def shared_ranks_from(
    paired: Mapping[str, RankDraws], reported: Mapping[str, tuple[float, tuple[float, float]]], alpha: float = 0.05
) -> dict[str, int]:
    """Rank = 1 + number of entries significantly better, from resampled values and approximate intervals.

    ``paired``: entries with item-level data (same ``key`` = same items: paired differences);
    ``reported``: entry -> (value, (lo, hi)) for entries without (non-overlap of intervals).
    """
    value = {e: (d.point, None) for e, d in paired.items()}
    interval: dict[str, tuple[float, float]] = {}
    better = {e: set() for e in [*paired, *reported]}  # entry -> the entries significantly better than it
    groups: dict[str, list[str]] = {}
    for e, d in paired.items():
        groups.setdefault(d.key, []).append(e)
    for members in groups.values():
        x = np.stack([paired[e].draws for e in members])  # (n, R)
        points = np.array([paired[e].point for e in members])
        lo, hi = _quantiles(x, alpha)
        for n, e in enumerate(members):
            interval[e] = (float(lo[n]), float(hi[n]))
        above = _pairwise_better(x, alpha)  # above[n, m]: the interval of (m - n) lies above 0
        for n, e in enumerate(members):  # the other is significantly better
            better[e].update(members[m] for m in np.flatnonzero(above[n] & (points > points[n])))
    for e, (v, ci) in reported.items():
        value[e], interval[e] = (v, None), ci
    ids = list(value)
    for i in ids:  # not paired (a reported entry, other items): the other's lower bound above this one's upper bound
        for j in ids:
            same_items = i in paired and j in paired and paired[i].key == paired[j].key
            if j != i and not same_items and interval[j][0] > interval[i][1]:
                better[i].add(j)
    return {i: 1 + len(better[i]) for i in ids}


def shared_ranks(
    entries: Mapping[str, pd.DataFrame | dict],
    lang: str = "en",
    method: str = "rae",
    metric: str = "micro",
    alpha: float = 0.05,
    bootstrap: Bootstrap | None = None,
) -> dict[str, int]:
    """Rank = 1 + number of entries significantly better on ``metric`` (see the module docstring).

    Item tables on the same item set are resampled together (one design for all of them) and
    compared by paired differences; reported score dicts by the overlap of approximate intervals.
    """
    paired: dict[str, RankDraws] = {}
    reported: dict[str, tuple[float, tuple[float, float]]] = {}
    for entry_id, entry in entries.items():
        if isinstance(entry, pd.DataFrame):
            found = rank_draws(entry, metric, bootstrap).get((lang, method))
            if found is not None:
                paired[entry_id] = found
        else:
            found = reported_interval(entry, lang, method, metric)
            if found is not None:
                reported[entry_id] = found
    return shared_ranks_from(paired, reported, alpha)
