"""The result cache: hits cost no parse, and nothing that changes a result is ever served
stale (the file, the settings, gradlint's code, the other-file facts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint import cache as cache_module
from gradlint import runner
from gradlint.cli import main

BAD = """\
import torch.nn as nn


class Scale(nn.Module):
    def forward(self, x):
        return 2 * x

    def backward(self, grad_output):
        return 2 * grad_output
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.delenv("GRADLINT_NO_CACHE", raising=False)
    monkeypatch.delenv("GRADLINT_CACHE_DIR", raising=False)
    monkeypatch.setattr(runner, "_caches", {})
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(2)\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(capsys, *args: str) -> tuple[int, list[tuple[str, str]]]:
    code = main(["--format", "json", "--jobs", "1", *args])
    out = capsys.readouterr().out
    return code, sorted((d["path"], d["code"]) for d in json.loads(out))


def test_a_second_run_reads_every_result_from_the_cache(project, capsys, monkeypatch):
    first = lint(capsys, ".")
    assert first == (1, [("bad.py", "GL303")])
    directory = project / ".gradlint_cache"
    assert (directory / ".gitignore").read_text() == "*\n"
    assert (directory / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172")

    def fail(path, *args, **kwargs):
        raise AssertionError(f"{path} was linted, not read from the cache")

    monkeypatch.setattr("gradlint.engine.lint_source", fail)
    monkeypatch.setattr(runner, "_in_pool", fail)  # and no worker pool is started
    assert lint(capsys, ".", "--jobs", "2") == first


def test_an_edited_file_is_linted_again(project, capsys):
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")]
    (project / "bad.py").write_text(
        BAD.replace("def backward(self, grad_output)", "def g(self, y)")
    )
    assert lint(capsys, ".") == (0, [])


def test_other_settings_are_other_entries(project, capsys):
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")]
    assert lint(capsys, ".", "--ignore", "GL303") == (0, [])
    (project / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL3"]\n')
    assert lint(capsys, ".") == (0, [])
    (project / "pyproject.toml").write_text("[tool.gradlint]\n")
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")]


def test_noqa_and_path_are_part_of_the_key(project, capsys):
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")]
    (project / "copy.py").write_text(BAD)  # same bytes, other path: its own finding
    assert lint(capsys, ".")[1] == [("bad.py", "GL303"), ("copy.py", "GL303")]


def test_a_new_gradlint_or_other_file_facts_invalidate(project, capsys, monkeypatch):
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")]
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "another gradlint")
    monkeypatch.setattr(runner, "_caches", {})
    log = project / "linted.txt"  # files are linted in a forked child: it writes here
    real = runner.lint_file

    def counting(path, config, source=None):
        with open(log, "a") as file:
            file.write(path + "\n")
        return real(path, config, source)

    def calls() -> list[str]:
        linted = log.read_text().split() if log.exists() else []
        log.unlink(missing_ok=True)
        return linted

    monkeypatch.setattr(runner, "lint_file", counting)
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")]
    assert len(calls()) == 2  # another gradlint: every file linted again
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")] and calls() == []
    monkeypatch.setattr(cache_module, "index_key", lambda *_: b"an imported module changed")
    assert lint(capsys, ".")[1] == [("bad.py", "GL303")] and len(calls()) == 2


def test_the_code_fingerprint_follows_gradlints_files(project, monkeypatch):
    cache_module.code_fingerprint.cache_clear()
    before = cache_module.code_fingerprint()
    checker = Path(cache_module.__file__).parent / "checks" / "__init__.py"
    stat = checker.stat()
    try:
        os.utime(checker, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        cache_module.code_fingerprint.cache_clear()
        assert cache_module.code_fingerprint() != before
    finally:
        os.utime(checker, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        cache_module.code_fingerprint.cache_clear()


@pytest.mark.parametrize("damage", [b"", b"{not json", b'[{"__type__": "Diagnostic"}]', b"[1]"])
def test_a_corrupt_entry_is_a_miss(project, capsys, damage):
    first = lint(capsys, ".")
    entries = [p for p in (project / ".gradlint_cache").rglob("*") if p.is_file()]
    entries = [p for p in entries if p.name not in ("CACHEDIR.TAG", ".gitignore")]
    assert len(entries) == 2
    for entry in entries:
        entry.write_bytes(damage)
    assert lint(capsys, ".") == first
    assert all(entry.read_bytes() != damage for entry in entries)  # rewritten


def test_no_cache_and_cache_dir(project, capsys, monkeypatch, tmp_path_factory):
    assert lint(capsys, ".", "--no-cache")[1] == [("bad.py", "GL303")]
    assert not (project / ".gradlint_cache").exists()
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    lint(capsys, ".", "--cache-dir", str(elsewhere / "c"))
    assert (elsewhere / "c" / "CACHEDIR.TAG").exists()
    monkeypatch.setenv("GRADLINT_CACHE_DIR", str(elsewhere / "env"))
    lint(capsys, ".")
    assert (elsewhere / "env" / "CACHEDIR.TAG").exists()
    monkeypatch.delenv("GRADLINT_CACHE_DIR")
    (project / "pyproject.toml").write_text('[tool.gradlint]\ncache-dir = "build/lint-cache"\n')
    lint(capsys, ".")
    assert (project / "build" / "lint-cache" / "CACHEDIR.TAG").exists()
    monkeypatch.setenv("GRADLINT_NO_CACHE", "1")
    monkeypatch.setattr(runner, "_caches", {})
    (project / "pyproject.toml").write_text("[tool.gradlint]\n")
    lint(capsys, ".")
    assert not (project / ".gradlint_cache").exists()
    assert main(["--cache-dir"]) == 2


def test_an_unwritable_cache_is_skipped(project, capsys):
    (project / ".gradlint_cache").write_text("a file where the directory would be")
    assert lint(capsys, ".") == (1, [("bad.py", "GL303")])


def test_concurrent_runs_share_the_cache_safely(project):
    for index in range(30):
        (project / f"m{index}.py").write_text(BAD.replace("Scale", f"Scale{index}"))
    command = [sys.executable, "-m", "gradlint", "--format", "json", "-j", "2", "."]
    env = {k: v for k, v in os.environ.items() if k != "GRADLINT_NO_CACHE"}
    runs = [subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, env=env)]
    runs.append(subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, env=env))
    outputs = [json.loads(run.communicate(timeout=600)[0]) for run in runs]
    assert len(outputs[0]) == 31 and outputs[0] == outputs[1]
    again = subprocess.run(command, cwd=project, capture_output=True, env=env, check=False)
    assert json.loads(again.stdout) == outputs[0]


def test_a_run_served_by_the_cache_imports_neither_parser_nor_heavy_modules(project):
    """Their imports were most of a warm run: libcst (the parser), inspect (the
    dataclasses' signatures), tokenize (the encoding), shutil (argparse), hashlib (the
    cache's own hash)."""
    env = {k: v for k, v in os.environ.items() if k != "GRADLINT_NO_CACHE"}
    run = [sys.executable, "-m", "gradlint", "."]
    assert subprocess.run(run, cwd=project, env=env, capture_output=True).returncode == 1
    heavy = ("libcst", "inspect", "tokenize", "shutil", "hashlib")
    warm = (
        "import sys\nfrom gradlint.cli import main\ncode = main(['.'])\n"
        f"print(code, [name for name in {heavy!r} if name in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", warm], cwd=project, env=env, capture_output=True)
    assert done.stdout.decode().splitlines()[-1] == "1 []"
    assert "GL303" in done.stdout.decode()  # the finding, read back (decoded for the report)


