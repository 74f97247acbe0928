"""Intervals, paired comparisons and shared ranks (leaderboard.uncertainty), on simulated submissions."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from leaderboard import uncertainty as U
from leaderboard.benchmark import load_spec

from .conftest import REPO, make_meta

SPEC = load_spec()
REPO_SUBMISSIONS = REPO / "submissions"


def design(scale: float = 1.0) -> pd.DataFrame:
    """The benchmark's items (question_id, level, leaf_id), every leaf at ``scale`` x its paper count."""
    rows = [(f"{leaf.id}#{i}", leaf.level, leaf.id) for leaf in SPEC.leaves for i in range(max(1, round(leaf.count * scale)))]
    return pd.DataFrame(rows, columns=["question_id", "level", "leaf_id"])


def table_from(items: pd.DataFrame, correct: dict[tuple[str, str], np.ndarray]) -> pd.DataFrame:
    """An item table (one row per question_id x lang) from per-(lang, method) correctness vectors."""
    langs = sorted({lang for lang, _ in correct}, key=["en", "ar"].index)
    frame = pd.concat([items.assign(lang=lang) for lang in langs], ignore_index=True)
    for m in sorted({m for _, m in correct}):
        frame[f"correct_{m}"] = np.concatenate([correct[(lang, m)] for lang in langs]).astype(bool)
    return frame


def simulate(items: pd.DataFrame, p_item: np.ndarray, seed: int) -> pd.DataFrame:
    """Six independent simulated submissions (2 langs x 3 methods) with true item accuracies p_item."""
    rng = np.random.default_rng(seed)
    return table_from(items, {(lang, m): rng.random(len(items)) < p_item for lang in ("en", "ar") for m in U.METHODS})


# ---------------------------------------------------------------- coverage


def coverage(n_tables: int, alpha: float) -> dict[str, float]:
    """Share of intervals that contain the true accuracy, over 6 x n_tables simulated submissions."""
    items = design()
    rng = np.random.default_rng(7)
    leaf_p = dict(zip([leaf.id for leaf in SPEC.leaves], rng.uniform(0.35, 0.97, len(SPEC.leaves)), strict=True))
    p_item = items["leaf_id"].map(leaf_p).to_numpy()
    true_levels = pd.Series(p_item).groupby(items["level"].to_numpy()).mean()
    truth = {"micro": p_item.mean(), "macro": true_levels.mean()}
    hits: dict[str, list[bool]] = {"micro": [], "macro": [], "levels": [], "leaves": []}
    for s in range(n_tables):
        result = U.intervals(simulate(items, p_item, seed=1000 + s), alpha=alpha)
        for block in (b for per_method in result.values() for b in per_method.values()):
            for k in ("micro", "macro"):
                lo, hi = block[f"{k}_ci95"]
                hits[k].append(lo <= truth[k] <= hi)
            hits["levels"] += [lo <= true_levels[lv] <= hi for lv, (lo, hi) in block["levels_ci95"].items()]
            hits["leaves"] += [lo <= leaf_p[leaf] <= hi for leaf, (lo, hi) in block["leaves_ci95"].items()]
    assert len(hits["micro"]) == 6 * n_tables and len(hits["leaves"]) == 6 * n_tables * 106
    return {k: float(np.mean(v)) for k, v in hits.items()}


def test_bootstrap_intervals_cover_the_true_accuracy_95_percent_of_the_time():
    cov = coverage(n_tables=50, alpha=0.05)  # 300 simulated submissions of 7,747 items each
    assert 0.92 <= cov["micro"] <= 0.98, cov
    assert 0.92 <= cov["macro"] <= 0.98, cov
    assert 0.93 <= cov["levels"] <= 0.97, cov  # 1,800 level intervals
    assert 0.92 <= cov["leaves"] <= 0.97, cov  # 31,800 leaf intervals (35 to 95 items each)


def test_coverage_check_tells_80_from_95_percent_intervals():
    cov = coverage(n_tables=15, alpha=0.20)  # the same check must see narrower intervals miss more often
    assert 0.72 <= cov["levels"] <= 0.88, cov
    assert cov["micro"] < 0.9, cov


