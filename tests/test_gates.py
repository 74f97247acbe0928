"""Gates of model-id requests, against recorded Hub responses (tests/data/hub/), never the network."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from huggingface_hub.hf_api import ModelInfo

from leaderboard.cli import main
from leaderboard.gates import GATES, HfHubClient, RecordedHubClient, check_gates, recording_name

from .conftest import REPO

HUB = REPO / "tests" / "data" / "hub"
GOOD = "5d931087ff18f93245ac25633497037779104518"
PICKLE = "9fe43c6dc4473f5f7a9b70b5b35878bcb515b446"
CUSTOM = "f9cbcf36d8b59dece8021046d0d7c18b0cf747b1"
NOLICENSE = "9430431fc9bf1204fad81f18fc17b047b0d2eb03"
NOCARD = "fc11f6a4f1134db29f4999956af4e3fe256e9804"
MISSING = "d1579b275ec705f73f68b933d188b5002c74ddff"
UNKNOWN = "c618d339c362f64d085829964150dd4996e8b89a"


def write_request(root: Path, model: str, model_id: str, revision: str, kind: str = "model") -> Path:
    """A model-id request folder (metadata.json written with indent=2, as a contributor would)."""
    folder = root / re.sub(r"[^a-z0-9.]+", "-", model.lower()).strip("-")
    folder.mkdir(parents=True, exist_ok=True)
    meta = {
        "schema_version": 1,
        "model": model,
        "organization": "BloomBench Tests",
        "kind": kind,
        "languages": ["en", "ar"],
        "methods": ["rae", "lbs"],
        "open_weights": True,
        "model_id": model_id,
        "revision": revision,
        "date": "2026-11-21",
        "submitted_by": "a-contributor",
    }
    (folder / "metadata.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return folder


def gates_of(report) -> dict[str, bool | None]:
    return {g.name: g.passed for g in report.gates}


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "submissions"


def test_recordings_have_the_hub_shape():
    """Every recorded 200 parses as huggingface_hub's ModelInfo, and a commit-named one is at that commit."""
    files = sorted(HUB.glob("*.json"))
    assert len(files) >= 8
    for path in files:
        record = json.loads(path.read_text(encoding="utf-8"))
        repo_id, revision = path.stem.rsplit("@", 1)
        assert record["request"]["url"].endswith(f"/api/models/{repo_id.replace('--', '/')}/revision/{revision}?blobs=true")
        if record["status"] == 200:
            info = ModelInfo(**record["body"])
            assert info.id == repo_id.replace("--", "/")
            assert re.fullmatch(r"[0-9a-f]{40}", info.sha)
            if re.fullmatch(r"[0-9a-f]{40}", revision):
                assert info.sha == revision
            assert all(s.rfilename for s in info.siblings)
        else:
            assert record["headers"]["X-Error-Code"] in ("RepoNotFound", "RevisionNotFound")


def test_a_good_model_passes_every_gate(root):
    folder = write_request(root, "Vision 7B", "bloombench-test/vision-7b", GOOD)
    report = check_gates(folder, RecordedHubClient(HUB))
    assert [g.name for g in report.gates] == list(GATES)
    assert report.passed, report.gates
    reasons = {g.name: g.reason for g in report.gates}
    assert "apache-2.0" in reasons["license"]
    assert "4 .safetensors" in reasons["safetensors"]


@pytest.mark.parametrize(
    "model_id, revision, failing, says",
    [
        ("bloombench-test/vision-7b-pickle", PICKLE, {"safetensors"}, "pytorch_model-00001-of-00002.bin"),
        ("bloombench-test/custom-vlm", CUSTOM, {"no-remote-code"}, "auto_map (AutoConfig, AutoModelForCausalLM)"),
        ("bloombench-test/unlicensed-vlm", NOLICENSE, {"license"}, "declares no license"),
        ("bloombench-test/no-card-vlm", NOCARD, {"model-card", "license"}, "no README.md model card"),
        ("bloombench-test/vision-7b", "main", {"pinned"}, f'is a branch or tag, not a commit; pin it: "revision": "{GOOD}"'),
        ("bloombench-test/vision-7b", UNKNOWN, {"pinned"}, f"revision {UNKNOWN} is not in bloombench-test/vision-7b"),
        ("bloombench-test/does-not-exist", MISSING, {"exists"}, "bloombench-test/does-not-exist is not on the Hub (404"),
    ],
)
def test_each_failing_gate_says_why(root, model_id, revision, failing, says):
    folder = write_request(root, "Some Model", model_id, revision)
    report = check_gates(folder, RecordedHubClient(HUB))
    result = gates_of(report)
    assert {name for name, ok in result.items() if ok is False} == failing
    assert not report.passed
    assert any(says in g.reason for g in report.gates if g.passed is False), [g.reason for g in report.gates]
    if revision in (MISSING, UNKNOWN):  # the files could not be read: those gates are not checked, not passed
        assert {name for name, ok in result.items() if ok is None} >= {"model-card", "license", "safetensors", "no-remote-code"}


