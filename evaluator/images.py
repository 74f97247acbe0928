"""Item images: from a local folder (``--images DIR``) or fetched from their URLs into a cache.

Every image is located (and fetched, with retries) before the model is loaded. Any
image that cannot be had stops the run with one error line and a list of the items
concerned, written to ``missing-images.tsv`` in the output folder: an item is never
skipped silently.
"""

from __future__ import annotations

import hashlib
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

from leaderboard.benchmark import Item
from leaderboard.errors import BloomBenchError, Problem

REPORT_NAME = "missing-images.tsv"
_PERMANENT_HTTP = {400, 401, 403, 404, 410, 451}  # not worth retrying


def default_cache() -> Path:
    """``$BLOOMBENCH_IMAGE_CACHE``, else ``~/.cache/bloombench/images``."""
    env = os.environ.get("BLOOMBENCH_IMAGE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "bloombench" / "images"


def is_url(ref: str) -> bool:
    return urlparse(ref).scheme in ("http", "https")


@dataclass(frozen=True)
class ImageSource:
    """Where images come from: ``folder`` (references resolved relative to it) or URLs into ``cache``."""

    folder: Path | None = None
    cache: Path | None = None
    retries: int = 3
    timeout_s: float = 30.0
    backoff_s: float = 1.0
    workers: int = 8

    def describe(self) -> dict:
        if self.folder is not None:
            return {"source": "folder", "resolution": "relative to --images DIR; a URL reference by its file name"}
        return {"source": "urls", "retries": self.retries, "timeout_s": self.timeout_s}


def cache_path(cache: Path, url: str) -> Path:
    """Where a URL's image is kept: a hash of the URL, with the URL's own suffix when it has one."""
    suffix = PurePosixPath(urlparse(url).path).suffix.lower()
    if not (1 < len(suffix) <= 5 and suffix[1:].isalnum()):
        suffix = ".img"
    return cache / f"{hashlib.sha256(url.encode('utf-8')).hexdigest()[:32]}{suffix}"


def local_path(folder: Path, ref: str) -> Path:
    """A reference resolved in ``folder``: relative paths as given, URLs by their file name."""
    if is_url(ref):
        return folder / unquote(PurePosixPath(urlparse(ref).path).name)
    return folder / ref


def _check_image(data_or_path) -> None:
    from PIL import Image

    with Image.open(data_or_path) as img:
        img.verify()


def fetch(url: str, dest: Path, retries: int = 3, timeout_s: float = 30.0, backoff_s: float = 1.0) -> None:
    """Download ``url`` to ``dest`` (atomically), retrying transient failures; raises OSError with the reason."""
    from leaderboard import __version__

    last = "unknown error"
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(backoff_s * 2 ** (attempt - 1))
        try:
            request = urllib.request.Request(url, headers={"User-Agent": f"bloombench/{__version__}"})
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                data = response.read()
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}"
            if exc.code in _PERMANENT_HTTP:
                break
            continue
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            continue
        try:
            _check_image(BytesIO(data))
        except Exception as exc:  # PIL raises several types for bad data
            last = f"not an image ({type(exc).__name__})"
            break
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, dest)
        return
    raise OSError(f"{last} after {attempt + 1} attempt(s)")


def resolve_images(
    items: Sequence[Item],
    source: ImageSource,
    dataset_file: str,
    report_dir: Path,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Path]:
    """Map each item's question_id to a local image file, fetching what is missing.

    Raises BloomBenchError naming how many images failed and the report listing them.
    """
    paths: dict[str, Path] = {}
    failures: list[tuple[str, str, str]] = []
    to_fetch: list[tuple[Item, Path]] = []
    for item in items:
        ref = item.image
        if not ref:
            failures.append((item.question_id, "", "the dataset gives no image reference"))
            continue
        if source.folder is not None:
            paths[item.question_id] = local_path(source.folder, ref)
        elif is_url(ref):
            assert source.cache is not None
            path = cache_path(source.cache, ref)
            paths[item.question_id] = path
            if not path.is_file():
                to_fetch.append((item, path))
        else:
            failures.append((item.question_id, ref, "a local file reference: pass --images DIR to resolve it"))

    def check_local(item: Item) -> tuple[Item, str | None]:
        path = paths[item.question_id]
        if not path.is_file():
            return item, f"not found: {path}"
        try:
            _check_image(path)
        except Exception as exc:
            return item, f"not an image ({type(exc).__name__}): {path}"
        return item, None

    def get(job: tuple[Item, Path]) -> tuple[Item, str | None]:
        item, path = job
        try:
            fetch(str(item.image), path, source.retries, source.timeout_s, source.backoff_s)
        except OSError as exc:
            return item, str(exc)
        return item, None

    if source.folder is not None:
        jobs, work = [i for i in items if i.question_id in paths], check_local
    else:
        jobs, work = to_fetch, get
    if progress:
        progress(len(items) - len(jobs))  # cached, or failed before any work
    with ThreadPoolExecutor(max_workers=max(1, source.workers)) as pool:
        for item, reason in pool.map(work, jobs):
            if reason:
                failures.append((item.question_id, item.image or "", reason))
            if progress:
                progress(1)
    if failures:
        order = {item.question_id: n for n, item in enumerate(items)}
        failures.sort(key=lambda f: order[f[0]])
        raise BloomBenchError(_failure_problem(failures, len(items), dataset_file, report_dir, source))
    return paths


def _failure_problem(
    failures: list[tuple[str, str, str]], total: int, dataset_file: str, report_dir: Path, source: ImageSource
) -> Problem:
    report_dir.mkdir(parents=True, exist_ok=True)
    report = report_dir / REPORT_NAME
    tmp = report.with_name(f".{report.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("question_id\timage\treason\n")
        for qid, ref, reason in failures:
            fh.write(f"{qid}\t{ref}\t{reason}\n")
    os.replace(tmp, report)
    qid, ref, reason = failures[0]
    verb = "found" if source.folder is not None else "fetched"
    fix = (
        f"put the files in {source.folder} (see {report})"
        if source.folder is not None
        else f"check the network and retry (fetched images are cached), or download them and pass --images DIR; the list is in {report}"
    )
    return Problem(
        dataset_file, None, f"{len(failures)} of {total} item images could not be {verb} (first: {qid} {ref}: {reason})", fix
    )


def load_image(path: Path):
    """The image as RGB; an unreadable file is a one-line error naming it."""
    from PIL import Image

    try:
        with Image.open(path) as img:
            return img.convert("RGB")
    except Exception as exc:
        raise BloomBenchError(
            Problem(
                str(path),
                None,
                f"cannot be read as an image ({type(exc).__name__})",
                "delete it so that it is fetched again, or replace it",
            )
        ) from None
