"""Terminal niceties: colour, summary line, progress; and `--add-noqa`."""

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint import terminal
from gradlint.cli import main

BAD = (
    "import torch.nn as nn\n\n\n"
    "class M(nn.Module):\n"
    "    def backward(self, grad_output):\n"
    "        return grad_output\n"
)
LEGACY = (
    "import torch\n\n"
    "w = torch.zeros(3, requires_grad=True)\n"
    "w += 1\n"
    "w.add_(\n"
    "    1\n"
    ")\n"
    "w.mul_(2)  # noqa: E501 keep\n"
    "w.sub_(1)  # noqa\n"
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text("import torch\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def on_a_terminal(*args: str, cwd: Path, env: dict | None = None) -> tuple[str, str]:
    """gradlint with stdout on a pseudo-terminal: (stdout, stderr)."""
    main_fd, child_fd = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "gradlint", *args],
        cwd=cwd,
        stdout=child_fd,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )
    os.close(child_fd)
    chunks = []
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_fd)
    return b"".join(chunks).decode(), done.stderr.decode()


@pytest.mark.parametrize(
    ("env", "expected"),
    [({}, False), ({"FORCE_COLOR": "1"}, True), ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False)],
)
def test_colour_honours_no_color_and_force_color(monkeypatch, env, expected):
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert terminal.use_colour(io.StringIO()) is expected


def test_forced_colour_in_the_default_format(project, capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert main(["bad.py"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("\033[1mbad.py:5:9:\033[0m \033[33m\033[1mGL303\033[0m ")
    main(["bad.py", "--format", "json"])
    assert "\033[" not in capsys.readouterr().out


def test_summary_line_and_colour_on_a_terminal(project):
    env = {"NO_COLOR": "", "FORCE_COLOR": ""}
    out, err = on_a_terminal("bad.py", cwd=project, env=env)
    assert "GL303" in out and "\033[1m" in out
    assert err.strip() == "Found 1 error."
    out, err = on_a_terminal("clean.py", cwd=project, env=env)
    assert (out, err.strip()) == ("", "All checks passed!")
    out, err = on_a_terminal("bad.py", cwd=project, env={"NO_COLOR": "1"})
    assert "\033[" not in out


def test_no_summary_when_piped(project):
    done = subprocess.run(
        [sys.executable, "-m", "gradlint", "bad.py"], cwd=project, capture_output=True, text=True
    )
    assert done.stderr == "" and done.stdout.startswith("bad.py:5:9: GL303 ")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_appears_after_a_while_and_is_erased(monkeypatch):
    monkeypatch.setattr(terminal, "PROGRESS_AFTER", 0.05)
    stream = FakeTerminal()
    progress = terminal.Progress(stream, 3)
    progress._done.wait(0.5)
    progress.stop()
    text = stream.getvalue()
    assert text.startswith("\rgradlint: linting 3 files… 0s") and text.endswith("\r\033[K")
    quick = FakeTerminal()
    terminal.Progress(quick, 3).stop()
    assert quick.getvalue() == ""
    piped = io.StringIO()
    progress = terminal.Progress(piped, 3)
    progress._done.wait(0.2)
    progress.stop()
    assert piped.getvalue() == ""


def test_add_noqa_baselines_a_legacy_file(project, capsys):
    legacy = project / "legacy.py"
    legacy.write_text(LEGACY)
    assert main(["legacy.py", "--select", "GL1", "--jobs", "1"]) == 1
    capsys.readouterr()
    assert main(["legacy.py", "--select", "GL1", "--add-noqa"]) == 0
    assert capsys.readouterr().err == "Added 3 noqa directives.\n"
    text = legacy.read_text().splitlines()
    assert text[3] == "w += 1  # noqa: GL101"
    assert text[6] == ")  # noqa: GL101"
    assert text[7] == "w.mul_(2)  # noqa: E501, GL101 keep"
    assert text[8] == "w.sub_(1)  # noqa"
    assert main(["legacy.py", "--select", "GL1"]) == 0
    capsys.readouterr()
    assert main(["legacy.py", "--add-noqa"]) == 0
    assert capsys.readouterr().err == "Added 0 noqa directives.\n"