def test_duplicate_model_and_revision_is_refused(root):
    write_request(root, "Vision 7B", "bloombench-test/vision-7b", GOOD, kind="predictions")
    other_revision = write_request(root, "Vision 7B old", "bloombench-test/vision-7b", PICKLE, kind="predictions")
    request = write_request(root, "Vision 7B request", "BloomBench-Test/Vision-7B", GOOD)
    report = check_gates(request, RecordedHubClient(HUB))
    dup = next(g for g in report.gates if g.name == "not-duplicate")
    assert dup.passed is False
    assert "vision-7b" in dup.reason and other_revision.name not in dup.reason
    # The request alone (its own folder) is not a duplicate of itself.
    (root / "vision-7b" / "metadata.json").unlink()
    assert gates_of(check_gates(request, RecordedHubClient(HUB)))["not-duplicate"] is True


def test_the_real_client_reads_the_same_recordings_through_hfapi(root, monkeypatch):
    """HfHubClient (HfApi.model_info over HTTP) replayed from the recordings gives the same gates."""
    import httpx2
    import huggingface_hub
    from huggingface_hub.utils import _http

    requested: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        match = re.fullmatch(r"/api/models/([^/]+)/([^/]+)/revision/([^/]+)", request.url.path)
        if not match:
            return httpx2.Response(404, json={"error": "not recorded"})
        requested.append(f"{request.url.path}?{request.url.query.decode()}")
        path = HUB / recording_name(f"{match[1]}/{match[2]}", match[3])
        if not path.is_file():
            return httpx2.Response(404, headers={"X-Error-Code": "RepoNotFound"}, json={"error": "Repository not found"})
        record = json.loads(path.read_text(encoding="utf-8"))
        return httpx2.Response(record["status"], headers=record["headers"], json=record["body"])

    before = _http._GLOBAL_CLIENT_FACTORY
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    huggingface_hub.set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(handler)))
    try:
        for name, model_id, revision in [
            ("Good", "bloombench-test/vision-7b", GOOD),
            ("Pickle", "bloombench-test/vision-7b-pickle", PICKLE),
            ("Custom", "bloombench-test/custom-vlm", CUSTOM),
            ("Branch", "bloombench-test/vision-7b", "main"),
            ("Unknown", "bloombench-test/vision-7b", UNKNOWN),
            ("Missing", "bloombench-test/does-not-exist", MISSING),
        ]:
            folder = write_request(root, name, model_id, revision)
            real = check_gates(folder, HfHubClient())
            replayed = check_gates(folder, RecordedHubClient(HUB))
            assert [(g.name, g.passed) for g in real.gates] == [(g.name, g.passed) for g in replayed.gates], name
    finally:
        huggingface_hub.set_client_factory(before)
    assert f"/api/models/bloombench-test/vision-7b/revision/{GOOD}?blobs=true" in requested


def test_an_unreachable_hub_is_not_a_pass(root, tmp_path):
    folder = write_request(root, "Vision 7B", "bloombench-test/vision-7b", GOOD)
    report = check_gates(folder, RecordedHubClient(tmp_path))  # nothing recorded there
    result = gates_of(report)
    assert result["exists"] is None and not report.passed
    assert "could not be asked" in report.gates[0].reason


def test_cli_prints_one_line_per_gate_and_exits_1_on_failure(root, tmp_path):
    folder = write_request(root, "Custom VLM", "bloombench-test/custom-vlm", CUSTOM)
    summary = tmp_path / "summary.md"
    result = CliRunner().invoke(main, ["gates", str(folder), "--offline-responses", str(HUB), "--summary", str(summary)])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == len(GATES)
    assert lines[5].startswith("FAIL  no-remote-code") and all(line.startswith("PASS") for i, line in enumerate(lines) if i != 5)
    assert "| no-remote-code | ❌ FAIL |" in summary.read_text(encoding="utf-8")

    good = write_request(root, "Vision 7B", "bloombench-test/vision-7b", GOOD)
    ok = CliRunner().invoke(main, ["gates", str(good), "--offline-responses", str(HUB)])
    assert ok.exit_code == 0 and ok.output.count("PASS") == len(GATES)


def test_github_format_annotates_the_metadata_line(root, monkeypatch):
    monkeypatch.chdir(root.parent)
    folder = write_request(root, "Branch Request", "bloombench-test/vision-7b", "main")
    result = CliRunner().invoke(
        main, ["gates", "submissions/branch-request", "--offline-responses", str(HUB), "--format", "github"]
    )
    assert result.exit_code == 1
    notes = [line for line in result.output.splitlines() if line.startswith("::error ")]
    assert len(notes) == 1
    revision_line = next(
        i for i, line in enumerate((folder / "metadata.json").read_text().splitlines(), 1) if '"revision"' in line
    )
    assert notes[0].startswith(
        f"::error file=submissions/branch-request/metadata.json,line={revision_line},title=bloombench::gate pinned FAIL"
    )


def test_the_offline_responses_folder_can_come_from_the_environment(root, monkeypatch):
    folder = write_request(root, "Vision 7B", "bloombench-test/vision-7b", GOOD)
    monkeypatch.setenv("BLOOMBENCH_HUB_RESPONSES", str(HUB))
    result = CliRunner().invoke(main, ["gates", str(folder)])
    assert result.exit_code == 0, result.output


def test_a_request_without_model_id_is_one_line_not_a_traceback(root):
    folder = write_request(root, "Vision 7B", "bloombench-test/vision-7b", GOOD)
    meta = json.loads((folder / "metadata.json").read_text())
    del meta["model_id"]
    (folder / "metadata.json").write_text(json.dumps(meta, indent=2))
    result = CliRunner().invoke(main, ["gates", str(folder), "--offline-responses", str(HUB)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"error: {folder / 'metadata.json'}: 'model_id' is missing; a model-id request names model_id" in result.output
