"""The GitHub workflows: safe by construction, lint-clean, and thin (every step a tested command).

Three kinds of tests:
- policy: the workflow files are parsed and checked for what makes CI on a public repository
  unsafe (write tokens, secrets or self-hosted runners reachable from pull requests,
  pull_request_target checking out the pull request, script injection, unpinned actions,
  a pull request's files executed). Each rule is also run on small bad workflows, so a rule
  that could not fail would be caught.
- lint: actionlint (with shellcheck when installed) over .github/workflows.
- runs: the `run:` scripts of validate.yml and evaluate.yml are executed locally, step by step,
  by a small stand-in for the Actions runner (offline: the Hub is replayed from tests/data/hub,
  the dataset and a tiny model sit in a local Hugging Face cache).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from leaderboard.benchmark import SAMPLE_DATASET, load_spec
from leaderboard.cli import main
from leaderboard.synthetic import make_dataset, make_predictions, write_json, write_jsonl

from .conftest import REPO, make_meta

WORKFLOWS = REPO / ".github" / "workflows"
HUB = REPO / "tests" / "data" / "hub"
RERUN = REPO / "tests" / "data" / "rerun"
BIN = Path(sys.executable).parent
GOOD = "5d931087ff18f93245ac25633497037779104518"
CUSTOM = "f9cbcf36d8b59dece8021046d0d7c18b0cf747b1"

# Events a fork's author can cause: their jobs get the pull request's author as the attacker.
UNTRUSTED = {
    "pull_request",
    "pull_request_target",
    "pull_request_review",
    "pull_request_review_comment",
    "issue_comment",
    "issues",
    "discussion",
    "discussion_comment",
    "fork",
    "watch",
    "workflow_run",
}
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
PR_HEAD = re.compile(r"pull_request\.head|head_ref|refs/pull|merge_commit_sha")


# ---------------------------------------------------------------- reading workflows


def parse(text: str) -> dict:
    wf = yaml.safe_load(text)
    if True in wf:  # YAML 1.1 reads the key `on` as a boolean
        wf["on"] = wf.pop(True)
    return wf


def load(path: Path) -> dict:
    return parse(path.read_text(encoding="utf-8"))


def workflow_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.yml")) + sorted(WORKFLOWS.glob("*.yaml"))


def triggers(wf: dict) -> set[str]:
    on = wf.get("on")
    if isinstance(on, str):
        return {on}
    return set(on or [])


def runs_on(job: dict) -> list[str] | None:
    """The runner labels, or None when they come from an expression (unknown until run time)."""
    value = job.get("runs-on")
    if isinstance(value, dict):
        value = value.get("labels", []) + ([value["group"]] if "group" in value else [])
    labels = [value] if isinstance(value, str) else list(value or [])
    return None if any("${{" in str(x) for x in labels) else labels


def has_write(perms) -> bool:
    if isinstance(perms, str):
        return perms == "write-all"
    return any(v == "write" for v in (perms or {}).values())


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def is_checkout(step: dict) -> bool:
    return str(step.get("uses", "")).startswith("actions/checkout@")


def command_lines(script: str) -> list[str]:
    """The logical lines of a shell script (backslash continuations joined, blanks and comments dropped)."""
    joined = re.sub(r"\\\n\s*", " ", script)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


# ---------------------------------------------------------------- the policy


def pr_data_violations(name: str, job: dict) -> list[str]:
    """A job that checks out a pull request's head must treat it as data: never install or run it."""
    out = []
    data_paths = []
    for step in filter(is_checkout, steps(job)):
        with_ = step.get("with") or {}
        if not PR_HEAD.search(json.dumps(with_)):
            continue
        if not with_.get("path"):
            out.append(f"{name}: checks out the pull request's code into the workspace root")
        else:
            data_paths.append(str(with_["path"]).strip("/"))
        if with_.get("persist-credentials") is not False:
            out.append(f"{name}: checks out the pull request's code with persisted credentials")
    safe_path = str((job.get("env") or {}).get("PYTHONSAFEPATH", "")) == "1"
    for step in steps(job):
        uses, run = str(step.get("uses", "")), step.get("run") or ""
        wd = str(step.get("working-directory", "")).strip("/")
        for p in data_paths:
            q = re.escape(p)
            if uses.startswith(f"./{p}/"):
                out.append(f"{name}: uses an action from the pull request's files ({uses})")
            installs = re.search(rf"pip3? install[^\n]*(\s|=|\./){q}(/|\s|$|\[)", run)
            runs_file = re.search(rf"(^|[\s;&|(])((python3?|bash|sh|source|\.|node|make|npm|pytest)\s+)?(\./)?{q}/\S+", run)
            if installs or runs_file:
                out.append(f"{name}: executes the pull request's files ({run.strip()[:60]})")
            if wd == p or wd.startswith(p + "/"):
                for line in command_lines(run):
                    if not line.startswith("bloombench "):
                        out.append(f"{name}: runs '{line[:40]}' inside the pull request's files (only bloombench may run there)")
                if not (safe_path or str((step.get("env") or {}).get("PYTHONSAFEPATH", "")) == "1"):
                    out.append(f"{name}: runs Python inside the pull request's files without PYTHONSAFEPATH=1")
    return out


