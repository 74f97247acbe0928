"""`bloombench score` against an independent computation of the paper's definitions."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest
from click.testing import CliRunner

from leaderboard.cli import main
from leaderboard.scoring import score_submission
from leaderboard.submission import load_submission

from .conftest import REPO, make_meta

LEVELS = ["Remember", "Understand", "Apply", "Analyze", "Evaluate", "Create"]


def independent_scores(records: list[dict], lines: list[dict], level_of_leaf) -> dict:
    """The paper's definitions written out plainly, with no code shared with the scorer."""
    gold, level, leaf, texts = {}, {}, {}, {}
    for r in records:
        q = r["question_id"]
        gold[q] = r["multiple_choice_qa"]["answer"]
        level[q], leaf[q] = level_of_leaf(r)
        for lang in ("en", "ar"):
            texts[q, lang] = [r["multiple_choice_qa"][f"choice_{o}_{lang}"] for o in "ABCD"]
    hits = defaultdict(list)  # (lang, method) -> [(level, leaf, correct)]
    for line in lines:
        q, lang = line["question_id"], line["lang"]
        digits = re.findall(r"[1-4]", line["response"].strip())  # the paper's rule
        rae = "ABCD"[int(digits[0]) - 1] if len(digits) == 1 else None
        hits[lang, "rae"].append((level[q], leaf[q], rae == gold[q]))
        if "lbs" in line:
            by_tok = [line["lbs"][o]["logprob"] / line["lbs"][o]["tokens"] for o in "ABCD"]
            by_chr = [line["lbs"][o]["logprob"] / len(texts[q, lang][k]) for k, o in enumerate("ABCD")]
            hits[lang, "lbs"].append((level[q], leaf[q], "ABCD"[by_tok.index(max(by_tok))] == gold[q]))
            hits[lang, "lbs_char"].append((level[q], leaf[q], "ABCD"[by_chr.index(max(by_chr))] == gold[q]))
    out: dict = {}
    for (lang, method), rows in hits.items():
        per_level = {lv: [c for lv2, _, c in rows if lv2 == lv] for lv in LEVELS}
        per_leaf = defaultdict(list)
        for _, lf, c in rows:
            per_leaf[lf].append(c)
        level_acc = {lv: sum(v) / len(v) for lv, v in per_level.items()}
        out.setdefault(lang, {})[method] = {
            "micro": sum(c for *_, c in rows) / len(rows),
            "macro": sum(level_acc.values()) / 6,
            "levels": level_acc,
            "leaves": {lf: sum(v) / len(v) for lf, v in per_leaf.items()},
        }
    return out


@pytest.fixture
def leaf_of(sample_dataset):
    by_id = sample_dataset.by_id()
    return lambda r: (by_id[r["question_id"]].level, by_id[r["question_id"]].leaf_id)


@pytest.mark.parametrize(
    "accuracy", [0.35, 0.8, {"Remember": 0.3, "Understand": 0.9, "Apply": 0.5, "Analyze": 0.6, "Evaluate": 0.95, "Create": 0.1}]
)
def test_scores_match_an_independent_computation(write_submission, sample_dataset, sample_records, leaf_of, accuracy):
    from leaderboard.synthetic import make_predictions

    lines = make_predictions(sample_records, accuracy=accuracy, seed=11)
    folder = write_submission(lines=lines)
    sub = load_submission(folder, sample_dataset)
    got = score_submission(sub, sample_dataset, rae_mode="paper")
    want = independent_scores(sample_records, lines, leaf_of)
    assert set(got) == {"en", "ar"} and set(got["en"]) == {"rae", "lbs", "lbs_char"}
    for lang in want:
        for method, w in want[lang].items():
            g = got[lang][method]
            assert g["micro"] == pytest.approx(w["micro"], abs=1e-6)
            assert g["macro"] == pytest.approx(w["macro"], abs=1e-6)
            assert g["levels"] == pytest.approx(w["levels"], abs=1e-6)
            assert g["leaves"] == pytest.approx(w["leaves"], abs=1e-6)
            assert len(g["leaves"]) == 106


