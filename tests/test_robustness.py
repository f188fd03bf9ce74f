"""Bad inputs never crash a run: each gets GL001, every other file is still linted."""

import base64
import faulthandler
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint import runner
from gradlint.config import Config
from gradlint.engine import lint_source

ONLY = Config(select=("GL001", "GL303"))  # the rules these tests rely on, whatever else lands
MODULE_BACKWARD = (
    "import torch.nn as nn\n\n\n"
    "class M(nn.Module):\n"
    "    def backward(self, grad_output):\n"
    "        return grad_output\n"
)


def _generated_5mb() -> bytes:
    """A generated module embedding data, as model-export tools write them."""
    blob = base64.b64encode(bytes(range(256)) * 14_700).decode()
    lines = "\n".join(blob[i : i + 76] for i in range(0, len(blob), 76))
    return f'import torch\nWEIGHTS = """\n{lines}\n"""\n'.encode()


BAD = {
    "syntax.py": b"import torch\n\ndef f(:\n    pass\n",
    "latin1.py": b"import torch\nname = 'caf\xe9'\n",
    "nul.py": b"import torch\nx = 1\0\n",
    "deep.py": b"import torch\nx = " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "bad_cookie.py": b"# -*- coding: no-such-codec -*-\nimport torch\n",
}
GOOD = {
    "generated.py": _generated_5mb(),
    "empty.py": b"",
    "crlf.py": MODULE_BACKWARD.replace("\n", "\r\n").encode(),
    "bom.py": b"\xef\xbb\xbf" + MODULE_BACKWARD.encode(),
    "tabs.py": MODULE_BACKWARD.replace("    ", "\t").encode(),
    "latin1_declared.py": b"# -*- coding: latin-1 -*-\n" + MODULE_BACKWARD.encode() + b"s='\xe9'\n",
}


@pytest.fixture(scope="module")
def messy_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("messy")
    for name, data in {**BAD, **GOOD}.items():
        (root / name).write_bytes(data)
    (root / "dangling.py").symlink_to(root / "missing-target.py")
    os.mkfifo(root / "fifo.py")  # opening it for reading would block forever
    return root


