"""`bloombench validate`: exit 0 for valid folders, one clear line per problem otherwise."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from leaderboard.cli import main
from leaderboard.synthetic import make_predictions

from .conftest import REPO, make_meta


def run_validate(folder, sample_path):
    result = CliRunner().invoke(main, ["validate", str(folder), "--dataset", str(sample_path)])
    return result.exit_code, result.output


def assert_one_problem(output: str, *fragments: str) -> str:
    """The output names the file and line, and contains no traceback."""
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if line.startswith("error:")]
    assert lines, output
    hit = [line for line in lines if all(f in line for f in fragments)]
    assert hit, f"no line with {fragments} in:\n{output}"
    return hit[0]


def test_valid_submission_passes(write_submission, sample_path):
    code, out = run_validate(write_submission(), sample_path)
    assert code == 0, out
    assert out.startswith("ok:")


def test_rae_only_submission_without_lbs_passes(write_submission, sample_path):
    folder = write_submission(make_meta(methods=["rae"], languages=["ar"]))
    code, out = run_validate(folder, sample_path)
    assert code == 0, out


def test_bom_is_accepted(write_submission, sample_path):
    folder = write_submission()
    pred = folder / "predictions.jsonl"
    pred.write_bytes(b"\xef\xbb\xbf" + pred.read_bytes())
    meta = folder / "metadata.json"
    meta.write_bytes(b"\xef\xbb\xbf" + meta.read_bytes())
    code, out = run_validate(folder, sample_path)
    assert code == 0, out


def _lines(sample_records, **kw):
    return make_predictions(sample_records, **kw)


def _corrupt(folder, lineno: int, new_text: str):
    pred = folder / "predictions.jsonl"
    lines = pred.read_text(encoding="utf-8").split("\n")
    lines[lineno - 1] = new_text
    pred.write_text("\n".join(lines), encoding="utf-8")


def test_invalid_json_line(write_submission, sample_path):
    folder = write_submission()
    _corrupt(folder, 7, '{"question_id": "abc", ')
    code, out = run_validate(folder, sample_path)
    assert code == 1
    assert_one_problem(out, "predictions.jsonl:7", "invalid JSON")


def test_positive_nonfinite_and_missing_logprobs(write_submission, sample_path, sample_records):
    lines = _lines(sample_records)
    lines[2]["lbs"]["A"]["logprob"] = 1.5
    lines[4]["lbs"]["C"].pop("logprob")
    lines[6]["lbs"]["D"]["tokens"] = 0
    lines[8]["lbs"]["B"]["tokens"] = 2.5
    lines[10].pop("lbs")
    folder = write_submission(lines=lines)
    _corrupt(folder, 13, json.dumps(lines[12]).replace(str(lines[12]["lbs"]["A"]["logprob"]), "NaN", 1))
    code, out = run_validate(folder, sample_path)
    assert code == 1
    assert "must be <= 0" in assert_one_problem(out, "predictions.jsonl:3", "lbs.A.logprob", "positive")
    assert_one_problem(out, "predictions.jsonl:5", "missing field 'logprob'")
    assert_one_problem(out, "predictions.jsonl:7", "lbs.D.tokens is 0", ">= 1")
    assert_one_problem(out, "predictions.jsonl:9", "lbs.B.tokens is 2.5")
    assert_one_problem(out, "predictions.jsonl:11", "missing 'lbs'")
    assert_one_problem(out, "predictions.jsonl:13", "non-finite")


def test_duplicates_unknown_ids_and_undeclared_languages(write_submission, sample_path, sample_records):
    lines = _lines(sample_records, langs=("en",))
    lines.append(dict(lines[0]))
    lines.append({**lines[1], "question_id": "f" * 32})
    lines.append({**lines[2], "lang": "ar"})
    folder = write_submission(make_meta(languages=["en"]), lines=lines)
    code, out = run_validate(folder, sample_path)
    assert code == 1
    n = len(sample_records)
    assert_one_problem(out, f"predictions.jsonl:{n + 1}", "duplicate", "first on line 1")
    assert_one_problem(out, f"predictions.jsonl:{n + 2}", "unknown question_id ffff")
    assert_one_problem(out, f"predictions.jsonl:{n + 3}", "language 'ar' is not declared", "add 'ar' to languages")


def test_missing_items_are_counted_per_language(write_submission, sample_path, sample_records):
    lines = [line for line in _lines(sample_records) if not (line["lang"] == "ar" and line["question_id"] < "3")]
    folder = write_submission(lines=lines)
    code, out = run_validate(folder, sample_path)
    assert code == 1
    line = assert_one_problem(out, "predictions.jsonl", "missing", "for language 'ar'")
    missing = sum(1 for r in sample_records if r["question_id"] < "3")
    assert f"missing {missing} of {len(sample_records)}" in line


def test_empty_predictions_and_blank_lines(write_submission, sample_path, sample_records):
    folder = write_submission(lines=[])
    code, out = run_validate(folder, sample_path)
    assert code == 1 and "is empty" in assert_one_problem(out, "predictions.jsonl")
    folder2 = write_submission(make_meta(model="Other"), lines=_lines(sample_records))
    _corrupt(folder2, 4, "")
    code, out = run_validate(folder2, sample_path)
    assert code == 1
    assert_one_problem(out, "predictions.jsonl:4", "blank line")


@pytest.mark.parametrize(
    "change, fragments",
    [
        ({"kind": "prediction"}, ("metadata.json:", 'kind is "prediction"', "use one of predictions, reported, model")),
        ({"languages": ["en", "fr"]}, ("metadata.json:", "languages[1]", "use one of en, ar")),
        ({"link": "javascript:alert(1)"}, ("metadata.json:", "link", "does not match")),
        (
            {"revision": "main"},
            (
                "metadata.json:",
                "revision 'main'",
            ),
        ),
        ({"colour": "red"}, ("metadata.json:", "colour", "unknown field")),
        ({"model": None}, ("metadata.json:", "model is")),
    ],
)
def test_metadata_schema_violations(write_submission, sample_path, change, fragments):
    meta = make_meta()
    folder = write_submission(meta)
    meta.update(change)
    (folder / "metadata.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    code, out = run_validate(folder, sample_path)
    assert code == 1
    line = assert_one_problem(out, *fragments)
    assert re.search(r"metadata\.json:\d+:", line), line  # points at the field's line


def test_missing_required_field_and_folder_mismatch(write_submission, sample_path):
    folder = write_submission()
    meta = json.loads((folder / "metadata.json").read_text())
    meta.pop("organization")
    (folder / "metadata.json").write_text(json.dumps(meta))
    code, out = run_validate(folder, sample_path)
    assert code == 1
    assert_one_problem(out, "missing field 'organization'", "add 'organization'")
    renamed = folder.parent / "wrong-name"
    meta["organization"] = "X"
    folder.rename(renamed)
    (renamed / "metadata.json").write_text(json.dumps(meta))
    code, out = run_validate(renamed, sample_path)
    assert code == 1
    assert_one_problem(out, "folder 'wrong-name' does not match", "rename the folder to 'test-model-7b'")


def test_invalid_metadata_json_names_the_line(write_submission, sample_path):
    folder = write_submission()
    (folder / "metadata.json").write_text('{\n  "model": "x",\n  "kind": predictions\n}')
    code, out = run_validate(folder, sample_path)
    assert code == 1
    assert_one_problem(out, "metadata.json:3", "invalid JSON")


def test_not_a_folder_and_no_metadata(tmp_path, sample_path):
    code, out = run_validate(tmp_path / "missing", sample_path)
    assert code == 1 and "is not a folder" in out
    (tmp_path / "empty").mkdir()
    code, out = run_validate(tmp_path / "empty", sample_path)
    assert code == 1
    assert_one_problem(out, "metadata.json", "not found")


def test_dataset_revision_mismatch_is_reported(write_submission, sample_path, monkeypatch):
    folder = write_submission(make_meta(dataset_revision="abc1234"))
    import leaderboard.benchmark as bm

    real = bm.load_dataset

    def fake(path=None, revision=None):
        ds = real(sample_path)
        return bm.Dataset(ds.path, "def5678", ds.sha256, ds.items)

    monkeypatch.setattr("leaderboard.options.load_dataset", fake)
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert result.exit_code == 1
    assert_one_problem(result.output, "dataset revision abc1234", "--dataset-revision abc1234")


def test_problem_flood_is_capped(write_submission, sample_path, sample_records):
    lines = _lines(sample_records)
    for line in lines:
        line["lbs"]["A"]["logprob"] = 2.0
    folder = write_submission(lines=lines)
    code, out = run_validate(folder, sample_path)
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert code == 1 and len(errors) == 51
    assert f"and {len(lines) - 50} more problems" in errors[-1]


def test_every_seeded_entry_validates(sample_path):
    folders = sorted(p.parent for p in (REPO / "submissions").glob("*/metadata.json"))
    assert len(folders) >= 8
    result = CliRunner().invoke(main, ["validate", *map(str, folders), "--dataset", str(sample_path)])
    assert result.exit_code == 0, result.output
    assert result.output.count("ok:") == len(folders)


def test_reported_entry_with_undeclared_method(tmp_path, sample_path):
    from leaderboard.synthetic import write_json

    meta = make_meta(model="Paper Model", kind="reported", methods=["rae"])
    folder = tmp_path / "paper-model"
    write_json(folder / "metadata.json", meta)
    levels = {lv: 0.5 for lv in ["Remember", "Understand", "Apply", "Analyze", "Evaluate", "Create"]}
    write_json(folder / "reported.json", {"en": {"rae": {"levels": levels}, "lbs": {"levels": levels}}})
    code, out = run_validate(folder, sample_path)
    assert code == 1
    assert_one_problem(out, "reported.json", "undeclared method 'lbs'")
    write_json(folder / "reported.json", {"en": {"rae": {"levels": {**levels, "Apply": 1.7}}}})
    code, out = run_validate(folder, sample_path)
    assert code == 1
    assert_one_problem(out, "reported.json", "levels.Apply")


def test_written_by_someone_else(tmp_path, sample_path, sample_records):
    """A hand-written file (different key order, spacing, CRLF line ends, unicode escapes) validates."""
    from leaderboard.synthetic import write_json

    meta = make_meta(model="Hand Written")
    folder = tmp_path / "hand-written"
    write_json(folder / "metadata.json", meta)
    rows = []
    for rec in sample_records:
        for lang in ("en", "ar"):
            lbs = {o: {"tokens": 3, "logprob": -1.0 - k} for k, o in enumerate("DCBA")}
            reply = "\u0627\u0644\u0625\u062c\u0627\u0628\u0629: \u0662" if lang == "ar" else "Answer: 2"
            rows.append(
                '{{ "lbs" : {} , "response":{}, "lang":"{}","question_id":"{}" }}'.format(
                    json.dumps(lbs), json.dumps(reply), lang, rec["question_id"]
                )
            )
    (folder / "predictions.jsonl").write_bytes(("\r\n".join(rows) + "\r\n").encode())
    code, out = run_validate(folder, sample_path)
    assert code == 0, out


def test_fast_path_agrees_with_the_schema(sample_records):
    """The fast check accepts a line only if the JSON Schema does (and its numbers are finite), and vice versa."""
    import copy
    import math
    import random

    from validator.validate import _schema_valid, _well_formed

    rng = random.Random(7)
    base = make_predictions(sample_records[:20], seed=3)
    bad_values = [
        None,
        True,
        2.0,
        3.0,
        -2.0,
        0,
        -0.0,
        1,
        -1,
        2.5,
        -3.5,
        "x",
        "",
        [],
        {},
        float("inf"),
        float("-inf"),
        float("nan"),
        10**30,
        -(10**30),
    ]
    paths = [
        ("question_id",),
        ("lang",),
        ("response",),
        ("lbs",),
        ("lbs", "A"),
        ("lbs", "B", "logprob"),
        ("lbs", "C", "tokens"),
        ("extra",),
        ("lbs", "E"),
    ]
    checked = 0
    for _ in range(3000):
        rec = copy.deepcopy(rng.choice(base))
        path = rng.choice(paths)
        target = rec
        for key in path[:-1]:
            target = target[key]
        if rng.random() < 0.15:
            target.pop(path[-1], None)
        else:
            target[path[-1]] = rng.choice(bad_values + ["en", "ar", "0" * 32, "F" * 32])
        finite = (
            all(
                isinstance(o, dict) and isinstance(o.get("logprob"), (int, float)) and math.isfinite(o["logprob"])
                for o in (rec.get("lbs") or {}).values()
            )
            if isinstance(rec.get("lbs"), dict)
            else True
        )
        assert _well_formed(rec) == (_schema_valid(rec) and finite), rec
        checked += 1
    assert checked == 3000
    assert all(_well_formed(line) for line in base)


def test_columnar_fast_path_never_accepts_what_the_line_checker_rejects(tmp_path, sample_dataset, sample_records):
    """Random damage to a valid file: the fast path either steps aside (None) or agrees, column for column."""
    import json as _json
    import random

    from validator.columnar import fast_columns
    from validator.validate import CheckResult, check_predictions

    meta = make_meta()
    clean = [_json.dumps(line, ensure_ascii=False) for line in make_predictions(sample_records, seed=5)]

    def line_checker(raw: bytes) -> CheckResult:
        path = tmp_path / "predictions.jsonl"
        path.write_bytes(raw)
        result = CheckResult()
        check_predictions(path, meta, sample_dataset, result, use_columnar=False)
        return result

    def same(a: dict, b: dict) -> bool:
        import numpy as np

        return all(list(a[k]) == list(b[k]) for k in ("question_id", "lang", "response")) and all(
            np.array_equal(np.asarray(a[k], float), np.asarray(b[k], float), equal_nan=True) for k in ("lp", "tok")
        )

    raw = ("\n".join(clean) + "\n").encode()
    fast = fast_columns(raw, meta, sample_dataset)
    assert fast is not None and same(fast, line_checker(raw).columns)

    damage = [
        lambda s: s.replace('"lang": "en"', '"lang": "fr"'),
        lambda s: s.replace('"response": "', '"response": 7, "x": "'),
        lambda s: s.replace('"tokens": ', '"tokens": 0.5 + ', 1).replace("0.5 + ", "0.", 1),
        lambda s: s.replace('"tokens": ', '"tokens": -', 1),
        lambda s: s.replace('"logprob": -', '"logprob": ', 1),
        lambda s: s.replace('"logprob": ', '"logprob": NaN, "z": ', 1),
        lambda s: s.replace('"logprob": -', '"logprob": -1e999, "w": -', 1),
        lambda s: s.replace('"question_id": "', '"question_id": "x', 1),
        lambda s: s.replace('"question_id": "', '"lang": "en", "question_id": "', 1),
        lambda s: s.replace(', "lbs": ', ', "lbs": null, "y": ', 1),
        lambda s: s.replace('"A": {', '"E": {', 1),
        lambda s: s.replace('"response": "', '"response": "\\ud800', 1),
        lambda s: s + "\n",
        lambda s: s + "\r",
        lambda s: s.replace('"tokens": ', '"tokens": 1', 1) + "",
    ]
    rng = random.Random(2)
    accepted = 0
    for trial in range(120):
        lines = list(clean)
        kind = rng.randrange(len(damage) + 3)
        if kind == len(damage):
            lines.pop(rng.randrange(len(lines)))  # a missing pair
        elif kind == len(damage) + 1:
            lines.insert(rng.randrange(len(lines)), lines[rng.randrange(len(lines))])  # a duplicate
        elif kind == len(damage) + 2:
            rng.shuffle(lines)  # still valid
        else:
            i = rng.randrange(len(lines))
            lines[i] = damage[kind](lines[i])
        raw = ("\n".join(lines) + "\n").encode()
        fast = fast_columns(raw, meta, sample_dataset)
        if fast is not None:
            slow = line_checker(raw)
            assert not slow.problems, (trial, kind, slow.problems[:2])
            assert same(fast, slow.columns)
            accepted += 1
    assert 5 <= accepted < 120  # valid variants pass, damaged ones are left to the line checker
