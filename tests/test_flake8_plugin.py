"""The flake8 plugin, driven through the real `flake8` executable."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MODULE_WITH_BACKWARD = """\
import torch.nn as nn


class Scale(nn.Module):
    def forward(self, x):
        return 2 * x

    def backward(self, grad_output):{comment}
        return 2 * grad_output
"""

# cp1252 source whose non-ASCII text is not valid UTF-8 ("\xc1" is "Á"): the plugin must
# hand the engine bytes in the declared encoding, or the file would not parse.
CP1252_SOURCE = (
    '# -*- coding: cp1252 -*-\n"""Ángel\'s layer"""\nimport torch\n\n\n'
    "class Layer(torch.nn.Module):\n"
    "    def backward(self, grad_output):  # Á\n"
    "        return grad_output\n"
).encode("cp1252")


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, input=stdin, capture_output=True, check=False
    )


def flake8(*args: str, cwd: Path, stdin: bytes | None = None) -> list[str]:
    done = run("flake8", "--isolated", "--select", "GL", *args, cwd=cwd, stdin=stdin)
    assert done.returncode in (0, 1), done.stderr.decode()
    return sorted(done.stdout.decode().splitlines())


def write_fixture(directory: Path) -> list[str]:
    (directory / "scale.py").write_text(MODULE_WITH_BACKWARD.format(comment=""))
    (directory / "legacy.py").write_bytes(CP1252_SOURCE)
    (directory / "clean.py").write_text("import torch\n\nx = torch.ones(3)\n")
    return ["scale.py", "legacy.py", "clean.py"]


def test_flake8_select_gl_reports_what_the_cli_reports(tmp_path):
    files = write_fixture(tmp_path)
    examples = sorted(str(p) for p in (ROOT / "examples").glob("*.py"))
    cli = run("gradlint", *files, *examples, cwd=tmp_path)
    assert cli.returncode == 1, cli.stderr.decode()
    expected = sorted(cli.stdout.decode().splitlines())
    assert any(line.startswith("legacy.py:7:9: GL303 ") for line in expected)
    assert any(line.startswith("scale.py:8:9: GL303 ") for line in expected)
    assert flake8(*files, *examples, cwd=tmp_path) == expected


def test_flake8_reads_stdin_with_its_display_name(tmp_path):
    source = MODULE_WITH_BACKWARD.format(comment="").encode()
    found = flake8("--stdin-display-name", "model.py", "-", cwd=tmp_path, stdin=source)
    assert [line.split(" ", 2)[:2] for line in found] == [["model.py:8:9:", "GL303"]]


@pytest.mark.parametrize(
    ("comment", "reported"),
    [
        ("", True),
        ("  # noqa", False),
        ("  # noqa: GL303", False),
        ("  # noqa: E501", True),
        ("  # gradlint: noqa", False),
    ],
)
def test_flake8_applies_noqa_comments(tmp_path, comment, reported):
    (tmp_path / "scale.py").write_text(MODULE_WITH_BACKWARD.format(comment=comment))
    assert bool(flake8("scale.py", cwd=tmp_path)) is reported


def test_flake8_uses_the_projects_gradlint_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL303"]\n')
    (tmp_path / "scale.py").write_text(MODULE_WITH_BACKWARD.format(comment=""))
    assert flake8("scale.py", cwd=tmp_path) == []


