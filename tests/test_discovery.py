import os
from pathlib import Path

import pathspec
import pytest

from gradlint.config import Config
from gradlint.discovery import discover
from gradlint.patterns import PlainNames, glob_matches, pattern_spec


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _found(root: Path, paths=None, **settings) -> list[str]:
    config = Config(root=root, **settings)
    found = discover([str(p) for p in (paths or [root])], config).files
    return [Path(f).relative_to(root).as_posix() for f in found]


def test_walks_python_files_and_skips_hidden_virtualenvs_and_default_excludes(tmp_path):
    _tree(
        tmp_path,
        {
            "b.py": "",
            "a.py": "",
            "notes.txt": "",
            "pkg/mod.py": "",
            ".hidden/x.py": "",
            ".venv/lib/x.py": "",
            "env/pyvenv.cfg": "",
            "env/lib/x.py": "",
            "venv/x.py": "",
            "build/x.py": "",
            "dist/x.py": "",
            "node_modules/x.py": "",
            "pkg/__pycache__/x.py": "",
            "lib/site-packages/x.py": "",
            ".dot.py": "",
        },
    )
    assert _found(tmp_path) == ["a.py", "b.py", "pkg/mod.py"]


def test_gitignore_nested_and_negated(tmp_path):
    _tree(
        tmp_path,
        {
            ".gitignore": "gen_*.py\nout/\n",
            "gen_a.py": "",
            "keep.py": "",
            "out/x.py": "",
            "sub/.gitignore": "!gen_keep.py\nlocal.py\n",
            "sub/gen_keep.py": "",
            "sub/gen_b.py": "",
            "sub/local.py": "",
            "other/local.py": "",
        },
    )
    assert _found(tmp_path) == ["keep.py", "other/local.py", "sub/gen_keep.py"]


def test_gitignore_of_parent_directories_up_to_the_repository_root(tmp_path):
    _tree(tmp_path, {".git/HEAD": "", ".gitignore": "skipped.py\n", "src/skipped.py": ""})
    _tree(tmp_path, {"src/kept.py": ""})
    assert _found(tmp_path, [tmp_path / "src"]) == ["src/kept.py"]


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(tmp_path):
    _tree(tmp_path, {"build/x.py": "", "gen/y.py": "", "pkg/gen/z.py": "", "a_pb2.py": ""})
    assert _found(tmp_path, exclude=("gen",)) == ["a_pb2.py", "build/x.py"]
    assert _found(tmp_path, extend_exclude=("*_pb2.py", "pkg/gen")) == ["gen/y.py"]


def test_anchored_exclude_is_relative_to_the_project_root(tmp_path):
    _tree(tmp_path, {"gen/y.py": "", "pkg/gen/z.py": ""})
    assert _found(tmp_path, extend_exclude=("/gen",)) == ["pkg/gen/z.py"]


def test_explicit_arguments_are_always_linted(tmp_path):
    _tree(
        tmp_path,
        {".gitignore": "ignored.py\nout/\n", "ignored.py": "", "build/x.py": "", "out/y.py": ""},
    )
    explicit = [tmp_path / "ignored.py", tmp_path / "build", tmp_path / "out"]
    assert _found(tmp_path, explicit) == ["ignored.py", "build/x.py", "out/y.py"]


def test_missing_paths_are_reported_apart(tmp_path):
    found = discover([str(tmp_path / "missing.py")], Config(root=tmp_path))
    assert (found.files, found.missing) == ([], [str(tmp_path / "missing.py")])


def test_notebooks_are_walked_and_their_checkpoints_skipped(tmp_path):
    _tree(tmp_path, {"a.ipynb": "{}", ".ipynb_checkpoints/a-checkpoint.ipynb": "{}", "b.txt": ""})
    assert _found(tmp_path) == ["a.ipynb"]


def test_force_exclude_applies_exclude_to_named_paths_and_their_parents(tmp_path):
    _tree(tmp_path, {"gen/deep/x.py": "", "src/y.py": "", "src/y_pb2.py": "", "third/z.py": ""})
    named = [
        tmp_path / "gen/deep/x.py",
        tmp_path / "src/y.py",
        tmp_path / "src/y_pb2.py",
        tmp_path / "third",
    ]
    excludes = dict(exclude=("gen",), extend_exclude=("*_pb2.py", "/third"))
    assert _found(tmp_path, named, **excludes) == [
        "gen/deep/x.py",
        "src/y.py",
        "src/y_pb2.py",
        "third/z.py",
    ]
    assert _found(tmp_path, named, force_exclude=True, **excludes) == ["src/y.py"]


def test_stdin_and_duplicates(tmp_path):
    _tree(tmp_path, {"a.py": ""})
    a = str(tmp_path / "a.py")
    assert discover([a, "-", a, str(tmp_path)], Config(root=tmp_path)).files == [a, "-"]


