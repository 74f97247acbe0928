"""The command line as a whole: every part present, documented, and free of tracebacks."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from leaderboard import __version__
from leaderboard.cli import main

from .conftest import REPO

EXPECTED = {"validate", "score", "build", "evaluate", "merge", "compare", "gates", "verify"}
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_every_part_of_the_tool_is_registered():
    assert EXPECTED <= set(main.commands), EXPECTED - set(main.commands)


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_has_help_with_an_example_and_is_in_the_readme(name):
    for flag in ("-h", "--help"):
        result = CliRunner().invoke(main, [name, flag])
        assert result.exit_code == 0, result.output
        assert "Example" in result.output, f"{name} help has no example"
    assert f"bloombench {name}" in README, f"README does not mention `bloombench {name}`"


def test_version_and_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "leaderboard", "--version"], capture_output=True, text=True, check=True)
    assert __version__ in out.stdout


def test_cli_does_not_import_torch():
    """Building and validating never need torch: importing the CLI must not load it."""
    code = "import sys, leaderboard.cli; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_ci_runs_the_readmes_test_command():
    commands = re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)
    setup = [c for c in commands if c.startswith("python3 -m venv")]
    assert len(setup) == 2, "the README keeps exactly two set-up commands"
    ci = (REPO / ".ci" / "run").read_text()
    assert setup[1] in ci.splitlines()


def test_user_mistake_is_one_line_not_a_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "leaderboard", "score", str(tmp_path / "nope"), "--dataset", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "is not a folder" in result.stderr


def test_ruff_lint_and_format_are_clean():
    for args in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *args, "--exclude", ".venv"], cwd=REPO, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
