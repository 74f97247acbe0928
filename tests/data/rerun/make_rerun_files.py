"""Writes the re-run files of tests/test_verify.py (run from the repository root).

    python tests/data/rerun/make_rerun_files.py [OUT]   (default OUT: tests/data/rerun)

Made with leaderboard.synthetic on the shipped 318-item sample (en and ar, RAE and LBS):

  submitted/vision-7b/        a contributor's submission (metadata in the evaluator's layout)
  rerun-agree/vision-7b/      a maintainer's re-run on other hardware: the same answers, a few
                              replies worded differently, one reply that reads as another
                              option, log-probabilities within 0.02 nats per token
  rerun-disagree.jsonl        a bare predictions file that disagrees: 4% of LBS choices, 3% of
                              RAE answers, 2 token counts (another tokenizer)

tests/test_verify.py regenerates them and checks the shipped files are byte-identical.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path

from leaderboard.benchmark import OPTIONS, SAMPLE_DATASET
from leaderboard.extract import extract_answer
from leaderboard.synthetic import make_predictions, write_jsonl

MODEL_ID = "bloombench-test/vision-7b"
REVISION = "5d931087ff18f93245ac25633497037779104518"  # tests/data/hub has this revision


def metadata(hardware: str, date: str, duration_s: float) -> dict:
    return {
        "schema_version": 1,
        "model": "Vision 7B",
        "organization": "BloomBench Tests",
        "kind": "predictions",
        "languages": ["en", "ar"],
        "methods": ["rae", "lbs"],
        "open_weights": True,
        "parameters_b": 7.9,
        "license": "apache-2.0",
        "link": "https://huggingface.co/bloombench-test/vision-7b",
        "model_id": MODEL_ID,
        "revision": REVISION,
        "date": date,
        "submitted_by": "a-contributor",
        "notes": "Synthetic entry for the verification tests; not a real model.",
        "provenance": {"tool_version": "0.1.0", "hardware": hardware, "duration_s": duration_s},
        "verified": None,
    }


def _write_meta(path: Path, meta: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _options(records: list[dict]) -> dict[tuple[str, str], list[str]]:
    return {
        (r["question_id"], lang): [r["multiple_choice_qa"][f"choice_{o}_{lang}"] for o in OPTIONS]
        for r in records
        for lang in ("en", "ar")
    }


def _reply(letter: str, lang: str, style: int) -> str:
    n = OPTIONS.index(letter) + 1
    if lang == "en":
        return [f"The answer is {n}.", f"Option {n}", f"{n}"][style % 3]
    return [f"الإجابة: {n}", f"الخيار {n}", f"{n}"][style % 3]


def agreeing(lines: list[dict], options: dict, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    out = copy.deepcopy(lines)
    for k, line in enumerate(out):
        key = (line["question_id"], line["lang"])
        for o in OPTIONS:
            opt = line["lbs"][o]
            opt["logprob"] = min(0.0, round(opt["logprob"] + rng.uniform(-0.02, 0.02) * opt["tokens"], 4))
        if k % 20 == 3:  # the same answer, worded differently (greedy decoding on other hardware)
            letter = extract_answer(line["response"], options[key])
            if letter is not None:
                line["response"] = _reply(letter, line["lang"], k)
                assert extract_answer(line["response"], options[key]) == letter
    first = out[10]  # one reply that now reads as another option
    letter = extract_answer(first["response"], options[(first["question_id"], first["lang"])]) or "A"
    first["response"] = _reply(OPTIONS[(OPTIONS.index(letter) + 1) % 4], first["lang"], 0)
    return out


def disagreeing(lines: list[dict], options: dict, seed: int = 8) -> list[dict]:
    rng = random.Random(seed)
    out = copy.deepcopy(lines)
    for k, line in enumerate(out):
        key = (line["question_id"], line["lang"])
        if k % 25 == 5:  # another LBS choice: the best option and another swap their mean logprob per token
            lbs = line["lbs"]
            best = max(OPTIONS, key=lambda o: lbs[o]["logprob"] / lbs[o]["tokens"])
            other = rng.choice([o for o in OPTIONS if o != best])
            mean_best, mean_other = lbs[best]["logprob"] / lbs[best]["tokens"], lbs[other]["logprob"] / lbs[other]["tokens"]
            lbs[best]["logprob"] = round(mean_other * lbs[best]["tokens"], 4)
            lbs[other]["logprob"] = round(mean_best * lbs[other]["tokens"], 4)
        if k % 33 == 7:  # another RAE answer
            letter = extract_answer(line["response"], options[key]) or "A"
            line["response"] = _reply(OPTIONS[(OPTIONS.index(letter) + 2) % 4], line["lang"], k)
    for k in (100, 400):  # another tokenizer
        out[k]["lbs"]["A"]["tokens"] += 1
    return out


def main(out: Path) -> None:
    records = json.loads(Path(SAMPLE_DATASET).read_text(encoding="utf-8"))
    options = _options(records)
    submitted = make_predictions(records, accuracy=0.72, langs=("en", "ar"), lbs=True, seed=11)
    _write_meta(out / "submitted" / "vision-7b" / "metadata.json", metadata("1x NVIDIA A100-SXM4-40GB", "2026-11-02", 5123.4))
    write_jsonl(out / "submitted" / "vision-7b" / "predictions.jsonl", submitted)
    _write_meta(out / "rerun-agree" / "vision-7b" / "metadata.json", metadata("1x NVIDIA H100 80GB HBM3", "2026-11-20", 3311.9))
    write_jsonl(out / "rerun-agree" / "vision-7b" / "predictions.jsonl", agreeing(submitted, options))
    write_jsonl(out / "rerun-disagree.jsonl", disagreeing(submitted, options))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