def violations(wf: dict) -> list[str]:
    """Every way this workflow could let a pull request's author reach a secret, a write token or the GPU runner."""
    out = []
    trig = triggers(wf)
    untrusted = trig & UNTRUSTED
    if "permissions" not in wf:
        out.append("top-level permissions are not set (the default token may be read-write)")
    wf_env = json.dumps(wf.get("env") or {})
    for name, job in (wf.get("jobs") or {}).items():
        perms = job.get("permissions", wf.get("permissions"))
        labels = runs_on(job)
        text = json.dumps(job)
        if untrusted:
            if perms is None:
                out.append(f"{name}: pull-request-triggered job without explicit permissions")
            elif has_write(perms):
                out.append(f"{name}: pull-request-triggered job has write permissions")
            if "secrets." in text or "secrets." in wf_env or job.get("secrets"):
                out.append(f"{name}: pull-request-triggered job uses secrets")
            if labels is None or "self-hosted" in labels:
                out.append(f"{name}: pull-request-triggered job can reach a self-hosted runner")
            out += pr_data_violations(name, job)
        if labels is not None and "self-hosted" in labels and not untrusted:
            if not (trig <= {"workflow_dispatch"} or job.get("environment")):
                out.append(
                    f"{name}: self-hosted job runs without a maintainer's action (workflow_dispatch only, or a protected environment)"
                )
        if "pull_request_target" in trig:
            for step in filter(is_checkout, steps(job)):
                if PR_HEAD.search(json.dumps(step.get("with") or {})):
                    out.append(f"{name}: checks out the pull request's code under pull_request_target")
        for step in steps(job):
            if "${{" in str(step.get("run", "")):
                out.append(f"{name}: '${{{{ }}}}' inside run: (script injection); pass the value through env:")
            uses = str(step.get("uses", ""))
            if uses and not uses.startswith(("./", "docker://")) and not PINNED.match(uses):
                out.append(f"{name}: {uses} is not pinned to a full commit SHA")
    return out


CHECKOUT = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"
BAD = {
    "write permissions": (
        "on: pull_request\npermissions: {contents: write}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n",
        "has write permissions",
    ),
    "write-all": (
        "on: [pull_request]\npermissions: write-all\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n",
        "has write permissions",
    ),
    "no permissions": (
        "on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n",
        "without explicit permissions",
    ),
    "secrets": (
        "on: pull_request\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env:\n      T: ${{ secrets.HF_TOKEN }}\n    steps:\n      - run: echo\n",
        "uses secrets",
    ),
    "self-hosted from a pull request": (
        "on: pull_request\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: [self-hosted, gpu]\n    environment: gpu\n    steps:\n      - run: echo\n",
        "can reach a self-hosted runner",
    ),
    "runner from an expression": (
        "on: pull_request\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ${{ github.event.pull_request.title }}\n    steps:\n      - run: echo\n",
        "can reach a self-hosted runner",
    ),
    "self-hosted on push": (
        "on: [push, workflow_dispatch]\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: [self-hosted, gpu]\n    steps:\n      - run: echo\n",
        "without a maintainer's action",
    ),
    "pull_request_target with the head": (
        f"on: pull_request_target\npermissions: {{contents: read}}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: {CHECKOUT}\n        with:\n          ref: ${{{{ github.event.pull_request.head.sha }}}}\n",
        "checks out the pull request's code under pull_request_target",
    ),
    "script injection": (
        "on: pull_request\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.pull_request.title }}\n",
        "script injection",
    ),
    "unpinned action": (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n",
        "is not pinned",
    ),
    "installs the pull request": (
        f"on: pull_request\npermissions: {{contents: read}}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: {CHECKOUT}\n        with:\n          ref: ${{{{ github.event.pull_request.head.sha }}}}\n          path: pr\n          persist-credentials: false\n      - run: pip install ./pr\n",
        "executes the pull request's files",
    ),
    "runs a script from the pull request": (
        f"on: pull_request\npermissions: {{contents: read}}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env: {{PYTHONSAFEPATH: '1'}}\n    steps:\n      - uses: {CHECKOUT}\n        with:\n          ref: ${{{{ github.event.pull_request.head.sha }}}}\n          path: pr\n          persist-credentials: false\n      - working-directory: pr\n        run: python setup.py check\n",
        "only bloombench may run there",
    ),
    "imports from the pull request": (
        f"on: pull_request\npermissions: {{contents: read}}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: {CHECKOUT}\n        with:\n          ref: ${{{{ github.event.pull_request.head.sha }}}}\n          path: pr\n          persist-credentials: false\n      - working-directory: pr\n        run: bloombench validate submissions/x\n",
        "without PYTHONSAFEPATH=1",
    ),
    "pull request code with credentials": (
        f"on: pull_request\npermissions: {{contents: read}}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: {CHECKOUT}\n        with:\n          ref: ${{{{ github.event.pull_request.head.sha }}}}\n          path: pr\n",
        "with persisted credentials",
    ),
}


