"""The evaluation loop: dataset slice, images, batches, progress, resume, metadata."""

from __future__ import annotations

import hashlib
import math
import platform
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from leaderboard import __version__
from leaderboard.benchmark import LANGS, OPTIONS, Dataset, Item, load_dataset
from leaderboard.errors import BloomBenchError, Problem
from leaderboard.submission import submission_id

from . import prompts, store
from .images import ImageSource, default_cache, load_image, resolve_images

METHODS = ("rae", "lbs")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass
class EvalConfig:
    """Everything ``bloombench evaluate`` takes; see its --help for each option."""

    model: str
    out: Path
    revision: str | None = None
    dataset_path: str | None = None
    dataset_revision: str | None = None
    langs: tuple[str, ...] = LANGS
    methods: tuple[str, ...] = METHODS
    images: Path | None = None
    image_cache: Path | None = None
    shard: tuple[int, int] | None = None
    batch_size: int = 8
    max_new_tokens: int = 128
    device: str = "auto"
    device_map: str | None = None
    dtype: str = "auto"
    trust_remote_code: bool = False
    lbs_impl: str = "shared"
    name: str | None = None
    variant: str | None = None
    organization: str | None = None
    model_id: str | None = None
    license: str | None = None
    link: str | None = None
    submitted_by: str | None = None
    notes: str | None = None
    progress: bool = True


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' (1 <= K <= N) -> (K, N)."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise BloomBenchError(
            Problem("--shard", None, f"'{text}' is not K/N with 1 <= K <= N", "e.g. --shard 2/4 for the second of four slices")
        )
    return int(m.group(1)), int(m.group(2))


def shard_items(items: tuple[Item, ...], shard: tuple[int, int] | None) -> list[Item]:
    """Shard K of N takes items K-1, K-1+N, K-1+2N, ... (round robin: every slice spans every level)."""
    if shard is None:
        return list(items)
    k, n = shard
    return list(items[k - 1 :: n])


def submission_folder(out: Path, meta: dict) -> Path:
    """``out`` itself when it is named by the submission id, else ``out/<id>`` (``--out submissions/`` works)."""
    sid = submission_id(meta)
    return out if out.name == sid else out / sid


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _weights_fingerprint(folder: Path) -> str:
    """Names and sizes of a local model's weight files: a resumed run must use the same checkpoint."""
    files = sorted((p.name, p.stat().st_size) for p in folder.glob("*.safetensors"))
    return hashlib.sha256(repr(files).encode()).hexdigest()[:16]


@dataclass
class Identity:
    name: str
    organization: str
    model_id: str | None
    revision: str | None
    local: bool


def identify(cfg: EvalConfig) -> Identity:
    """Display name, organisation, Hub id and pinned commit of the model being evaluated."""
    local = Path(cfg.model).is_dir()
    if cfg.model_id is not None and not _MODEL_ID.match(cfg.model_id):
        raise BloomBenchError(Problem("--model-id", None, f"'{cfg.model_id}' is not a Hub id", "use the form org/name"))
    if local:
        if cfg.revision is not None and not _SHA.match(cfg.revision):
            raise BloomBenchError(
                Problem(
                    "--revision",
                    None,
                    f"'{cfg.revision}' is not a 40-hex commit",
                    "for a local folder give the Hub commit it was downloaded at, or leave it out",
                )
            )
        if not cfg.organization:
            raise BloomBenchError(
                Problem("--organization", None, f"is needed for a local model folder ({cfg.model})", "pass --organization NAME")
            )
        name = cfg.name or Path(cfg.model).resolve().name
        return Identity(name, cfg.organization, cfg.model_id, cfg.revision, True)
    if not _MODEL_ID.match(cfg.model):
        raise BloomBenchError(
            Problem(
                "--model", None, f"'{cfg.model}' is neither a local folder nor a Hub id", "pass org/name or an existing folder"
            )
        )
    from .vlm import resolve_revision

    org, name = cfg.model.split("/")
    return Identity(
        cfg.name or name, cfg.organization or org, cfg.model_id or cfg.model, resolve_revision(cfg.model, cfg.revision), False
    )


def run_config(cfg: EvalConfig, ident: Identity, dataset: Dataset, dtype: str) -> dict:
    """The settings a resumed run (and every shard of a merge) must share."""
    return {
        "model": ident.model_id or ident.name,
        "weights": _weights_fingerprint(Path(cfg.model)) if ident.local else None,
        "revision": ident.revision,
        "dataset_sha256": dataset.sha256,
        "languages": list(cfg.langs),
        "methods": list(cfg.methods),
        "shard": f"{cfg.shard[0]}/{cfg.shard[1]}" if cfg.shard else None,
        "prompts_sha256": prompts.prompts_sha256(),
        "max_new_tokens": cfg.max_new_tokens,
        "dtype": dtype,
    }


