"""The output folder of a run: lines appended as items finish, resume, atomic final files.

While a run is going the folder holds

- ``.bloombench-run.json``      the run's configuration (a resume must match it) and timings
- ``predictions.partial.jsonl`` one line per finished (item, language), appended and flushed
- ``.bloombench-run.lock``      an advisory lock, so that two runs never write one folder

and when every pair is done it gets ``predictions.jsonl`` and ``metadata.json``
(each written to a temporary file, then renamed) and the two files above are removed.
A run killed mid-write leaves at most one truncated last line; it is dropped on resume.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from leaderboard.errors import BloomBenchError, Problem
from leaderboard.submission import METADATA, PREDICTIONS

PARTIAL = "predictions.partial.jsonl"
STATE = ".bloombench-run.json"
LOCK = ".bloombench-run.lock"

Key = tuple[str, str]  # (question_id, lang)


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: Path, data) -> None:
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def dumps_line(line: dict) -> str:
    return json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n"


def read_jsonl(path: Path, repair: bool = False) -> list[dict]:
    """Parse a JSON-lines file. With ``repair``, a truncated last line (no newline) is cut off the file.

    A bad line anywhere else is an error: the file was edited or corrupted.
    """
    if not path.is_file():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        if not repair:
            raise BloomBenchError(
                Problem(str(path), data.count(b"\n") + 1, "the last line is incomplete", "re-run the command that wrote it")
            )
        keep = data.rfind(b"\n") + 1
        with open(path, "r+b") as fh:
            fh.truncate(keep)
        data = data[:keep]
    lines = []
    for n, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
        try:
            lines.append(json.loads(raw))
        except json.JSONDecodeError as exc:
            raise BloomBenchError(
                Problem(
                    str(path),
                    n,
                    f"invalid JSON ({exc.msg})",
                    "the file was changed by hand: fix or delete that line, or start again in a new --out folder",
                )
            ) from None
    return lines


class PartialWriter:
    """Appends finished lines and makes them durable before returning."""

    def __init__(self, folder: Path):
        self.path = folder / PARTIAL
        self._fh = open(self.path, "a", encoding="utf-8")

    def write(self, lines: list[dict]) -> None:
        self._fh.write("".join(dumps_line(line) for line in lines))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> PartialWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def load_state(folder: Path) -> dict | None:
    path = folder / STATE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise BloomBenchError(Problem(str(path), None, "is not valid JSON", "delete the output folder and start again")) from None


def save_state(folder: Path, state: dict) -> None:
    atomic_write_json(folder / STATE, state)


def config_mismatch(old: dict, new: dict) -> str | None:
    """The first setting that differs between two run configurations, as 'key: old -> new'."""
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            return f"{key}: {json.dumps(old.get(key))} -> {json.dumps(new.get(key))}"
    return None


def done_lines(folder: Path, config: dict) -> dict[Key, dict]:
    """Lines already finished in ``folder`` by a run with the same configuration.

    A folder left by an interrupted run resumes from its partial file; a finished one
    (metadata.json and predictions.jsonl) gives all its lines. Anything else with a
    different configuration is an error rather than a silent mix of two runs.
    """
    state = load_state(folder)
    meta_path = folder / METADATA
    if state is not None:
        previous, source = state.get("config", {}), folder / STATE
        lines = read_jsonl(folder / PARTIAL, repair=True)
        if (folder / PREDICTIONS).is_file() and not lines:  # killed while finishing: the final file is complete
            lines = read_jsonl(folder / PREDICTIONS)
    elif meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            raise BloomBenchError(Problem(str(meta_path), None, "is not valid JSON", "choose another --out folder")) from None
        previous, source = (meta.get("provenance") or {}).get("config", {}), meta_path
        lines = read_jsonl(folder / PREDICTIONS)
    elif folder.is_dir() and any(p.name != LOCK for p in folder.iterdir()):
        raise BloomBenchError(
            Problem(str(folder), None, "is not empty and holds no bloombench run", "choose a new or empty --out folder")
        )
    else:
        return {}
    diff = config_mismatch(previous, config)
    if diff:
        raise BloomBenchError(
            Problem(
                str(source),
                None,
                f"holds a run with other settings ({diff})",
                "resume with the same options, or choose another --out folder",
            )
        )
    done: dict[Key, dict] = {}
    for line in lines:
        done.setdefault((line["question_id"], line["lang"]), line)
    return done


@contextmanager
def exclusive(folder: Path) -> Iterator[None]:
    """Hold an advisory lock on the folder: two runs writing one folder would mix their lines."""
    folder.mkdir(parents=True, exist_ok=True)
    fh = open(folder / LOCK, "a")
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            fcntl = None
        if fcntl is not None:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise BloomBenchError(
                    Problem(
                        str(folder),
                        None,
                        "another bloombench evaluate is writing to this folder",
                        "let it finish (or stop it), then run again",
                    )
                ) from None
        yield
    finally:
        fh.close()


def finish(folder: Path, lines: list[dict], metadata: dict) -> None:
    """Write the final predictions.jsonl and metadata.json atomically, then drop the run files."""
    atomic_write_text(folder / PREDICTIONS, "".join(dumps_line(line) for line in lines))
    atomic_write_json(folder / METADATA, metadata)
    for name in (PARTIAL, STATE, LOCK):
        (folder / name).unlink(missing_ok=True)
