"""Validate and score a full-size submission (7,747 items x 2 languages, with LBS).

Targets on the 2-core CI machine: validate < 2 s, score < 1 s.
Prints the figures and their ratio to the target; takes the best of --repeat runs.

    python benchmarks/bench_core.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from leaderboard.benchmark import load_dataset  # noqa: E402
from leaderboard.scoring import aggregate, item_table, items_frame  # noqa: E402
from leaderboard.submission import load_submission, submission_id  # noqa: E402
from leaderboard.synthetic import make_dataset, make_meta, make_predictions, write_json, write_jsonl  # noqa: E402
from leaderboard.uncertainty import add_intervals  # noqa: E402
from validator.validate import check_submission  # noqa: E402


def best_of(n: int, fn) -> tuple[float, object]:
    times, out = [], None
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        records = make_dataset(seed=1)
        write_json(tmp / "BloomBench.json", records)
        meta = make_meta("Bench Model")
        folder = tmp / submission_id(meta)
        write_json(folder / "metadata.json", meta)
        lines = make_predictions(records, accuracy=0.7, seed=1)
        write_jsonl(folder / "predictions.jsonl", lines)
        size_mb = (folder / "predictions.jsonl").stat().st_size / 1e6

        dataset = load_dataset(tmp / "BloomBench.json")
        items_frame(dataset)  # built once per dataset and cached, like in a build

        t_validate, result = best_of(args.repeat, lambda: check_submission(folder, dataset))
        assert not result.problems, result.problems[:3]
        sub = load_submission(folder, dataset)
        t_score, scores = best_of(args.repeat, lambda: aggregate(item_table(sub, dataset)))
        t_both, _ = best_of(args.repeat, lambda: aggregate(item_table(load_submission(folder, dataset), dataset)))
        table = item_table(sub, dataset)
        t_ci, _ = best_of(args.repeat, lambda: add_intervals(aggregate(table), table))

    print(f"submission: {len(lines)} lines ({len(records)} items x 2 languages, with LBS), {size_mb:.1f} MB")
    print(f"validate:           {t_validate:6.3f} s   target 2.0 s   ratio {t_validate / 2.0:.2f}")
    print(f"score (loaded):     {t_score:6.3f} s   target 1.0 s   ratio {t_score / 1.0:.2f}")
    print(f"validate + score:   {t_both:6.3f} s")
    print(f"95% intervals:      {t_ci:6.3f} s   (1,000 bootstrap resamples, all accuracies; score --format json adds them)")
    print(f"en rae micro = {scores['en']['rae']['micro']:.3f}")


if __name__ == "__main__":
    main()
