"""How long the intervals take: 100 full submissions (7,747 items, en + ar, rae + lbs + lbs_char), 1,000 resamples.

Target (the issue): every interval of 100 full submissions in under 30 s on a 2-core machine.
Prints the time to draw the weights, the intervals (micro, macro, 6 levels, 106 leaves per
language and method), the paired gaps, the shared ranks and one paired comparison.

    python benchmarks/bench_uncertainty.py [--submissions 100] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from leaderboard import uncertainty as U
from leaderboard.benchmark import LANGS, load_spec
from leaderboard.synthetic import question_id

TARGET_S = 30.0


def item_tables(n_submissions: int, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Item tables in leaderboard.scoring.item_table's shape, for models that share item difficulty."""
    spec = load_spec()
    rows = [(question_id(0, leaf.id, i), leaf.level, leaf.id) for leaf in spec.leaves for i in range(leaf.count)]
    items = pd.DataFrame(rows, columns=["question_id", "level", "leaf_id"])
    base = pd.concat([items.assign(lang=lang) for lang in LANGS], ignore_index=True)
    rng = np.random.default_rng(seed)
    difficulty = np.tile(rng.normal(0, 1.5, len(items)), len(LANGS))
    tables = {}
    for k in range(n_submissions):
        skill = rng.uniform(-0.5, 2.5)
        table = base.copy()
        for m in U.METHODS:
            logit = skill - difficulty + rng.normal(0, 1, len(table))
            table[f"correct_{m}"] = logit > 0
        tables[f"model-{k:03d}"] = table
    return tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=U.N_RESAMPLES)
    args = parser.parse_args()
    tables = item_tables(args.submissions)
    first = next(iter(tables.values()))
    print(
        f"{args.submissions} submissions x {len(first) // 2:,} items x 2 languages x 3 methods, {args.resamples} resamples, {os.cpu_count()} CPUs"
    )

    U._CACHE.clear()
    t0 = time.perf_counter()
    boot = U.make_bootstrap(first, n_resamples=args.resamples)
    t_weights = time.perf_counter() - t0
    t0 = time.perf_counter()
    results = {name: U.intervals(table, boot) for name, table in tables.items()}
    t_intervals = time.perf_counter() - t0
    t0 = time.perf_counter()
    gaps = {name: U.gap_intervals(table, boot) for name, table in tables.items()}
    t_gaps = time.perf_counter() - t0
    t0 = time.perf_counter()
    ranks = {(lang, m): U.shared_ranks(tables, lang, m) for lang in LANGS for m in U.METHODS}
    t_ranks = time.perf_counter() - t0
    t0 = time.perf_counter()
    names = list(tables)
    U.compare(tables[names[0]], tables[names[1]], leaves=True)
    t_compare = time.perf_counter() - t0

    n_ci = sum(
        len(b["levels_ci95"]) + len(b["leaves_ci95"]) + 2 for r in results.values() for per in r.values() for b in per.values()
    )
    total = t_weights + t_intervals + t_gaps + t_ranks
    print(f"  weights W ({args.resamples} x {boot.weights.shape[1]:,}, drawn once)  {t_weights:7.2f} s")
    print(
        f"  intervals, {n_ci:,} accuracies            {t_intervals:7.2f} s  ({1000 * t_intervals / len(tables):.0f} ms per submission)"
    )
    print(f"  paired gaps (en-ar, rae-lbs, rae-lbs_char) {t_gaps:7.2f} s")
    print(f"  shared ranks, 6 (lang, method) tables      {t_ranks:7.2f} s")
    print(f"  one compare A B with 106 leaves            {t_compare:7.2f} s")
    print(f"all intervals, gaps and ranks: {total:.2f} s (target {TARGET_S:.0f} s: {total / TARGET_S:.2f} of it)")
    sizes = [b["micro_ci95"][1] - b["micro_ci95"][0] for r in results.values() for per in r.values() for b in per.values()]
    print(
        f"median micro interval width {100 * float(np.median(sizes)):.2f} points; rank groups en/rae: {len(set(ranks[('en', 'rae')].values()))}"
    )
    assert len(gaps) == len(tables)


if __name__ == "__main__":
    main()
