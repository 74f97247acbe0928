"""Check a submission folder against the format: one clear line per problem.

Every problem names the file, the line (or field) and the fix. Nothing here raises
for a user's mistake; problems are collected and returned.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import fastjsonschema
import jsonschema
import orjson

from leaderboard.benchmark import LANGS, OPTIONS, Dataset
from leaderboard.errors import BloomBenchError, Problem
from leaderboard.submission import METADATA, PREDICTIONS, REPORTED, submission_id

from .columnar import fast_columns

SCHEMA_DIR = Path(__file__).parent / "schema"
MAX_PROBLEMS = 50  # per file: past this, one summary line says how many more there are

DatasetArg = Dataset | Callable[[], Dataset] | None


@cache
def load_schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


@cache
def _fast(name: str):
    return fastjsonschema.compile(load_schema(name))


@cache
def _slow(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_schema(name))


@dataclass
class CheckResult:
    problems: list[Problem] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    columns: dict | None = None  # parsed predictions, column-wise
    reported: dict | None = None


_QID = re.compile(r"[0-9a-f]{32}").fullmatch
_LINE_KEYS = frozenset({"question_id", "lang", "response", "lbs"})
_LBS_KEYS = frozenset(OPTIONS)
_OPTION_KEYS = frozenset({"logprob", "tokens"})
_NUMBER = (float, int)


def _well_formed(rec: object) -> bool:
    """The common case, checked fast: True only for a line the prediction schema accepts
    and whose log-probabilities are finite. Anything else goes to the schema validator,
    which names the problem (tests hold the two to agreement)."""
    if type(rec) is not dict or not rec.keys() <= _LINE_KEYS:
        return False
    qid = rec.get("question_id")
    if type(qid) is not str or not _QID(qid) or rec.get("lang") not in LANGS or type(rec.get("response")) is not str:
        return False
    if "lbs" not in rec:
        return True
    lbs = rec["lbs"]
    if type(lbs) is not dict or lbs.keys() != _LBS_KEYS:
        return False
    for option in lbs.values():
        if type(option) is not dict or option.keys() != _OPTION_KEYS:
            return False
        lp, tokens = option["logprob"], option["tokens"]
        if type(lp) not in _NUMBER or not -math.inf < lp <= 0:
            return False
        if type(tokens) is int:
            if tokens < 1:
                return False
        elif type(tokens) is not float or not tokens.is_integer() or tokens < 1:  # JSON Schema: 4.0 is an integer
            return False
    return True


def _schema_valid(rec: object) -> bool:
    try:
        _fast("prediction")(rec)
        return True
    except fastjsonschema.JsonSchemaException:
        return False


def _where(error: jsonschema.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return path.lstrip(".") or "(top level)"


def _schema_message(error: jsonschema.ValidationError) -> tuple[str, str]:
    """A readable (message, fix) for one schema error."""
    where = _where(error)
    v = error.validator
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing field '{missing}'" + (f" in {where}" if where != "(top level)" else ""), f"add '{missing}'"
    if v == "additionalProperties":
        return f"{where}: {error.message}", "remove the unknown field or fix its spelling (see validator/schema/)"
    if v in ("enum", "const"):
        allowed = error.validator_value if v == "enum" else [error.validator_value]
        return f"{where} is {json.dumps(error.instance, ensure_ascii=False)[:60]}", f"use one of {', '.join(map(str, allowed))}"
    if v == "maximum" and where.endswith("logprob"):
        return f"{where} is positive ({error.instance})", "log-probabilities are natural-log sums and must be <= 0"
    if v == "minimum" and where.endswith("tokens"):
        return f"{where} is {error.instance}", "token counts must be integers >= 1"
    if v == "type" and where.endswith("tokens"):
        return f"{where} is {json.dumps(error.instance)}", "token counts must be integers >= 1"
    if v == "type":
        expected = error.validator_value if isinstance(error.validator_value, str) else " or ".join(error.validator_value)
        return f"{where} is {json.dumps(error.instance, ensure_ascii=False)[:60]}", f"it must be of type {expected}"
    if v == "pattern":
        return f"{where} '{str(error.instance)[:60]}' does not match {error.validator_value}", "fix the value's format"
    return f"{where}: {error.message[:160]}", "see validator/schema/ for the format"


def _schema_problems(name: str, data, file: str, line_of: Callable[[jsonschema.ValidationError], int | None]) -> list[Problem]:
    errors = sorted(_slow(name).iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    out = []
    for error in errors:
        msg, fix = _schema_message(error)
        out.append(Problem(file, line_of(error), msg, fix))
    return out


def _read_json(path: Path) -> tuple[object | None, str, list[Problem]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, "", [Problem(str(path), None, f"is not UTF-8 (byte {exc.start})", "save the file as UTF-8")]
    if not text.strip():
        return None, text, [Problem(str(path), None, "is empty", "write the JSON object described in the README")]
    try:
        return json.loads(text, parse_constant=_reject_constant), text, []
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        msg = getattr(exc, "msg", str(exc))
        return None, text, [Problem(str(path), line, f"invalid JSON ({msg})", "fix the syntax (a JSON linter shows where)")]


def _key_line(text: str, key: str) -> int | None:
    """Line number of the first occurrence of a top-level key, for pointing at metadata fields."""
    needle = f'"{key}"'
    idx = text.find(needle)
    return text.count("\n", 0, idx) + 1 if idx >= 0 else None


def _reject_constant(name: str):
    raise ValueError(f"non-finite number {name}")


def check_metadata(folder: Path, result: CheckResult) -> None:
    path = folder / METADATA
    if not path.is_file():
        result.problems.append(
            Problem(str(path), None, "not found", "every submission folder needs a metadata.json (see README)")
        )
        return
    data, text, problems = _read_json(path)
    result.problems += problems
    if data is None:
        return
    if not isinstance(data, dict):
        result.problems.append(Problem(str(path), 1, "is not a JSON object", "metadata.json holds one object"))
        return

    def line_of(error):
        top = error.absolute_path[0] if error.absolute_path else None
        return _key_line(text, str(top)) if top is not None else 1

    result.problems += _schema_problems("metadata", data, str(path), line_of)
    result.meta = data
    if isinstance(data.get("model"), str) and data["model"]:
        expected = submission_id(data)
        if folder.name != expected:
            result.problems.append(
                Problem(
                    str(path),
                    _key_line(text, "model"),
                    f"folder '{folder.name}' does not match the model name",
                    f"rename the folder to '{expected}'",
                )
            )


def _resolve(dataset: DatasetArg) -> Dataset | None:
    return dataset() if callable(dataset) else dataset


def check_submission(folder: Path, dataset: DatasetArg = None) -> CheckResult:
    """Check everything in one submission folder; returns the problems and what was parsed."""
    folder = Path(folder)
    result = CheckResult()
    if not folder.is_dir():
        result.problems.append(Problem(str(folder), None, "is not a folder", "pass submissions/<id>/"))
        return result
    check_metadata(folder, result)
    meta = result.meta
    if not meta or result.problems:
        return result
    kind = meta["kind"]
    pred_path, rep_path = folder / PREDICTIONS, folder / REPORTED
    if kind == "predictions":
        if not pred_path.is_file():
            result.problems.append(
                Problem(str(pred_path), None, "not found", "kind 'predictions' needs predictions.jsonl beside metadata.json")
            )
            return result
        ds = _resolve(dataset)
        if ds is None:
            result.problems.append(
                Problem(str(pred_path), None, "cannot check coverage without the dataset", "pass --dataset PATH")
            )
            return result
        declared = meta.get("dataset_revision")
        if declared and ds.revision and declared != ds.revision:
            result.problems.append(
                Problem(
                    str(folder / METADATA),
                    None,
                    f"predictions were made on dataset revision {declared}, checking against {ds.revision}",
                    f"pass --dataset-revision {declared}",
                )
            )
            return result
        check_predictions(pred_path, meta, ds, result)
    elif kind == "reported":
        if not rep_path.is_file():
            result.problems.append(
                Problem(str(rep_path), None, "not found", "kind 'reported' needs reported.json with the published scores")
            )
            return result
        check_reported(rep_path, meta, result)
    for path, allowed in ((pred_path, kind == "predictions"), (rep_path, kind == "reported")):
        if path.exists() and not allowed:
            result.problems.append(
                Problem(str(path), None, f"not expected for kind '{kind}'", f"remove it or set kind accordingly in {METADATA}")
            )
    return result


def check_reported(path: Path, meta: dict, result: CheckResult) -> None:
    data, text, problems = _read_json(path)
    result.problems += problems
    if data is None:
        return
    result.problems += _schema_problems(
        "reported", data, str(path), lambda e: _key_line(text, str(e.absolute_path[0])) if e.absolute_path else 1
    )
    if not isinstance(data, dict):
        return
    langs, methods = set(meta.get("languages", [])), set(meta.get("methods", []))
    for lang, per_method in data.items():
        if lang not in langs:
            result.problems.append(
                Problem(
                    str(path),
                    _key_line(text, lang),
                    f"scores for undeclared language '{lang}'",
                    f"add '{lang}' to languages in metadata.json",
                )
            )
        for method in per_method if isinstance(per_method, dict) else []:
            base = "lbs" if method.startswith("lbs") else method
            if base not in methods:
                result.problems.append(
                    Problem(
                        str(path),
                        _key_line(text, method),
                        f"scores for undeclared method '{method}'",
                        f"add '{base}' to methods in metadata.json",
                    )
                )
    result.reported = data


def check_predictions(path: Path, meta: dict, dataset: Dataset, result: CheckResult, use_columnar: bool = True) -> None:
    """Parse predictions.jsonl; collect problems and, if clean, the columns.

    A valid file is usually read by the columnar fast path (``columnar.py``); otherwise, and
    with ``use_columnar=False``, line by line, naming every problem with its line.
    """
    file = str(path)
    problems: list[Problem] = []
    extra = 0

    def add(line: int | None, message: str, fix: str) -> None:
        nonlocal extra
        if len(problems) < MAX_PROBLEMS:
            problems.append(Problem(file, line, message, fix))
        else:
            extra += 1

    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        result.problems.append(Problem(file, None, f"is not UTF-8 (byte {exc.start})", "save the file as UTF-8"))
        return
    if use_columnar:
        columns = fast_columns(raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw, meta, dataset)
        if columns is not None:  # the whole file is valid: nothing to report line by line
            result.columns = columns
            return
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        result.problems.append(Problem(file, None, "is empty", "write one JSON line per (item, language); see README"))
        return

    langs = set(meta["languages"])
    wants_lbs = "lbs" in meta["methods"]
    known = {item.question_id for item in dataset.items}
    seen: dict[tuple[str, str], int] = {}
    qids, lang_col, responses, lp, tok = [], [], [], [], []
    nan4 = [math.nan] * 4

    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            add(n, "blank line", "remove it: every line must be one JSON object")
            continue
        try:
            rec = orjson.loads(raw)  # fast; rejects NaN/Infinity, which json.loads below names
        except orjson.JSONDecodeError:
            try:
                rec = json.loads(raw, parse_constant=_reject_constant)
            except ValueError as exc:
                nonfinite = "non-finite" in str(exc)
                msg = str(exc) if nonfinite else f"invalid JSON ({getattr(exc, 'msg', exc)})"
                fix = (
                    "log-probabilities must be finite numbers <= 0" if nonfinite else "each line must be one complete JSON object"
                )
                add(n, msg, fix)
                continue
        if not _well_formed(rec):
            here = [] if _schema_valid(rec) else _schema_problems("prediction", rec, file, lambda e, n=n: n)
            if not here:  # valid for the schema, so the fast check failed on finiteness (1e999 overflows to inf)
                here = [Problem(file, n, "non-finite log-probability", "log-probabilities must be finite numbers <= 0")]
            for p in here:
                add(p.line, p.message, p.fix)
            if isinstance(rec, dict) and isinstance(rec.get("question_id"), str) and isinstance(rec.get("lang"), str):
                seen.setdefault((rec["question_id"], rec["lang"]), n)  # present, if broken: not also "missing"
            continue
        qid, lang = rec["question_id"], rec["lang"]
        if qid not in known:
            add(n, f"unknown question_id {qid}", "use ids from the dataset revision named in metadata.json (dataset_revision)")
            continue
        if lang not in langs:
            add(n, f"language '{lang}' is not declared", f"add '{lang}' to languages in metadata.json or remove the line")
            continue
        key = (qid, lang)
        if key in seen:
            add(n, f"duplicate prediction for ({qid}, {lang}), first on line {seen[key]}", "keep one line per (item, language)")
            continue
        seen[key] = n
        lbs = rec.get("lbs")
        if wants_lbs and lbs is None:
            add(n, "missing 'lbs'", "methods declares lbs: give each option's summed logprob and token count")
            continue
        if lbs is not None and not wants_lbs:
            add(n, "'lbs' given but methods does not declare lbs", "add 'lbs' to methods in metadata.json or drop the field")
            continue
        qids.append(qid)
        lang_col.append(lang)
        responses.append(rec["response"])
        if lbs is None:
            lp.extend(nan4)
            tok.extend(nan4)
        else:
            for o in OPTIONS:
                lp.append(lbs[o]["logprob"])
                tok.append(lbs[o]["tokens"])

    for lang in LANGS:
        if lang not in langs:
            continue
        missing = [item.question_id for item in dataset.items if (item.question_id, lang) not in seen]
        if missing:
            examples = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
            add(
                None,
                f"missing {len(missing)} of {len(dataset.items)} items for language '{lang}' (e.g. {examples})",
                f"add one line per item for '{lang}' or remove '{lang}' from languages",
            )
    if extra:
        problems.append(Problem(file, None, f"... and {extra} more problems", "fix the ones above and run validate again"))
    result.problems += problems
    if not problems:
        result.columns = {"question_id": qids, "lang": lang_col, "response": responses, "lp": lp, "tok": tok}


def validate_submission(folder: str | Path, dataset: DatasetArg = None) -> list[Problem]:
    """All problems in a submission folder (empty when valid)."""
    try:
        return check_submission(Path(folder), dataset).problems
    except BloomBenchError as exc:  # the dataset itself could not be loaded
        return exc.problems
