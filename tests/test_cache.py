"""The score cache: a rebuild reuses unchanged entries and rescores changed ones, with the same results."""

from __future__ import annotations

from leaderboard.site import data as site_data
from leaderboard.synthetic import make_predictions, write_jsonl

from .conftest import REPO, make_meta


def _load(subs, sample_path, cache_dir):
    from leaderboard.options import dataset_loader

    return site_data.load_site_data(
        subs, dataset_loader(str(sample_path)), "sample", intervals=True, workers=1, cache_dir=cache_dir
    )


def test_cached_rebuild_matches_and_skips_scoring(tmp_path, write_submission, sample_path, sample_records, monkeypatch):
    subs = tmp_path / "submissions"
    for i, acc in enumerate([0.4, 0.6, 0.9]):
        write_submission(make_meta(model=f"Model {i}"), lines=make_predictions(sample_records, accuracy=acc, seed=i), root=subs)
    (subs / "gpt-4o-mini").symlink_to(REPO / "submissions" / "gpt-4o-mini")
    cache_dir = tmp_path / "cache"
    cold = _load(subs, sample_path, cache_dir)
    assert len(list(cache_dir.glob("*.json"))) == 4 and len(list(cache_dir.glob("*.npz"))) == 3

    fresh = []
    real = site_data._score_fresh
    monkeypatch.setattr(site_data, "_score_fresh", lambda *a: fresh.append(a[0].name) or real(*a))
    warm = _load(subs, sample_path, cache_dir)
    assert fresh == []
    assert [(e.id, e.scores, e.ranks, e.status) for e in warm.entries] == [
        (e.id, e.scores, e.ranks, e.status) for e in cold.entries
    ]
    assert all("micro" in e.ranks["en"]["rae"] for e in warm.entries)

    # change one submission: only it is scored again, and its new scores show
    changed = subs / "model-1" / "predictions.jsonl"
    write_jsonl(changed, make_predictions(sample_records, accuracy=0.1, seed=9))
    again = _load(subs, sample_path, cache_dir)
    assert fresh == ["model-1"]
    before = {e.id: e.scores["en"]["rae"]["micro"] for e in warm.entries}
    after = {e.id: e.scores["en"]["rae"]["micro"] for e in again.entries}
    assert after["model-1"] != before["model-1"] and after["model-0"] == before["model-0"]


def test_corrupt_cache_entries_are_misses(tmp_path, write_submission, sample_path, monkeypatch):
    subs = tmp_path / "submissions"
    write_submission(root=subs)
    cache_dir = tmp_path / "cache"
    first = _load(subs, sample_path, cache_dir)
    for path in cache_dir.iterdir():
        path.write_bytes(b"garbage")
    fresh = []
    real = site_data._score_fresh
    monkeypatch.setattr(site_data, "_score_fresh", lambda *a: fresh.append(1) or real(*a))
    second = _load(subs, sample_path, cache_dir)
    assert fresh == [1]
    assert second.entries[0].scores == first.entries[0].scores


def test_invalid_submissions_are_never_cached(tmp_path, write_submission, sample_path):
    import pytest

    from leaderboard.errors import BloomBenchError

    subs = tmp_path / "submissions"
    folder = write_submission(root=subs)
    (folder / "predictions.jsonl").write_text("{broken\n")
    with pytest.raises(BloomBenchError):
        _load(subs, sample_path, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.json"))
