"""bloombench verify: a maintainer's re-run against a submission, on the re-run files in tests/data/rerun/."""

from __future__ import annotations

import datetime as dt
import filecmp
import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from leaderboard import __version__
from leaderboard.benchmark import SAMPLE_DATASET, load_dataset
from leaderboard.cli import main
from leaderboard.submission import load_submission
from leaderboard.verify import compare, load_rerun, set_top_level_key, who_verifies, write_verified
from validator.validate import validate_submission

from .conftest import REPO

DATA = REPO / "tests" / "data" / "rerun"
N_PAIRS = 318 * 2  # the sample's items, in en and ar


def _generator():
    spec = importlib.util.spec_from_file_location("make_rerun_files", DATA / "make_rerun_files.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def files(tmp_path) -> Path:
    """A writable copy of tests/data/rerun."""
    shutil.copytree(DATA, tmp_path / "rerun", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return tmp_path / "rerun"


def verify(*args: str):
    return CliRunner().invoke(main, ["verify", *args, "--dataset", str(SAMPLE_DATASET)])


def test_the_shipped_rerun_files_are_what_the_generator_makes(tmp_path):
    _generator().main(tmp_path)
    for rel in [
        "submitted/vision-7b/metadata.json",
        "submitted/vision-7b/predictions.jsonl",
        "rerun-agree/vision-7b/metadata.json",
        "rerun-agree/vision-7b/predictions.jsonl",
        "rerun-disagree.jsonl",
    ]:
        assert filecmp.cmp(tmp_path / rel, DATA / rel, shallow=False), rel


def test_an_agreeing_rerun_marks_the_entry_verified(files, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTOR", raising=False)
    meta_path = files / "submitted" / "vision-7b" / "metadata.json"
    before = meta_path.read_text(encoding="utf-8")
    result = verify(str(files / "submitted" / "vision-7b"), "--rerun", str(files / "rerun-agree" / "vision-7b"), "--by", "alice")
    assert result.exit_code == 0, result.output
    assert f"compared {N_PAIRS} (item, language) pairs" in result.output
    assert f"rae      agreement {1 - 1 / N_PAIRS:.4f}" in result.output  # one reply reads as another option
    assert "lbs      agreement 1.0000" in result.output
    assert "1 disagreements" in result.output and " rae: submitted " in result.output

    after = meta_path.read_text(encoding="utf-8")
    meta = json.loads(after)
    record = meta["verified"]
    assert record["by"] == "alice"
    assert record["date"] == dt.datetime.now(dt.timezone.utc).date().isoformat()
    assert record["hardware"] == "1x NVIDIA H100 80GB HBM3"  # from the re-run's provenance
    assert record["agreement"]["n"] == N_PAIRS
    assert record["agreement"]["rae"] == round(1 - 1 / N_PAIRS, 6)
    assert record["agreement"]["lbs"] == 1.0 and record["agreement"]["logprob_within_atol"] == 1.0
    assert 0 < record["agreement"]["max_abs_logprob_diff"] <= 0.0201
    assert record["rerun"] == str(files / "rerun-agree" / "vision-7b")
    assert record["tool_version"] == __version__
    # Only the "verified" value changed: the bytes before it and after it are the same.
    start = before.index('"verified": ') + len('"verified": ')
    assert after[:start] == before[:start]
    assert after.endswith(before[start + len("null") :])
    assert {k: v for k, v in meta.items() if k != "verified"} == {k: v for k, v in json.loads(before).items() if k != "verified"}
    assert validate_submission(files / "submitted" / "vision-7b", load_dataset(SAMPLE_DATASET)) == []


def test_a_disagreeing_rerun_is_refused_and_changes_nothing(files):
    meta_path = files / "submitted" / "vision-7b" / "metadata.json"
    before = meta_path.read_bytes()
    result = verify(
        str(files / "submitted" / "vision-7b"),
        "--rerun",
        str(files / "rerun-disagree.jsonl"),
        "--by",
        "alice",
        "--hardware",
        "1x L40S",
        "--show",
        "3",
    )
    assert result.exit_code == 1
    assert "not verified: rae 0.9686, lbs 0.9591, logprob 0.9560 below --min-agreement 0.99" in result.output
    assert "74 disagreements; the first 3:" in result.output
    assert meta_path.read_bytes() == before


def test_agreement_is_counted_per_item_and_language(files):
    """The figures follow from how the disagreeing file was made (see make_rerun_files.py)."""
    dataset = load_dataset(SAMPLE_DATASET)
    sub = load_submission(files / "submitted" / "vision-7b", dataset)
    rerun, meta = load_rerun(files / "rerun-disagree.jsonl", sub, dataset)
    assert meta == {}
    c = compare(sub, rerun, dataset)
    lbs_swaps = sum(1 for k in range(N_PAIRS) if k % 25 == 5)
    rae_changes = sum(1 for k in range(N_PAIRS) if k % 33 == 7)
    assert c.n == N_PAIRS
    assert c.rae == round(1 - rae_changes / N_PAIRS, 6)
    assert c.lbs == round(1 - lbs_swaps / N_PAIRS, 6)
    assert c.logprob == round(1 - (lbs_swaps + 2) / N_PAIRS, 6)  # the swaps and two token counts
    by_check = c.disagreements.groupby("check").size().to_dict()
    assert by_check == {"rae": rae_changes, "lbs": lbs_swaps, "logprob": lbs_swaps + 2}
    tokens = c.disagreements[c.disagreements["submitted"].str.startswith("token counts")]
    assert len(tokens) == 2
    assert not c.passed(0.99) and c.passed(0.95)


def test_a_tighter_tolerance_fails_the_noisy_rerun(files):
    dataset = load_dataset(SAMPLE_DATASET)
    sub = load_submission(files / "submitted" / "vision-7b", dataset)
    rerun, _ = load_rerun(files / "rerun-agree" / "vision-7b", sub, dataset)
    loose, tight = compare(sub, rerun, dataset, atol=0.05), compare(sub, rerun, dataset, atol=0.01)
    assert loose.logprob == 1.0 and loose.passed(0.99)
    assert 0 < tight.logprob < 0.9 and not tight.passed(0.99)  # noise of up to 0.02 nats per token
    result = verify(
        str(files / "submitted" / "vision-7b"), "--rerun", str(files / "rerun-agree" / "vision-7b"), "--atol", "0.01", "--by", "a"
    )
    assert result.exit_code == 1 and "logprob" in result.output


def test_a_lower_threshold_accepts_and_a_bare_file_needs_the_hardware(files):
    args = [
        str(files / "submitted" / "vision-7b"),
        "--rerun",
        str(files / "rerun-disagree.jsonl"),
        "--by",
        "bob",
        "--min-agreement",
        "0.95",
    ]
    missing = verify(*args)
    assert missing.exit_code == 1 and "the re-run does not say its hardware" in missing.output
    ok = verify(*args, "--hardware", "2x RTX 4090", "--rerun-url", "https://github.com/o/r/actions/runs/1")
    assert ok.exit_code == 0, ok.output
    record = json.loads((files / "submitted" / "vision-7b" / "metadata.json").read_text())["verified"]
    assert record["hardware"] == "2x RTX 4090" and record["rerun"] == "https://github.com/o/r/actions/runs/1"


def test_dry_run_writes_nothing(files):
    before = (files / "submitted" / "vision-7b" / "metadata.json").read_bytes()
    result = verify(
        str(files / "submitted" / "vision-7b"), "--rerun", str(files / "rerun-agree" / "vision-7b"), "--by", "a", "--dry-run"
    )
    assert result.exit_code == 0 and "agrees (dry run" in result.output
    assert (files / "submitted" / "vision-7b" / "metadata.json").read_bytes() == before


def test_a_rerun_missing_a_language_is_a_clear_error(files):
    folder = files / "rerun-agree" / "vision-7b"
    meta = json.loads((folder / "metadata.json").read_text())
    meta["languages"] = ["en"]
    (folder / "metadata.json").write_text(json.dumps(meta, indent=1))
    lines = [line for line in (folder / "predictions.jsonl").read_text().splitlines() if '"lang": "en"' in line]
    (folder / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    result = verify(str(files / "submitted" / "vision-7b"), "--rerun", str(folder), "--by", "a")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "the re-run has no 'ar' language, which the submission declares; re-run with --langs including ar" in result.output


def test_only_predictions_entries_can_be_verified(tmp_path):
    folder = tmp_path / "gpt-4o-mini"
    folder.mkdir()
    meta = {
        "schema_version": 1,
        "model": "GPT-4o mini",
        "organization": "OpenAI",
        "kind": "model",
        "languages": ["en"],
        "methods": ["rae"],
    }
    meta |= {"open_weights": False, "model_id": "openai/gpt-4o-mini", "revision": "0" * 40, "date": "2026-01-01"}
    (folder / "metadata.json").write_text(json.dumps(meta))
    result = verify(str(folder), "--rerun", str(DATA / "rerun-disagree.jsonl"))
    assert result.exit_code == 1 and "kind 'model' has no predictions to verify" in result.output


def test_who_verifies(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_ACTOR", "octocat")
    assert who_verifies("alice") == "alice"
    assert who_verifies(None) == "octocat"
    monkeypatch.delenv("GITHUB_ACTOR")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (tmp_path / "gitconfig").write_text("[user]\n\tname = Carol Maintainer\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    assert who_verifies(None) == "Carol Maintainer"
    (tmp_path / "gitconfig").write_text("")
    with pytest.raises(Exception, match="pass --by YOUR_GITHUB_HANDLE"):
        who_verifies(None)


@pytest.mark.parametrize(
    "text",
    [
        '{\n "a": 1,\n "verified": null,\n "z": [1, 2]\n}\n',  # the evaluator's indent=1
        '{\n  "a": 1,\n  "notes": "say \\"verified\\": false",\n  "b": {"c": 2}\n}',  # indent=2, key absent
        '{\n\t"a": 1,\n\t"verified": {"by": "x", "date": "2020-01-01"}\n}\n',  # tabs, replace an object
        '{"a": 1, "verified": false}',  # one line
        "{}",
    ],
)
def test_setting_verified_keeps_every_other_byte(text):
    value = {"by": "alice", "date": "2026-11-21", "agreement": {"rae": 1.0}}
    new = set_top_level_key(text, "verified", value)
    data = json.loads(new)
    assert data["verified"] == value
    assert {k: v for k, v in data.items() if k != "verified"} == {k: v for k, v in json.loads(text).items() if k != "verified"}
    assert new.endswith("\n") == text.endswith("\n")
    first = text.find('"verified"')
    if first >= 0 and "say" not in text:  # replaced in place: everything before the value is unchanged
        assert new[: text.index(":", first)] == text[: text.index(":", first)]
    else:  # appended: everything up to the last member is unchanged
        cut = text.rstrip().rstrip("}").rstrip()
        assert new.startswith(cut)
    if "\n" in text:  # nested lines follow the file's indentation
        indent = text.split("\n")[1][: len(text.split("\n")[1]) - len(text.split("\n")[1].lstrip())]
        assert f'\n{indent}"verified": {{\n{indent}{indent}"by": "alice",' in new


def test_a_failed_write_leaves_the_file_and_no_temporary(files, monkeypatch):
    folder = files / "submitted" / "vision-7b"
    before = (folder / "metadata.json").read_bytes()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("leaderboard.verify.os.replace", boom)
    with pytest.raises(OSError):
        write_verified(folder, {"by": "a", "date": "2026-01-01"})
    assert (folder / "metadata.json").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["metadata.json", "predictions.jsonl"]


@pytest.fixture(scope="module")
def tiny_setup(tmp_path_factory):
    """A 12-item dataset with local images and two tiny random Gemma 3 models (different seeds)."""
    import torch
    from PIL import Image

    from evaluator.tiny import build_tiny_gemma3
    from leaderboard.synthetic import make_dataset, write_json

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny models run fastest on one thread
    root = tmp_path_factory.mktemp("tiny-rerun")
    records = make_dataset(per_leaf=1, seed=5)[::9][:12]
    (root / "images").mkdir()
    for i, rec in enumerate(records):
        Image.new("RGB", (40, 30), ((29 * i) % 256, 90, 140)).save(root / "images" / f"{rec['question_id']}.png")
    write_json(root / "BloomBench.json", records)
    yield root, build_tiny_gemma3(root / "model"), build_tiny_gemma3(root / "other-model", seed=1)
    torch.set_num_threads(threads)


def _evaluate(root: Path, model: Path, out: Path, *extra: str):
    args = [
        "evaluate",
        "--model",
        str(model),
        "--organization",
        "Tests",
        "--name",
        "Tiny Gemma",
        "--dataset",
        str(root / "BloomBench.json"),
    ]
    args += ["--images", str(root / "images"), "--out", str(out), "--no-progress", "--device", "cpu", *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.model
def test_a_real_rerun_of_a_tiny_model_verifies_and_another_model_does_not(tiny_setup, tmp_path):
    """Submitted with the shared-prefix LBS in batches of 8, re-run with a full pass per option one at a time."""
    root, model, other = tiny_setup
    submitted = _evaluate(root, model, tmp_path / "submitted" / "tiny-gemma")
    rerun = _evaluate(root, model, tmp_path / "rerun" / "tiny-gemma", "--lbs-impl", "plain", "--batch-size", "1")
    wrong = _evaluate(root, other, tmp_path / "wrong" / "tiny-gemma")
    dataset = ["--dataset", str(root / "BloomBench.json")]

    refused = CliRunner().invoke(main, ["verify", str(submitted), "--rerun", str(wrong), "--by", "alice", *dataset])
    assert refused.exit_code == 1, refused.output
    assert "not verified" in refused.output and "logprob" in refused.output

    result = CliRunner().invoke(main, ["verify", str(submitted), "--rerun", str(rerun), "--by", "alice", *dataset])
    assert result.exit_code == 0, result.output
    record = json.loads((submitted / "metadata.json").read_text())["verified"]
    assert (
        record["agreement"]["n"] == 24 and record["agreement"]["lbs"] == 1.0 and record["agreement"]["logprob_within_atol"] == 1.0
    )
    assert record["agreement"]["max_abs_logprob_diff"] < 1e-3  # float32 on CPU: the two LBS implementations agree closely
    assert record["hardware"] == json.loads((rerun / "metadata.json").read_text())["provenance"]["hardware"]
    assert validate_submission(submitted, load_dataset(root / "BloomBench.json")) == []


def test_a_rerun_of_another_model_revision_is_refused(files):
    folder = files / "rerun-agree" / "vision-7b"
    meta = json.loads((folder / "metadata.json").read_text())
    meta["revision"] = "2" * 40
    (folder / "metadata.json").write_text(json.dumps(meta, indent=1))
    result = verify(str(files / "submitted" / "vision-7b"), "--rerun", str(folder), "--by", "a")
    assert result.exit_code == 1
    assert f"the re-run's revision is {'2' * 40}, the submission's 5d931087ff18f93245ac25633497037779104518" in result.output


def test_other_token_counts_disagree_even_with_the_same_mean(files):
    """Another tokenizer is another model set-up, even when the per-token means happen to match."""
    dataset = load_dataset(SAMPLE_DATASET)
    sub = load_submission(files / "submitted" / "vision-7b", dataset)
    rerun, _ = load_rerun(files / "rerun-agree" / "vision-7b", sub, dataset)
    frame = rerun.predictions
    mean = frame.at[5, "lp_C"] / frame.at[5, "tok_C"]
    frame.at[5, "tok_C"] += 3
    frame.at[5, "lp_C"] = mean * frame.at[5, "tok_C"]
    c = compare(sub, rerun, dataset)
    assert c.logprob == round(1 - 1 / N_PAIRS, 6)
    (row,) = c.disagreements[c.disagreements["check"] == "logprob"].itertuples(index=False)
    assert (row.question_id, row.lang) == (frame.at[5, "question_id"], frame.at[5, "lang"])
    assert row.submitted.startswith("token counts [")
