"""The corpus of real bug reports (tests/corpus/real): headers, and each file in torch 2.13.

A buggy case must raise an exception whose message holds its `# expect:` text (a
`silent:` one runs to its end, where its own asserts show the effect); its fixed twin
and every look-alike run clean. Format: benchmarks/real_cases.py.

Running a file costs little CPU, but the whole corpus is slow on a loaded machine: by
default a fixed sample of BOUNDED_RUN files runs in torch, the others are marked `slow`
(`python -m pytest tests/test_real_reports.py -m "slow or not slow"` runs them all).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

import pytest

_MODULE = Path(__file__).resolve().parent.parent / "benchmarks" / "real_cases.py"
_spec = importlib.util.spec_from_file_location("real_cases", _MODULE)
real_cases = importlib.util.module_from_spec(_spec)
sys.modules["real_cases"] = real_cases  # dataclasses look their module up
_spec.loader.exec_module(real_cases)

CASES = real_cases.load_cases()
BY_PATH = {case.path: case for case in CASES}
BOUNDED_RUN = 40  # files run in torch by default, a sample spread by a hash of the name
_SAMPLE = {
    case.path for case in sorted(CASES, key=lambda c: zlib.crc32(c.name.encode()))[:BOUNDED_RUN]
}


def _ids(case) -> str:
    return case.name


_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
)


def _statement_lines(tree: ast.Module) -> set[int]:
    """Lines a finding may name: a simple statement's lines, a compound statement's first."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, _COMPOUND):
            lines.add(node.lineno)
        elif isinstance(node, ast.stmt):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def test_corpus_is_not_empty():
    kinds = Counter(case.kind for case in CASES)
    assert kinds["bug"] and kinds["fixed"] and kinds["lookalike"], kinds


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_header_and_structure(case):
    assert not case.errors, case.errors
    tree = ast.parse(case.path.read_text(encoding="utf-8"), str(case.path))
    if case.kind == "bug":
        statement_lines = _statement_lines(tree)
        for line in case.lines:
            assert line in statement_lines, f"line {line} of {case.name} is in no statement"
        assert case.twin.is_file(), f"{case.name} has no fixed twin {case.twin.name}"
        if case.silent:
            asserts = [node for node in ast.walk(tree) if isinstance(node, ast.Assert)]
            assert asserts, f"silent case {case.name} shows its effect with no assert"
    elif case.kind == "fixed":
        bug = case.path.with_name(case.path.stem.removesuffix(real_cases.FIXED_SUFFIX) + ".py")
        assert bug in BY_PATH, f"{case.name} is the twin of no case"
        assert case.source == BY_PATH[bug].source, "a twin cites the source of its bug"


def test_sources_are_distinct():
    cited = Counter(case.source for case in CASES if case.kind != "fixed")
    repeated = {url: count for url, count in cited.items() if count > 1}
    assert not repeated, repeated


@pytest.fixture(scope="module")
def torch_results(request):
    """How every selected case ends in torch, from one process that forks per case."""
    pytest.importorskip("torch")
    paths = [
        str(item.callspec.params["case"].path)
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_runs_as_stated"
    ]
    done = subprocess.run(
        [sys.executable, str(_MODULE), "run", *paths],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, id=case.name, marks=() if case.path in _SAMPLE else pytest.mark.slow)
        for case in CASES
    ],
)
def test_runs_as_stated(case, torch_results):
    result = torch_results[str(case.path)]
    if case.kind != "bug" or case.silent:
        assert result["status"] == "clean", f"{case.name} should run clean: {result}"
    else:
        assert result["status"] == "raised", f"{case.name} should raise: {result}"
        assert case.expect in result["message"], (
            f"{case.name}: {result['type']}: {result['message'][:500]!r} "
            f"does not contain {case.expect!r}"
        )
