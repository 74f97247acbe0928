"""Verification: compare a maintainer's re-run with a submission, item by item, and record the result.

For every (item, language) of the submission:

  rae      the answer extracted from the submitted reply equals the one from the re-run's reply
           (two unreadable replies agree: both are scored wrong)
  lbs      the option chosen by LBS (summed logprob / tokens) is the same
  logprob  for all four options the token counts are equal and the mean log-probability per
           token differs by at most ``atol`` nats (per token, so long options are not penalised)

A submission is verified when each share is at least ``min_agreement``. The record written
to ``metadata.json`` (key ``verified``) names who re-ran it, when, on what hardware, the
agreement figures and the tool version; the rest of the file is kept byte for byte.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .benchmark import OPTIONS, Dataset
from .errors import BloomBenchError, Problem
from .scoring import item_table
from .submission import METADATA, Submission, load_submission, predictions_frame

DEFAULT_ATOL = 0.05  # nats per token
DEFAULT_MIN_AGREEMENT = 0.99


@dataclass(frozen=True)
class Comparison:
    """The outcome of comparing a submission with its re-run."""

    n: int  # (item, language) pairs compared
    rae: float | None  # share of pairs whose extracted answers agree (None: rae not declared)
    lbs: float | None  # share whose LBS choices agree (None: lbs not declared)
    logprob: float | None  # share whose four options are within atol per token, same token counts
    max_abs_logprob_diff: float | None  # largest per-token difference, nats
    atol: float
    disagreements: pd.DataFrame  # question_id, lang, check, submitted, rerun

    def shares(self) -> dict[str, float]:
        return {k: v for k, v in (("rae", self.rae), ("lbs", self.lbs), ("logprob", self.logprob)) if v is not None}

    def passed(self, min_agreement: float) -> bool:
        return self.n > 0 and all(v >= min_agreement for v in self.shares().values())

    def record(self) -> dict:
        """The ``agreement`` object stored in ``metadata.verified``."""
        return {
            "n": self.n,
            "rae": self.rae,
            "lbs": self.lbs,
            "logprob_within_atol": self.logprob,
            "max_abs_logprob_diff": self.max_abs_logprob_diff,
            "atol": self.atol,
        }


def load_rerun(path: str | Path, submitted: Submission, dataset: Dataset) -> tuple[Submission, dict]:
    """The re-run as a Submission, and its metadata (``{}`` for a bare predictions file).

    ``path`` is a submission folder written by ``bloombench evaluate`` / ``merge`` or a
    ``predictions.jsonl`` file; a bare file is read with the submission's languages and methods.
    """
    from validator.validate import CheckResult, check_predictions

    path = Path(path)
    if path.is_dir():
        rerun = load_submission(path, dataset)
        if rerun.predictions is None:
            raise BloomBenchError(
                Problem(
                    str(path / METADATA),
                    None,
                    f"the re-run is of kind '{rerun.kind}'",
                    "pass the folder bloombench evaluate wrote (kind predictions)",
                )
            )
        return rerun, rerun.meta
    if not path.is_file():
        raise BloomBenchError(
            Problem(str(path), None, "re-run not found", "pass the folder bloombench evaluate wrote, or its predictions.jsonl")
        )
    result = CheckResult()
    check_predictions(path, submitted.meta, dataset, result)
    if result.problems:
        raise BloomBenchError(result.problems)
    return Submission(path.parent, submitted.id, submitted.meta, predictions_frame(result.columns), None), {}


def _missing(sub: Submission, rerun: Submission, rerun_path: str) -> list[Problem]:
    problems = []
    for key in ("model_id", "revision"):
        mine, theirs = sub.meta.get(key), rerun.meta.get(key)
        if mine and theirs and str(mine).lower() != str(theirs).lower():
            problems.append(
                Problem(
                    rerun_path,
                    None,
                    f"the re-run's {key} is {theirs}, the submission's {mine}",
                    f"re-run {sub.meta.get('model_id')} at {sub.meta.get('revision')}",
                )
            )
    for key, what, fix in (("languages", "language", "--langs"), ("methods", "method", "--methods")):
        for value in sub.meta.get(key, []):
            if value not in rerun.meta.get(key, []):
                problems.append(
                    Problem(
                        rerun_path,
                        None,
                        f"the re-run has no '{value}' {what}, which the submission declares",
                        f"re-run with {fix} including {value}",
                    )
                )
    return problems


def _same(a: pd.Series, b: pd.Series) -> np.ndarray:
    a, b = a.to_numpy(dtype=object), b.to_numpy(dtype=object)
    both_none = np.array([x is None for x in a]) & np.array([y is None for y in b])
    return (a == b) | both_none


def compare(
    submitted: Submission,
    rerun: Submission,
    dataset: Dataset,
    atol: float = DEFAULT_ATOL,
    rae_mode: str = "robust",
    rerun_path: str = "rerun",
) -> Comparison:
    """Compare per (item, language); raises when the re-run does not cover what the submission declares."""
    problems = _missing(submitted, rerun, rerun_path)
    if problems:
        raise BloomBenchError(problems)
    langs = set(submitted.meta["languages"])
    methods = set(submitted.meta["methods"])
    left = item_table(submitted, dataset, rae_mode)
    right = item_table(rerun, dataset, rae_mode)
    left = left[left["lang"].isin(langs)]
    merged = left.merge(right, on=["question_id", "lang"], how="left", suffixes=("_s", "_r"), indicator=True)
    absent = merged[merged["_merge"] != "both"]
    if len(absent):
        first = absent.iloc[0]
        raise BloomBenchError(
            Problem(
                rerun_path,
                None,
                f"the re-run misses {len(absent)} (item, language) pairs, e.g. ({first.question_id}, {first.lang})",
                "re-run every item of the submission",
            )
        )
    notes = []
    shares: dict[str, float | None] = {"rae": None, "lbs": None, "logprob": None}
    max_diff = None
    for method in ("rae", "lbs"):
        if method not in methods:
            continue
        same = _same(merged[f"pred_{method}_s"], merged[f"pred_{method}_r"])
        shares[method] = float(same.mean())
        bad = merged.loc[~same, ["question_id", "lang", f"pred_{method}_s", f"pred_{method}_r"]]
        notes += [(q, lg, method, s, r) for q, lg, s, r in bad.itertuples(index=False)]
    if "lbs" in methods:
        keys = merged[["question_id", "lang"]]
        sub_p = keys.merge(submitted.predictions, on=["question_id", "lang"], how="left")  # keeps the order of keys
        re_p = keys.merge(rerun.predictions, on=["question_id", "lang"], how="left")
        lp_cols = [f"lp_{o}" for o in OPTIONS]
        tok_cols = [f"tok_{o}" for o in OPTIONS]
        tok_s, tok_r = sub_p[tok_cols].to_numpy(float), re_p[tok_cols].to_numpy(float)
        diff = np.abs(sub_p[lp_cols].to_numpy(float) / tok_s - re_p[lp_cols].to_numpy(float) / tok_r).max(axis=1)
        same_tokens = (tok_s == tok_r).all(axis=1)
        within = same_tokens & (diff <= atol)
        shares["logprob"] = float(within.mean())
        max_diff = round(float(diff.max()), 6)
        for i in np.flatnonzero(~within):
            why = (
                f"per-token logprob differs by {diff[i]:.4f}"
                if same_tokens[i]
                else f"token counts {tok_s[i].astype(int).tolist()} vs {tok_r[i].astype(int).tolist()}"
            )
            notes.append((sub_p["question_id"].iat[i], sub_p["lang"].iat[i], "logprob", why, ""))
    table = pd.DataFrame(notes, columns=["question_id", "lang", "check", "submitted", "rerun"])
    return Comparison(
        n=len(merged),
        rae=None if shares["rae"] is None else round(shares["rae"], 6),
        lbs=None if shares["lbs"] is None else round(shares["lbs"], 6),
        logprob=None if shares["logprob"] is None else round(shares["logprob"], 6),
        max_abs_logprob_diff=max_diff,
        atol=atol,
        disagreements=table,
    )


def format_comparison(c: Comparison, show: int = 10) -> str:
    """Agreement figures and the first ``show`` disagreeing items, as plain text."""
    lines = [f"compared {c.n} (item, language) pairs"]
    for name, value in (("rae", c.rae), ("lbs", c.lbs)):
        lines.append(f"  {name:<8} agreement {'N/A' if value is None else f'{value:.4f}'}")
    if c.logprob is not None:
        lines.append(f"  logprob  within {c.atol} nats/token {c.logprob:.4f} (max difference {c.max_abs_logprob_diff:.4f})")
    if len(c.disagreements):
        lines.append(f"{len(c.disagreements)} disagreements; the first {min(show, len(c.disagreements))}:")
        for row in c.disagreements.head(show).itertuples(index=False):
            detail = row.submitted if row.check == "logprob" else f"submitted {row.submitted} vs re-run {row.rerun}"
            lines.append(f"  {row.question_id} {row.lang} {row.check}: {detail}")
    return "\n".join(lines)


def who_verifies(by: str | None) -> str:
    """--by, else $GITHUB_ACTOR, else git's user.name; raises when none is known."""
    if by:
        return by
    if os.environ.get("GITHUB_ACTOR"):
        return os.environ["GITHUB_ACTOR"]
    try:
        name = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    if not name:
        raise BloomBenchError(
            Problem(
                "--by",
                None,
                "no maintainer name: --by is empty, $GITHUB_ACTOR unset, git config user.name empty",
                "pass --by YOUR_GITHUB_HANDLE",
            )
        )
    return name


