"""A project file linted after files linked with its definitions reuses their trees
(engine._parse_reusing_pieces): the module it builds is the one a parse of the whole file
gives, so its findings are the same."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from gradlint import engine, project
from gradlint.engine import lint_source

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fresh_pieces():
    """No definition parsed for another file, before and after each test."""

    def clear() -> None:
        engine._piece_module.cache_clear()
        engine._piece.cache_clear()
        engine._piece_scan.cache_clear()
        engine._PIECE_TEXTS.clear()
        engine._LINKED_FROM.clear()

    clear()
    yield
    clear()


def _linked_with_every_definition(path: Path) -> bytes:
    """What linking files importing each of the file's definitions leaves behind."""
    source = path.read_bytes()
    found = project.definitions(str(path), source.decode("utf-8"))
    assert found is not None
    lines, spans = found
    for start, end in spans:
        engine._piece_module("".join(line + "\n" for line in lines[start - 1 : end]))
    engine._LINKED_FROM.add(str(path))
    return source


def test_the_reused_tree_is_the_whole_file_s_on_real_code():
    files = sorted((ROOT / "gradlint").rglob("*.py"))[::4]  # real code, a spread of it
    reused = 0
    for path in files:
        source = _linked_with_every_definition(path)
        module = engine._parse_reusing_pieces(str(path), source, None)
        if module is not None:
            reused += 1
            whole = cst.parse_module(source)
            assert module.deep_equals(whole), path
            assert module.code == whole.code, path
        engine._PIECE_TEXTS.clear()
        engine._piece_module.cache_clear()
    assert reused > 0.9 * len(files)


MODEL = """\
    import torch
    import torch.nn as nn
    from layers import Scale


    # a scale learnt per channel
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(3))

        def forward(self, x):
            self.scale.mul_(2)
            return torch.sigmoid(x * self.scale)
            # the block's own comment, below its last line


    def helper(x):
        return Scale()(x).view(-1)
    def build():
        return Net()
"""

LAYERS = """\
    import torch.nn as nn


    class Scale(nn.Module):
        def forward(self, x):
            return x * 2
"""

TRAIN = """\
    import torch
    from model import Net, build, helper

    net = build()
    y = helper(net(torch.randn(3)))
"""


def _found(path: Path) -> list[tuple[str, int, int, str]]:
    result = lint_source(str(path), path.read_bytes())
    assert not result.internal_errors, result.internal_errors
    return [(d.code, d.line, d.column, d.message) for d in result.diagnostics]


def test_a_module_linted_after_its_importer_has_the_findings_it_has_alone(tmp_path):
    """model.py, linked itself (with layers.py's Scale), reuses what train.py's link with
    its Net, helper and build parsed."""
    for name, text in (("model.py", MODEL), ("train.py", TRAIN), ("layers.py", LAYERS)):
        (tmp_path / name).write_text(textwrap.dedent(text))
    model = tmp_path / "model.py"
    alone = _found(model)
    assert alone  # the in-place edit of the parameter
    _found(tmp_path / "train.py")
    assert str(model) in engine._LINKED_FROM
    link = project.linked(str(model), model.read_bytes())
    reused = engine._parse_reusing_pieces(str(model), link.source, model.read_bytes())
    assert reused is not None and reused.deep_equals(cst.parse_module(link.source))
    assert _found(model) == alone


def test_a_definition_whose_block_owns_the_lines_after_it_is_not_cut_out():
    lines = ["def f():", "    return 1", "    # its block's", "", "x = 1"]
    assert not engine._cut_after(lines, 2)
    assert engine._cut_after(lines[:2] + ["", "# the next statement's", "x = 1"], 2)
    assert not engine._cut_after(lines[:2] + ["# a section", "    ", "x = 1"], 2)