def test_approximate_intervals_cover_the_true_accuracy():
    level_n = {lv.name: lv.count for lv in SPEC.levels}
    rng = np.random.default_rng(3)
    hits: dict[str, list[bool]] = {"micro": [], "macro": [], "levels": []}
    for _ in range(600):
        p = dict(zip(level_n, rng.uniform(0.3, 0.97, 6), strict=True))
        acc = {lv: rng.binomial(n, p[lv]) / n for lv, n in level_n.items()}
        total = sum(level_n.values())
        score = {
            "en": {
                "rae": {
                    "micro": sum(acc[lv] * n for lv, n in level_n.items()) / total,
                    "macro": float(np.mean(list(acc.values()))),
                    "levels": acc,
                }
            }
        }
        block = U.approximate_intervals(score)["en"]["rae"]
        assert block["ci95_method"] == U.APPROXIMATE
        truth = {"micro": sum(p[lv] * n for lv, n in level_n.items()) / total, "macro": float(np.mean(list(p.values())))}
        for k in ("micro", "macro"):
            hits[k].append(block[f"{k}_ci95"][0] <= truth[k] <= block[f"{k}_ci95"][1])
        hits["levels"] += [lo <= p[lv] <= hi for lv, (lo, hi) in block["levels_ci95"].items()]
    cov = {k: float(np.mean(v)) for k, v in hits.items()}
    assert 0.92 <= cov["micro"] <= 0.98 and 0.92 <= cov["macro"] <= 0.98 and 0.93 <= cov["levels"] <= 0.97, cov


# ---------------------------------------------------------------- formulas and shapes


def test_wilson_matches_hand_computed_value():
    # 80 of 100, z = 1.96: centre (0.8 + z^2/200) / (1 + z^2/100) = 0.78890,
    # half-width z * sqrt(0.8 * 0.2 / 100 + z^2 / 40000) / (1 + z^2/100) = 0.07773
    lo, hi = U.wilson(0.8, 100)
    assert lo == pytest.approx(0.71117, abs=2e-5) and hi == pytest.approx(0.86663, abs=2e-5)
    assert U.wilson(1.0, 35) == (pytest.approx(0.90110, abs=5e-5), 1.0)  # never a zero-width interval


def test_approximate_level_interval_uses_the_spec_count_and_micro_the_combined_variance():
    levels = {"Remember": 0.85, "Understand": 0.94, "Apply": 0.82, "Analyze": 0.87, "Evaluate": 0.89, "Create": 0.79}
    block = U.approximate_intervals({"en": {"rae": {"micro": 0.869, "macro": 0.86, "levels": levels}}})["en"]["rae"]
    assert block["levels_ci95"]["Apply"] == [round(x, 4) for x in U.wilson(0.82, 499)]
    n = {lv.name: lv.count for lv in SPEC.levels}
    var = sum(n[k] * p * (1 - p) for k, p in levels.items()) / sum(n.values()) ** 2
    lo, hi = block["micro_ci95"]
    assert (hi - lo) / 2 == pytest.approx(1.96 * var**0.5, rel=0.02)  # Wilson at the effective n ~ normal here
    var_macro = sum(p * (1 - p) / n[k] for k, p in levels.items()) / 36
    lo, hi = block["macro_ci95"]
    assert (hi - lo) / 2 == pytest.approx(1.96 * var_macro**0.5, rel=0.02)
    assert block["micro_ci95"][1] - block["micro_ci95"][0] < block["levels_ci95"]["Apply"][1] - block["levels_ci95"]["Apply"][0]


def test_mcnemar_exact_matches_the_binomial_tail():
    assert U.mcnemar_exact(10, 2) == pytest.approx(2 * (1 + 12 + 66) / 4096)  # 0.03857
    assert U.mcnemar_exact(5, 5) == 1.0 and U.mcnemar_exact(0, 0) == 1.0
    assert U.mcnemar_exact(3000, 2900) == pytest.approx(U.mcnemar_exact(2900, 3000))
    assert 0.18 < U.mcnemar_exact(3000, 2900) < 0.22  # normal approximation: z = 100/sqrt(5900) = 1.30, p = 0.193


