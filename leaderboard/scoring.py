"""Scoring: per-item predictions for each method, then accuracies (pure functions).

Methods
  rae       the option read from the raw reply (leaderboard.extract; unreadable = wrong)
  lbs       argmax of summed logprob / token count (the paper's Equation 2)
  lbs_char  argmax of summed logprob / characters of the option text in that language
            (lm-evaluation-harness's acc_norm: removes the tokenizer from the comparison)
Ties go to the earlier option. Micro = accuracy over items; macro = unweighted mean of
the six level accuracies (the paper's Table 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .benchmark import LANGS, OPTIONS, Dataset, load_spec
from .extract import extract_many
from .submission import Submission

METHODS = ("rae", "lbs", "lbs_char")
ROUND = 6


def methods_of(meta: dict) -> list[str]:
    """Scoring methods a submission's declared methods give: lbs also gives lbs_char."""
    declared = meta.get("methods", [])
    return [m for m in METHODS if (m if m == "rae" else "lbs") in declared]


_ITEMS_FRAMES: dict[str, pd.DataFrame] = {}
_ROW_OF: dict[str, dict[tuple[str, str], int]] = {}  # (question_id, lang) -> row of the items frame


def items_frame(dataset: Dataset) -> pd.DataFrame:
    """One row per (question_id, lang): level, leaf, gold answer, the options' texts and lengths."""
    cached = _ITEMS_FRAMES.get(dataset.sha256)
    if cached is not None:
        return cached
    rows = []
    for item in dataset.items:
        for lang in LANGS:
            opts = item.options[lang]
            rows.append((item.question_id, lang, item.level, item.leaf_id, item.answer, opts, *(max(1, len(t)) for t in opts)))
    cols = ["question_id", "lang", "level", "leaf_id", "answer", "options"] + [f"chars_{o}" for o in OPTIONS]
    frame = _ITEMS_FRAMES[dataset.sha256] = pd.DataFrame(rows, columns=cols)
    _ROW_OF[dataset.sha256] = {key: i for i, key in enumerate(zip(frame["question_id"], frame["lang"], strict=True))}
    return frame


def _rows_for(predictions: pd.DataFrame, dataset: Dataset) -> pd.DataFrame:
    """The items-frame rows of each prediction, in the predictions' order (validated: every key exists once)."""
    items = items_frame(dataset)
    row_of = _ROW_OF[dataset.sha256]
    positions = [row_of[key] for key in zip(predictions["question_id"].tolist(), predictions["lang"].tolist(), strict=True)]
    return items.iloc[positions].reset_index(drop=True)


def _argmax_option(scores: np.ndarray) -> np.ndarray:
    """Index of the best option per row (np.argmax keeps the first of equal maxima); None if NaN."""
    best = np.argmax(np.nan_to_num(scores, nan=-np.inf), axis=1)
    letters = np.array(OPTIONS, dtype=object)[best]
    letters[np.isnan(scores).any(axis=1)] = None
    return letters


def item_table(sub: Submission, dataset: Dataset, rae_mode: str = "robust") -> pd.DataFrame:
    """Per (question_id, lang): what each declared method predicts and whether it is right."""
    if sub.predictions is None:
        raise ValueError(f"{sub.id} has no predictions (kind {sub.kind})")
    preds = sub.predictions
    table = _rows_for(preds, dataset)
    out = table[["question_id", "lang", "level", "leaf_id", "answer"]].copy()
    methods = methods_of(sub.meta)
    if "rae" in methods:
        out["pred_rae"] = extract_many(preds["response"].tolist(), table["options"].tolist(), mode=rae_mode)
    if "lbs" in methods:
        lp = preds[[f"lp_{o}" for o in OPTIONS]].to_numpy(dtype=float)
        tok = preds[[f"tok_{o}" for o in OPTIONS]].to_numpy(dtype=float)
        chars = table[[f"chars_{o}" for o in OPTIONS]].to_numpy(dtype=float)
        out["pred_lbs"] = _argmax_option(lp / tok)
        out["pred_lbs_char"] = _argmax_option(lp / chars)
    for m in methods:
        out[f"correct_{m}"] = (out[f"pred_{m}"] == out["answer"]).to_numpy(dtype=bool)
    return out


def _r(x: float) -> float:
    return round(float(x), ROUND)


def aggregate(table: pd.DataFrame) -> dict:
    """The score JSON: {lang: {method: {micro, macro, levels, leaves, n}}} for what the table holds."""
    spec = load_spec()
    levels = spec.level_names
    result: dict = {}
    methods = [m for m in METHODS if f"correct_{m}" in table.columns]
    cols = [f"correct_{m}" for m in methods]
    present_langs = set(table["lang"].unique())
    for lang in [lang for lang in LANGS if lang in present_langs]:
        part = table.loc[table["lang"] == lang, ["level", "leaf_id", *cols]]
        by_level = part.groupby("level", sort=False)[cols].mean()  # all methods in one pass
        by_leaf = part.groupby("leaf_id", sort=False)[cols].mean()
        micro = part[cols].mean()
        result[lang] = {}
        for m, c in zip(methods, cols, strict=True):
            lv_acc, leaf_acc = by_level[c].to_dict(), by_leaf[c].to_dict()
            present = [lv for lv in levels if lv in lv_acc]
            result[lang][m] = {
                "micro": _r(micro[c]),
                "macro": _r(np.mean([lv_acc[lv] for lv in present])),
                "levels": {lv: _r(lv_acc[lv]) for lv in present},
                "leaves": {leaf.id: _r(leaf_acc[leaf.id]) for leaf in spec.leaves if leaf.id in leaf_acc},
                "n": int(len(part)),
            }
    return result


def reported_scores(reported: dict) -> dict:
    """Published scores in the score shape; micro/macro computed from levels when not published."""
    spec = load_spec()
    counts = {lv.name: lv.count for lv in spec.levels}
    out: dict = {}
    for lang in [lang for lang in LANGS if lang in reported]:
        out[lang] = {}
        for m in [m for m in METHODS if m in reported[lang]]:
            entry = dict(reported[lang][m])
            lv = entry["levels"]
            entry.setdefault("micro", _r(sum(lv[k] * counts[k] for k in lv) / sum(counts[k] for k in lv)))
            entry.setdefault("macro", _r(np.mean(list(lv.values()))))
            entry.setdefault("leaves", {})
            out[lang][m] = entry
    return out


def score_submission(sub: Submission, dataset: Dataset | None = None, rae_mode: str = "robust") -> dict:
    """Scores of one submission in the score JSON shape (N/A = absent, never 0)."""
    if sub.kind == "reported":
        return reported_scores(sub.reported or {})
    if sub.predictions is None:
        return {}
    if dataset is None:
        raise ValueError("a predictions submission needs the dataset to be scored")
    return aggregate(item_table(sub, dataset, rae_mode))
