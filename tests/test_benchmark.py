"""The benchmark definition and the dataset loader."""

from __future__ import annotations

import json

import pytest

from leaderboard.benchmark import load_dataset, load_spec, split_path
from leaderboard.errors import BloomBenchError
from leaderboard.synthetic import make_dataset, write_json


def test_spec_matches_the_paper_counts():
    spec = load_spec()
    assert spec.level_names == ["Remember", "Understand", "Apply", "Analyze", "Evaluate", "Create"]
    assert [lv.count for lv in spec.levels] == [2948, 1592, 499, 1431, 592, 685]
    assert len(spec.leaves) == 106
    assert sum(leaf.count for leaf in spec.leaves) == 7747
    for level in spec.levels:
        assert sum(leaf.count for leaf in spec.leaves_of(level.name)) == level.count
    assert len({leaf.id for leaf in spec.leaves}) == 106


def test_a_leaf_is_its_whole_path_not_its_name():
    spec = load_spec()
    colors = [leaf for leaf in spec.leaves if leaf.name == "color"]
    assert {leaf.level for leaf in colors} == {"Remember", "Analyze"}
    assert len({leaf.id for leaf in colors}) == 2
    # Twelve core-object leaves exist under both Remember and Understand.
    people = {leaf.id for leaf in spec.leaves if leaf.name == "people"}
    assert people == {
        "Remember / core object recognition / people",
        "Understand / compositional core object recognition / people",
    }


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Remember -> Recognition -> Attribute Recognition", ["remember", "recognition", "attribute recognition"]),
        ("ANALYZE -_ Atypical Attribute Identification", ["analyze", "atypical attribute identification"]),
        ("Evaluate -> Harm & Safety Evaluation", ["evaluate", "harm-safety evaluation"]),
    ],
)
def test_paths_are_normalised(raw, expected):
    assert split_path(raw) == expected


def test_sample_file_loads_and_is_labelled(sample_dataset):
    assert len(sample_dataset.items) == 318
    assert all(item.question["en"].startswith("[SAMPLE]") for item in sample_dataset.items)
    assert {item.leaf_id for item in sample_dataset.items} == {leaf.id for leaf in load_spec().leaves}


def test_full_size_synthetic_dataset_has_paper_counts(tmp_path):
    path = tmp_path / "full.json"
    write_json(path, make_dataset(seed=3))
    ds = load_dataset(path)
    assert len(ds.items) == 7747
    by_level = {}
    for item in ds.items:
        by_level[item.level] = by_level.get(item.level, 0) + 1
    assert by_level == {lv.name: lv.count for lv in load_spec().levels}


def test_bom_and_separator_variants_are_accepted(tmp_path, sample_records):
    recs = json.loads(json.dumps(sample_records[:5]))
    recs[0]["hierarchy"]["lvl1"] = recs[0]["hierarchy"]["lvl1"].replace(" -> ", " -_ ").upper()
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(recs).encode())
    assert len(load_dataset(path).items) == 5


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r["hierarchy"].update(leaf="no such leaf"), "is not in the BloomBench taxonomy"),
        (lambda r: r["multiple_choice_qa"].update(answer="E"), "is not one of A, B, C, D"),
        (lambda r: r["multiple_choice_qa"].pop("choice_B_ar"), "choice_B_ar"),
        (lambda r: r.pop("hierarchy"), "missing field"),
    ],
)
def test_bad_dataset_records_are_named(tmp_path, sample_records, mutate, message):
    recs = json.loads(json.dumps(sample_records[:3]))
    mutate(recs[1])
    path = tmp_path / "bad.json"
    write_json(path, recs)
    with pytest.raises(BloomBenchError) as err:
        load_dataset(path)
    text = str(err.value)
    assert "record 1" in text and message in text and str(path) in text


def test_missing_dataset_file_is_a_clear_error(tmp_path):
    with pytest.raises(BloomBenchError, match="dataset file not found"):
        load_dataset(tmp_path / "nope.json")


def test_hub_download_uses_the_pinned_revision(monkeypatch, sample_path):
    calls = []

    def fake_download(**kwargs):
        calls.append(kwargs)
        return str(sample_path)

    monkeypatch.setattr("huggingface_hub.hf_hub_download", fake_download)
    ds = load_dataset()
    spec = load_spec()
    assert calls == [
        {
            "repo_id": "QCRI/BloomBench",
            "filename": "BloomBench.json",
            "repo_type": "dataset",
            "revision": spec.dataset["revision"],
        }
    ]
    assert ds.revision == spec.dataset["revision"] and len(ds.items) == 318
    load_dataset(revision="abc123")
    assert calls[-1]["revision"] == "abc123"


def test_hub_failure_is_one_clear_line(monkeypatch):
    def offline(**kwargs):
        raise OSError("network unreachable")

    monkeypatch.setattr("huggingface_hub.hf_hub_download", offline)
    with pytest.raises(BloomBenchError) as err:
        load_dataset()
    assert len(err.value.problems) == 1
    assert "could not download BloomBench.json" in str(err.value) and "--dataset PATH" in str(err.value)
