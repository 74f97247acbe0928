"""Gates a model-id request passes before any GPU time is spent (the Open LLM Leaderboard's checks).

A request (``kind: model``) names ``model_id`` and ``revision``. The gates, in order:

  exists          the repository is on the Hugging Face Hub, public and not disabled
  pinned          ``revision`` is a 40-hex commit and the Hub resolves it to itself (not a branch)
  model-card      the revision has a README.md model card
  license         the card declares a license
  safetensors     the revision ships ``.safetensors`` weights
  no-remote-code  neither config.json nor the tokenizer config has ``auto_map`` (no trust_remote_code)
  not-duplicate   no other entry in submissions/ has the same model_id and revision

The Hub is reached through a small :class:`HubClient` interface: :class:`HfHubClient`
wraps ``huggingface_hub.HfApi``; :class:`RecordedHubClient` replays recorded API
responses (``tests/data/hub/``), so the gates are tested without a network.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .errors import BloomBenchError, Problem
from .submission import METADATA, find_submissions

if TYPE_CHECKING:  # huggingface_hub is imported when the Hub is asked, not when the CLI starts
    from huggingface_hub.hf_api import ModelInfo

COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")
GATES = ("exists", "pinned", "model-card", "license", "safetensors", "no-remote-code", "not-duplicate")
FIELD_OF_GATE = {"pinned": "revision", "not-duplicate": "revision"}  # the rest point at model_id


class HubLookupError(Exception):
    """The Hub did not give the model's information. ``kind`` says why."""

    KINDS = ("repo-not-found", "revision-not-found", "unavailable")

    def __init__(self, kind: str, detail: str):
        assert kind in self.KINDS, kind
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")


class HubClient(Protocol):
    """What the gates need from the Hub: one model's information at one revision, with its files."""

    def model_info(self, repo_id: str, revision: str) -> ModelInfo:  # pragma: no cover - a protocol
        ...


class HfHubClient:
    """The real client: ``HfApi.model_info(repo_id, revision=..., files_metadata=True)``, anonymous by default."""

    def __init__(self, api=None, timeout: float = 30.0):
        from huggingface_hub import HfApi

        self.api = api or HfApi()
        self.timeout = timeout

    def model_info(self, repo_id: str, revision: str) -> ModelInfo:
        from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

        try:
            return self.api.model_info(repo_id, revision=revision, files_metadata=True, timeout=self.timeout)
        except RevisionNotFoundError as exc:
            raise HubLookupError("revision-not-found", _first_line(exc)) from None
        except RepositoryNotFoundError as exc:  # GatedRepoError is a subclass; model_info itself is public
            raise HubLookupError("repo-not-found", _first_line(exc)) from None
        except Exception as exc:  # network, rate limit, Hub outage: not the contributor's mistake
            raise HubLookupError("unavailable", f"{type(exc).__name__}: {_first_line(exc)}") from None


def recording_name(repo_id: str, revision: str) -> str:
    """File name of one recorded response: ``org--name@revision.json``."""
    return f"{repo_id.replace('/', '--')}@{revision}.json"


class RecordedHubClient:
    """Replays recorded Hub API responses: one JSON file per (repo_id, revision).

    File shape: ``{"request": {...}, "status": 200, "headers": {...}, "body": <the Hub's JSON>}``,
    where ``body`` is the response of ``GET /api/models/{repo_id}/revision/{revision}?blobs=true``
    (what ``HfApi.model_info(files_metadata=True)`` parses). A 404 carries the Hub's
    ``X-Error-Code`` header (``RepoNotFound`` or ``RevisionNotFound``).
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise BloomBenchError(
                Problem(
                    str(self.folder),
                    None,
                    "recorded responses folder not found",
                    "pass an existing folder to --offline-responses",
                )
            )

    def model_info(self, repo_id: str, revision: str) -> ModelInfo:
        path = self.folder / recording_name(repo_id, revision)
        if not path.is_file():
            raise HubLookupError("unavailable", f"no recorded response {path}")
        from huggingface_hub.hf_api import ModelInfo

        record = json.loads(path.read_text(encoding="utf-8"))
        status = int(record.get("status", 200))
        if status == 200:
            return ModelInfo(**record["body"])
        code = (record.get("headers") or {}).get("X-Error-Code", "")
        message = (record.get("body") or {}).get("error", f"HTTP {status}")
        if status == 404 and code == "RevisionNotFound":
            raise HubLookupError("revision-not-found", f"404 {message}")
        if status in (401, 404) and code in ("RepoNotFound", ""):
            raise HubLookupError("repo-not-found", f"{status} {message}")
        raise HubLookupError("unavailable", f"HTTP {status} {message}")


@dataclass(frozen=True)
class Gate:
    """One gate's outcome: passed is True, False, or None when it could not be checked."""

    name: str
    passed: bool | None
    reason: str

    @property
    def label(self) -> str:
        return {True: "PASS", False: "FAIL", None: "SKIP"}[self.passed]


