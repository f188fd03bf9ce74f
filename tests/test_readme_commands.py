"""The commands README shows run as shown: install lines name this distribution and its
extras, Quickstart commands work on a project, the CI and pre-commit snippets are true."""

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
BAD = (
    "import torch.nn as nn\n\n\n"
    "class M(nn.Module):\n"
    "    def backward(self, grad_output):\n"
    "        return grad_output\n"
    "\n\n"
    "def sgd(model, lr):\n"
    "    for p in model.parameters():\n"
    "        p -= lr * p.grad\n"
)


def block(marker: str, language: str = "sh") -> str:
    """The fenced block right after `<!-- marker -->`."""
    after = README.split(f"<!-- {marker} -->\n", 1)[1]
    return re.match(rf"```{language}\n(.*?)```", after, re.DOTALL).group(1)


def section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def commands(text: str) -> list[str]:
    return [line.split("  #")[0].strip() for line in text.splitlines() if line.strip()]


def test_install_lines_name_this_distribution_and_its_extras():
    lines = commands(block("install"))
    assert lines and all(line.startswith("python -m pip install ") for line in lines)
    for line in lines:
        requirement = Requirement(line.removeprefix("python -m pip install ").strip("'"))
        assert requirement.name == PROJECT["name"] == "torch-gradlint"
        assert requirement.extras <= set(PROJECT["optional-dependencies"])
    workflow = re.findall(r"- run: pip install (\S+) && gradlint", README)
    assert workflow == [PROJECT["name"]]
    assert "pip install gradlint" not in README and "'gradlint[" not in README


def test_pre_commit_snippet_names_a_commit_and_the_hook():
    config = yaml.safe_load(block("pre-commit config", "yaml"))
    [repo] = config["repos"]
    assert re.fullmatch("[0-9a-f]{40}", repo["rev"])  # a commit: no release is tagged yet
    assert repo["repo"] == "/path/to/gradlint"  # no invented URL: the path of a clone
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in repo["hooks"]] == [hook["id"]]
    assert hook["types_or"] == ["python", "jupyter"]
    assert hook["entry"].split() == ["gradlint", "--force-exclude"]
    [local] = yaml.safe_load(block("pre-commit local", "yaml"))["repos"]
    [local_hook] = local["hooks"]
    assert local["repo"] == "local" and local_hook["language"] == "system"
    for key in ("id", "name", "entry", "types_or"):
        assert local_hook[key] == hook[key], key


def test_readme_names_no_invented_repository_url():
    assert "<gradlint's git URL>" not in README
    assert not re.search(r"https?://(www\.)?(github|gitlab)\.com/[^)\s]*gradlint", README)


def test_quickstart_commands_run_on_a_project(tmp_path):
    for name in ("src/model.py", "train/loop.py", "model.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(BAD)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    lines = commands(section("Quickstart").split("```sh\n", 1)[1].split("```", 1)[0])
    assert len(lines) >= 5
    for line in lines:
        done = subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode in (0, 1), (line, done.stderr)
        assert done.stdout, line
        assert "error" not in done.stderr, (line, done.stderr)


def test_the_pinned_commit_is_on_this_branch_with_todays_hook():
    """`rev:` names a commit of this checkout's history (so every clone of the branch holds
    it) whose hook definition is the current one."""
    rev = yaml.safe_load(block("pre-commit config", "yaml"))["repos"][0]["rev"]
    git = ["git", "-C", str(ROOT)]
    ancestor = subprocess.run([*git, "merge-base", "--is-ancestor", rev, "HEAD"])
    assert ancestor.returncode == 0, f"{rev} is not a commit of this branch"
    pinned = subprocess.run(
        [*git, "show", f"{rev}:.pre-commit-hooks.yaml"], capture_output=True, text=True, check=True
    ).stdout
    assert yaml.safe_load(pinned) == yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
