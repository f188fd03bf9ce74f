"""The real-code precision benchmark's verdict file (benchmarks/corpora_verdicts.toml)
and its matching logic, offline: the benchmark itself downloads and is run by hand."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_corpora():
    spec = importlib.util.spec_from_file_location("corpora", ROOT / "benchmarks" / "corpora.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpora"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


corpora = _load_corpora()


def test_every_verdict_has_a_known_verdict_and_a_reason():
    verdicts = corpora.load_verdicts()
    assert verdicts, "the verdict file judges no finding"
    for verdict in verdicts.values():
        assert verdict.verdict in ("real", "false", "debatable")
        assert len(verdict.reason.split()) >= 3, verdict
        assert verdict.code.startswith("GL"), verdict
        assert verdict.path.endswith(".py") and not verdict.path.startswith(("/", "./"))


def test_the_known_real_bugs_are_recorded_as_real():
    verdicts = corpora.load_verdicts()
    real = {(v.project, v.path) for v in verdicts.values() if v.verdict == "real"}
    assert ("x-transformers", "x_transformers/x_transformers.py") in real
    assert ("transformers", "transformers/models/git/modeling_git.py") in real


@pytest.mark.parametrize(
    "text, error",
    [
        (
            '[[finding]]\nproject = "timm"\npath = "a.py"\ncode = "GL104"\nanchor = "x"\n'
            'verdict = "false"\n',
            "lacks reason",
        ),
        (
            '[[finding]]\nproject = "timm"\npath = "a.py"\ncode = "GL104"\nanchor = "x"\n'
            'verdict = "maybe"\nreason = "r"\n',
            "not in",
        ),
        (
            '[[finding]]\nproject = "nope"\npath = "a.py"\ncode = "GL104"\nanchor = "x"\n'
            'verdict = "real"\nreason = "r"\n',
            "unknown project",
        ),
        (
            '[[finding]]\nproject = "timm"\npath = "a.py"\ncode = "GL104"\nanchor = "x"\n'
            'verdict = "real"\nreason = "r"\nline = 3\n',
            "unknown keys",
        ),
    ],
)
def test_malformed_entries_are_rejected(tmp_path, text, error):
    path = tmp_path / "verdicts.toml"
    path.write_text(text)
    with pytest.raises(corpora.VerdictFileError, match=error):
        corpora.load_verdicts(path)


def test_a_key_judged_twice_is_rejected(tmp_path):
    entry = (
        '[[finding]]\nproject = "timm"\npath = "a.py"\ncode = "GL104"\nanchor = "x"\n'
        'verdict = "real"\nreason = "r"\n'
    )
    path = tmp_path / "verdicts.toml"
    path.write_text(entry + entry)
    with pytest.raises(corpora.VerdictFileError, match="second time"):
        corpora.load_verdicts(path)


def test_findings_match_verdicts_by_anchor_not_line(tmp_path):
    tree = tmp_path / "timm-1"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "m.py").write_text("import torch\ndef f(x):\n\n    x.mul_(2)  \ny.add_(1)\n")
    real = corpora.Verdict("timm", "pkg/m.py", "GL104", "f", "x.mul_(2)", "real", "raises")
    false = corpora.Verdict("timm", "pkg/m.py", "GL104", "", "y.add_(1)", "false", "fresh tensor")
    gone = corpora.Verdict("timm", "pkg/m.py", "GL105", "", "z", "debatable", "unused")
    lost = corpora.Verdict("timm", "pkg/m.py", "GL101", "", "w", "real", "raises")
    other = corpora.Verdict("lightning", "q.py", "GL101", "", "w", "real", "not linted")
    verdicts = {v.key: v for v in (real, false, gone, lost, other)}
    items = [
        {"path": "pkg/m.py", "line": 4, "column": 5, "code": "GL104", "message": "m"},
        {"path": "./pkg/m.py", "line": 5, "column": 1, "code": "GL104", "message": "m"},
        {
            "path": str(tree / "pkg" / "m.py"),
            "line": 1,
            "column": 1,
            "code": "GL503",
            "message": "m",
        },
    ]
    findings = [corpora._finding("timm", tree, item) for item in items]
    assert [f.anchor for f in findings] == ["x.mul_(2)", "y.add_(1)", "import torch"]
    comparison = corpora.compare(findings, verdicts, {"timm"})
    assert [(f.line, v.verdict) for f, v in comparison.judged] == [(4, "real"), (5, "false")]
    assert [f.code for f in comparison.unreviewed] == ["GL503"]
    assert comparison.lost == [lost]
    assert comparison.gone == [gone]
    assert [v for _, v in comparison.false_findings] == [false]
    line = corpora.summary_line(comparison, 3, 5, ["timm"])
    assert line == "3 findings on 5 lines of timm: 1 real, 1 false, 0 debatable, 1 unreviewed"
    # The stub of an unreviewed finding is a valid entry once its verdict is filled in.
    text = corpora.stub(comparison.unreviewed[0]).replace('verdict = ""', 'verdict = "real"')
    path = tmp_path / "v.toml"
    path.write_text(text.replace('reason = ""', 'reason = "checked in torch"'))
    assert list(corpora.load_verdicts(path)) == [("timm", "pkg/m.py", "GL503", "", "import torch")]


def test_unpack_keeps_only_python_sources_inside_the_tree(tmp_path):
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pkg/__init__.py", "import torch\n")
        archive.writestr("pkg/_C.so", b"\x7fELF")
        archive.writestr("../escape.py", "x = 1\n")
        archive.writestr("pkg-1.0.dist-info/METADATA", "Name: pkg\n")
    tree = tmp_path / "src" / "pkg-1.0"
    corpora.unpack(wheel, tree)
    files = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file())
    assert files == [".complete", "pkg/__init__.py"]
    assert not (tmp_path / "src" / "escape.py").exists()
    assert corpora.count_lines(tree) == (1, 1)
    assert corpora.count_lines(tree, ["pkg/__init__.py"]) == (1, 1)


def test_scope_tells_identical_lines_apart():
    source = (
        "import torch\n"
        "class Router(torch.nn.Module):\n"
        "    def forward(self, h):\n"
        "        h *= 2\n"
        "        return h\n"
        "\n"
        "class Block(torch.nn.Module):\n"
        "    @torch.no_grad()\n"
        "    def forward(self, h):\n"
        "        def inner(h):\n"
        "            h *= 2\n"
        "        h *= 2\n"
    )
    scopes = [corpora.enclosing_scope(source, line) for line in (1, 4, 8, 9, 11, 12)]
    assert scopes == [
        "",
        "Router.forward",
        "Block",
        "Block.forward",
        "Block.forward.inner",
        "Block.forward",
    ]
    assert corpora.enclosing_scope("def (:\n", 1) == ""


def test_a_research_repository_is_unpacked_from_its_git_snapshot(tmp_path):
    source = tmp_path / "work"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "train.py").write_text("import torch\n")
    (source / "README.md").write_text("not python\n")
    git = ["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    mirrors = tmp_path / "mirrors"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(source), str(mirrors / "owner+repo" / "repo")],
        check=True,
    )
    project = corpora.Project("research", f"git:owner/repo@{commit}")
    tree, note = corpora.fetch(project, tmp_path / "cache", offline=True, git_mirrors=mirrors)
    assert note == "unpacked from git"
    files = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file())
    assert files == [".complete", "pkg/train.py"]
    assert tree.name == f"research-{commit[:12]}"
    missing = corpora.Project("absent", f"git:owner/absent@{commit}")
    assert corpora.fetch(missing, tmp_path / "cache", True, mirrors)[0] is None
