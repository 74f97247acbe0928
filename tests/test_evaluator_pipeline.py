"""The whole evaluator on a tiny random Gemma 3: evaluate -> validate -> score, resume, shards + merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from leaderboard import __version__
from leaderboard.benchmark import load_dataset
from leaderboard.cli import main
from tests.evaluator_support import N_ITEMS, eval_data, one_thread, read_lines, tiny_model  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.model, pytest.mark.usefixtures("one_thread")]

NAME, SID = "Tiny Gemma3", "tiny-gemma3"


def cli(*args: str):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result


def evaluate_args(model: Path, data: tuple[Path, Path], out: Path, *extra: str) -> list[str]:
    dataset, images = data
    return [
        "evaluate", "--model", str(model), "--organization", "BloomBench tests", "--name", NAME,
        "--dataset", str(dataset), "--images", str(images), "--out", str(out),
        "--batch-size", "4", "--max-new-tokens", "5", "--no-progress", *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def full_run(tiny_model, eval_data, tmp_path_factory) -> Path:  # noqa: F811
    out = tmp_path_factory.mktemp("full") / SID
    result = cli(*evaluate_args(tiny_model, eval_data, out))
    assert result.exit_code == 0, result.output
    return out


def test_full_run_validates_and_scores(full_run, eval_data):  # noqa: F811
    dataset = eval_data[0]
    assert sorted(p.name for p in full_run.iterdir()) == ["metadata.json", "predictions.jsonl"]
    result = cli("validate", full_run, "--dataset", dataset)
    assert result.exit_code == 0, result.output
    assert f"ok: {full_run}" in result.output
    result = cli("score", full_run, "--dataset", dataset, "--format", "json", "--no-ci")
    assert result.exit_code == 0, result.output
    scores = json.loads(result.output)
    for lang in ("en", "ar"):
        for method in ("rae", "lbs", "lbs_char"):
            assert 0.0 <= scores[lang][method]["micro"] <= 1.0
            assert set(scores[lang][method]["levels"]) == {"Remember", "Understand", "Apply", "Analyze", "Evaluate", "Create"}


def test_predictions_hold_raw_replies_and_option_scores(full_run, tiny_model, eval_data):  # noqa: F811
    from transformers import AutoTokenizer

    lines = read_lines(full_run / "predictions.jsonl")
    dataset = load_dataset(eval_data[0])
    assert [(x["question_id"], x["lang"]) for x in lines] == [
        (i.question_id, lang) for i in dataset.items for lang in ("en", "ar")
    ]
    tok = AutoTokenizer.from_pretrained(tiny_model)
    by_id = dataset.by_id()
    for line in lines:
        assert isinstance(line["response"], str) and line["response"]
        options = by_id[line["question_id"]].options[line["lang"]]
        for letter, text in zip("ABCD", options, strict=True):
            score = line["lbs"][letter]
            assert score["logprob"] < 0
            assert score["tokens"] == len(tok(text, add_special_tokens=False)["input_ids"])  # the option's tokens only


def test_metadata_records_provenance(full_run, eval_data):  # noqa: F811
    meta = json.loads((full_run / "metadata.json").read_text(encoding="utf-8"))
    dataset = load_dataset(eval_data[0])
    assert meta["model"] == NAME and meta["kind"] == "predictions" and meta["open_weights"] is True
    assert meta["model_id"] is None and meta["revision"] is None  # a local folder, no --model-id / --revision
    assert meta["languages"] == ["en", "ar"] and meta["methods"] == ["rae", "lbs"]
    prov = meta["provenance"]
    assert prov["tool_version"] == __version__
    assert prov["dataset_sha256"] == dataset.sha256
    assert "1) {option_1}\n2) {option_2}\n3) {option_3}\n4) {option_4}\n" in prov["prompts"]["rae"]["en"]
    assert prov["prompts"]["rae"]["ar"] == prov["prompts"]["rae"]["en"]  # the paper frames both languages in English
    assert "{option_1}" not in prov["prompts"]["lbs"]["en"]
    assert prov["decoding"]["rae"]["do_sample"] is False and prov["decoding"]["rae"]["max_new_tokens"] == 5
    assert (
        prov["model_class"] == "Gemma3ForConditionalGeneration" and prov["processor_class"] == "Gemma3Processor"
    )  # via the Auto classes
    assert prov["dtype"] == "float32" and prov["device"] == "cpu" and prov["hardware"].startswith("CPU")
    for key in ("transformers_version", "torch_version", "started", "finished"):
        assert isinstance(prov[key], str) and prov[key]
    assert prov["duration_s"] > 0 and prov["shard"] is None and prov["pairs"] == 2 * N_ITEMS


def test_rerun_of_a_finished_folder_does_nothing(full_run, tiny_model, eval_data):  # noqa: F811
    before = (full_run / "predictions.jsonl").read_bytes(), (full_run / "metadata.json").read_bytes()
    result = cli(*evaluate_args(tiny_model, eval_data, full_run))
    assert result.exit_code == 0, result.output
    assert "already complete" in result.output
    assert ((full_run / "predictions.jsonl").read_bytes(), (full_run / "metadata.json").read_bytes()) == before


def test_resume_after_a_killed_run_gives_the_same_predictions(full_run, tiny_model, eval_data, tmp_path):  # noqa: F811
    from evaluator.runner import EvalConfig, run_evaluation
    from evaluator.store import PARTIAL, STATE

    out = tmp_path / SID
    dataset, images = eval_data
    cfg = EvalConfig(
        model=str(tiny_model), out=out, organization="BloomBench tests", name=NAME, dataset_path=str(dataset),
        images=images, batch_size=4, max_new_tokens=5, progress=False,
    )  # fmt: skip
    assert run_evaluation(cfg, max_batches=2, log=lambda m: None) is None
    assert len(read_lines(out / PARTIAL)) == 8 and (out / STATE).is_file() and not (out / "metadata.json").exists()
    with open(out / PARTIAL, "ab") as fh:  # killed in the middle of writing a line
        fh.write(b'{"question_id": "0f3a9')

    result = cli(*evaluate_args(tiny_model, eval_data, out))
    assert result.exit_code == 0, result.output
    assert "8 of 24 item-language pairs already done" in result.output
    assert (out / "predictions.jsonl").read_bytes() == (full_run / "predictions.jsonl").read_bytes()
    assert sorted(p.name for p in out.iterdir()) == ["metadata.json", "predictions.jsonl"]
    assert json.loads((out / "metadata.json").read_text(encoding="utf-8"))["provenance"]["sessions"] == 2
    assert cli("validate", out, "--dataset", dataset).exit_code == 0


def test_resume_with_other_settings_is_refused(tiny_model, eval_data, tmp_path):  # noqa: F811
    from evaluator.runner import EvalConfig, run_evaluation

    out = tmp_path / SID
    cfg = EvalConfig(
        model=str(tiny_model), out=out, organization="BloomBench tests", name=NAME, dataset_path=str(eval_data[0]),
        images=eval_data[1], batch_size=4, max_new_tokens=5, progress=False,
    )  # fmt: skip
    run_evaluation(cfg, max_batches=1, log=lambda m: None)
    result = cli(*evaluate_args(tiny_model, eval_data, out, "--langs", "en"))
    assert result.exit_code == 1
    assert "holds a run with other settings (languages:" in result.output
    assert "Traceback" not in result.output


def _assert_same_predictions(a: list[dict], b: list[dict]) -> None:
    assert [(x["question_id"], x["lang"], x["response"]) for x in a] == [(x["question_id"], x["lang"], x["response"]) for x in b]
    for x, y in zip(a, b, strict=True):
        for o in "ABCD":
            assert x["lbs"][o]["tokens"] == y["lbs"][o]["tokens"]
            assert x["lbs"][o]["logprob"] == pytest.approx(y["lbs"][o]["logprob"], abs=1e-4)


def test_shards_merge_into_the_uninterrupted_run(full_run, tiny_model, eval_data, tmp_path):  # noqa: F811
    dataset = eval_data[0]
    shards = []
    for k in (1, 2, 3):
        folder = tmp_path / "shards" / str(k)
        result = cli(*evaluate_args(tiny_model, eval_data, folder, "--shard", f"{k}/3"))
        assert result.exit_code == 0, result.output
        shards.append(folder)
    counts = [len(read_lines(s / "predictions.jsonl")) for s in shards]
    assert counts == [8, 8, 8]

    for name, args in (("plain", []), ("checked", ["--dataset", str(dataset)])):
        out = tmp_path / name / SID
        result = cli("merge", out.parent if name == "plain" else out, *reversed(shards), *args)  # OUT/<id>/ or the folder itself
        assert result.exit_code == 0, result.output
        assert cli("validate", out, "--dataset", dataset).exit_code == 0
        _assert_same_predictions(read_lines(out / "predictions.jsonl"), read_lines(full_run / "predictions.jsonl"))
        meta = json.loads((out / "metadata.json").read_text(encoding="utf-8"))
        assert meta["provenance"]["shard"] is None and [s["shard"] for s in meta["provenance"]["shards"]] == ["1/3", "2/3", "3/3"]


def test_merge_refuses_incomplete_or_overlapping_shards(tiny_model, eval_data, tmp_path):  # noqa: F811
    shards = []
    for k in (1, 2):
        folder = tmp_path / "shards" / str(k)
        assert cli(*evaluate_args(tiny_model, eval_data, folder, "--shard", f"{k}/2", "--langs", "en")).exit_code == 0
        shards.append(folder)
    out = tmp_path / "merged" / SID
    result = cli("merge", out, shards[0])
    assert result.exit_code == 1 and "shard(s) 2/2 missing" in result.output
    result = cli("merge", out, shards[0], shards[1], shards[0])
    assert result.exit_code == 1 and "is shard 1/2 again" in result.output
    assert not out.exists()


def test_out_may_be_the_submissions_folder(tiny_model, eval_data, tmp_path):  # noqa: F811
    result = cli(*evaluate_args(tiny_model, eval_data, tmp_path / "submissions", "--langs", "ar", "--methods", "lbs"))
    assert result.exit_code == 0, result.output
    folder = tmp_path / "submissions" / SID  # named by the submission id, as the validator requires
    assert cli("validate", folder, "--dataset", eval_data[0]).exit_code == 0
    lines = read_lines(folder / "predictions.jsonl")
    assert {x["lang"] for x in lines} == {"ar"} and all(x["response"] == "" and "lbs" in x for x in lines)


def test_two_runs_never_write_one_folder(tiny_model, eval_data, tmp_path):  # noqa: F811
    from evaluator.store import exclusive

    out = tmp_path / SID
    with exclusive(out):  # another evaluate holds the folder
        result = cli(*evaluate_args(tiny_model, eval_data, out))
    assert result.exit_code == 1
    assert "another bloombench evaluate is writing to this folder" in result.output
    assert not (out / "predictions.partial.jsonl").exists()
