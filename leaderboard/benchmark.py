"""The benchmark, defined once: levels, leaves and the released data file.

The taxonomy and item counts live in ``spec/bloombench.json`` (the paper's appendix
tables 4-9). This module reads that spec and loads a ``BloomBench.json`` file in the
released shape into :class:`Item` records, each mapped to its spec leaf.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from .errors import BloomBenchError, Problem

SPEC_PATH = Path(__file__).parent / "spec" / "bloombench.json"
SAMPLE_DATASET = Path(__file__).parent / "data" / "BloomBench.sample.json"
OPTIONS = ("A", "B", "C", "D")
LANGS = ("en", "ar")
IMAGE_FIELDS = ("image", "image_url", "source_image_file")


def normalise_segment(text: str) -> str:
    """Lower-case one taxonomy segment and unify '&'/'-' joins and spacing."""
    text = text.strip().lower().replace("&", "-")
    text = re.sub(r"\s*-\s*", "-", text)
    return re.sub(r"\s+", " ", text)


def split_path(path: str) -> list[str]:
    """Split a hierarchy path written with ' -> ' or ' -_ ' separators."""
    return [normalise_segment(s) for s in re.split(r"\s*-[>_]\s*", path) if s.strip()]


@dataclass(frozen=True)
class Level:
    name: str
    count: int


@dataclass(frozen=True)
class Leaf:
    level: str
    subcategory: str
    name: str
    count: int

    @property
    def id(self) -> str:
        """The leaf's whole path, its identity: 'Analyze / atypical attribute identification / color'."""
        return f"{self.level} / {self.subcategory} / {self.name}"


@dataclass(frozen=True, eq=False)
class Spec:
    name: str
    languages: dict[str, str]
    options: tuple[str, ...]
    dataset: dict[str, str]
    levels: tuple[Level, ...]
    leaves: tuple[Leaf, ...]

    @property
    def level_names(self) -> list[str]:
        return [lv.name for lv in self.levels]

    def leaves_of(self, level: str) -> list[Leaf]:
        return [leaf for leaf in self.leaves if leaf.level == level]

    def find_leaf(self, level: str, name: str) -> Leaf | None:
        return _leaf_index(self).get((normalise_segment(level), normalise_segment(name)))


@cache
def _leaf_index(spec: Spec) -> dict[tuple[str, str], Leaf]:
    return {(normalise_segment(leaf.level), normalise_segment(leaf.name)): leaf for leaf in spec.leaves}


@cache
def load_spec(path: Path = SPEC_PATH) -> Spec:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    return Spec(
        name=raw["name"],
        languages=dict(raw["languages"]),
        options=tuple(raw["options"]),
        dataset=dict(raw["dataset"]),
        levels=tuple(Level(d["name"], d["count"]) for d in raw["levels"]),
        leaves=tuple(Leaf(d["level"], d["subcategory"], d["leaf"], d["count"]) for d in raw["leaves"]),
    )


@dataclass(frozen=True, eq=False)
class Item:
    """One benchmark item: the same question in both languages, one gold option."""

    question_id: str
    level: str
    leaf_id: str
    path: str
    answer: str
    question: dict[str, str]
    options: dict[str, tuple[str, str, str, str]]
    image: str | None
    image_id: str | None


@dataclass(frozen=True, eq=False)
class Dataset:
    path: Path
    revision: str | None
    sha256: str
    items: tuple[Item, ...]

    def by_id(self) -> dict[str, Item]:
        return {item.question_id: item for item in self.items}


