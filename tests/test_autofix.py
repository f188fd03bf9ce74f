"""`--fix`, `--unsafe-fixes`, `--diff`, `--show-fixes`: what is applied, what is written."""

import os
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import gradlint.autofix
from gradlint.autofix import apply_fixes, fix_source, write_atomic
from gradlint.cli import main
from gradlint.config import Config
from gradlint.diagnostic import Diagnostic, Edit, Fix
from gradlint.engine import lint_source, parse

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


NO_FIX = {
    "GL105 row mask": (
        "GL105",
        "import torch\nimport torch.nn as nn\n\n\nclass M(nn.Module):\n"
        "    def forward(self, x, keep):\n        x[keep > 0] = 0\n        return x\n\n\n"
        "x = torch.randn(4, 3)\nM()(x, torch.randn(4))\nprint(x)\n",
    ),
    "GL204 keyword already given": (
        "GL204",
        "import torch\n\nw = torch.zeros(3, requires_grad=True, require_grad=True)\n",
    ),
    "GL502 own module class": (
        "GL502",
        "import torch.nn as nn\n\n\nclass Block(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n\n\n"
        "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.blocks = [Block() for _ in range(3)]\n",
    ),
    "GL301 not a unit gradient": (
        "GL301",
        "import torch\n\nx = torch.randn(3, requires_grad=True)\nloss = (x * 2).sum()\n"
        "loss.backward(torch.ones(3))\n",
    ),
}


@pytest.mark.parametrize(("code", "source"), NO_FIX.values(), ids=NO_FIX)
def test_findings_without_a_sound_fix_carry_none(code, source):
    found = [d for d in lint_source("m.py", source).diagnostics if d.code == code]
    assert found and [d.fix for d in found] == [None] * len(found)


def test_manual_update_fix_imports_torch_when_the_file_lacks_the_name():
    source = (
        '"""Train."""\n'
        "import torch.nn.functional as F\n\n\n"
        "def sgd(model, data, lr=0.1):\n"
        "    for x, y in data:\n"
        "        model.zero_grad()\n"
        "        F.mse_loss(model(x), y).backward()\n"
        "        for p in model.parameters():\n"
        "            p -= lr * p.grad  # step\n"
    )
    outcome = fix_source("m.py", source.encode(), Config(), unsafe=True)
    assert outcome.text == (
        '"""Train."""\n'
        "import torch\n"
        "import torch.nn.functional as F\n\n\n"
        "def sgd(model, data, lr=0.1):\n"
        "    for x, y in data:\n"
        "        model.zero_grad()\n"
        "        F.mse_loss(model(x), y).backward()\n"
        "        for p in model.parameters():\n"
        "            with torch.no_grad():\n"
        "                p -= lr * p.grad  # step\n"
    )
    assert outcome.diagnostics == []
    assert fix_source("m.py", source.encode(), Config(), unsafe=False).fixed == []


CORPUS = sorted((Path(__file__).parent / "corpus").rglob("*.py"))


def test_every_corpus_file_fixes_to_parsable_idempotent_code_without_the_fixed_findings():
    """Exact: after `--fix --unsafe-fixes` a file re-lints with exactly its findings that
    carried no fix (every fixed finding gone, none of any rule added)."""
    fixed_files = 0
    for path in CORPUS:
        source = path.read_bytes()
        found = lint_source(str(path), source).diagnostics
        if not any(d.fix for d in found):
            continue
        outcome = fix_source(str(path), source, Config(), unsafe=True)
        fixed_files += 1
        assert outcome.fixed and outcome.converged, path
        assert not isinstance(parse(str(path), outcome.text), Diagnostic), path
        after = Counter(d.code for d in lint_source(str(path), outcome.text).diagnostics)
        assert after == Counter(d.code for d in found if d.fix is None), path
        again = fix_source(str(path), outcome.text.encode(), Config(), unsafe=True)
        assert (again.text, again.fixed) == (outcome.text, []), path
    assert fixed_files >= 15


def test_readme_example_and_seed_examples_fix_to_clean_idempotent_code(tmp_path, capsys):
    import re
    import shutil

    from test_readme_example import example_section

    before, after = re.findall(r"```python\n(.*?)```", example_section(), re.DOTALL)
    outcome = fix_source("train.py", before.encode(), Config(), unsafe=True)
    assert outcome.diagnostics == []
    assert "import torch\nimport torch.nn.functional as F\n" in outcome.text
    assert "            with torch.no_grad():\n                p -= lr * p.grad" in outcome.text
    assert "        opt.zero_grad()\n        F.mse_loss" in outcome.text

    examples = tmp_path / "examples"
    shutil.copytree(Path(__file__).parent.parent / "examples", examples)
    assert main(["--diff", "--unsafe-fixes", str(examples)]) == 1
    assert main(["--fix", "--unsafe-fixes", str(examples)]) == 1  # GL101/GL303/GL403 stay
    assert main(["--diff", "--unsafe-fixes", str(examples)]) == 0
    capsys.readouterr()
    for path in examples.glob("*.py"):
        assert not isinstance(parse(str(path), path.read_bytes()), Diagnostic)


def test_crlf_line_endings_are_kept():
    source = (
        "import torch\r\n\r\nw = torch.randn(3, requires_grad=True)\r\n"
        "for _ in range(3):\r\n    (w * 2).sum().backward()\r\n    w -= 0.1 * w.grad\r\n"
    )
    outcome = fix_source("m.py", source.encode(), Config(), unsafe=True)
    assert outcome.text.endswith("    with torch.no_grad():\r\n        w -= 0.1 * w.grad\r\n")
    assert outcome.text.count("\n") == outcome.text.count("\r\n") == 7