def test_intervals_have_the_score_shape_and_contain_the_point_estimate():
    items = design(scale=0.25)
    table = simulate(items, np.full(len(items), 0.7), seed=1)
    result = U.intervals(table)
    assert set(result) == {"en", "ar"} and set(result["en"]) == set(U.METHODS)
    block = result["ar"]["lbs"]
    assert set(block["levels_ci95"]) == set(SPEC.level_names) and len(block["leaves_ci95"]) == 106
    part = table[table["lang"] == "ar"]
    assert block["micro"] == round(part["correct_lbs"].mean(), 4)
    assert block["macro"] == round(part.groupby("level")["correct_lbs"].mean().mean(), 4)
    for name in ("micro", "macro"):
        lo, hi = block[f"{name}_ci95"]
        assert lo < block[name] < hi and hi - lo < 0.1
    assert all(lo <= block["levels"][lv] <= hi for lv, (lo, hi) in block["levels_ci95"].items())
    assert block["ci95_method"] == "bootstrap" and block["ci95_resamples"] == 1000
    json.dumps(result)  # plain JSON types only


def test_intervals_are_reproducible_and_depend_on_the_seed():
    items = design(scale=0.2)
    table = simulate(items, np.full(len(items), 0.6), seed=2)
    first = U.intervals(table)
    U._CACHE.clear()
    assert U.intervals(table) == first  # fresh weights, same seed: the same intervals
    assert U.intervals(table.sample(frac=1.0, random_state=0)) == first  # row order does not matter
    other = U.intervals(table, U.make_bootstrap(table, seed=U.SEED + 1))
    assert other["en"]["rae"]["micro_ci95"] != first["en"]["rae"]["micro_ci95"]
    assert np.array_equal(U.bootstrap_weights(50, 20, seed=4), U.bootstrap_weights(50, 20, seed=4))


def test_stratified_weights_keep_every_leaf_size():
    items = design(scale=0.1)
    boot = U.make_bootstrap(items.assign(lang="en"))
    sizes = np.diff(boot.bounds)
    for j, (s, e) in enumerate(zip(boot.bounds[:-1], boot.bounds[1:], strict=True)):
        assert (boot.weights[:, s:e].sum(axis=1) == sizes[j]).all()
    plain = U.bootstrap_weights(200, 500, seed=1)
    assert (plain.sum(axis=1) == 200).all() and plain.std() > 0.5


def test_add_intervals_puts_an_interval_next_to_each_accuracy_of_the_score():
    items = design(scale=0.2)
    table = simulate(items, np.full(len(items), 0.75), seed=3).drop(columns=["correct_lbs_char"])
    score = {"en": {"rae": {"micro": 0.75, "macro": 0.75, "levels": {"Apply": 0.7}, "leaves": {}, "n": 10}}}
    out = U.add_intervals(score, table)
    block = out["en"]["rae"]
    assert set(block) == {"micro", "micro_ci95", "macro", "macro_ci95", "levels", "levels_ci95", "leaves", "leaves_ci95", "n"} | {
        "ci95_method",
        "ci95_resamples",
        "ci95_seed",
    }
    assert list(block["levels_ci95"]) == ["Apply"] and score["en"]["rae"].keys() == {"micro", "macro", "levels", "leaves", "n"}
    approx = U.add_intervals(score)["en"]["rae"]
    assert approx["ci95_method"] == U.APPROXIMATE and "micro_ci95" not in approx  # five levels missing: no combined interval


def test_missing_rows_are_left_out_not_counted_wrong():
    items = design(scale=0.2)
    table = simulate(items, np.full(len(items), 0.8), seed=4)
    partial = table.drop(index=table.index[(table["lang"] == "ar") & (table["level"] == "Apply")])
    block = U.intervals(partial)["ar"]["rae"]
    assert "Apply" not in block["levels"] and "macro" not in block  # N/A, not 0
    kept = partial[partial["lang"] == "ar"]
    assert block["micro"] == round(kept["correct_rae"].mean(), 4)
    assert block["micro_ci95"][0] < block["micro"] < block["micro_ci95"][1]


# ---------------------------------------------------------------- paired differences