def verified_record(c: Comparison, by: str, hardware: str, rerun: str, today: _dt.date | None = None) -> dict:
    today = today or _dt.datetime.now(_dt.timezone.utc).date()
    return {
        "by": by,
        "date": today.isoformat(),
        "hardware": hardware,
        "agreement": c.record(),
        "rerun": rerun,
        "tool_version": __version__,
    }


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _top_level_members(text: str) -> tuple[list[tuple[str, int, int, int]], int]:
    """(key, key_start, value_start, value_end) of each top-level member, and the closing brace's index."""
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    if text[i : i + 1] != "{":
        raise ValueError("not an object")
    i += 1
    members = []
    while True:
        i = _skip_ws(text, i)
        if text[i] == "}":
            return members, i
        key_start = i
        key, i = decoder.raw_decode(text, i)
        i = _skip_ws(text, i)
        if text[i] != ":":
            raise ValueError("expected ':'")
        value_start = _skip_ws(text, i + 1)
        _, value_end = decoder.raw_decode(text, value_start)
        members.append((key, key_start, value_start, value_end))
        i = _skip_ws(text, value_end)
        if text[i] == ",":
            i += 1


def set_top_level_key(text: str, key: str, value) -> str:
    """``text`` (a JSON object) with ``key`` set to ``value``; every other byte is kept.

    The new value is written in the file's own indentation: replaced in place when the key
    exists, added as the last member otherwise.
    """
    members, close = _top_level_members(text)
    ref = members[-1] if members else None
    indent = None
    if ref is not None:
        line_start = text.rfind("\n", 0, ref[1]) + 1
        prefix = text[line_start : ref[1]]
        if line_start > 0 and not prefix.strip():
            indent = prefix
    if indent is None:
        dumped = json.dumps(value, ensure_ascii=False)
    else:
        dumped = json.dumps(value, ensure_ascii=False, indent=indent or " ").replace("\n", "\n" + indent)
    for name, _, start, end in members:
        if name == key:
            return text[:start] + dumped + text[end:]
    if ref is None:
        return text[:close] + json.dumps({key: value}, ensure_ascii=False)[1:-1] + text[close:]
    sep = f",\n{indent}" if indent is not None else ", "
    return text[: ref[3]] + sep + json.dumps(key, ensure_ascii=False) + ": " + dumped + text[ref[3] :]


def write_verified(folder: str | Path, record: dict) -> Path:
    """Set ``verified`` in the submission's metadata.json atomically (temporary file, then rename)."""
    path = Path(folder) / METADATA
    text = path.read_text(encoding="utf-8")
    new = set_top_level_key(text, "verified", record)
    json.loads(new)  # never write a file that does not parse
    fd, tmp = tempfile.mkstemp(prefix=".metadata.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(new)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