def _line(item: Item, lang: str, response: str, scores) -> dict:
    line: dict = {"question_id": item.question_id, "lang": lang, "response": response}
    if scores is not None:
        lbs = {}
        for o, s in zip(OPTIONS, scores, strict=True):
            if not math.isfinite(s.logprob):
                raise BloomBenchError(
                    Problem(
                        f"{item.question_id}/{lang}",
                        None,
                        f"option {o} got a non-finite log-probability",
                        "run with --dtype float32 or bfloat16",
                    )
                )
            lbs[o] = {"logprob": min(0.0, s.logprob), "tokens": s.tokens}
        line["lbs"] = lbs
    return line


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_evaluation(cfg: EvalConfig, max_batches: int | None = None, log: Callable[[str], None] = _log) -> Path | None:
    """Evaluate, appending finished pairs to the output folder; returns it once complete.

    Without a shard the output folder is ``cfg.out`` when it is named by the submission id,
    else ``cfg.out/<id>``; a shard writes to ``cfg.out`` as given.

    ``max_batches`` stops after that many batches (leaving a resumable folder) and returns None.
    """
    from . import vlm

    for lang in cfg.langs:
        if lang not in LANGS:
            raise BloomBenchError(Problem("--langs", None, f"unknown language '{lang}'", "use en, ar or en,ar"))
    for method in cfg.methods:
        if method not in METHODS:
            raise BloomBenchError(Problem("--methods", None, f"unknown method '{method}'", "use rae, lbs or rae,lbs"))
    ident = identify(cfg)
    out = Path(cfg.out)
    if cfg.shard is None:
        out = submission_folder(out, {"model": ident.name, "variant": cfg.variant})
    dataset = load_dataset(cfg.dataset_path, cfg.dataset_revision)
    items = shard_items(dataset.items, cfg.shard)
    pairs = [(item, lang) for item in items for lang in cfg.langs]
    device = vlm.choose_device(cfg.device)
    dtype = str(vlm.choose_dtype(cfg.dtype, device)).removeprefix("torch.")
    config = run_config(cfg, ident, dataset, dtype)

    done = store.done_lines(out, config)
    finished_before = (out / "metadata.json").is_file() and store.load_state(out) is None
    todo = [(item, lang) for item, lang in pairs if (item.question_id, lang) not in done]
    if finished_before and not todo:
        log(f"{out}: already complete ({len(pairs)} item-language pairs); nothing to do")
        return out
    if done:
        log(f"resuming {out}: {len(pairs) - len(todo)} of {len(pairs)} item-language pairs already done")

    source = ImageSource(folder=cfg.images, cache=None if cfg.images else (cfg.image_cache or default_cache()))
    need = list({item.question_id: item for item, _ in todo}.values())
    from tqdm.auto import tqdm

    with tqdm(total=len(need), unit="image", desc="images", disable=not cfg.progress or not need, dynamic_ncols=True) as bar:
        image_paths = resolve_images(need, source, str(dataset.path), out, progress=bar.update)
    (out / "missing-images.tsv").unlink(missing_ok=True)

    with store.exclusive(out):
        try:
            return _evaluate(cfg, out, ident, dataset, pairs, todo, done, config, source, image_paths, max_batches, log)
        except KeyboardInterrupt:
            log(f"interrupted: {out} keeps the finished items; run the same command again to resume")
            raise