def test_flake8_and_the_cli_agree_on_two_projects_with_an_excluded_folder(tmp_path):
    bad = MODULE_WITH_BACKWARD.format(comment="")
    for name, text in {
        "a/pyproject.toml": '[tool.gradlint]\nextend-exclude = ["generated"]\n',
        "a/m.py": bad,
        "a/generated/m.py": bad,
        "b/gradlint.toml": 'ignore = ["GL303"]\n',
        "b/m.py": bad,
        "c/m.py": bad,
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    cli = run("gradlint", "--force-exclude", "a", "b", "c", cwd=tmp_path)
    expected = sorted(cli.stdout.decode().splitlines())
    assert [line.split(":")[0] for line in expected] == ["a/m.py", "c/m.py"]
    assert flake8("a", "b", "c", cwd=tmp_path) == expected
    named = ["a/m.py", "a/generated/m.py", "b/m.py", "c/m.py"]
    forced = run("gradlint", "--force-exclude", *named, cwd=tmp_path)
    assert sorted(forced.stdout.decode().splitlines()) == expected
    assert flake8(*named, cwd=tmp_path) == expected


def test_a_native_crash_under_flake8_is_gl001_and_the_next_file_is_linted(monkeypatch, tmp_path):
    """The plugin lints in one forked child per flake8 process: a segfault there costs
    that file (GL001), and the next file gets a new child. The child's fault report goes
    to a file, not to the terminal."""
    import faulthandler
    import os
    import signal

    from gradlint import flake8_plugin, runner

    real_lint_file = runner.lint_file
    report = tmp_path / "fault.txt"

    def crash_on_boom(path, config, source=None):
        if path.endswith("boom.py"):
            faulthandler.enable(os.open(report, os.O_WRONLY | os.O_CREAT | os.O_APPEND))
            os.kill(os.getpid(), signal.SIGSEGV)
        return real_lint_file(path, config, source)

    monkeypatch.setattr(runner, "lint_file", crash_on_boom)
    monkeypatch.setattr(flake8_plugin, "_WORKER", runner.ContainedWorker())
    lines = ["import torch\n", "torch.ones(2)\n"]
    crashed = [t for *_, t, _ in flake8_plugin.GradlintPlugin(None, "boom.py", lines).run()]
    assert crashed == [f"GL001 {runner.CRASHED}"]
    after = [t for *_, t, _ in flake8_plugin.GradlintPlugin(None, "fine.py", lines).run()]
    assert after == []
    assert "Fatal Python error: Segmentation fault" in report.read_text()


def test_select_gl_reports_a_file_flake8_cannot_parse(tmp_path):
    """flake8 runs no plugin on a file that does not parse; with GL selected its E999 is
    selected too, unless the user ignores it."""
    (tmp_path / "broken.py").write_text("import torch\n\ndef f(:\n    pass\n")
    assert flake8("broken.py", cwd=tmp_path) == ["broken.py:3:8: E999 SyntaxError: invalid syntax"]
    assert flake8("--extend-ignore", "E999", "broken.py", cwd=tmp_path) == []
    pyflakes_only = run("flake8", "--isolated", "--select", "F", "broken.py", cwd=tmp_path)
    assert pyflakes_only.stdout == b""  # no GL in the selection: flake8's own choice stands


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (b"tool = 5\n", "tool must be a table"),
        (b"[tool]\ngradlint = 5\n", "tool.gradlint must be a table"),
        (b"[tool.gradlint]\n# \xff\xfe\n", "not UTF-8"),
        (b'[tool.gradlint]\nextend-exclude = ["[z-a]"]\nmax-depth = 0\n', "max-depth"),
    ],
)
def test_a_bad_configuration_is_gl902_on_its_files_only(tmp_path, text, named):
    """A real flake8 run: the files under the bad configuration get GL902 naming the file
    and the problem (every problem, in one line), the others their findings; no
    traceback."""
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "pyproject.toml").write_bytes(text)
    (tmp_path / "bad" / "scale.py").write_text(MODULE_WITH_BACKWARD.format(comment=""))
    (tmp_path / "scale.py").write_text(MODULE_WITH_BACKWARD.format(comment=""))
    done = run("flake8", "--isolated", "--select", "GL", ".", cwd=tmp_path)
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr.decode()
    found = sorted(done.stdout.decode().splitlines())
    assert [line.split(": ", 1)[0] for line in found] == ["./bad/scale.py:1:1", "./scale.py:8:9"]
    assert found[0].split(": ", 1)[1].startswith("GL902 gradlint cannot run: bad/pyproject.toml")
    assert named in found[0]


def test_a_named_notebook_is_reported_where_its_json_holds_the_cells_code(tmp_path):
    """flake8 reads an .ipynb file as its JSON text: each finding stands on the line and
    column of that text where the cell's code is written (the line the command's `github`
    format names), the cell's own position after the message as the command prints it."""
    import json

    cells = ["import torch.nn as nn\n", "%time 1\n" + MODULE_WITH_BACKWARD.format(comment="")]
    sources = [cell.splitlines(keepends=True) for cell in cells]
    notebook = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n"]}]
        + [
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": s, "execution_count": 1}
            for s in sources
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(notebook, indent=1)
    (tmp_path / "exp.ipynb").write_text(text)
    cli = run("gradlint", "exp.ipynb", cwd=tmp_path).stdout.decode()
    assert cli.startswith("exp.ipynb:cell 3:9:9: GL303 `Scale.backward` ")
    message = cli.split(" GL303 ", 1)[1].strip()
    [found] = flake8("exp.ipynb", cwd=tmp_path)
    where, rest = found.split(" GL303 ")
    assert rest == f"{message} (cell 3:9:9)"
    _, line, column, _ = where.split(":")
    assert (
        text.splitlines()[int(line) - 1][int(column) - 1 :] == 'backward(self, grad_output):\\n",'
    )
    github = run("gradlint", "--format", "github", "exp.ipynb", cwd=tmp_path).stdout.decode()
    assert f",line={line},endLine={line}," in github
