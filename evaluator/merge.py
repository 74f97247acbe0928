"""Join the folders of ``bloombench evaluate --shard K/N`` runs into one submission.

The shards must come from one configuration (model, revision, dataset, languages,
methods, prompts, dtype), be finished, cover 1..N exactly once and share no
(item, language) pair. Lines are put back in dataset order: shard K holds items
K-1, K-1+N, ... so interleaving the shards' items restores the order of an
uninterrupted run. The joined folder is written atomically.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from leaderboard.benchmark import Dataset
from leaderboard.errors import BloomBenchError, Problem
from leaderboard.submission import METADATA, PREDICTIONS, submission_id

from . import store


def _read_shard(folder: Path) -> tuple[dict, list[dict], tuple[int, int]]:
    meta_path = folder / METADATA
    if (folder / store.STATE).is_file():
        raise BloomBenchError(
            Problem(str(folder), None, "is an unfinished shard", "resume it: run the same bloombench evaluate command again")
        )
    if not meta_path.is_file():
        raise BloomBenchError(
            Problem(str(meta_path), None, "not found", "pass folders written by bloombench evaluate --shard K/N")
        )
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BloomBenchError(Problem(str(meta_path), exc.lineno, "invalid JSON", "re-run the shard")) from None
    prov = meta.get("provenance") or {}
    shard = prov.get("shard")
    if not isinstance(shard, str) or "/" not in shard:
        raise BloomBenchError(
            Problem(
                str(meta_path), None, "is not a shard (provenance.shard is not K/N)", "pass only folders written with --shard K/N"
            )
        )
    k, n = (int(x) for x in shard.split("/"))
    lines = store.read_jsonl(folder / PREDICTIONS)
    if len(lines) != prov.get("pairs"):
        raise BloomBenchError(
            Problem(
                str(folder / PREDICTIONS),
                None,
                f"has {len(lines)} lines, the shard ran {prov.get('pairs')} item-language pairs",
                "re-run the shard",
            )
        )
    return meta, lines, (k, n)


def _groups(lines: list[dict]) -> list[list[dict]]:
    """Consecutive lines of one item (its languages) as one group."""
    groups: list[list[dict]] = []
    for line in lines:
        if groups and groups[-1][0]["question_id"] == line["question_id"]:
            groups[-1].append(line)
        else:
            groups.append([line])
    return groups


def merge_shards(out: Path, shard_dirs: list[Path], dataset: Dataset | None = None, force: bool = False) -> Path:
    """Check the shards and write the joined submission; returns its folder.

    That is ``out`` when it is named by the submission id, else ``out/<id>``.
    """
    if not shard_dirs:
        raise BloomBenchError(
            Problem("merge", None, "no shard folders given", "pass every shard folder: bloombench merge OUT SHARD_DIR...")
        )
    shards = [(Path(d), *_read_shard(Path(d))) for d in shard_dirs]
    first_dir, first_meta, _, (_, n) = shards[0]
    base = {k: v for k, v in first_meta["provenance"]["config"].items() if k != "shard"}
    by_k: dict[int, Path] = {}
    for folder, meta, _, (k, n_k) in shards:
        config = {key: v for key, v in meta["provenance"].get("config", {}).items() if key != "shard"}
        diff = store.config_mismatch(base, config)
        if diff or n_k != n:
            why = diff or f"shard count: {n} -> {n_k}"
            raise BloomBenchError(
                Problem(
                    str(folder / METADATA),
                    None,
                    f"is a shard of another run than {first_dir} ({why})",
                    "merge shards of one evaluate command",
                )
            )
        if k in by_k:
            raise BloomBenchError(Problem(str(folder), None, f"is shard {k}/{n} again (also {by_k[k]})", "pass each shard once"))
        by_k[k] = folder
    missing = [k for k in range(1, n + 1) if k not in by_k]
    if missing:
        raise BloomBenchError(
            Problem("merge", None, f"shard(s) {', '.join(f'{k}/{n}' for k in missing)} missing", "run and pass every shard 1..N")
        )

    seen: dict[tuple[str, str], Path] = {}
    for folder, _, lines, _ in shards:
        for line in lines:
            key = (line["question_id"], line["lang"])
            if key in seen:
                raise BloomBenchError(
                    Problem(
                        str(folder / PREDICTIONS),
                        None,
                        f"pair {key[0]}/{key[1]} is also in {seen[key]}",
                        "shards must be disjoint: pass each shard once",
                    )
                )
            seen[key] = folder

    shards.sort(key=lambda s: s[3][0])
    if dataset is not None:
        if dataset.sha256 != base["dataset_sha256"]:
            raise BloomBenchError(
                Problem(
                    str(dataset.path),
                    None,
                    "is not the dataset file the shards ran on (sha256 differs)",
                    "pass the same --dataset file",
                )
            )
        by_key = {(line["question_id"], line["lang"]): line for _, _, lines, _ in shards for line in lines}
        wanted = [(item.question_id, lang) for item in dataset.items for lang in base["languages"]]
        absent = [key for key in wanted if key not in by_key]
        if absent or len(wanted) != len(by_key):
            raise BloomBenchError(
                Problem(
                    "merge",
                    None,
                    f"the shards cover {len(by_key)} of {len(wanted)} item-language pairs",
                    "run every shard of the same dataset",
                )
            )
        merged = [by_key[key] for key in wanted]
    else:
        grouped = [_groups(lines) for _, _, lines, _ in shards]
        merged = [line for j in range(max(len(g) for g in grouped)) for g in grouped if j < len(g) for line in g[j]]

    meta = _merged_metadata([s[1] for s in shards], len(merged))
    sid = submission_id(meta)
    out = Path(out) if Path(out).name == sid else Path(out) / sid
    _write(out, merged, meta, force)
    return out


def _merged_metadata(metas: list[dict], pairs: int) -> dict:
    meta = json.loads(json.dumps(metas[0]))
    provs = [m["provenance"] for m in metas]
    prov = meta["provenance"]
    prov["shard"] = None
    prov["config"]["shard"] = None
    prov["pairs"] = pairs
    prov["started"] = min(p["started"] for p in provs)
    prov["finished"] = max(p["finished"] for p in provs)
    prov["duration_s"] = round(sum(float(p["duration_s"]) for p in provs), 3)
    prov["sessions"] = sum(int(p.get("sessions", 1)) for p in provs)
    prov["hardware"] = ", ".join(dict.fromkeys(p["hardware"] for p in provs))
    prov["shards"] = [
        {k: p.get(k) for k in ("shard", "hardware", "device", "started", "finished", "duration_s", "pairs")} for p in provs
    ]
    meta["date"] = max(m["date"] for m in metas)
    return meta


def _write(out: Path, lines: list[dict], meta: dict, force: bool) -> None:
    text = "".join(store.dumps_line(line) for line in lines)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise BloomBenchError(
                Problem(str(out), None, "already exists and is not empty", "remove it or pass --force to replace its files")
            )
        store.atomic_write_text(out / PREDICTIONS, text)
        store.atomic_write_json(out / METADATA, meta)
        return
    tmp = out.with_name(f".{out.name}.merge-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    store.atomic_write_text(tmp / PREDICTIONS, text)
    store.atomic_write_json(tmp / METADATA, meta)
    if out.exists():
        out.rmdir()
    os.replace(tmp, out)