@dataclass(frozen=True)
class GateReport:
    submission: Path
    model_id: str
    revision: str
    gates: tuple[Gate, ...]

    @property
    def passed(self) -> bool:
        return all(g.passed is True for g in self.gates)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def read_request(folder: Path) -> tuple[dict, str]:
    """metadata.json of a submission folder, and its text (for line numbers); raises on a user's mistake."""
    path = folder / METADATA
    if not path.is_file():
        raise BloomBenchError(Problem(str(path), None, "not found", "pass a submission folder: submissions/<id>/"))
    text = path.read_text(encoding="utf-8")
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BloomBenchError(
            Problem(str(path), exc.lineno, f"invalid JSON ({exc.msg})", "fix the syntax; bloombench validate shows every problem")
        ) from None
    if not isinstance(meta, dict):
        raise BloomBenchError(Problem(str(path), 1, "is not a JSON object", "metadata.json holds one object"))
    for key in ("model_id", "revision"):
        if not isinstance(meta.get(key), str) or not meta[key]:
            raise BloomBenchError(
                Problem(
                    str(path),
                    key_line(text, key),
                    f"'{key}' is missing",
                    "a model-id request names model_id (org/name) and revision (the 40-hex Hub commit)",
                )
            )
    return meta, text


def key_line(text: str, key: str) -> int | None:
    """Line of the first ``"key":`` in a JSON text (for annotations), or None."""
    match = re.search(rf'"{re.escape(key)}"\s*:', text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _license(info: ModelInfo) -> str | None:
    card = info.card_data
    value = card.get("license") if card is not None else None
    if isinstance(value, list):
        value = ", ".join(map(str, value)) or None
    if value == "other" and card is not None:
        name = card.get("license_name") or card.get("license_link")
        value = f"other ({name})" if name else None  # 'other' with nothing named is no license
    if value:
        return str(value)
    tags = [t.split(":", 1)[1] for t in info.tags or [] if t.startswith("license:") and t != "license:other"]
    return ", ".join(tags) or None


def _auto_maps(info: ModelInfo) -> list[str]:
    """Where the Hub's view of the configs declares custom classes (auto_map needs trust_remote_code)."""
    config = info.config or {}
    found = []
    if config.get("auto_map"):
        found.append("config.json auto_map (" + ", ".join(sorted(config["auto_map"])) + ")")
    for key in ("tokenizer_config", "processor_config"):
        sub = config.get(key)
        if isinstance(sub, dict) and sub.get("auto_map"):
            found.append(f"{key} auto_map")
    if "custom_code" in (info.tags or []) and not found:
        found.append("the Hub tags it custom_code")
    return found


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def hub_gates(model_id: str, revision: str, client: HubClient) -> list[Gate]:
    """The gates that read the Hub: exists, pinned, model-card, license, safetensors, no-remote-code."""
    skipped = "not checked: the model's files could not be read from the Hub"
    try:
        info = client.model_info(model_id, revision)
    except HubLookupError as exc:
        if exc.kind == "repo-not-found":
            exists = Gate(
                "exists", False, f"{model_id} is not on the Hub ({exc.detail}); check model_id, and that the model is public"
            )
            pinned = Gate("pinned", None, "not checked: the repository was not found")
        elif exc.kind == "revision-not-found":
            exists = Gate("exists", True, f"{model_id} is on the Hub")
            pinned = Gate(
                "pinned", False, f"revision {revision} is not in {model_id} ({exc.detail}); use a commit from the model's history"
            )
        else:
            exists = Gate("exists", None, f"the Hub could not be asked ({exc.detail}); run the gates again later")
            pinned = Gate("pinned", None, "not checked: the Hub could not be asked")
        return [exists, pinned] + [
            Gate(name, None, skipped) for name in ("model-card", "license", "safetensors", "no-remote-code")
        ]

    if info.disabled:
        exists = Gate("exists", False, f"{model_id} is disabled on the Hub")
    elif info.private:
        exists = Gate("exists", False, f"{model_id} is private; only public models can be evaluated")
    else:
        note = f" (gated: {info.gated} approval; the runner's token needs access)" if info.gated else ""
        exists = Gate("exists", True, f"{model_id} is on the Hub{note}")

    if COMMIT_RE.match(revision) and info.sha == revision:
        pinned = Gate("pinned", True, f"revision {revision[:12]} is a commit")
    elif COMMIT_RE.match(revision):
        pinned = Gate("pinned", False, f"the Hub resolves {revision[:12]} to {info.sha}; set revision to the full 40-hex commit")
    else:
        pinned = Gate(
            "pinned", False, f'revision \'{revision}\' is a branch or tag, not a commit; pin it: "revision": "{info.sha}"'
        )

    files = [s.rfilename for s in info.siblings or []]
    if "README.md" in files:
        card = Gate("model-card", True, "README.md model card present")
    else:
        card = Gate(
            "model-card",
            False,
            "no README.md model card at this revision; ask the authors for a card or pick a revision with one",
        )

    license_name = _license(info)
    if license_name:
        lic = Gate("license", True, f"license: {license_name}")
    else:
        lic = Gate(
            "license", False, "the model card declares no license (card metadata 'license'); only licensed models are evaluated"
        )

    weights = [s for s in info.siblings or [] if s.rfilename.endswith(".safetensors")]
    if weights:
        size = sum((s.lfs.size if s.lfs else s.size) or 0 for s in weights)
        safe = Gate("safetensors", True, f"{len(weights)} .safetensors file(s), {_gib(size)}")
    else:
        pickles = [f for f in files if f.endswith((".bin", ".pt", ".pth", ".ckpt"))]
        what = f"only {', '.join(pickles[:3])}" if pickles else "no weight files"
        safe = Gate("safetensors", False, f"{what} at this revision; the evaluator loads .safetensors weights only (no pickle)")

    maps = _auto_maps(info)
    if maps:
        remote = Gate(
            "no-remote-code",
            False,
            f"needs trust_remote_code: {'; '.join(maps)}; only models supported by transformers itself are evaluated",
        )
    else:
        remote = Gate("no-remote-code", True, "no auto_map: loads without trust_remote_code")
    return [exists, pinned, card, lic, safe, remote]


def duplicate_gate(folder: Path, model_id: str, revision: str, submissions_root: Path) -> Gate:
    """Fails when another submission folder has the same model_id (case-insensitive) and revision."""
    me = folder.resolve()
    same = []
    for other in find_submissions(submissions_root):
        if other.resolve() == me:
            continue
        try:
            meta = json.loads((other / METADATA).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # an unreadable entry is bloombench validate's to report
        if not isinstance(meta, dict):
            continue
        if str(meta.get("model_id") or "").lower() == model_id.lower() and meta.get("revision") == revision:
            same.append(other.name)
    if same:
        return Gate(
            "not-duplicate", False, f"already on the board at this revision: {', '.join(same)}; request a new revision instead"
        )
    return Gate("not-duplicate", True, f"no entry in {submissions_root} has {model_id} at this revision")


def check_gates(folder: str | Path, client: HubClient, submissions_root: str | Path | None = None) -> GateReport:
    """Every gate for the request in ``folder``; ``submissions_root`` defaults to the folder's parent."""
    folder = Path(folder)
    meta, _ = read_request(folder)
    model_id, revision = meta["model_id"], meta["revision"]
    root = Path(submissions_root) if submissions_root is not None else folder.parent
    gates = hub_gates(model_id, revision, client) + [duplicate_gate(folder, model_id, revision, root)]
    return GateReport(folder, model_id, revision, tuple(gates))
