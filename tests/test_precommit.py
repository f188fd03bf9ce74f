"""The pre-commit hook, installed and run for real by `pre-commit try-repo`."""

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
