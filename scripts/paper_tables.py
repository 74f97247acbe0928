"""Regenerate the paper's eight `reported` entries from the paper's text.

Reads Table 1 (overall micro/macro), Table 2 (per level) and Tables 12-23 (per leaf,
five models) from the BloomBench paper in markdown and writes
submissions/<id>/metadata.json and reported.json. The committed entries are the
output of this script; tests/test_reported.py checks that they still agree.

    python scripts/paper_tables.py ../shared/papers/bloombench-paper.md submissions/
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from leaderboard.benchmark import load_spec, normalise_segment  # noqa: E402
from leaderboard.submission import submission_id  # noqa: E402
from leaderboard.synthetic import write_json  # noqa: E402

SOURCE = "BloomBench paper (arXiv:2606.05531, ACL 2026 Findings): Table 1 (micro/macro), Table 2 (levels)"
MODELS = {
    # paper name: metadata
    "Qwen2-VL-7B": dict(
        organization="Alibaba Qwen",
        open_weights=True,
        parameters_b=8.3,
        license="apache-2.0",
        model_id="Qwen/Qwen2-VL-7B-Instruct",
        link="https://huggingface.co/Qwen/Qwen2-VL-7B-Instruct",
    ),
    "Qwen2.5-VL-7B": dict(
        organization="Alibaba Qwen",
        open_weights=True,
        parameters_b=8.3,
        license="apache-2.0",
        model_id="Qwen/Qwen2.5-VL-7B-Instruct",
        link="https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct",
    ),
    "Gemma3-4B": dict(
        organization="Google",
        open_weights=True,
        parameters_b=4.3,
        license="gemma",
        model_id="google/gemma-3-4b-it",
        link="https://huggingface.co/google/gemma-3-4b-it",
    ),
    "Gemma3-12B": dict(
        organization="Google",
        open_weights=True,
        parameters_b=12.2,
        license="gemma",
        model_id="google/gemma-3-12b-it",
        link="https://huggingface.co/google/gemma-3-12b-it",
    ),
    "Gemma3-27B": dict(
        organization="Google",
        open_weights=True,
        parameters_b=27.4,
        license="gemma",
        model_id="google/gemma-3-27b-it",
        link="https://huggingface.co/google/gemma-3-27b-it",
    ),
    "Gemma4-26B-A4B": dict(
        organization="Google",
        open_weights=True,
        parameters_b=26.0,
        active_parameters_b=4.0,
        license=None,
        model_id=None,
        link=None,
    ),
    "Gemma4-31B": dict(organization="Google", open_weights=True, parameters_b=31.0, license=None, model_id=None, link=None),
    "GPT-4o mini": dict(
        organization="OpenAI",
        open_weights=False,
        parameters_b=None,
        license="proprietary",
        model_id=None,
        link="https://openai.com/index/gpt-4o-mini-advancing-cost-efficient-intelligence/",
    ),
}
LEAF_COLUMNS = {  # column-name prefix in tables 12-23 -> paper model name
    "gemma-3-4b": "Gemma3-4B",
    "gemma-3-12b": "Gemma3-12B",
    "gemma-3-27b": "Gemma3-27B",
    "qwen2-vl-7b": "Qwen2-VL-7B",
    "qwen2.5-vl-7b": "Qwen2.5-VL-7B",
    "gpt4omini": "GPT-4o mini",
}


def _num(cell: str) -> float | None:
    cell = re.sub(r"</?b>", "", cell).strip()
    return None if cell in ("N/A", "") else float(cell)


def parse(text: str) -> dict:
    lines = text.splitlines()
    levels = load_spec().level_names
    scores: dict = {m: {} for m in MODELS}
    # Table 1: model, en rae micro/macro, en lbs micro/macro, ar rae, ar lbs
    # Table 2: model, then for en then ar: per level (RAE, LBS)
    for line in lines:
        cells = line.split("\t")
        name = cells[0].strip()
        if name not in MODELS:
            continue
        values = [_num(c) for c in cells[1:]]
        if len(values) == 8:
            for k, (lang, method) in enumerate([("en", "rae"), ("en", "lbs"), ("ar", "rae"), ("ar", "lbs")]):
                micro, macro = values[2 * k], values[2 * k + 1]
                if micro is not None:
                    entry = scores[name].setdefault(lang, {}).setdefault(method, {})
                    entry.update(micro=micro, macro=macro)
        elif len(values) == 24:
            for li, lang in enumerate(["en", "ar"]):
                for lv_i, level in enumerate(levels):
                    for mi, method in enumerate(["rae", "lbs"]):
                        v = values[li * 12 + lv_i * 2 + mi]
                        if v is not None:
                            scores[name].setdefault(lang, {}).setdefault(method, {}).setdefault("levels", {})[level] = v
    _parse_leaves(lines, scores)
    return scores


def _parse_leaves(lines: list[str], scores: dict) -> None:
    spec = load_spec()
    i = 0
    while i < len(lines):
        m = re.match(r"Table (\d+): (Likelihood|Regex).*category: \*(\w+)\*", lines[i])
        if not m:
            i += 1
            continue
        method = "lbs" if m.group(2) == "Likelihood" else "rae"
        level = m.group(3).capitalize()
        # the table precedes its caption: walk back to its header row
        j = i - 1
        while j >= 0 and not lines[j].startswith("Sub-category"):
            j -= 1
        header = lines[j].split("\t")[2:]
        rows = [r.split("\t") for r in lines[j + 1 : i] if r.strip()]
        if not any(h.strip() for h in header):  # names moved to the next row
            header, rows = rows[0][2:], rows[1:]
        columns = []
        for h in header:
            h = h.strip().lower()
            lang = h[-2:]
            model = next((v for k, v in LEAF_COLUMNS.items() if h.startswith(k)), None)
            columns.append((model, lang))
        for r in rows:
            leaf = spec.find_leaf(level, r[1])
            if leaf is None or normalise_segment(r[0]) != normalise_segment(leaf.subcategory):
                raise SystemExit(f"table {m.group(1)}: unknown leaf {r[0]!r} / {r[1]!r}")
            for (model, lang), cell in zip(columns, r[2:], strict=False):
                v = _num(cell)
                if model and v is not None:
                    scores[model][lang][method].setdefault("leaves", {})[leaf.id] = v
        i += 1


def main(paper: str, out: str) -> None:
    scores = parse(Path(paper).read_text(encoding="utf-8"))
    for name, meta_extra in MODELS.items():
        reported = scores[name]
        has_leaves = any("leaves" in s for per in reported.values() for s in per.values())
        meta = {
            "schema_version": 1,
            "model": name,
            **{k: v for k, v in meta_extra.items()},
            "kind": "reported",
            "languages": [lang for lang in ("en", "ar") if lang in reported],
            "methods": sorted({m for per in reported.values() for m in per}, key=["rae", "lbs"].index),
            "revision": None,
            "dataset_revision": None,
            "date": "2026-06",
            "source": SOURCE + ("; Tables 12-23 (leaves)" if has_leaves else ""),
            "verified": None,
        }
        folder = Path(out) / submission_id(meta)
        write_json(folder / "metadata.json", meta)
        write_json(folder / "reported.json", reported)
        print(f"wrote {folder}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