def _entries(directory: Path) -> dict[str, Path]:
    """Each cache entry under `directory`, by the path of the file it answers."""
    found = {}
    for entry in directory.rglob("*"):
        if entry.is_file() and entry.name not in ("CACHEDIR.TAG", ".gitignore"):
            found[json.loads(entry.read_bytes())["request"]["path"]] = entry
    return found


LEAF = "import torch\n\nw = torch.zeros(3, requires_grad=True)\nw += 1\n"


def test_an_entry_copied_under_another_files_key_is_a_miss(project, capsys, tmp_path_factory):
    """A shared cache directory where one file's entry was copied over another's: each
    file still gets its own findings (not the other's twice)."""
    shared = tmp_path_factory.mktemp("shared") / "cache"
    (project / "leaf.py").write_text(LEAF)
    first = lint(capsys, ".", "--cache-dir", str(shared))
    assert first == (1, [("bad.py", "GL303"), ("leaf.py", "GL101")])
    entries = _entries(shared)
    entries["leaf.py"].write_bytes(entries["bad.py"].read_bytes())
    entries["clean.py"].write_bytes(entries["bad.py"].read_bytes())
    assert lint(capsys, ".", "--cache-dir", str(shared)) == first


@pytest.mark.parametrize("fmt", ["flake8", "full", "github", "json", "sarif"])
@pytest.mark.parametrize(
    ("field", "value"),
    [("line", "abc"), ("column", None), ("severity", "error"), ("fix", 3), ("cell", True)],
)
def test_an_entry_with_an_ill_typed_field_is_a_miss(project, capsys, fmt, field, value):
    lint(capsys, ".")
    entry = _entries(project / ".gradlint_cache")["bad.py"]
    data = json.loads(entry.read_bytes())
    data["diagnostics"][0][field] = value
    entry.write_text(json.dumps(data))
    code = main(["--format", fmt, "--jobs", "1", "."])
    captured = capsys.readouterr()
    assert (code, captured.err) == (1, "")
    assert "GL303" in captured.out and "bad.py" in captured.out


def test_an_entry_copied_from_before_an_imported_file_changed_is_a_miss(
    project, capsys, monkeypatch
):
    """Same file, same bytes, but the project files it imports changed: its old entry,
    copied to the new key, is not served."""

    def entries_of_bad() -> list[Path]:
        found = (project / ".gradlint_cache").rglob("*")
        return [
            entry
            for entry in found
            if entry.is_file()
            and entry.name not in ("CACHEDIR.TAG", ".gitignore")
            and json.loads(entry.read_bytes())["request"]["path"] == "bad.py"
        ]

    lint(capsys, ".")
    [old] = entries_of_bad()
    stale = json.loads(old.read_bytes())
    stale["diagnostics"] = []  # what the entry of an earlier state could say
    monkeypatch.setattr(cache_module, "index_key", lambda path, source: b"an import changed")
    monkeypatch.setattr(runner, "_caches", {})
    lint(capsys, ".")
    [new] = [entry for entry in entries_of_bad() if entry != old]
    new.write_text(json.dumps(stale))
    assert lint(capsys, ".") == (1, [("bad.py", "GL303")])