def correlated_pair(items: pd.DataFrame, flip: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two models that agree on most items: B is A with a share ``flip`` of its answers changed."""
    rng = np.random.default_rng(seed)
    a = rng.random(len(items)) < 0.7
    b = np.where(rng.random(len(items)) < flip, rng.random(len(items)) < 0.68, a)
    return table_from(items, {("en", "rae"): a}), table_from(items, {("en", "rae"): b})


def test_paired_intervals_are_narrower_than_unpaired_for_correlated_models():
    items = design()
    table_a, table_b = correlated_pair(items, flip=0.1, seed=5)
    paired = U.compare(table_a, table_b).set_index("metric")
    unpaired = U.compare(table_a, table_b, paired=False).set_index("metric")
    assert (paired["diff"] == unpaired["diff"]).all()
    width_p = paired["ci95_hi"] - paired["ci95_lo"]
    width_u = unpaired["ci95_hi"] - unpaired["ci95_lo"]
    assert (width_p < 0.5 * width_u).all(), pd.DataFrame({"paired": width_p, "unpaired": width_u})
    # the unpaired width is what two separate intervals give: about sqrt(2) x one model's width
    one = U.intervals(table_a)["en"]["rae"]["micro_ci95"]
    assert width_u["micro"] == pytest.approx(2**0.5 * (one[1] - one[0]), rel=0.15)


def test_compare_reports_difference_interval_and_mcnemar_p_per_level():
    items = design()
    table_a, table_b = correlated_pair(items, flip=0.3, seed=6)
    frame = U.compare(table_a, table_b, leaves=True)
    assert list(frame["metric"][:8]) == ["micro", "macro", *SPEC.level_names] and len(frame) == 8 + 106
    row = frame.set_index("metric").loc["Apply"]
    a = table_a.set_index("question_id")["correct_rae"]
    b = table_b.set_index("question_id")["correct_rae"].reindex(a.index)
    apply = (table_a.set_index("question_id")["level"] == "Apply").to_numpy()
    b_n, c_n = int((a & ~b)[apply].sum()), int((~a & b)[apply].sum())
    assert (row["a_only"], row["b_only"]) == (b_n, c_n)
    assert row["p_value"] == pytest.approx(U.mcnemar_exact(b_n, c_n))
    assert row["diff"] == pytest.approx(a[apply].mean() - b[apply].mean())
    assert row["ci95_lo"] < row["diff"] < row["ci95_hi"]
    macro = frame.set_index("metric").loc["macro"]
    assert macro["p_method"] == "bootstrap" and macro["a_only"] is None
    # a clearly better model: interval above 0 and a tiny p
    strong = table_from(items, {("en", "rae"): np.ones(len(items), dtype=bool)})
    micro = U.compare(strong, table_b).set_index("metric").loc["micro"]
    assert micro["ci95_lo"] > 0 and micro["p_value"] < 1e-6


def test_gap_intervals_are_paired_across_languages_and_methods():
    items = design(scale=0.5)
    rng = np.random.default_rng(8)
    en = rng.random(len(items)) < 0.8
    ar = np.where(rng.random(len(items)) < 0.02, ~en, en)  # Arabic mostly repeats the English answer
    table = table_from(items, {("en", "rae"): en, ("ar", "rae"): ar, ("en", "lbs"): ar, ("ar", "lbs"): en})
    gaps = U.gap_intervals(table)
    assert set(gaps) == {"en-ar", "rae-lbs"} and set(gaps["rae-lbs"]) == {"en", "ar"}
    gap = gaps["en-ar"]["rae"]
    assert gap["micro"] == pytest.approx(round(en.mean() - ar.mean(), 4), abs=1e-4)
    paired_width = gap["micro_ci95"][1] - gap["micro_ci95"][0]
    single = U.intervals(table)["en"]["rae"]["micro_ci95"]
    assert paired_width < 0.5 * (single[1] - single[0])  # far narrower than either accuracy's own interval
    assert gaps["rae-lbs"]["en"]["micro"] == pytest.approx(-gaps["rae-lbs"]["ar"]["micro"], abs=1e-4)


def test_compare_refuses_different_items_or_a_missing_method():
    from leaderboard.errors import BloomBenchError

    items = design(scale=0.2)
    table_a, table_b = correlated_pair(items, flip=0.1, seed=9)
    with pytest.raises(BloomBenchError, match="different items"):
        U.compare(table_a, table_b.iloc[:-5])
    with pytest.raises(BloomBenchError, match="no lbs scores in en"):
        U.compare(table_a, table_b, method="lbs")


# ---------------------------------------------------------------- shared ranks


def ranked_set(items: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Three clearly separated models and two that cannot be told apart."""
    rng = np.random.default_rng(10)
    u = rng.random(len(items))
    twin = u < 0.6
    swap = rng.choice(np.flatnonzero(twin), 40, replace=False), rng.choice(np.flatnonzero(~twin), 40, replace=False)
    twin_b = twin.copy()
    twin_b[swap[0]], twin_b[swap[1]] = False, True  # same accuracy, 80 items differ: no significant difference
    models = {"best": u < 0.9, "second": u < 0.75, "twin-a": twin, "twin-b": twin_b, "last": u < 0.45}
    return {name: table_from(items, {("en", "rae"): c}) for name, c in models.items()}


def test_shared_ranks_follow_one_plus_the_number_significantly_better():
    entries = ranked_set(design(scale=0.3))
    ranks = U.shared_ranks(entries, "en", "rae")
    assert ranks == {"best": 1, "second": 2, "twin-a": 3, "twin-b": 3, "last": 5}
    # the same rule, from compare(): count the models whose paired interval lies above 0
    for name, table in entries.items():
        better = sum(
            U.compare(other, table).set_index("metric").loc["micro", "ci95_lo"] > 0 for o, other in entries.items() if o != name
        )
        assert ranks[name] == 1 + better


def test_shared_ranks_chain_is_not_transitive():
    # each step: 50 items gained, 35 lost (z = 1.6, not significant); two steps: 100 vs 70 (z = 2.3, significant)
    items = design()
    rng = np.random.default_rng(11)
    c = rng.random(len(items)) < 0.6
    up = rng.choice(np.flatnonzero(~c), 100, replace=False)
    down = rng.choice(np.flatnonzero(c), 70, replace=False)
    b = c.copy()
    b[up[:50]], b[down[:35]] = True, False
    a = b.copy()
    a[up[50:]], a[down[35:]] = True, False
    entries = {name: table_from(items, {("en", "rae"): x}) for name, x in {"A": a, "B": b, "C": c}.items()}
    ranks = U.shared_ranks(entries, "en", "rae")
    assert ranks == {"A": 1, "B": 1, "C": 2}
    lower = {
        (i, j): U.compare(entries[i], entries[j]).set_index("metric").loc["micro", "ci95_lo"]
        for i in entries
        for j in entries
        if i != j
    }
    assert ranks == {i: 1 + sum(lower[(j, i)] > 0 for j in entries if j != i) for i in entries}


def test_shared_ranks_of_reported_entries_use_interval_overlap():
    def reported(shift: float) -> dict:
        levels = {lv: min(0.99, 0.6 + shift + 0.02 * i) for i, lv in enumerate(SPEC.level_names)}
        n = {lv.name: lv.count for lv in SPEC.levels}
        micro = sum(levels[k] * n[k] for k in n) / sum(n.values())
        return {"en": {"rae": {"micro": micro, "macro": float(np.mean(list(levels.values()))), "levels": levels}}}

    entries = {"top": reported(0.2), "close": reported(0.195), "low": reported(0.0), "no-en": {"ar": reported(0.1)["en"]}}
    ranks = U.shared_ranks(entries, "en", "rae", metric="micro")
    assert ranks == {"top": 1, "close": 1, "low": 3}  # no-en has no English score: left out (N/A)
    assert U.shared_ranks(entries, "en", "rae", metric="Apply") == {"top": 1, "close": 1, "low": 3}
    # a predictions entry next to reported ones: compared by interval overlap too
    items = design()
    entries["items"] = table_from(items, {("en", "rae"): np.random.default_rng(12).random(len(items)) < 0.5})
    assert U.shared_ranks(entries, "en", "rae")["items"] == 4


# ---------------------------------------------------------------- wired to scoring and the CLI


@pytest.fixture
def two_submissions(write_submission):
    a = write_submission(make_meta("Model A"), accuracy=0.8, seed=1)
    b = write_submission(make_meta("Model B"), accuracy=0.5, seed=2)
    return a, b


def test_intervals_agree_with_the_scorer_on_real_item_tables(two_submissions, sample_dataset):
    from leaderboard.scoring import aggregate, item_table
    from leaderboard.submission import load_submission

    table = item_table(load_submission(two_submissions[0], sample_dataset), sample_dataset)
    score = aggregate(table)
    found = U.intervals(table)
    for lang in ("en", "ar"):
        for m in U.METHODS:
            mine, theirs = found[lang][m], score[lang][m]
            assert mine["micro"] == pytest.approx(theirs["micro"], abs=5e-5) and mine["macro"] == pytest.approx(
                theirs["macro"], abs=5e-5
            )
            assert mine["levels"] == pytest.approx(theirs["levels"], abs=5e-5)
            assert mine["leaves"] == pytest.approx(theirs["leaves"], abs=5e-5)
    with_ci = U.add_intervals(score, table)["en"]["rae"]
    assert with_ci["micro_ci95"][0] < score["en"]["rae"]["micro"] < with_ci["micro_ci95"][1]
    assert set(with_ci["leaves_ci95"]) == set(score["en"]["rae"]["leaves"]) and with_ci["n"] == score["en"]["rae"]["n"]


def test_compare_command_prints_difference_interval_and_p_per_level(two_submissions, sample_path):
    from click.testing import CliRunner

    from leaderboard.cli import main

    a, b = two_submissions
    result = CliRunner().invoke(main, ["compare", str(a), str(b), "--dataset", str(sample_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "model-a" in lines[0] and "model-b" in lines[0]
    assert [line.split()[0] for line in lines[2:]] == ["micro", "macro", *SPEC.level_names]
    result = CliRunner().invoke(
        main, ["compare", str(a), str(b), "--dataset", str(sample_path), "--lang", "ar", "--method", "lbs", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    micro = out["rows"][0]
    assert (out["lang"], out["method"], micro["metric"]) == ("ar", "lbs", "micro")
    assert micro["ci95_lo"] > 0 and micro["p_value"] < 1e-6  # 80% vs 50% on 318 items: clearly better
    assert micro["diff"] == pytest.approx(micro["a"] - micro["b"], abs=2e-6)


def test_compare_command_refuses_a_reported_entry_in_one_line(two_submissions, sample_path):
    from click.testing import CliRunner

    from leaderboard.cli import main

    reported = REPO_SUBMISSIONS / "qwen2.5-vl-7b"
    result = CliRunner().invoke(main, ["compare", str(two_submissions[0]), str(reported), "--dataset", str(sample_path)])
    assert result.exit_code == 1
    assert "has no predictions to compare item by item" in result.output and "Traceback" not in result.output


def test_score_json_carries_intervals(two_submissions, sample_path):
    from click.testing import CliRunner

    from leaderboard.cli import main

    result = CliRunner().invoke(main, ["score", str(two_submissions[0]), "--dataset", str(sample_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    block = json.loads(result.output)["en"]["rae"]
    assert block["ci95_method"] == "bootstrap"
    assert block["micro_ci95"][0] < block["micro"] < block["micro_ci95"][1]
    assert set(block["levels_ci95"]) == set(SPEC.level_names)
    reported = CliRunner().invoke(main, ["score", str(REPO_SUBMISSIONS / "qwen2.5-vl-7b"), "--format", "json"])
    assert reported.exit_code == 0, reported.output
    block = json.loads(reported.output)["en"]["rae"]
    assert block["ci95_method"] == U.APPROXIMATE and block["micro_ci95"][0] < 0.869 < block["micro_ci95"][1]


def test_pairwise_decision_matches_one_quantile_per_entry():
    """The vectorised significance test used for shared ranks equals np.quantile entry by entry."""
    from leaderboard.uncertainty import _pairwise_better, _quantiles

    rng = np.random.default_rng(11)
    cases = [
        (rng.normal(0, 0.01, (60, 1000)) + np.linspace(0, 0.03, 60)[:, None]).astype(np.float32),
        (rng.binomial(20, np.linspace(0.2, 0.8, 40)[:, None], (40, 1000)) / 20).astype(np.float32),  # many ties
        (rng.binomial(6, np.linspace(0.1, 0.9, 30)[:, None], (30, 41)) / 6).astype(np.float32),  # percentile between draws
    ]
    for x in cases:
        expected = np.stack([_quantiles(x - x[i], 0.05)[0] > 0 for i in range(len(x))])
        assert (expected == _pairwise_better(x, 0.05)).all()
        assert expected.any() and not expected.all()