def _findings(stdout: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        path, _, _, rest = line.split(":", 3)
        found.setdefault(os.path.basename(path), []).append(rest.split()[0])
    return found


def test_messy_directory_is_linted_without_a_traceback(messy_tree):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gradlint",
            str(messy_tree),
            "--jobs",
            "2",
            "--select",
            "GL001,GL303",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    found = _findings(result.stdout)
    unreadable = ("dangling.py", "fifo.py")
    for name in (*BAD, *unreadable):
        assert found.pop(name) == ["GL001"], name
    assert found == {name: ["GL303"] for name in ("crlf.py", "bom.py", "tabs.py")} | {
        "latin1_declared.py": ["GL303"]
    }


def test_gl001_carries_the_parsers_line_and_reason(messy_tree):
    result = runner.run([str(messy_tree / "syntax.py"), str(messy_tree / "dangling.py")], ONLY)
    dangling, syntax = result.diagnostics  # sorted by path
    assert syntax.line == 3 and syntax.message.startswith("Cannot parse:")
    assert dangling.message == "Cannot read: No such file or directory"


def test_a_crashing_worker_only_costs_its_own_file(tmp_path, monkeypatch):
    """A worker killed mid-file (as a libcst segfault would) gives that file GL001."""
    paths = []
    for index in range(6):
        path = tmp_path / f"f{index}.py"
        path.write_text(MODULE_BACKWARD)
        paths.append(str(path))
    real_lint_file = runner.lint_file

    def crash_on_f3(path, config, source=None):
        if path.endswith("f3.py"):
            os._exit(139)
        return real_lint_file(path, config, source)

    monkeypatch.setattr(runner, "lint_file", crash_on_f3)  # workers are forked: they see it
    result = runner.run(paths, ONLY, jobs=2)
    by_file = {os.path.basename(d.path): (d.code, d.message) for d in result.diagnostics}
    assert by_file.pop("f3.py") == ("GL001", "Cannot parse: the parser crashed on this file")
    assert sorted(by_file) == ["f0.py", "f1.py", "f2.py", "f4.py", "f5.py"]
    assert {code for code, _ in by_file.values()} == {"GL303"}
    assert result.internal_errors == []


def test_an_exception_in_a_worker_is_an_internal_error_of_that_file(tmp_path, monkeypatch):
    paths = [str(tmp_path / name) for name in ("a.py", "b.py")]
    for path in paths:
        Path(path).write_text(MODULE_BACKWARD)
    real_lint_file = runner.lint_file

    def fail_on_a(path, config, source=None):
        if path.endswith("a.py"):
            raise ValueError("checker bug")
        return real_lint_file(path, config, source)

    monkeypatch.setattr(runner, "lint_file", fail_on_a)
    result = runner.run(paths, ONLY, jobs=2)
    assert [os.path.basename(d.path) for d in result.diagnostics] == ["b.py"]
    (error,) = result.internal_errors
    assert error.startswith(f"{paths[0]}: internal error") and "ValueError: checker bug" in error


def test_unreadable_files_follow_select_and_per_file_ignores(tmp_path):
    missing = str(tmp_path / "vendor" / "gone.py")
    assert [d.code for d in runner.run([missing], ONLY).diagnostics] == ["GL001"]
    assert runner.run([missing], Config(ignore=("GL0",))).diagnostics == []
    vendored = Config(per_file_ignores={"vendor/*": ("GL001",)}, root=tmp_path)
    assert runner.run([missing], vendored).diagnostics == []


def test_a_single_file_is_linted_in_process(tmp_path, monkeypatch):
    """No pool start-up cost for the common pre-commit case of one file."""
    path = tmp_path / "m.py"
    path.write_text(MODULE_BACKWARD)

    def no_pool(*args):
        raise AssertionError("a pool was started for one file")

    monkeypatch.setattr(runner, "_in_pool", no_pool)
    assert [d.code for d in runner.run([str(path)], ONLY, jobs=8).diagnostics] == ["GL303"]


def _crash_on_f3(monkeypatch, report: Path) -> None:
    """Make the pipeline die natively (a segfault, as libcst's parser did) on f3.py; the
    dying child's fault report goes to `report`, not to the terminal."""
    real_lint_file = runner.lint_file

    def crash_on_f3(path, config, source=None):
        if path.endswith("f3.py"):
            faulthandler.enable(os.open(report, os.O_WRONLY | os.O_CREAT | os.O_APPEND))
            os.kill(os.getpid(), signal.SIGSEGV)
        return real_lint_file(path, config, source)

    monkeypatch.setattr(runner, "lint_file", crash_on_f3)  # the child is forked: it sees it


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_native_crash_in_one_process_only_costs_its_own_file(tmp_path, monkeypatch, jobs):
    """`--jobs 1` (and a pool) survive a segfault: that file gets GL001, the others and the
    file after it are linted, in order."""
    paths = []
    for index in range(5):
        path = tmp_path / f"f{index}.py"
        path.write_text(MODULE_BACKWARD)
        paths.append(str(path))
    _crash_on_f3(monkeypatch, tmp_path / "fault.txt")
    result = runner.run(paths, ONLY, jobs=jobs)
    by_file = {os.path.basename(d.path): (d.code, d.message) for d in result.diagnostics}
    assert by_file.pop("f3.py") == ("GL001", runner.CRASHED)
    assert sorted(by_file) == ["f0.py", "f1.py", "f2.py", "f4.py"]
    assert {code for code, _ in by_file.values()} == {"GL303"}
    assert result.internal_errors == []
    assert "Fatal Python error: Segmentation fault" in (tmp_path / "fault.txt").read_text()


def test_a_native_crash_on_one_file_or_stdin_is_gl001(tmp_path, monkeypatch):
    (tmp_path / "f3.py").write_text(MODULE_BACKWARD)
    _crash_on_f3(monkeypatch, tmp_path / "fault.txt")
    alone = runner.run([str(tmp_path / "f3.py")], ONLY, jobs=1)
    assert [(d.code, d.message) for d in alone.diagnostics] == [("GL001", runner.CRASHED)]
    piped = runner.run([], ONLY, jobs=1, stdin=("f3.py", MODULE_BACKWARD.encode()))
    assert [(d.path, d.code) for d in piped.diagnostics] == [("f3.py", "GL001")]
    assert piped.internal_errors == []
    assert (tmp_path / "fault.txt").read_text().count("Segmentation fault") == 2


def test_results_come_back_from_the_child_unchanged(tmp_path):
    """The forked child's results equal the in-process pipeline's, source text included."""
    path = tmp_path / "m.py"
    path.write_text(MODULE_BACKWARD)
    here = runner.lint_file(str(path), ONLY)
    (there,) = runner.lint_in_order([(str(path), None)], ONLY)
    assert there == here and there.diagnostics and there.source == MODULE_BACKWARD


def test_loops_of_nested_calls_do_not_multiply_their_passes(monkeypatch):
    """Ten levels of modules, each looping over two of the next: every loop runs its body
    twice, but a called loop reached in another loop's second pass runs once, so the work
    grows with the levels instead of doubling per level (7,480 expressions before)."""
    from gradlint.analysis.dataflow import interpreter

    levels = ["import torch\nimport torch.nn as nn\n"]
    for k in range(10):
        inner = f"Level{k - 1}(dim)" if k else "nn.Linear(dim, dim)"
        levels.append(
            f"class Level{k}(nn.Module):\n"
            "    def __init__(self, dim):\n"
            "        super().__init__()\n"
            f"        self.layers = nn.ModuleList([{inner} for _ in range(2)])\n"
            "    def forward(self, x):\n"
            "        for layer in self.layers:\n"
            "            x = layer(x) + x\n"
            "        return x\n"
        )
    evaluated = 0
    original = interpreter.Interpreter.eval

    def counting(self, expr, state, frame):
        nonlocal evaluated
        evaluated += 1
        return original(self, expr, state, frame)

    monkeypatch.setattr(interpreter.Interpreter, "eval", counting)
    assert not lint_source("m.py", "".join(levels)).internal_errors
    assert 0 < evaluated < 3_500
