"""What the GitHub workflows print: changed submissions, annotations, job summaries.

Everything here treats a pull request's files as data: folder names and texts are
escaped before they reach a workflow command (``::error ...``) or the Markdown summary,
and symbolic links are refused rather than followed.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .benchmark import Dataset, load_spec
from .errors import BloomBenchError, Problem
from .gates import GateReport, HubClient, check_gates, key_line

SUBMISSIONS = "submissions"


# ---------------------------------------------------------------- changed submissions


def changed_submissions(paths: Iterable[str], root: str = SUBMISSIONS) -> list[str]:
    """The submission folders (``submissions/<id>``) that the changed file paths touch, sorted, unique.

    Paths are repository-relative with '/' separators, as ``git diff --name-only`` prints them.
    Files outside ``root`` and files directly in it are not submissions.
    """
    prefix = PurePosixPath(root).parts
    found = set()
    for raw in paths:
        parts = PurePosixPath(raw.strip()).parts
        if len(parts) > len(prefix) + 1 and parts[: len(prefix)] == prefix:
            found.add("/".join(parts[: len(prefix) + 1]))
    return sorted(found)


def git_changed_paths(base: str, repo: str | Path = ".") -> list[str]:
    """Files changed between ``base`` and HEAD (``git diff --name-only --no-renames base...HEAD``) in ``repo``."""
    cmd = ["git", "-C", str(repo), "diff", "--name-only", "--no-renames", "-z", f"{base}...HEAD", "--"]
    try:
        out = subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    except OSError as exc:
        raise BloomBenchError(Problem(str(repo), None, f"could not run git ({exc})", "install git")) from None
    if out.returncode != 0:
        detail = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BloomBenchError(
            Problem(
                str(repo),
                None,
                f"git diff {base}...HEAD failed ({detail[0] if detail else out.returncode})",
                "fetch both commits (actions/checkout with fetch-depth: 0)",
            )
        )
    return [p for p in out.stdout.decode("utf-8", "replace").split("\0") if p]


# ---------------------------------------------------------------- GitHub workflow commands


def escape_data(text: str) -> str:
    """Escape a workflow command's message: '%', CR and LF (a newline would start a new command)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (file=, title=): also ':' and ','."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def relative_file(file: str, base: Path | None = None) -> str:
    """``file`` relative to ``base`` (default: the working directory) when inside it, else as given.

    Symbolic links are not followed: a link's own path is what the pull request shows.
    """
    here = Path(os.path.abspath(base or Path.cwd()))
    try:
        return Path(os.path.abspath(file)).relative_to(here).as_posix()
    except ValueError:
        return file


def annotation(problem: Problem, level: str = "error", title: str = "bloombench") -> str:
    """One GitHub annotation line: ``::error file=F,line=N,title=T::message; fix``."""
    props = [f"file={escape_property(relative_file(problem.file))}"]
    if problem.line:
        props.append(f"line={int(problem.line)}")
    props.append(f"title={escape_property(title)}")
    message = f"{problem.message}; {problem.fix}" if problem.fix else problem.message
    return f"::{level} {','.join(props)}::{escape_data(message)}"


# ---------------------------------------------------------------- Markdown