@pytest.mark.parametrize("path", workflow_files(), ids=lambda p: p.name)
def test_workflow_is_safe(path):
    assert violations(load(path)) == []


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_rule_catches_its_bad_workflow(case):
    text, expected = BAD[case]
    found = violations(parse(text))
    assert any(expected in v for v in found), found


def test_a_self_hosted_job_behind_dispatch_or_an_environment_is_allowed():
    def wf(on: str, extra: str = "") -> dict:
        return parse(
            f"on: {on}\npermissions: {{contents: read}}\njobs:\n  a:\n    runs-on: [self-hosted, gpu]\n{extra}    steps:\n      - run: echo\n"
        )

    assert violations(wf("workflow_dispatch")) == []
    assert violations(wf("[push, workflow_dispatch]", "    environment: gpu-evaluation\n")) == []


def test_the_expected_workflows_exist():
    assert {p.name for p in workflow_files()} == {"validate.yml", "evaluate.yml", "pages.yml", "ci.yml"}


def test_validate_runs_only_base_code_on_a_hosted_runner():
    wf = load(WORKFLOWS / "validate.yml")
    assert triggers(wf) == {"pull_request"} and wf["on"]["pull_request"]["paths"] == ["submissions/**"]
    assert wf["permissions"] == {"contents": "read"}
    (job,) = wf["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest" and job["permissions"] == {"contents": "read"}
    checkouts = [s["with"] for s in steps(job) if is_checkout(s)]
    assert checkouts[0]["ref"] == "${{ github.event.pull_request.base.sha }}" and checkouts[0]["path"] == "base"
    assert checkouts[1]["ref"] == "${{ github.event.pull_request.head.sha }}" and checkouts[1]["path"] == "pr"
    assert all(c["persist-credentials"] is False for c in checkouts)
    installs = [s["run"] for s in steps(job) if "pip" in str(s.get("run", ""))]
    assert installs == ["python -m pip install ./base"]
    assert job["env"]["PYTHONSAFEPATH"] == "1"


def test_evaluate_needs_a_maintainer_and_writes_only_to_open_the_pull_request():
    wf = load(WORKFLOWS / "evaluate.yml")
    assert triggers(wf) == {"workflow_dispatch"}
    assert set(wf["on"]["workflow_dispatch"]["inputs"]) == {"submission", "shards"}
    assert wf["concurrency"] == {"group": "evaluate-${{ inputs.submission }}", "cancel-in-progress": False}
    jobs = wf["jobs"]
    gpu = [name for name, job in jobs.items() if "self-hosted" in (runs_on(job) or [])]
    assert gpu == ["evaluate"]
    evaluate = jobs["evaluate"]
    assert runs_on(evaluate) == ["self-hosted", "gpu"] and evaluate["environment"] == "gpu-evaluation"
    assert evaluate["needs"] == "plan" and evaluate["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    assert jobs["plan"]["if"] == "github.ref == 'refs/heads/main'"
    plan_runs = " ".join(str(s.get("run", "")) for s in steps(jobs["plan"]))
    assert "bloombench gates" in plan_runs and "self-hosted" not in str(jobs["plan"]["runs-on"])
    writers = {name for name, job in jobs.items() if has_write(job.get("permissions"))}
    assert writers == {"publish"} and jobs["publish"]["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert all(not str(s.get("run", "")) for s in steps(jobs["publish"])), "the job that can write runs no code"
    for name in ("plan", "evaluate", "merge"):
        failure = [s for s in steps(jobs[name]) if s.get("if") == "failure()"]
        assert len(failure) == 1 and failure[0]["run"].startswith("bloombench failure-summary"), name


def test_pages_builds_and_deploys_with_minimal_permissions():
    wf = load(WORKFLOWS / "pages.yml")
    assert triggers(wf) == {"push", "workflow_dispatch"} and wf["on"]["push"]["branches"] == ["main"]
    assert wf["concurrency"]["group"] == "pages"
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages" and deploy["needs"] == "build"
    assert any(s.get("run") == "bloombench build --out site/" for s in steps(build))
    upload = next(s for s in steps(build) if "upload-pages-artifact" in str(s.get("uses")))
    assert upload["with"]["path"] == "site/"
    assert any("actions/deploy-pages@" in str(s.get("uses")) for s in steps(deploy))


def test_ci_runs_the_suite_on_pull_requests_and_main():
    wf = load(WORKFLOWS / "ci.yml")
    assert triggers(wf) == {"pull_request", "push"} and wf["permissions"] == {"contents": "read"}
    assert [s["run"] for s in steps(wf["jobs"]["test"]) if "run" in s] == ["bash .ci/run"]


def _actionlint() -> str:
    found = shutil.which("actionlint") or (str(BIN / "actionlint") if (BIN / "actionlint").exists() else None)
    assert found, "actionlint is not installed: pip install the test extra (it ships the actionlint binary)"
    return found


def test_actionlint_passes():
    proc = subprocess.run([_actionlint(), "-no-color"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_would_catch_a_broken_workflow(tmp_path):
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "x.yml").write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.head_commit.message }}\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    proc = subprocess.run([_actionlint(), "-no-color"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "potentially untrusted" in proc.stdout


# ---------------------------------------------------------------- every step is a bloombench command

ALLOWED_PLUMBING = [
    r'mkdir -p "\$RUNNER_TEMP/logs"',
    r"args=\(.*\)",
    r'\[ -n "\$[A-Z_]+" \] && args\+=\(--[a-z-]+ "\$[A-Z_]+"\)',
    r"bash \.ci/run",
]


def run_steps() -> list[tuple[str, str, dict]]:
    return [
        (path.name, name, step)
        for path in workflow_files()
        for name, job in load(path)["jobs"].items()
        for step in steps(job)
        if "run" in step
    ]


def bloombench_commands() -> set[str]:
    found = set()
    for _, _, step in run_steps():
        found |= set(re.findall(r"(?:^|[\s;&|(])bloombench\s+([a-z][a-z-]*)", step["run"]))
    return found


def test_every_step_is_an_install_or_a_bloombench_command():
    for wf, job, step in run_steps():
        if step.get("id") == "install":
            assert re.search(r"pip3?\"? install", step["run"]), (wf, job, step)
            continue
        for line in command_lines(step["run"]):
            parts = [p.strip() for p in re.split(r"(?<!\|)\|(?!\|)", line)]
            first = parts[0].removesuffix(" 2>&1")
            ok = first.startswith("bloombench ") or any(re.fullmatch(p, first) for p in ALLOWED_PLUMBING)
            assert ok, f"{wf} {job}: '{line}' is neither a bloombench command nor allowed plumbing"
            for tail in parts[1:]:
                assert re.fullmatch(r'tee "\$RUNNER_TEMP/logs/[a-z]+\.log"', tail), f"{wf} {job}: '{tail}'"


def test_the_workflows_use_these_commands():
    assert bloombench_commands() == {
        "build",
        "changed-submissions",
        "ci-report",
        "evaluate",
        "failure-summary",
        "gates",
        "merge",
        "request-info",
        "shards",
        "validate",
    }


@pytest.mark.parametrize("command", sorted(bloombench_commands()))
def test_every_workflow_command_exists(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, f"bloombench {command} is used by a workflow but is not a command:\n{result.output}"
    assert "Example" in result.output


# ---------------------------------------------------------------- the workflows, run locally


@dataclass
class Runner:
    """A small stand-in for the Actions runner: expressions, env, outputs, summaries, artifacts."""

    root: Path
    hf_cache: Path
    artifacts: Path = field(init=False)

    def __post_init__(self):
        self.artifacts = self.root / "artifacts"
        self.artifacts.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def lookup(expr: str, ctx: dict):
        expr = expr.strip()
        m = re.fullmatch(r"fromJSON\((.+)\)", expr)
        if m:
            return json.loads(Runner.lookup(m[1], ctx))
        value = ctx
        for part in expr.split("."):
            if not isinstance(value, dict) or part not in value:
                raise KeyError(f"the test runner does not know ${{{{ {expr} }}}}")
            value = value[part]
        return value

    def render(self, value, ctx: dict):
        if isinstance(value, str):
            whole = re.fullmatch(r"\$\{\{(.+?)\}\}", value.strip())
            if whole and "fromJSON" in whole[1]:
                return self.lookup(whole[1], ctx)
            return re.sub(r"\$\{\{(.+?)\}\}", lambda m: str(self.lookup(m[1], ctx)), value)
        if isinstance(value, dict):
            return {k: self.render(v, ctx) for k, v in value.items()}
        if isinstance(value, list):
            return [self.render(v, ctx) for v in value]
        return value

    def base_env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "HF_"))}
        env.update(
            PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            HF_HUB_CACHE=str(self.hf_cache),
            HF_HUB_OFFLINE="1",
            HF_HUB_DISABLE_TELEMETRY="1",
            BLOOMBENCH_HUB_RESPONSES=str(HUB),
            OMP_NUM_THREADS="1",
            TOKENIZERS_PARALLELISM="false",
        )
        return env

    def action(self, step: dict, ctx: dict, ws: Path) -> None:
        uses, with_ = step["uses"].split("@")[0], self.render(step.get("with") or {}, ctx)
        if uses in ("actions/checkout", "actions/setup-python"):
            return  # the workspace is prepared by the test; bloombench is installed in this venv
        if uses == "actions/upload-artifact":
            src = ws / with_["path"]
            assert src.is_dir() and any(src.iterdir()), f"nothing to upload at {src}"
            shutil.copytree(src, self.artifacts / with_["name"])
        elif uses == "actions/download-artifact":
            dest = ws / with_.get("path", ".")
            if "pattern" in with_:
                for art in sorted(self.artifacts.glob(with_["pattern"])):
                    shutil.copytree(art, dest / art.name, dirs_exist_ok=True)
            else:
                shutil.copytree(self.artifacts / with_["name"], dest, dirs_exist_ok=True)
        elif uses == "peter-evans/create-pull-request":
            added = list(ws.glob(with_["add-paths"]))
            assert added, f"the pull request would add nothing: {with_['add-paths']}"
            ctx.setdefault("pull_request", with_)
        else:
            raise AssertionError(f"the test runner does not simulate {uses}")

    def job(self, wf: dict, name: str, ctx: dict, ws: Path, matrix: dict | None = None) -> JobRun:
        job = wf["jobs"][name]
        ctx = dict(ctx, matrix=matrix or {}, steps={})
        temp = self.root / "runner-temp" / f"{name}-{json.dumps(matrix or {}, sort_keys=True)}"
        temp.mkdir(parents=True)
        run = JobRun(summary=temp / "summary.md")
        shell = (wf.get("defaults") or {}).get("run", {}).get("shell")
        bash = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"] if shell == "bash" else ["bash", "-e", "-c"]
        env = self.base_env() | {"RUNNER_TEMP": str(temp), "GITHUB_STEP_SUMMARY": str(run.summary)}
        env |= {k: str(v) for k, v in self.render(wf.get("env") or {}, ctx).items()}
        env |= {k: str(v) for k, v in self.render(job.get("env") or {}, ctx).items()}
        failed = False
        for i, step in enumerate(steps(job)):
            if step.get("if") == "failure()":
                if not failed:
                    continue
            elif failed:
                continue
            if "uses" in step:
                self.action(step, ctx, ws)
                continue
            if step.get("id") == "install":
                continue  # pip install of this repository: the venv running the tests has it
            output = temp / f"output-{i}"
            output.touch()
            step_env = (
                env | {k: str(v) for k, v in self.render(step.get("env") or {}, ctx).items()} | {"GITHUB_OUTPUT": str(output)}
            )
            cwd = ws / str(step.get("working-directory", "."))
            proc = subprocess.run([*bash, step["run"]], cwd=cwd, env=step_env, capture_output=True, text=True, timeout=600)
            run.log.append((step.get("name") or step["run"][:40], proc.returncode, proc.stdout + proc.stderr))
            outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines() if "=" in line)
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": outputs}
            failed = failed or proc.returncode != 0
        run.ok = not failed
        run.outputs = {k: self.render(v, ctx) for k, v in (job.get("outputs") or {}).items()} if not failed else {}
        run.ctx = ctx
        return run


@dataclass
class JobRun:
    summary: Path
    ok: bool = False
    outputs: dict = field(default_factory=dict)
    log: list = field(default_factory=list)
    ctx: dict = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(f"--- {name} (exit {rc})\n{out}" for name, rc, out in self.log)

    def output_of(self, step_name: str) -> str:
        return next(out for name, _, out in self.log if name == step_name)


def seed_dataset(cache: Path, records: list[dict]) -> None:
    """Put a dataset file in a Hugging Face cache as the spec's pinned revision (read offline)."""
    spec = load_spec().dataset
    repo = cache / f"datasets--{spec['repo_id'].replace('/', '--')}"
    commit = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / spec["revision"]).write_text(commit)
    write_json(repo / "snapshots" / commit / spec["filename"], records)


