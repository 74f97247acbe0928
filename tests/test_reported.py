"""The paper's eight models, seeded as `reported` entries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from leaderboard.benchmark import load_spec
from leaderboard.submission import find_submissions, submission_id

from .conftest import REPO

PAPER = REPO.parent / "shared" / "papers" / "bloombench-paper.md"
ENTRIES = find_submissions(REPO / "submissions")
REPORTED = [p for p in ENTRIES if json.loads((p / "metadata.json").read_text())["kind"] == "reported"]


def test_the_papers_eight_models_are_seeded():
    names = {json.loads((p / "metadata.json").read_text())["model"] for p in REPORTED}
    assert names == {
        "Qwen2-VL-7B",
        "Qwen2.5-VL-7B",
        "Gemma3-4B",
        "Gemma3-12B",
        "Gemma3-27B",
        "Gemma4-26B-A4B",
        "Gemma4-31B",
        "GPT-4o mini",
    }


@pytest.mark.parametrize("folder", REPORTED, ids=lambda p: p.name)
def test_level_scores_reproduce_published_micro_and_macro(folder):
    counts = {lv.name: lv.count for lv in load_spec().levels}
    reported = json.loads((folder / "reported.json").read_text())
    checked = 0
    for lang, per_method in reported.items():
        for method, s in per_method.items():
            levels = s["levels"]
            micro = sum(levels[k] * counts[k] for k in counts) / sum(counts.values())
            macro = sum(levels.values()) / 6
            assert abs(micro - s["micro"]) <= 0.005, (lang, method, micro, s["micro"])
            assert abs(macro - s["macro"]) <= 0.005, (lang, method, macro, s["macro"])
            checked += 1
    assert checked in (2, 4)  # GPT-4o mini has RAE only


@pytest.mark.parametrize("folder", REPORTED, ids=lambda p: p.name)
def test_published_leaves_agree_with_their_levels(folder):
    spec = load_spec()
    reported = json.loads((folder / "reported.json").read_text())
    for per_method in reported.values():
        for s in per_method.values():
            if not s.get("leaves"):
                continue
            assert len(s["leaves"]) == 106
            for level in spec.levels:
                leaves = spec.leaves_of(level.name)
                weighted = sum(s["leaves"][leaf.id] * leaf.count for leaf in leaves) / level.count
                assert abs(weighted - s["levels"][level.name]) <= 0.0075


def test_no_lbs_for_the_closed_model():
    meta = json.loads((REPO / "submissions" / "gpt-4o-mini" / "metadata.json").read_text())
    assert meta["methods"] == ["rae"] and meta["open_weights"] is False


@pytest.mark.parametrize("folder", ENTRIES, ids=lambda p: p.name)
def test_folder_name_matches_metadata(folder):
    assert folder.name == submission_id(json.loads((folder / "metadata.json").read_text()))


@pytest.mark.skipif(not PAPER.is_file(), reason="the paper's markdown is not beside the repository")
def test_committed_entries_are_what_the_script_extracts_from_the_paper(tmp_path):
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "paper_tables.py"), str(PAPER), str(tmp_path)], check=True, capture_output=True
    )
    for folder in REPORTED:
        for name in ("metadata.json", "reported.json"):
            assert (tmp_path / folder.name / name).read_text() == (folder / name).read_text(), f"{folder.name}/{name}"
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == sorted(p.name for p in REPORTED)
