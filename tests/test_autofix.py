"""`--fix`, `--unsafe-fixes`, `--diff`, `--show-fixes`: what is applied, what is written."""

import os
import stat
import subprocess
import sys

import pytest

import gradlint.autofix
from gradlint.autofix import apply_fixes, fix_source, write_atomic
from gradlint.cli import main
from gradlint.config import Config
from gradlint.diagnostic import Diagnostic, Edit, Fix
from gradlint.engine import lint_source

# GL401 (safe fix: view -> reshape) and GL205 (unsafe fix: use_reentrant=False).
SOURCE = (
    "import torch\n"
    "from torch.utils.checkpoint import checkpoint\n"
    "\n"
    "\n"
    "def f(layer):\n"
    "    x = torch.randn(3, 4)\n"
    "    y = x.t().view(-1)  # flatten\n"
    "    return checkpoint(layer, y)\n"
)
SAFE = SOURCE.replace(".view(-1)", ".reshape(-1)")
BOTH = SAFE.replace("(layer, y)", "(layer, y, use_reentrant=False)")
ONLY = ["--select", "GL001,GL205,GL401"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "model.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, *argv):
    code = main([*argv, *ONLY])
    out, err = capsys.readouterr()
    return code, out, err


def test_fix_applies_safe_fixes_and_reports_what_is_left(project, capsys):
    code, out, err = _run(capsys, "--fix", "model.py")
    assert (project / "model.py").read_text() == SAFE
    assert code == 1
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()] == ["GL205"]
    assert "fixed 1 finding(s) in 1 file(s)" in err


def test_unsafe_fixes_apply_everything_and_a_second_run_changes_nothing(project, capsys):
    assert _run(capsys, "--fix", "--unsafe-fixes", "model.py")[:2] == (0, "")
    assert (project / "model.py").read_text() == BOTH
    before = os.stat(project / "model.py").st_mtime_ns
    code, out, err = _run(capsys, "--fix", "--unsafe-fixes", "model.py")
    assert (code, out, err) == (0, "", "")
    assert os.stat(project / "model.py").st_mtime_ns == before


def test_diff_writes_nothing_and_exits_1_when_there_would_be_changes(project, capsys):
    code, out, err = _run(capsys, "--diff", "model.py")
    assert code == 1
    assert (project / "model.py").read_text() == SOURCE
    assert out.splitlines()[:2] == ["--- a/model.py", "+++ b/model.py"]
    assert "-    y = x.t().view(-1)  # flatten" in out.splitlines()
    assert "+    y = x.t().reshape(-1)  # flatten" in out.splitlines()
    assert "use_reentrant" not in out  # unsafe: only with --unsafe-fixes
    assert "use_reentrant=False" in _run(capsys, "--diff", "--unsafe-fixes", "model.py")[1]
    (project / "model.py").write_text(BOTH)
    assert _run(capsys, "--diff", "--unsafe-fixes", "model.py")[:2] == (0, "")


def test_show_fixes_lists_the_fixed_rules(project, capsys):
    code, out, err = _run(capsys, "--fix", "--unsafe-fixes", "--show-fixes", "model.py")
    assert code == 0
    assert out.splitlines() == [
        "Fixed 2 finding(s):",
        "- model.py:",
        "    1 × GL205 (checkpoint-reentrant)",
        "    1 × GL401 (view-on-noncontiguous)",
    ]


def test_full_format_marks_the_fixable_findings(project, capsys):
    out = _run(capsys, "--format", "full", "model.py")[1]
    assert "model.py:7:9: GL401 [*] " in out
    assert "model.py:8:12: GL205 `checkpoint" in out
    assert out.endswith("[*] 1 fixable with `--fix` (1 more with `--unsafe-fixes`)\n")


def test_suppressed_findings_and_unparsable_files_are_never_fixed(project, capsys):
    suppressed = SOURCE.replace("# flatten", "# noqa: GL401")
    (project / "model.py").write_text(suppressed)
    broken = SOURCE + "def (:\n"
    (project / "broken.py").write_text(broken)
    code, out, _ = _run(capsys, "--fix", "--unsafe-fixes", "model.py", "broken.py")
    assert (project / "model.py").read_text() == suppressed.replace(
        "(layer, y)", "(layer, y, use_reentrant=False)"
    )
    assert (project / "broken.py").read_text() == broken
    assert (code, [line.split(": ")[1][:5] for line in out.splitlines()]) == (1, ["GL001"])
    outcome = fix_source("broken.py", broken.encode(), Config(), unsafe=True)
    assert not outcome.changed and outcome.fixed == []


def test_writes_keep_the_mode_bits(project, capsys):
    path = project / "model.py"
    os.chmod(path, 0o751)
    _run(capsys, "--fix", "model.py")
    assert path.read_text() == SAFE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert [p.name for p in project.iterdir() if p.name.startswith(".gradlint-")] == []


def test_a_file_changed_on_disk_since_it_was_read_is_not_overwritten(project, capsys, monkeypatch):
    path = project / "model.py"
    real = gradlint.autofix.fix_source

    def edit_meanwhile(*args, **kwargs):
        outcome = real(*args, **kwargs)
        path.write_text(SOURCE + "# edited by the user\n")
        return outcome

    monkeypatch.setattr(gradlint.autofix, "fix_source", edit_meanwhile)
    code, out, err = _run(capsys, "--fix", "model.py")
    assert code == 2
    assert "changed on disk since it was read; not fixed" in err
    assert path.read_text() == SOURCE + "# edited by the user\n"
    assert "GL401" in out  # its findings are still reported
    with pytest.raises(gradlint.autofix.ChangedOnDisk):
        write_atomic(str(path), SOURCE.encode(), SAFE.encode())


def test_stdin_fix_writes_the_fixed_source_to_stdout():
    run = subprocess.run(
        [sys.executable, "-m", "gradlint", "--fix", "-", "--stdin-filename", "m.py", *ONLY],
        input=SOURCE,
        capture_output=True,
        text=True,
    )
    assert run.stdout == SAFE
    assert run.returncode == 1
    assert "m.py:8:12: GL205" in run.stderr
    clean = subprocess.run(
        [sys.executable, "-m", "gradlint", "--fix", "-", *ONLY],
        input="import torch\n",
        capture_output=True,
        text=True,
    )
    assert (clean.returncode, clean.stdout) == (0, "import torch\n")


def test_overlapping_fixes_wait_for_the_next_round():
    def finding(line, column, end_column, content):
        fix = Fix((Edit(line, column, line, end_column, content),))
        return Diagnostic("m.py", line, column, line, end_column, "GL401", "m", fix=fix)

    text = "abcdef\n"
    fixed, applied = apply_fixes(
        text, [finding(1, 1, 4, "X"), finding(1, 3, 5, "Y"), finding(1, 6, 7, "Z")]
    )
    assert fixed == "XdeZ\n"
    assert len(applied) == 2


def test_rounds_reach_a_fixed_point_with_every_view_fixed():
    source = "import torch\n\nx = torch.randn(3, 4)\ny = x.t().view(-1) + x.t().view(-1)\n"
    source += "z = x.t().view(12)  # noqa: GL401\n"
    outcome = fix_source("m.py", source.encode(), Config(), unsafe=False)
    assert outcome.converged
    assert [d.code for d in lint_source("m.py", outcome.text).diagnostics] == ["GL401"]
    assert "x.t().view(12)  # noqa" in outcome.text
    assert ".view(-1)" not in outcome.text