def test_default_path_is_the_current_directory(tmp_path, monkeypatch):
    _tree(tmp_path, {"a.py": "", "pkg/b.py": ""})
    monkeypatch.chdir(tmp_path)
    assert discover([], Config(root=tmp_path)).files == ["a.py", os.path.join("pkg", "b.py")]


def test_glob_semantics_of_per_file_patterns():
    assert glob_matches("test_*.py", "tests/unit/test_model.py")
    assert glob_matches("tests/", "tests/unit/test_model.py")
    assert glob_matches("scripts/*.py", "scripts/train.py")
    assert not glob_matches("scripts/*.py", "pkg/scripts/train.py")


def test_unreadable_directory_is_reported_and_the_walk_goes_on(tmp_path, monkeypatch):
    _tree(tmp_path, {"locked/x.py": "", "open/y.py": ""})
    real_scandir = os.scandir

    def scandir(path):
        if os.path.basename(path) == "locked":  # chmod 000 does not stop root: simulate it
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = discover([str(tmp_path)], Config(root=tmp_path))
    assert found.files == [str(tmp_path / "open" / "y.py")]
    assert found.unreadable == [(str(tmp_path / "locked"), "Permission denied")]


_NAMES = [("venv", "__pycache__", "build", "dist"), ("build/",), ("a.py",), ("x", "y/"), ()]
_PATHS = ["build", "build/", "a/build", "a/build/", "a/build/x.py", "build/x.py", "venv/l/a.py"]
_PATHS += ["src/a.py", "a.py", "b/a.py", "a.py/", "x", "x/", "y", "y/", "q/y/z.py", "q/y", ""]


@pytest.mark.parametrize("patterns", _NAMES)
def test_plain_names_match_as_gitignore_does(patterns):
    """The default exclude list is matched without pathspec: the same answers."""
    spec, plain = pathspec.GitIgnoreSpec.from_lines(patterns), pattern_spec(patterns)
    assert isinstance(plain, PlainNames)
    assert [plain.match_file(p) for p in _PATHS] == [spec.match_file(p) for p in _PATHS]


def test_patterns_beyond_plain_names_go_to_pathspec():
    assert not isinstance(pattern_spec(("*.py",)), PlainNames)
    assert not isinstance(pattern_spec(("!keep",)), PlainNames)
    assert not isinstance(pattern_spec(("src/gen",)), PlainNames)


LEAF_EDIT = b"w = torch.ones(3, requires_grad=True)\nw += 1\n"


def test_which_files_are_parsed_matches_readme_on_binary_and_odd_files(tmp_path):
    """README's "Which files are linted": an import statement naming a torch package (at
    a line's start, after `;` or `:`, across backslash continuations, after a lone `\\r`)
    gets the file parsed, and so do the bytes `torch` in what is not Python text (NUL,
    undecodable bytes, a `.pyc` renamed `.py`): Python's verdict is GL001. Mentions in
    comments and strings, and binary files without `torch`, are not parsed."""
    import py_compile
    import subprocess
    import sys

    source = tmp_path / "source.py"
    source.write_bytes(b"import torch\n" + LEAF_EDIT)
    py_compile.compile(str(source), cfile=str(tmp_path / "pyc_renamed.py"), doraise=True)
    source.unlink()
    files = {
        "try_import.py": b"try: import torch\nexcept ImportError: pass\n" + LEAF_EDIT,
        "continued.py": b"import os, \\\n    torch\n" + LEAF_EDIT,
        "from_continued.py": b"from \\\n  torch import ones\nimport torch\n" + LEAF_EDIT,
        "carriage_returns.py": (b"import os\nimport torch\n" + LEAF_EDIT).replace(b"\n", b"\r"),
        "latin1.py": b"# -*- coding: latin-1 -*-\nx = '\xe9'\nimport torch\n" + LEAF_EDIT,
        "nul_before.py": b"x = 1 \x00 import torch\n" + LEAF_EDIT,
        "undecodable.py": b"x = '\x80'  # torch\n",
        "comment_only.py": b"# import torch\nx = 'torch'\ndef f(:\n",
        "binary_without.py": bytes(range(256)).replace(b"torch", b""),
        "docstring_only.py": b'"""Uses is_torch_available()."""\ndef f(:\n',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-m", "gradlint", "--select", "GL001,GL101", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    found = {line.split(":")[0]: line.split(" ")[1] for line in done.stdout.splitlines()}
    assert found == {
        "carriage_returns.py": "GL101",
        "continued.py": "GL101",
        "from_continued.py": "GL101",
        "latin1.py": "GL101",
        "nul_before.py": "GL001",
        "pyc_renamed.py": "GL001",
        "try_import.py": "GL101",
        "undecodable.py": "GL001",
    }, done.stdout + done.stderr