def md(text: object, limit: int = 160) -> str:
    """A table-cell-safe rendering of an untrusted value: one line, no HTML, no '|'."""
    s = " ".join(str(text).split())
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|").replace("`", "'")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _pct(x: object) -> str:
    return "N/A" if not isinstance(x, (int, float)) else f"{100 * x:.1f}"


def markdown_scores(scores: dict) -> str:
    """Scores per language, method and level (percent), N/A where not evaluated."""
    levels = load_spec().level_names
    head = ["lang", "method", "micro", "macro"] + levels
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lang, per_method in scores.items():
        for method, s in per_method.items():
            cells = [lang, method, _pct(s.get("micro")), _pct(s.get("macro"))] + [
                _pct(s.get("levels", {}).get(lv)) for lv in levels
            ]
            rows.append("| " + " | ".join(md(c) for c in cells) + " |")
    if len(rows) == 2:
        rows.append("| " + " | ".join(["N/A"] * len(head)) + " |")
    return "\n".join(rows)


def markdown_gates(report: GateReport) -> str:
    rows = ["| gate | result | why |", "|---|---|---|"]
    rows += [
        f"| {g.name} | {'✅ PASS' if g.passed else ('❌ FAIL' if g.passed is False else '⏭ SKIP')} | {md(g.reason, 300)} |"
        for g in report.gates
    ]
    return "\n".join(rows)


def gate_lines(report: GateReport) -> list[str]:
    width = max(len(g.name) for g in report.gates)
    return [f"{g.label}  {g.name:<{width}}  {g.reason}" for g in report.gates]


def gate_problems(report: GateReport) -> list[Problem]:
    """Failed gates as Problems pointing at the metadata field they concern.

    A gate that could not be checked (SKIP) is reported only when none failed: it then
    says why the request is not through (the Hub could not be asked).
    """
    from .gates import FIELD_OF_GATE

    path = report.submission / "metadata.json"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = ""
    failed = [g for g in report.gates if g.passed is False] or [g for g in report.gates if g.passed is None][:1]
    return [
        Problem(str(path), key_line(text, FIELD_OF_GATE.get(g.name, "model_id")), f"gate {g.name} {g.label}: {g.reason}")
        for g in failed
    ]


def append_summary(path: str | Path | None, markdown: str) -> None:
    """Append to the job summary file ($GITHUB_STEP_SUMMARY); nothing when no path is given."""
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(markdown.rstrip("\n") + "\n\n")


# ---------------------------------------------------------------- one submission's report


@dataclass
class SubmissionReport:
    """One submission's outcome: validation problems, then scores or gate results."""

    folder: Path
    kind: str | None = None
    model: str | None = None
    problems: list[Problem] = field(default_factory=list)
    scores: dict | None = None
    gates: GateReport | None = None

    @property
    def passed(self) -> bool:
        return not self.problems and (self.gates is None or self.gates.passed)

    def all_problems(self) -> list[Problem]:
        """Validation problems and failed gates, for annotations."""
        return self.problems + (gate_problems(self.gates) if self.gates is not None else [])

    def markdown(self) -> str:
        title = f"### {'✅' if self.passed else '❌'} `{md(self.folder.as_posix(), 100)}`"
        if self.model:
            title += f" — {md(self.model, 100)} ({md(self.kind)})"
        parts = [title]
        if self.problems:
            parts.append("\n".join(_problem_item(p) for p in self.problems[:50]))
        if self.scores is not None:
            parts.append("Accuracy (%) per language, method and Bloom level:\n\n" + markdown_scores(self.scores))
        if self.gates is not None:
            parts.append(
                f"Gates for `{md(self.gates.model_id)}` at `{md(self.gates.revision)}`:\n\n" + markdown_gates(self.gates)
            )
        return "\n\n".join(parts)


def _problem_item(p: Problem) -> str:
    where = md(relative_file(p.file), 100) + (f":{p.line}" if p.line else "")
    return f"- `{where}`: {md(p.message, 300)}" + (f" — {md(p.fix, 200)}" if p.fix else "")


def symlink_problems(folder: Path) -> list[Problem]:
    """A pull request may not bring symbolic links: reading one could leak a runner's file."""
    if folder.is_symlink():
        return [Problem(str(folder), None, "is a symbolic link", "submit a real folder with regular files")]
    if not folder.is_dir():
        return []
    return [
        Problem(str(p), None, "is a symbolic link", "replace it with the file itself")
        for p in sorted(folder.rglob("*"))
        if p.is_symlink()
    ]


def report_submission(
    folder: str | Path,
    dataset: Callable[[], Dataset],
    hub: Callable[[], HubClient],
    submissions_root: str | Path | None = None,
) -> SubmissionReport:
    """Validate one submission; score it (predictions, reported) or run its gates (model)."""
    from validator.validate import check_submission

    from .scoring import score_submission
    from .submission import load_submission

    folder = Path(folder)
    report = SubmissionReport(folder)
    report.problems = symlink_problems(folder)
    if report.problems:
        return report
    try:
        result = check_submission(folder, dataset)
    except BloomBenchError as exc:  # the dataset could not be loaded
        report.problems = exc.problems
        return report
    report.problems = list(result.problems)
    report.kind = result.meta.get("kind") if result.meta else None
    report.model = result.meta.get("model") if result.meta else None
    if report.problems:
        return report
    if report.kind in ("predictions", "reported"):
        sub = load_submission(folder, dataset)
        report.scores = score_submission(sub, dataset() if sub.predictions is not None else None)
    elif report.kind == "model":
        report.gates = check_gates(folder, hub(), submissions_root)
    return report


# ---------------------------------------------------------------- failure reports

_ERROR_RE = re.compile(r"^\s*(error:|::error|[A-Za-z_.]*(Error|Exception)\b[:(]|Killed\b|CUDA out of memory)")


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def failure_markdown(title: str, logs: Iterable[Path], tail: int = 30) -> str:
    """Why a step failed: each log's error lines, then its last ``tail`` lines, in code blocks."""
    parts = [f"### ❌ {md(title, 200)}"]
    logs = list(logs)
    for log in logs:
        try:
            lines = Path(log).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            parts.append(f"`{md(log)}`: no log was written (the step failed before the command started).")
            continue
        errors = [line for line in lines if _ERROR_RE.match(line)]
        parts.append(f"`{md(log)}` ({len(lines)} lines)")
        if errors:
            parts.append("Errors:\n\n" + _fence("\n".join(errors[-20:])))
        if tail and lines:
            parts.append(f"Last {min(tail, len(lines))} lines:\n\n" + _fence("\n".join(lines[-tail:])))
    if not logs:
        parts.append("No log was given; see the step's output above.")
    return "\n\n".join(parts)
