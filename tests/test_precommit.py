"""The pre-commit hook, installed and run for real by `pre-commit try-repo`."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def hook_env(tmp_path: Path) -> dict:
    """The environment pre-commit runs in: no GIT_* of an enclosing git command, its own
    cache, no colour, this interpreter's scripts on PATH (for the local hook)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"PRE_COMMIT_HOME": str(tmp_path / "cache"), "PRE_COMMIT_COLOR": "never"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return env


@pytest.mark.network
def test_hook_fails_on_a_finding_and_passes_on_clean_code(tmp_path):
    """`pre-commit try-repo <this checkout> gradlint --all-files` on a repository holding a
    file with a finding and a clean one."""
    env = hook_env(tmp_path)
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo, env=env)
    (repo / "model.py").write_text(BAD)
    (repo / "clean.py").write_text(CLEAN)
    git("add", "-A", cwd=repo, env=env)
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "gradlint"]
    done = subprocess.run(
        [*command, "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 1, done.stdout + done.stderr
    found = [line for line in done.stdout.splitlines() if " GL" in line]
    assert [line.split(" GL")[0] for line in found] == ["model.py:8:9:"], done.stdout
    assert "GL303" in found[0]


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


def fresh_clone(destination: Path, env: dict) -> None:
    """A plain `git clone` of this checkout's repository, as a user makes one."""
    git("clone", "-q", str(ROOT), str(destination), cwd=ROOT, env=env)


@pytest.mark.parametrize(
    "marker",
    [pytest.param("pre-commit config", marks=pytest.mark.network), "pre-commit local"],
)
def test_readme_snippet_on_a_repo_with_a_notebook_and_an_excluded_folder(marker, tmp_path):
    """README's snippets verbatim (the clone's path filled in), run by `pre-commit run`: the
    hook from a fresh clone at the commit `rev:` pins, or the local hook using the
    installed gradlint."""
    env = hook_env(tmp_path)
    hook_repo, repo = tmp_path / "gradlint", tmp_path / "repo"
    repo.mkdir()
    if marker == "pre-commit config":
        fresh_clone(hook_repo, env)
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
    assert "[WARNING]" not in clean.stdout + clean.stderr  # e.g. a `rev:` that can move
    (repo / "exp.ipynb").write_text(notebook("import torch.nn as nn\n", "%time 1\n" + BAD))
    git("add", "-A", cwd=repo, env=env)
    bad = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "exp.ipynb:cell 2:9:9: GL303 " in bad.stdout
    assert "legacy" not in bad.stdout