def git(repo: Path, *args: str) -> str:
    env = os.environ | {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def write_request(folder: Path, model: str, model_id: str, revision: str, languages=("en", "ar")) -> None:
    meta = make_meta(
        model, kind="model", model_id=model_id, revision=revision, languages=list(languages), submitted_by="a-contributor"
    )
    write_json(folder / "metadata.json", meta)


@pytest.fixture
def validate_run(tmp_path):
    """A pull request against a repository, and validate.yml's steps run on it."""
    records = json.loads(SAMPLE_DATASET.read_text(encoding="utf-8"))
    runner = Runner(tmp_path, tmp_path / "hf")
    seed_dataset(runner.hf_cache, records)
    ws = tmp_path / "workspace"
    pr = ws / "pr"
    pr.mkdir(parents=True)
    git(pr, "init", "-q", "-b", "main")
    shutil.copytree(RERUN / "submitted" / "vision-7b", pr / "submissions" / "vision-7b")  # already on the board
    meta = json.loads((pr / "submissions" / "vision-7b" / "metadata.json").read_text())
    meta["revision"] = "1" * 40  # the board has an older revision of vision-7b
    write_json(pr / "submissions" / "vision-7b" / "metadata.json", meta)
    (pr / "README.md").write_text("board\n")
    git(pr, "add", "-A")
    git(pr, "commit", "-q", "-m", "base")
    base = git(pr, "rev-parse", "HEAD")
    git(pr, "checkout", "-q", "-b", "contribution")
    marker = tmp_path / "pr-code-ran"
    evil = f"open({str(marker)!r}, 'w').write('the pull request ran code')\n"
    for path in ("leaderboard/__init__.py", "leaderboard/cli.py", "sitecustomize.py", "validator/__init__.py"):
        (pr / path).parent.mkdir(parents=True, exist_ok=True)
        (pr / path).write_text(evil)
    new = make_meta("New Model 3B", submitted_by="a-contributor")
    write_json(pr / "submissions" / "new-model-3b" / "metadata.json", new)
    write_jsonl(pr / "submissions" / "new-model-3b" / "predictions.jsonl", make_predictions(records, accuracy=0.6, seed=3))
    broken = make_meta("Broken Model")
    lines = make_predictions(records, seed=4)
    lines[41]["lbs"]["B"]["logprob"] = 2.5
    write_json(pr / "submissions" / "broken-model" / "metadata.json", broken)
    write_jsonl(pr / "submissions" / "broken-model" / "predictions.jsonl", lines)
    write_request(pr / "submissions" / "custom-vlm", "Custom VLM", "bloombench-test/custom-vlm", CUSTOM)
    write_request(pr / "submissions" / "vision-7b-chat", "Vision 7B Chat", "bloombench-test/vision-7b", GOOD)
    (pr / "submissions" / "linked").mkdir()
    (pr / "submissions" / "linked" / "metadata.json").symlink_to("/etc/hostname")
    (pr / "README.md").write_text("board, edited\n")
    git(pr, "add", "-A")
    git(pr, "commit", "-q", "-m", "contribution")
    git(pr, "checkout", "-q", "--detach", "HEAD")  # actions/checkout leaves a detached head at the PR's sha
    ctx = {
        "github": {"event": {"pull_request": {"base": {"sha": base}, "head": {"sha": git(pr, "rev-parse", "HEAD")}, "number": 7}}}
    }
    run = runner.job(load(WORKFLOWS / "validate.yml"), "validate", ctx, ws)
    return run, marker, tmp_path


def test_validate_workflow_reports_each_changed_submission(validate_run):
    run, marker, tmp_path = validate_run
    assert not run.ok, run.text  # two submissions have problems
    assert not marker.exists(), "code from the pull request ran"
    changed = next((tmp_path / "runner-temp").glob("validate-*/changed.txt")).read_text().splitlines()
    assert changed == [
        "submissions/broken-model",
        "submissions/custom-vlm",
        "submissions/linked",
        "submissions/new-model-3b",
        "submissions/vision-7b-chat",
    ]
    out = run.output_of("Validate, score and check gates (annotations and job summary)")
    assert "ok: submissions/new-model-3b" in out and "ok: submissions/vision-7b-chat" in out
    notes = [line for line in out.splitlines() if line.startswith("::error ")]
    assert any(
        n.startswith("::error file=submissions/broken-model/predictions.jsonl,line=42,title=bloombench::") for n in notes
    ), notes
    assert any(
        n.startswith("::error file=submissions/custom-vlm/metadata.json,line=") and "gate no-remote-code FAIL" in n for n in notes
    ), notes
    assert any("submissions/linked/metadata.json" in n and "is a symbolic link" in n for n in notes), notes
    summary = run.summary.read_text(encoding="utf-8")
    levels = " | ".join(load_spec().level_names)
    assert f"| lang | method | micro | macro | {levels} |" in summary
    assert "| en | rae |" in summary and "| ar | lbs_char |" in summary
    assert "Gates for `bloombench-test/vision-7b`" in summary and "| not-duplicate | ✅ PASS |" in summary
    assert "| no-remote-code | ❌ FAIL |" in summary
    assert "`submissions/linked/metadata.json`: is a symbolic link" in summary


def test_validate_workflow_passes_a_clean_pull_request(tmp_path):
    records = json.loads(SAMPLE_DATASET.read_text(encoding="utf-8"))
    runner = Runner(tmp_path, tmp_path / "hf")
    seed_dataset(runner.hf_cache, records)
    pr = tmp_path / "workspace" / "pr"
    pr.mkdir(parents=True)
    git(pr, "init", "-q", "-b", "main")
    (pr / "README.md").write_text("x\n")
    git(pr, "add", "-A")
    git(pr, "commit", "-q", "-m", "base")
    base = git(pr, "rev-parse", "HEAD")
    write_request(pr / "submissions" / "vision-7b", "Vision 7B", "bloombench-test/vision-7b", GOOD)
    git(pr, "add", "-A")
    git(pr, "commit", "-q", "-m", "request")
    ctx = {
        "github": {"event": {"pull_request": {"base": {"sha": base}, "head": {"sha": git(pr, "rev-parse", "HEAD")}, "number": 8}}}
    }
    run = runner.job(load(WORKFLOWS / "validate.yml"), "validate", ctx, tmp_path / "workspace")
    assert run.ok, run.text
    assert "| exists | ✅ PASS |" in run.summary.read_text(encoding="utf-8")


def test_evaluate_workflow_stops_at_the_gates_and_says_why(tmp_path):
    runner = Runner(tmp_path, tmp_path / "hf")
    ws = tmp_path / "plan"
    write_request(ws / "submissions" / "custom-vlm", "Custom VLM", "bloombench-test/custom-vlm", CUSTOM)
    ctx = {"inputs": {"submission": "custom-vlm", "shards": 2}}
    plan = runner.job(load(WORKFLOWS / "evaluate.yml"), "plan", ctx, ws)
    assert not plan.ok and plan.outputs == {}
    summary = plan.summary.read_text(encoding="utf-8")
    assert "| no-remote-code | ❌ FAIL |" in summary
    assert "### ❌ The request did not pass" in summary and "FAIL  no-remote-code" in summary


def _tiny_images(folder: Path, records: list[dict]) -> None:
    from PIL import Image

    folder.mkdir(parents=True)
    for i, rec in enumerate(records):
        Image.new("RGB", (40, 30), ((29 * i) % 256, 90, 140)).save(folder / f"{rec['question_id']}.png")


@pytest.mark.model
def test_evaluate_workflow_runs_from_request_to_pull_request(tmp_path):
    """plan -> evaluate (2 shards, tiny model) -> merge -> publish, with the workflow's own scripts."""
    from evaluator.tiny import build_tiny_gemma3

    records = make_dataset(per_leaf=1, seed=5)[::9][:12]
    runner = Runner(tmp_path, tmp_path / "hf")
    seed_dataset(runner.hf_cache, records)
    build_tiny_gemma3(runner.hf_cache / "models--bloombench-test--vision-7b" / "snapshots" / GOOD)
    images = tmp_path / "images"
    _tiny_images(images, records)
    repo = tmp_path / "repo"
    write_request(repo / "submissions" / "vision-7b", "Vision 7B", "bloombench-test/vision-7b", GOOD, languages=("en",))
    wf = load(WORKFLOWS / "evaluate.yml")

    def workspace(name: str) -> Path:  # every job starts from a fresh checkout
        shutil.copytree(repo, tmp_path / name)
        return tmp_path / name

    ctx = {
        "inputs": {"submission": "vision-7b", "shards": 2},
        "vars": {"BLOOMBENCH_IMAGES": str(images)},
        "secrets": {"HF_TOKEN": ""},
    }
    ctx["github"] = {"run_id": "42", "server_url": "https://github.com", "repository": "o/r"}
    plan = runner.job(wf, "plan", ctx, workspace("plan"))
    assert plan.ok, plan.text
    assert plan.outputs["shards"] == "[1, 2]" and plan.outputs["languages"] == "en" and plan.outputs["id"] == "vision-7b"
    ctx["needs"] = {"plan": {"outputs": plan.outputs}}
    for shard in runner.render(wf["jobs"]["evaluate"]["strategy"]["matrix"]["shard"], ctx):
        job = runner.job(wf, "evaluate", ctx, workspace(f"gpu-{shard}"), matrix={"shard": shard})
        assert job.ok, job.text
    merge = runner.job(wf, "merge", ctx, workspace("merge"))
    assert merge.ok, merge.text
    assert "| en | rae |" in merge.summary.read_text(encoding="utf-8")
    publish_ws = workspace("publish")
    publish = runner.job(wf, "publish", ctx, publish_ws)
    assert publish.ok and publish.ctx["pull_request"]["branch"] == "evaluate/vision-7b"
    meta = json.loads((publish_ws / "submissions" / "vision-7b" / "metadata.json").read_text())
    assert meta["kind"] == "predictions" and meta["model_id"] == "bloombench-test/vision-7b" and meta["revision"] == GOOD
    lines = (publish_ws / "submissions" / "vision-7b" / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == len(records)
    dataset = next(runner.hf_cache.glob("datasets--*/snapshots/*/*.json"))
    check = CliRunner().invoke(main, ["validate", str(publish_ws / "submissions" / "vision-7b"), "--dataset", str(dataset)])
    assert check.exit_code == 0, check.output


def test_a_failed_shard_says_why_in_the_summary(tmp_path):
    """The evaluate job's failure step: an unreachable model gives the evaluator's one-line reason."""
    runner = Runner(tmp_path, tmp_path / "hf")
    seed_dataset(runner.hf_cache, make_dataset(per_leaf=1, seed=5)[:4])
    ws = tmp_path / "gpu"
    write_request(ws / "submissions" / "vision-7b", "Vision 7B", "bloombench-test/vision-7b", GOOD)
    outputs = {
        "model_id": "bloombench-test/vision-7b",
        "revision": GOOD,
        "languages": "en",
        "methods": "rae",
        "model": "Vision 7B",
    }
    outputs |= {
        "variant": "",
        "organization": "T",
        "license": "",
        "link": "",
        "submitted_by": "",
        "id": "vision-7b",
        "shards": "[1]",
    }
    ctx = {
        "inputs": {"submission": "vision-7b", "shards": 1},
        "vars": {"BLOOMBENCH_IMAGES": ""},
        "secrets": {"HF_TOKEN": ""},
        "needs": {"plan": {"outputs": outputs}},
    }
    job = runner.job(load(WORKFLOWS / "evaluate.yml"), "evaluate", ctx, ws, matrix={"shard": 1})
    assert not job.ok
    summary = job.summary.read_text(encoding="utf-8")
    assert "### ❌ Shard 1 of 1 failed" in summary
    assert "error: bloombench-test/vision-7b: could not reach the model on the Hub" in summary


def test_shards_and_request_info_write_step_outputs(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["shards", "3", "--github-output", str(out)])
    assert result.exit_code == 0 and result.output.strip() == "[1, 2, 3]"
    assert out.read_text() == "shards=[1, 2, 3]\n"
    assert CliRunner().invoke(main, ["shards", "0"]).exit_code == 2
    folder = tmp_path / "submissions" / "vision-7b"
    write_request(folder, "Vision 7B", "bloombench-test/vision-7b", GOOD)
    result = CliRunner().invoke(main, ["request-info", str(folder), "--github-output", str(out)])
    assert result.exit_code == 0, result.output
    assert "model_id=bloombench-test/vision-7b\nrevision=" + GOOD in out.read_text()
    assert "languages=en,ar\nmethods=rae,lbs\n" in out.read_text() and "variant=\n" in out.read_text()
    meta = json.loads((folder / "metadata.json").read_text())
    meta["kind"] = "reported"
    write_json(folder / "metadata.json", meta)
    levels = dict.fromkeys(load_spec().level_names, 0.5)
    (folder / "reported.json").write_text(json.dumps({"en": {"rae": {"levels": levels}}, "ar": {"rae": {"levels": levels}}}))
    refused = CliRunner().invoke(main, ["request-info", str(folder)])
    assert refused.exit_code == 1 and "kind is 'reported', not 'model'" in refused.output


def test_changed_submissions_from_paths_and_git(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "submissions" / "a").mkdir(parents=True)
    (tmp_path / "submissions" / "b c").mkdir(parents=True)
    paths = [
        "README.md",
        "submissions/a/metadata.json",
        "submissions/a/predictions.jsonl",
        "submissions/b c/metadata.json",
        "submissions/gone/metadata.json",
        "submissions/notes.md",
    ]
    result = CliRunner().invoke(main, ["changed-submissions", *paths])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["submissions/a", "submissions/b c"]
    assert "submissions/gone was removed" in result.stderr
    bad = CliRunner().invoke(main, ["changed-submissions", "--since", "0" * 40])
    assert bad.exit_code == 1 and "fetch both commits" in bad.output


def test_annotations_cannot_inject_workflow_commands(tmp_path, monkeypatch):
    from leaderboard.ci import annotation, md
    from leaderboard.errors import Problem

    monkeypatch.chdir(tmp_path)
    line = annotation(Problem("submissions/x,y:z/metadata.json", 3, "bad value 100%\n::add-mask::secret", "fix\r\nit"))
    assert "\n" not in line and "\r" not in line
    assert (
        line
        == "::error file=submissions/x%2Cy%3Az/metadata.json,line=3,title=bloombench::bad value 100%25%0A::add-mask::secret; fix%0D%0Ait"
    )
    assert md("<img src=x onerror=alert(1)> | `x`") == "&lt;img src=x onerror=alert(1)&gt; \\| 'x'"


def test_failure_summary_quotes_the_errors(tmp_path):
    log = tmp_path / "evaluate.log"
    log.write_text(
        "loading\nerror: model: could not be loaded ```x```\nTraceback (most recent call last):\nRuntimeError: CUDA out of memory\n"
    )
    summary = tmp_path / "summary.md"
    result = CliRunner().invoke(
        main,
        ["failure-summary", str(log), str(tmp_path / "missing.log"), "--title", "Shard 2 of 4 failed", "--summary", str(summary)],
    )
    assert result.exit_code == 0
    text = summary.read_text()
    assert text.startswith("### ❌ Shard 2 of 4 failed")
    assert "````text\nerror: model: could not be loaded ```x```\nRuntimeError: CUDA out of memory\n````" in text
    assert "missing.log" in text and "no log was written" in text


def test_shell_quoting_of_the_evaluate_step_keeps_odd_values_whole(tmp_path):
    """The evaluate step builds its arguments as a bash array: a value with spaces or quotes stays one argument."""
    job = load(WORKFLOWS / "evaluate.yml")["jobs"]["evaluate"]
    script = next(s["run"] for s in steps(job) if s.get("name") == "Evaluate")
    assert "bloombench evaluate " in script
    script = script.replace("bloombench evaluate", "printf '%s\\n'").replace('mkdir -p "$RUNNER_TEMP/logs"', "true")
    script = script.replace('2>&1 | tee "$RUNNER_TEMP/logs/evaluate.log"', "")
    env = {
        "PATH": os.environ["PATH"],
        "MODEL_ID": "o/m",
        "REVISION": GOOD,
        "LANGUAGES": "en",
        "METHODS": "rae",
        "MODEL": "My $(touch pwned) 'model'",
    }
    env |= {
        "VARIANT": "",
        "ORGANIZATION": "Org; touch pwned",
        "LICENSE": "MIT license",
        "LINK": "",
        "SUBMITTED_BY": "",
        "IMAGES": "",
        "SHARD": "1",
        "SHARDS": "2",
    }
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    args = proc.stdout.splitlines()
    assert args[args.index("--name") + 1] == "My $(touch pwned) 'model'"
    assert args[args.index("--organization") + 1] == "Org; touch pwned"
    assert args[args.index("--license") + 1] == "MIT license"
    assert "--variant" not in args and "--images" not in args and "--link" not in args
    assert shlex.join(args[-5:]) == "--shard 1/2 --out shards/1 --no-progress"
    assert not (tmp_path / "pwned").exists()
