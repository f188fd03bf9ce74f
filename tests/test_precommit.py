"""The pre-commit hook, installed and run for real by `pre-commit try-repo`."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint import __version__

ROOT = Path(__file__).resolve().parent.parent

BAD = """\
import torch.nn as nn


class Scale(nn.Module):
    def forward(self, x):
        return 2 * x

    def backward(self, grad_output):
        return 2 * grad_output
"""

CLEAN = """\
import torch.nn as nn


class Scale(nn.Module):
    def forward(self, x):
        return 2 * x
"""


def git(*args: str, cwd: Path, env: dict) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def try_repo(project: Path, source: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """`pre-commit try-repo <project> gradlint --all-files` in a fresh repo holding one file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"PRE_COMMIT_HOME": str(tmp_path / "cache"), "PRE_COMMIT_COLOR": "never"}
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    git("init", "-q", cwd=repo, env=env)
    (repo / "model.py").write_text(source)
    git("add", "model.py", cwd=repo, env=env)
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(project), "gradlint"]
    return subprocess.run(
        [*command, "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.network
def test_hook_fails_on_a_finding_and_passes_on_clean_code(tmp_path):
    bad = try_repo(ROOT, BAD, tmp_path / "bad")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "model.py:8:9: GL303 " in bad.stdout
    clean = try_repo(ROOT, CLEAN, tmp_path / "clean")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "GL303" not in clean.stdout


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": cell.splitlines(keepends=True),
                }
                for cell in cells
            ],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def tagged_copy(destination: Path, env: dict) -> None:
    """This checkout (tracked and untracked files) as a repository tagged v<version>, the
    tag README's pre-commit snippet names."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    git("init", "-q", cwd=destination, env=env)
    git("add", "-A", cwd=destination, env=env)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "r", cwd=destination, env=env)
    git("tag", f"v{__version__}", cwd=destination, env=env)


@pytest.mark.parametrize(
    "marker",
    [pytest.param("pre-commit config", marks=pytest.mark.network), "pre-commit local"],
)
def test_readme_snippet_on_a_repo_with_a_notebook_and_an_excluded_folder(marker, tmp_path):
    """README's snippets verbatim (the clone's path filled in), run by `pre-commit run`: the
    hook from a clone at the tag `rev:` names, or the local hook using the installed
    gradlint."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"PRE_COMMIT_HOME": str(tmp_path / "cache"), "PRE_COMMIT_COLOR": "never"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    hook_repo, repo = tmp_path / "gradlint", tmp_path / "repo"
    hook_repo.mkdir()
    repo.mkdir()
    if marker == "pre-commit config":
        tagged_copy(hook_repo, env)
    readme = (ROOT / "README.md").read_text()
    snippet = readme.split(f"<!-- {marker} -->\n```yaml\n", 1)[1].split("```", 1)[0]
    (repo / ".pre-commit-config.yaml").write_text(
        snippet.replace("/path/to/gradlint", str(hook_repo))
    )
    (repo / "pyproject.toml").write_text(
        '[tool.gradlint]\nextend-exclude = ["legacy"]\nprobe = true\n'
    )
    (repo / "legacy").mkdir()
    (repo / "legacy" / "old.py").write_text(BAD)  # excluded: must not block the commit
    (repo / "exp.ipynb").write_text(notebook("import torch.nn as nn\n", CLEAN))
    git("init", "-q", cwd=repo, env=env)
    git("add", "-A", cwd=repo, env=env)
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    clean = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (repo / "exp.ipynb").write_text(notebook("import torch.nn as nn\n", "%time 1\n" + BAD))
    git("add", "-A", cwd=repo, env=env)
    bad = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "exp.ipynb:cell 2:9:9: GL303 " in bad.stdout
    assert "legacy" not in bad.stdout
