"""A columnar fast path for the common case: a predictions file without a single problem.

pyarrow parses the whole file in C++ into typed columns (about 4x faster than parsing line
by line), then every rule of the format is checked on whole columns. Anything unusual makes
:func:`fast_columns` return None, and the line-by-line checker in ``validate.py``, which names
each problem with its line, runs instead; so this path never decides a file is invalid and
never accepts one the line-by-line checker would reject (tests/test_validate.py holds the two
to agreement).
"""

from __future__ import annotations

import re

import numpy as np

from leaderboard.benchmark import LANGS, OPTIONS, Dataset

_QID = r"^[0-9a-f]{32}$"
_HIGH_SURROGATE = re.compile(rb"\\u[dD][89abAB]")  # pyarrow and Python differ on lone surrogates: leave those to Python
_SCHEMA = None


def _schema(pa):
    global _SCHEMA
    if _SCHEMA is None:
        option = pa.struct([("logprob", pa.float64()), ("tokens", pa.int64())])
        _SCHEMA = pa.schema(
            [
                ("question_id", pa.string()),
                ("lang", pa.string()),
                ("response", pa.string()),
                ("lbs", pa.struct([(o, option) for o in OPTIONS])),
            ]
        )
    return _SCHEMA


def fast_columns(raw: bytes, meta: dict, dataset: Dataset) -> dict | None:
    """The parsed columns if the whole file is valid (and plain: LF line ends, no blank lines), else None."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.json as pj
    except ImportError:  # pragma: no cover - pyarrow is a dependency; the line path still works without it
        return None
    if not raw.endswith(b"\n") or raw.startswith(b"\n") or b"\n\n" in raw or b"\r" in raw or _HIGH_SURROGATE.search(raw):
        return None
    n = raw.count(b"\n")
    wants_lbs = "lbs" in meta["methods"]
    try:
        table = pj.read_json(
            pa.BufferReader(raw),
            read_options=pj.ReadOptions(use_threads=False, block_size=len(raw) + 1),
            parse_options=pj.ParseOptions(explicit_schema=_schema(pa), unexpected_field_behavior="error"),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows != n:
        return None
    qid, lang, response = (table.column(c).combine_chunks() for c in ("question_id", "lang", "response"))
    if qid.null_count or lang.null_count or response.null_count:
        return None
    if not pc.all(pc.match_substring_regex(qid, _QID)).as_py():
        return None
    declared = [x for x in LANGS if x in meta["languages"]]
    if not pc.all(pc.is_in(lang, value_set=pa.array(declared))).as_py():
        return None
    known = pa.array([item.question_id for item in dataset.items])
    if not pc.all(pc.is_in(qid, value_set=known)).as_py():
        return None
    # no duplicates and full coverage: every (item, declared language) exactly once
    if n != len(known) * len(declared):
        return None
    pairs = pc.binary_join_element_wise(qid, lang, "|")
    if pc.count_distinct(pairs).as_py() != n:
        return None
    lbs = table.column("lbs").combine_chunks()
    if wants_lbs:
        if lbs.null_count:
            return None
        lp, tok = [], []
        for o in OPTIONS:
            option = lbs.field(o)
            if option.null_count:
                return None
            logprob, tokens = option.field("logprob"), option.field("tokens")
            if logprob.null_count or tokens.null_count:
                return None
            lp.append(logprob.to_numpy(zero_copy_only=False))
            tok.append(tokens.to_numpy(zero_copy_only=False))
        lp_arr, tok_arr = np.stack(lp, axis=1), np.stack(tok, axis=1)
        if not (np.isfinite(lp_arr).all() and (lp_arr <= 0).all() and (tok_arr >= 1).all()):
            return None
        lp_flat, tok_flat = lp_arr.ravel(), tok_arr.astype(np.float64).ravel()
    else:
        if lbs.null_count != n:
            return None
        lp_flat = tok_flat = np.full(4 * n, np.nan)
    return {
        "question_id": qid.to_pylist(),
        "lang": lang.to_pylist(),
        "response": response.to_pylist(),
        "lp": lp_flat,  # 4 per line, options in order
        "tok": tok_flat,
    }
