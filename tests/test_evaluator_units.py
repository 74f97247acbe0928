"""Evaluator parts that need no model: prompts, shards, the output store, images, the CLI surface."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from leaderboard.benchmark import Item
from leaderboard.errors import BloomBenchError

REPO = Path(__file__).resolve().parent.parent


def _item(qid: str, image: str | None) -> Item:
    return Item(
        question_id=qid, level="Remember", leaf_id="Remember / x / y", path="remember -> x -> y", answer="B",
        question={"en": "Which {object} is shown?", "ar": "ما الشيء الظاهر؟"},
        options={"en": ("red car", "blue car", "a lamp", "a tree"), "ar": ("سيارة حمراء", "سيارة زرقاء", "مصباح", "شجرة")},
        image=image, image_id=None,
    )  # fmt: skip


def test_importing_the_commands_does_not_import_torch():
    code = "import sys, leaderboard.cli, evaluator.commands; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_commands_have_help_with_an_example():
    from evaluator.commands import COMMANDS
    from leaderboard.cli import main

    assert [c.name for c in COMMANDS] == ["evaluate", "merge"]
    for command in COMMANDS:
        result = CliRunner().invoke(main, [command.name, "-h"])
        assert result.exit_code == 0
        assert f"bloombench {command.name} " in result.output  # the example line


def test_rae_prompt_numbers_the_options_in_both_languages():
    from evaluator.prompts import lbs_prompt, rae_prompt

    item = _item("a" * 32, None)
    en, ar = rae_prompt(item, "en"), rae_prompt(item, "ar")
    assert "Question: Which {object} is shown?\nOptions:\n1) red car\n2) blue car\n3) a lamp\n4) a tree\n" in en
    assert "Question: ما الشيء الظاهر؟\nOptions:\n1) سيارة حمراء\n2) سيارة زرقاء\n3) مصباح\n4) شجرة\n" in ar
    assert en.startswith("You are an expert in visual question answering.\n") and en.endswith(
        "(1, 2, 3, or 4) as your response. without any additional text.\nAnswer: "
    )
    lbs = lbs_prompt(item, "ar")
    assert lbs.endswith("Question: ما الشيء الظاهر؟\nAnswer: ") and "سيارة" not in lbs  # options are scored, not listed


def test_shards_partition_the_items_round_robin():
    from evaluator.runner import parse_shard, shard_items

    items = tuple(_item(f"{i:032x}", None) for i in range(10))
    slices = [shard_items(items, (k, 3)) for k in (1, 2, 3)]
    assert [len(s) for s in slices] == [4, 3, 3]
    assert sorted(i.question_id for s in slices for i in s) == sorted(i.question_id for i in items)
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/3", "4/3", "2", "a/b"):
        with pytest.raises(BloomBenchError, match="is not K/N"):
            parse_shard(bad)


def test_truncated_last_line_is_dropped_and_the_file_repaired(tmp_path):
    from evaluator.store import read_jsonl

    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"question_id": "a", "lang": "en"}\n{"question_id": "b", "lang": "en"}\n{"question_id": "c", "la')
    assert [x["question_id"] for x in read_jsonl(path, repair=True)] == ["a", "b"]
    assert path.read_bytes().endswith(b'"en"}\n')
    path.write_bytes(b'{"question_id": "a"}\nnot json\n')
    with pytest.raises(BloomBenchError, match=r"p.jsonl:2: invalid JSON"):
        read_jsonl(path, repair=True)


def test_a_folder_with_other_content_is_not_overwritten(tmp_path):
    from evaluator.store import done_lines

    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(BloomBenchError, match="holds no bloombench run"):
        done_lines(tmp_path, {"model": "x"})
    assert done_lines(tmp_path / "new", {"model": "x"}) == {}


def _png(color=(200, 30, 30)) -> bytes:
    from io import BytesIO

    from PIL import Image

    buf = BytesIO()
    Image.new("RGB", (8, 8), color).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def image_server():
    """A local HTTP server: /ok.png, /flaky.png (503 once, then the image), anything else 404."""
    hits: dict[str, int] = {}
    body = _png()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits[self.path] = hits.get(self.path, 0) + 1
            if self.path == "/ok.png" or (self.path == "/flaky.png" and hits[self.path] > 1):
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_error(503 if self.path == "/flaky.png" else 404)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()


def test_images_are_fetched_with_retries_and_failures_listed(image_server, tmp_path):
    from evaluator.images import REPORT_NAME, ImageSource, resolve_images

    base, hits = image_server
    items = [
        _item("1" * 32, f"{base}/ok.png"),
        _item("2" * 32, f"{base}/flaky.png"),
        _item("3" * 32, f"{base}/gone.png"),
        _item("4" * 32, "local/x.png"),
    ]
    source = ImageSource(cache=tmp_path / "cache", retries=2, backoff_s=0.01, timeout_s=5)
    with pytest.raises(BloomBenchError) as err:
        resolve_images(items, source, "BloomBench.json", tmp_path / "out")
    message = str(err.value)
    assert message.startswith("BloomBench.json: 2 of 4 item images could not be fetched (first: 3333")
    assert "HTTP 404" in message and f"the list is in {tmp_path / 'out' / REPORT_NAME}" in message
    report = (tmp_path / "out" / REPORT_NAME).read_text().splitlines()
    assert [row.split("\t")[0] for row in report[1:]] == ["3" * 32, "4" * 32]  # in dataset order
    assert "pass --images DIR" in report[2]
    assert hits["/flaky.png"] == 2 and hits["/gone.png"] == 1  # a transient error is retried, a 404 is not

    paths = resolve_images(items[:2], source, "BloomBench.json", tmp_path / "out")  # fetched ones are cached
    assert all(p.read_bytes() == _png() for p in paths.values())
    assert hits["/ok.png"] == 1 and hits["/flaky.png"] == 2


def test_local_folder_resolves_paths_and_url_file_names(tmp_path):
    from evaluator.images import ImageSource, resolve_images

    (tmp_path / "img" / "sub").mkdir(parents=True)
    (tmp_path / "img" / "sub" / "a.png").write_bytes(_png())
    (tmp_path / "img" / "b.png").write_bytes(_png())
    (tmp_path / "img" / "broken.png").write_bytes(b"not a png")
    items = [
        _item("1" * 32, "sub/a.png"),
        _item("2" * 32, "https://example.org/x/b.png"),
        _item("3" * 32, "missing.png"),
        _item("4" * 32, "broken.png"),
        _item("5" * 32, None),
    ]
    with pytest.raises(BloomBenchError, match=r"3 of 5 item images could not be found") as err:
        resolve_images(items, ImageSource(folder=tmp_path / "img"), "ds.json", tmp_path / "out")
    assert f"(first: {'3' * 32} missing.png: not found: {tmp_path / 'img' / 'missing.png'})" in str(err.value)
    rows = (tmp_path / "out" / "missing-images.tsv").read_text().splitlines()[1:]
    assert [r.split("\t")[0][0] for r in rows] == ["3", "4", "5"]
    assert "not an image" in rows[1] and "no image reference" in rows[2]
    paths = resolve_images(items[:2], ImageSource(folder=tmp_path / "img"), "ds.json", tmp_path / "out")
    assert paths == {"1" * 32: tmp_path / "img" / "sub" / "a.png", "2" * 32: tmp_path / "img" / "b.png"}


def test_missing_images_stop_the_cli_with_one_line(tmp_path):
    from leaderboard.cli import main
    from leaderboard.synthetic import make_dataset, write_json

    records = make_dataset(per_leaf=1, seed=1)[:3]
    write_json(tmp_path / "ds.json", records)
    (tmp_path / "images").mkdir()
    model = tmp_path / "m1"
    model.mkdir()
    out = tmp_path / "out" / "m1"
    args = [
        "evaluate",
        "--model",
        str(model),
        "--organization",
        "Me",
        "--dataset",
        str(tmp_path / "ds.json"),
        "--images",
        str(tmp_path / "images"),
        "--out",
        str(out),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "3 of 3 item images could not be found" in lines[0]
    assert (out / "missing-images.tsv").is_file() and not (out / "predictions.partial.jsonl").exists()


def test_local_model_needs_an_organization(tmp_path):
    from leaderboard.cli import main

    result = CliRunner().invoke(main, ["evaluate", "--model", str(tmp_path), "--out", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert "--organization: is needed for a local model folder" in result.output