def _record_to_item(rec: dict, index: int, spec: Spec, file: str) -> Item:
    def bad(msg: str, fix: str) -> BloomBenchError:
        qid = rec.get("question_id", "?") if isinstance(rec, dict) else "?"
        return BloomBenchError(Problem(file, None, f"record {index} (question_id {qid}): {msg}", fix))

    if not isinstance(rec, dict):
        raise bad("is not an object", "each element of the array must be a JSON object")
    try:
        qid = str(rec["question_id"]).strip().lower()
        hierarchy = rec["hierarchy"]
        mcq = rec["multiple_choice_qa"]
        parts = split_path(hierarchy["lvl1"])
        leaf_name = normalise_segment(hierarchy["leaf"])
    except (KeyError, TypeError) as exc:
        raise bad(f"missing field {exc}", "records need question_id, hierarchy.lvl1/leaf and multiple_choice_qa") from None
    if not parts:
        raise bad("empty hierarchy.lvl1", "the first segment of hierarchy.lvl1 must be a Bloom level")
    leaf = spec.find_leaf(parts[0], leaf_name)
    if leaf is None:
        raise bad(
            f"leaf '{' -> '.join(parts + [leaf_name])}' is not in the {spec.name} taxonomy",
            "use a dataset revision that matches leaderboard/spec/bloombench.json",
        )
    answer = str(mcq.get("answer", "")).strip().upper()
    if answer not in OPTIONS:
        raise bad(f"answer '{mcq.get('answer')}' is not one of A, B, C, D", "fix multiple_choice_qa.answer")
    options: dict[str, tuple[str, str, str, str]] = {}
    question: dict[str, str] = {}
    for lang in LANGS:
        try:
            question[lang] = str(mcq[f"question_{lang}"])
            options[lang] = tuple(str(mcq[f"choice_{o}_{lang}"]) for o in OPTIONS)  # type: ignore[assignment]
        except KeyError as exc:
            raise bad(
                f"missing multiple_choice_qa field {exc}", "every item needs the question and four choices in en and ar"
            ) from None
    image = next((str(rec[f]) for f in IMAGE_FIELDS if rec.get(f)), None)
    return Item(
        question_id=qid,
        level=leaf.level,
        leaf_id=leaf.id,
        path=" -> ".join(parts + [leaf_name]),
        answer=answer,
        question=question,
        options=options,
        image=image,
        image_id=str(rec["image_id"]) if rec.get("image_id") is not None else None,
    )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=4)
def _load_items_cached(path: str, mtime_ns: int, size: int) -> tuple[tuple[Item, ...], str]:
    spec = load_spec()
    raw_bytes = Path(path).read_bytes()
    try:
        records = json.loads(raw_bytes.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise BloomBenchError(Problem(path, None, "is not UTF-8 text", "save the dataset as UTF-8 JSON")) from None
    except json.JSONDecodeError as exc:
        raise BloomBenchError(
            Problem(path, exc.lineno, f"invalid JSON ({exc.msg})", "the dataset must be one JSON array")
        ) from None
    if not isinstance(records, list) or not records:
        raise BloomBenchError(
            Problem(path, None, "is not a non-empty JSON array of records", "pass the released BloomBench.json")
        )
    items = tuple(_record_to_item(rec, i, spec, path) for i, rec in enumerate(records))
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.question_id in seen:
            raise BloomBenchError(
                Problem(path, None, f"record {i}: duplicate question_id {item.question_id}", "question ids must be unique")
            )
        seen.add(item.question_id)
    return items, hashlib.sha256(raw_bytes).hexdigest()


def load_dataset(path: str | Path | None = None, revision: str | None = None) -> Dataset:
    """Load the dataset from a local file, or from the Hub at the pinned revision (cached).

    ``path=None`` downloads ``BloomBench.json`` from the spec's repository at ``revision``
    (default: the spec's pinned revision) through huggingface-hub's cache.
    """
    if path is None:
        path, revision = download_dataset(revision)
    p = Path(path)
    if not p.is_file():
        raise BloomBenchError(Problem(str(p), None, "dataset file not found", "pass an existing file with --dataset PATH"))
    stat = p.stat()
    items, sha = _load_items_cached(str(p), stat.st_mtime_ns, stat.st_size)
    return Dataset(path=p, revision=revision, sha256=sha, items=items)


def download_dataset(revision: str | None = None) -> tuple[Path, str]:
    """Fetch the released file from the Hub (cached by huggingface-hub); returns (path, revision)."""
    spec = load_spec()
    rev = revision or spec.dataset["revision"]
    try:
        from huggingface_hub import hf_hub_download

        local = hf_hub_download(
            repo_id=spec.dataset["repo_id"],
            filename=spec.dataset["filename"],
            repo_type=spec.dataset["repo_type"],
            revision=rev,
        )
    except Exception as exc:  # network, auth, unknown revision: all are the user's to fix
        raise BloomBenchError(
            Problem(
                f"hf://datasets/{spec.dataset['repo_id']}@{rev}",
                None,
                f"could not download {spec.dataset['filename']} ({type(exc).__name__})",
                "check the network and the revision, or pass a local copy with --dataset PATH",
            )
        ) from None
    return Path(local), rev
