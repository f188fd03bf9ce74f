"""GL401-GL404 on the shape corpus, proven in torch, and their witnesses."""

import re
from pathlib import Path

import pytest

from gradlint.catalogue import load_catalogue
from gradlint.config import Config
from gradlint.engine import lint_source
from tests.conftest import codes, lint

CORPUS = Path(__file__).parent / "corpus" / "shapes"
SNIPPETS = sorted(CORPUS.glob("*.py"))
OWN_CODES = ("GL301", "GL302", "GL401", "GL402", "GL403", "GL404")
_EXPECT = re.compile(r"#\s*expect:\s*(GL\d{3})")
_TORCH = re.compile(r"^# torch: (.+)$", re.M)


def _expected(source: str) -> list[tuple[int, str]]:
    return [
        (number, match.group(1))
        for number, line in enumerate(source.splitlines(), 1)
        if (match := _EXPECT.search(line))
    ]


def _own_findings(path: Path, source: str):
    config = Config(select=OWN_CODES)
    result = lint_source(str(path), source, config)
    assert not result.internal_errors, result.internal_errors
    return result.diagnostics


def test_corpus_is_large_and_balanced():
    buggy = [p for p in SNIPPETS if _expected(p.read_text())]
    assert len(SNIPPETS) >= 40
    assert 15 <= len(buggy) <= len(SNIPPETS) - 15


@pytest.mark.parametrize("path", SNIPPETS, ids=lambda p: p.stem)
def test_snippet_label_is_proven_by_torch(path):
    """A buggy snippet raises the error it names; a legal one runs clean."""
    source = path.read_text()
    wanted = _TORCH.search(source)
    assert bool(wanted) == bool(_expected(source)), "label needs both `# torch:` and `# expect:`"
    scope = {"__name__": "snippet"}
    if wanted is None:
        exec(compile(source, str(path), "exec"), scope)
        return
    with pytest.raises(RuntimeError, match=re.escape(wanted.group(1))):
        exec(compile(source, str(path), "exec"), scope)


@pytest.mark.parametrize("path", SNIPPETS, ids=lambda p: p.stem)
def test_snippet_is_linted_as_labelled(path):
    source = path.read_text()
    found = [(d.line, d.code) for d in _own_findings(path, source)]
    assert found == _expected(source)


def _sources_with_findings():
    for path in SNIPPETS:
        yield pytest.param(path.read_text(), id=path.stem)
    for code in OWN_CODES:
        for i, source in enumerate(load_catalogue()[code].bad_examples):
            yield pytest.param(source, id=f"{code}-bad{i}")


@pytest.mark.parametrize("source", list(_sources_with_findings()))
def test_witnesses_reproduce_in_torch(source):
    """Each finding's witness program raises the message the finding promises."""
    findings = _own_findings(Path("snippet.py"), source)
    for finding in findings:
        witness = finding.witness
        assert witness is not None or finding.code == "GL403", finding.message
        if witness is None:
            continue
        with pytest.raises(RuntimeError) as raised:
            exec(witness.program, {})
        assert str(raised.value).startswith(witness.expect), witness.program


def test_messages_name_the_inferred_shapes():
    source = (CORPUS / "seed001_reshape_mixes_batch.py").read_text()
    (finding,) = _own_findings(CORPUS / "x.py", source)
    assert "10 features" in finding.message and "expects 20" in finding.message
    source = (CORPUS / "mm_inner_mismatch.py").read_text()
    (finding,) = _own_findings(CORPUS / "x.py", source)
    assert "(10, 5) and (3, 5)" in finding.message


def test_gl401_fix_replaces_view_with_reshape():
    (finding,) = lint(
        """
        import torch
        y = torch.randn(3, 4).t().view(-1)
        """
    )
    assert finding.code == "GL401"
    (edit,) = finding.fix.edits
    assert finding.fix.is_safe
    assert (edit.line, edit.column, edit.end_line, edit.end_column) == (3, 27, 3, 31)
    assert edit.content == "reshape"


@pytest.mark.parametrize(
    "source",
    [
        # in-place / no_grad look-alikes are irrelevant to shapes; unknown inputs stay silent
        "def f(x):\n    return x.t().view(-1)\n",
        "def f(x):\n    return x.view(10, 3)\n",
        "def f(a, b):\n    return a @ b\n",
        # a size that may be 1 is not proven to conflict
        "import torch\ndef f(n):\n    return torch.randn(n, 3) + torch.randn(4, 3)\n",
        # view after contiguous / reshape after transpose
        "import torch\ny = torch.randn(3, 4).t().contiguous().view(-1)\n",
        "import torch\ny = torch.randn(3, 4).t().reshape(-1)\n",
        # a transposed dim of size 1 merges fine
        "import torch\ny = torch.randn(1, 4).t().view(-1)\n",
        # expand_as / elementwise keeps the batch-first layout of the first operand
        "import torch\na = torch.randn(4, 3)\nb = (a + a.t().t()).view(-1)\n",
        # a batch size from the input, not hard-coded
        "import torch.nn as nn\nclass M(nn.Module):\n    def forward(self, x):\n"
        "        b = x.size(0)\n        return x.view(b, -1)\n",
        # a leading 1 in forward is a single-sample reshape, not a batch size
        "import torch.nn as nn\nclass M(nn.Module):\n    def forward(self, x):\n"
        "        return x.view(1, -1)\n",
    ],
)
def test_legal_look_alikes_are_clean(source):
    assert [c for c in codes(source) if c in OWN_CODES] == []


def test_unknown_layer_sizes_never_fire():
    source = """
    import torch.nn as nn

    class M(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.fc = nn.Linear(config.hidden, 5)

        def forward(self, x):
            return self.fc(x.view(-1, 10))
    """
    assert [c for c in codes(source) if c in OWN_CODES] == []


def test_constructor_calls_that_disagree_leave_a_symbol():
    source = """
    import torch.nn as nn

    class M(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.fc = nn.Linear(n, 5)

        def forward(self, x):
            return self.fc(x.reshape(-1, 10))

    a, b = M(20), M(10)
    """
    assert [c for c in codes(source) if c in OWN_CODES] == []
