"""Synthetic data in the released shapes, for the sample file, tests and benchmarks.

Nothing here is real benchmark content: every question says it is a sample.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from .benchmark import OPTIONS, Spec, load_spec

_EN_WORDS = ["red", "round", "wooden", "small", "bright", "striped", "ancient", "modern", "quiet", "busy"]
_EN_NOUNS = ["car", "lamp", "tree", "sign", "cup", "bridge", "market", "poster", "boat", "chart"]
_AR_WORDS = ["أحمر", "مستدير", "خشبي", "صغير", "لامع", "مخطط", "قديم", "حديث", "هادئ", "مزدحم"]
_AR_NOUNS = ["سيارة", "مصباح", "شجرة", "لافتة", "كوب", "جسر", "سوق", "ملصق", "قارب", "مخطط بياني"]


def make_meta(model: str = "Test Model 7B", **extra) -> dict:
    """A valid predictions metadata.json for a synthetic entry; ``extra`` overrides or adds fields."""
    meta = {
        "schema_version": 1,
        "model": model,
        "organization": "Test Org",
        "kind": "predictions",
        "languages": ["en", "ar"],
        "methods": ["rae", "lbs"],
        "open_weights": True,
        "parameters_b": 7.0,
        "license": "apache-2.0",
        "link": "https://example.org/model",
        "date": "2026-11-21",
    }
    meta.update(extra)
    return meta


def question_id(seed: int, leaf_id: str, index: int) -> str:
    return hashlib.md5(f"{seed}|{leaf_id}|{index}".encode()).hexdigest()


def make_dataset(per_leaf: int | None = None, seed: int = 0, spec: Spec | None = None) -> list[dict]:
    """Records in the released ``BloomBench.json`` shape.

    ``per_leaf=None`` gives every leaf its paper count (7,747 items in all);
    an integer gives every leaf that many items.
    """
    spec = spec or load_spec()
    rng = random.Random(seed)
    records = []
    for leaf in spec.leaves:
        n = leaf.count if per_leaf is None else per_leaf
        for i in range(n):
            qid = question_id(seed, leaf.id, i)
            # Exercise the loader's normalisation: both separators, mixed case.
            sep = " -> " if i % 2 == 0 else " -_ "
            lvl1 = sep.join([leaf.level.upper() if i % 3 == 0 else leaf.level, leaf.subcategory.title()])
            texts_en, texts_ar = [], []
            picks = rng.sample(range(len(_EN_WORDS) * len(_EN_NOUNS)), 4)
            for p in picks:
                w, n_ = divmod(p, len(_EN_NOUNS))
                texts_en.append(f"The {_EN_WORDS[w]} {_EN_NOUNS[n_]}" + " in the picture" * (p % 3))
                texts_ar.append(f"{_AR_NOUNS[n_]} {_AR_WORDS[w]}" + " في الصورة" * (p % 3))
            mcq = {
                "question_en": f"[SAMPLE] Question {i + 1} for {leaf.name}: which object is shown?",
                "question_ar": f"[عينة] السؤال {i + 1} عن {leaf.name}: ما الشيء الظاهر؟",
                "answer": OPTIONS[rng.randrange(4)],
            }
            for o, en, ar in zip(OPTIONS, texts_en, texts_ar, strict=False):
                mcq[f"choice_{o}_en"] = en
                mcq[f"choice_{o}_ar"] = ar
            records.append(
                {
                    "question_id": qid,
                    "image_id": f"sample-{qid[:12]}",
                    "image_url": f"https://example.org/bloombench-sample/{qid}.png",
                    "hierarchy": {"lvl1": lvl1, "leaf": leaf.name.title() if i % 2 else leaf.name},
                    "multiple_choice_qa": mcq,
                    "question_en": mcq["question_en"],
                    "answer_en": "[SAMPLE] open-ended answer",
                    "question_ar": mcq["question_ar"],
                    "answer_ar": "[عينة] إجابة مفتوحة",
                }
            )
    return records


_REPLIES_EN = ["{n}", "Answer: {n}", "The answer is {n}.", "{n}) {text}", "**{n}**", "I think the correct option is {n}."]
_REPLIES_AR = ["{n}", "الإجابة: {a}", "الإجابة الصحيحة هي {n}", "{a}", "الخيار {a}: {text}"]
_ARABIC_DIGITS = "٠١٢٣٤٥٦٧٨٩"


def make_predictions(
    records: list[dict],
    accuracy: float | dict[str, float] = 0.7,
    langs: tuple[str, ...] = ("en", "ar"),
    lbs: bool = True,
    seed: int = 0,
    spec: Spec | None = None,
) -> list[dict]:
    """Prediction lines for ``records``: a model right with probability ``accuracy``.

    ``accuracy`` may be one number or a number per Bloom level; the reply text is
    varied so that the answer extractor is exercised, and the LBS log-probabilities
    favour the chosen option.
    """
    spec = spec or load_spec()
    rng = random.Random(seed)
    level_of = {}
    for rec in records:
        first = rec["hierarchy"]["lvl1"].replace("-_", "->").split("->")[0].strip().lower()
        level_of[rec["question_id"]] = next(lv.name for lv in spec.levels if lv.name.lower() == first)
    lines = []
    for rec in records:
        qid = rec["question_id"]
        gold = OPTIONS.index(rec["multiple_choice_qa"]["answer"])
        p = accuracy[level_of[qid]] if isinstance(accuracy, dict) else accuracy
        for lang in langs:
            pick = gold if rng.random() < p else rng.choice([k for k in range(4) if k != gold])
            text = rec["multiple_choice_qa"][f"choice_{OPTIONS[pick]}_{lang}"]
            if lang == "ar":
                tmpl = rng.choice(_REPLIES_AR)
                reply = tmpl.format(n=pick + 1, a=_ARABIC_DIGITS[pick + 1], text=text)
            else:
                reply = rng.choice(_REPLIES_EN).format(n=pick + 1, text=text)
            line: dict = {"question_id": qid, "lang": lang, "response": reply}
            if lbs:
                choice = gold if rng.random() < p else rng.choice([k for k in range(4) if k != gold])
                scores = {}
                for k, o in enumerate(OPTIONS):
                    tokens = rng.randint(2, 12)
                    mean = -0.4 if k == choice else -1.5 - rng.random()
                    scores[o] = {"logprob": round(mean * tokens, 4), "tokens": tokens}
                line["lbs"] = scores
            lines.append(line)
    return lines


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def write_jsonl(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