def _evaluate(
    cfg: EvalConfig,
    out: Path,
    ident: Identity,
    dataset: Dataset,
    pairs: list[tuple[Item, str]],
    todo: list[tuple[Item, str]],
    done: dict[store.Key, dict],
    config: dict,
    source: ImageSource,
    image_paths: dict[str, Path],
    max_batches: int | None,
    log: Callable[[str], None],
) -> Path | None:
    """Load the model, run the remaining pairs batch by batch (each batch made durable), then finish."""
    import torch
    import transformers
    from tqdm.auto import tqdm

    from . import lbs, vlm

    state = store.load_state(out) or {"config": config, "started": _now(), "elapsed_s": 0.0, "sessions": 0}
    state["sessions"] += 1
    store.save_state(out, state)

    lm = vlm.load(
        cfg.model, None if ident.local else ident.revision, cfg.dtype, cfg.device, cfg.device_map, cfg.trust_remote_code
    )
    scorer = lbs.SCORERS[cfg.lbs_impl]
    session_start, elapsed_before = time.monotonic(), float(state["elapsed_s"])
    bar = tqdm(
        total=len(pairs),
        initial=len(pairs) - len(todo),
        unit="item",
        desc="evaluate",
        disable=not cfg.progress,
        dynamic_ncols=True,
    )
    batches = 0
    with store.PartialWriter(out) as writer, bar:
        for start in range(0, len(todo), cfg.batch_size):
            if max_batches is not None and batches >= max_batches:
                return None
            chunk = todo[start : start + cfg.batch_size]
            images = {qid: load_image(image_paths[qid]) for qid in dict.fromkeys(item.question_id for item, _ in chunk)}
            responses: list[str] = [""] * len(chunk)
            scores: list = [None] * len(chunk)
            if "rae" in cfg.methods:
                requests = [vlm.Request(prompts.rae_prompt(item, lang), images[item.question_id]) for item, lang in chunk]
                responses = vlm.generate(lm, requests, cfg.max_new_tokens)
            if "lbs" in cfg.methods:
                requests = [
                    vlm.Request(prompts.lbs_prompt(item, lang), images[item.question_id], item.options[lang])
                    for item, lang in chunk
                ]
                scores = scorer(lm, requests, [f"{item.question_id}/{lang}" for item, lang in chunk])
            lines = [_line(item, lang, r, s) for (item, lang), r, s in zip(chunk, responses, scores, strict=True)]
            writer.write(lines)
            for line in lines:
                done[(line["question_id"], line["lang"])] = line
            state["elapsed_s"] = round(elapsed_before + time.monotonic() - session_start, 3)
            store.save_state(out, state)
            bar.update(len(chunk))
            batches += 1

    finished = _now()
    lines = [done[(item.question_id, lang)] for item, lang in pairs]
    meta = metadata(cfg, ident, dataset, lm.info, config, state, finished, len(pairs), source)
    meta["provenance"]["transformers_version"] = transformers.__version__
    meta["provenance"]["torch_version"] = torch.__version__
    store.finish(out, lines, meta)
    log(f"wrote {out} ({len(lines)} lines)")
    return out


def metadata(
    cfg: EvalConfig,
    ident: Identity,
    dataset: Dataset,
    info: dict,
    config: dict,
    state: dict,
    finished: str,
    pairs: int,
    source: ImageSource,
) -> dict:
    """metadata.json for the run (validator/schema/metadata.schema.json), provenance included."""
    meta: dict = {"schema_version": 1, "model": ident.name}
    if cfg.variant:
        meta["variant"] = cfg.variant
    link = cfg.link or (f"https://huggingface.co/{ident.model_id}" if ident.model_id else None)
    meta.update(
        {
            "organization": ident.organization,
            "kind": "predictions",
            "languages": list(cfg.langs),
            "methods": list(cfg.methods),
            "open_weights": True,
            "parameters_b": float(f"{info['parameters'] / 1e9:.3g}"),
            "license": cfg.license,
            "link": link,
            "model_id": ident.model_id,
            "revision": ident.revision,
            "dataset_revision": dataset.revision,
            "date": finished[:10],
            "submitted_by": cfg.submitted_by,
            "notes": cfg.notes,
        }
    )
    meta["provenance"] = {
        "tool": "bloombench evaluate",
        "tool_version": __version__,
        "dataset_sha256": dataset.sha256,
        "dataset_items": len(dataset.items),
        "prompts": prompts.provenance(info.get("chat_template")),
        "decoding": {
            "rae": {
                "strategy": "greedy",
                "do_sample": False,
                "temperature": 0,
                "max_new_tokens": cfg.max_new_tokens,
                "batch_size": cfg.batch_size,
                "padding": "left",
                "response": "raw reply, special tokens removed",
            },
            "lbs": {
                "implementation": cfg.lbs_impl,
                "scored": "the option's own tokens as the start of the assistant reply (context+option encoded together, sliced at the first differing token)",
                "stored": "summed natural-log probability and token count per option",
                "log_softmax": "float32",
                "batch_size": cfg.batch_size,
            },
        },
        "dtype": info["dtype"],
        "device": info["device"],
        "hardware": info["hardware"],
        "python_version": platform.python_version(),
        "model_class": info["model_class"],
        "processor_class": info["processor_class"],
        "attn_implementation": info.get("attn_implementation"),
        "parameters": info["parameters"],
        "trust_remote_code": cfg.trust_remote_code,
        "images": source.describe(),
        "started": state["started"],
        "finished": finished,
        "duration_s": float(state["elapsed_s"]),
        "sessions": state["sessions"],
        "shard": config["shard"],
        "pairs": pairs,
        "config": config,
    }
    return meta