def test_lbs_ties_go_to_the_earlier_option_and_char_normalisation_differs(write_submission, sample_dataset, sample_records):
    from leaderboard.synthetic import make_predictions

    lines = make_predictions(sample_records, langs=("en",), seed=5)
    rec = sample_records[0]
    for o in "ABCD":
        lines[0]["lbs"][o] = {"logprob": -2.0, "tokens": 2}  # a four-way tie
    folder = write_submission(make_meta(languages=["en"]), lines=lines)
    from leaderboard.scoring import item_table

    table = item_table(load_submission(folder, sample_dataset), sample_dataset)
    row = table[table["question_id"] == rec["question_id"]].iloc[0]
    assert row["pred_lbs"] == "A"
    texts = [rec["multiple_choice_qa"][f"choice_{o}_en"] for o in "ABCD"]
    shortest = "ABCD"[[len(t) for t in texts].index(max(len(t) for t in texts))]
    assert row["pred_lbs_char"] == shortest  # equal sums: the longest text has the highest per-character score


def test_undeclared_language_and_method_are_absent_not_zero(write_submission, sample_dataset):
    folder = write_submission(make_meta(languages=["ar"], methods=["rae"]))
    scores = score_submission(load_submission(folder, sample_dataset), sample_dataset)
    assert list(scores) == ["ar"] and list(scores["ar"]) == ["rae"]


def test_robust_extraction_reads_more_replies_than_the_paper_rule(write_submission, sample_dataset, sample_records):
    from leaderboard.synthetic import make_predictions

    lines = make_predictions(sample_records, accuracy=1.0, seed=2)
    folder = write_submission(lines=lines)
    sub = load_submission(folder, sample_dataset)
    robust = score_submission(sub, sample_dataset, rae_mode="robust")
    paper = score_submission(sub, sample_dataset, rae_mode="paper")
    # every synthetic reply names the right option; the strict rule misses Arabic-Indic digits and letters
    assert robust["en"]["rae"]["micro"] == 1.0 and robust["ar"]["rae"]["micro"] == 1.0
    assert paper["ar"]["rae"]["micro"] < 0.9


def test_score_cli_json_and_table(write_submission, sample_path):
    folder = write_submission()
    runner = CliRunner()
    result = runner.invoke(main, ["score", str(folder), "--dataset", str(sample_path), "--format", "json", "--no-ci"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data["en"]["rae"]) >= {"micro", "macro", "levels", "leaves"}
    table = runner.invoke(main, ["score", str(folder), "--dataset", str(sample_path), "--format", "table"])
    assert table.exit_code == 0, table.output
    rows = table.output.strip().splitlines()
    assert rows[0].split()[:4] == ["lang", "method", "micro", "macro"]
    assert len(rows) == 1 + 6  # en/ar x rae/lbs/lbs_char
    en_rae = next(r for r in rows if r.startswith("en") and r.split()[1] == "rae").split()
    assert float(en_rae[2]) == pytest.approx(data["en"]["rae"]["micro"], abs=5e-4)


def test_score_reported_entry_prints_published_numbers():
    folder = REPO / "submissions" / "gpt-4o-mini"
    result = CliRunner().invoke(main, ["score", str(folder), "--format", "json", "--no-ci"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["en"]["rae"]["micro"] == 0.824 and data["ar"]["rae"]["macro"] == 0.768
    assert "lbs" not in data["en"]  # N/A in the paper: absent, not 0


def test_score_of_an_invalid_submission_is_one_line_per_problem(write_submission, sample_path):
    folder = write_submission()
    (folder / "predictions.jsonl").write_text("{oops\n")
    result = CliRunner().invoke(main, ["score", str(folder), "--dataset", str(sample_path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "predictions.jsonl:1: invalid JSON" in result.output
