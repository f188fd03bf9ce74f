"""Work the interpreter does once. Function summaries (analysis/dataflow/summaries.py): a
function's run reused where a caller would run it alike inline changes no finding, and is
not reused once an instance it may read has changed. A class's `__init__` runs once for
its own analysis and for the instance its other methods are analysed on."""

from pathlib import Path

import libcst as cst
import pytest

from gradlint.analysis.dataflow import interpreter
from gradlint.config import Config
from gradlint.engine import lint_source
from gradlint.filecontext import FileContext

CORPUS = Path(__file__).parent / "corpus"


@pytest.fixture
def reuses(monkeypatch) -> list[str]:
    """The names of the functions whose summary each reuse took."""
    taken: list[str] = []
    original = interpreter.Interpreter._reuse

    def counting(self, summary, *rest):
        taken.append(summary.node.name.value)
        return original(self, summary, *rest)

    monkeypatch.setattr(interpreter.Interpreter, "_reuse", counting)
    return taken


def _facts(source: str):
    module = cst.parse_module(source)
    return FileContext("m.py", module, Config()).dataflow


def _findings(paths: list[Path]) -> dict[Path, list[tuple]]:
    found = {}
    for path in paths:
        result = lint_source(str(path), path.read_bytes())
        found[path] = sorted((d.code, d.line, d.column, d.message) for d in result.diagnostics)
    return found


def test_reusing_summaries_changes_no_finding_of_the_corpus(reuses, monkeypatch):
    """Linted again without summaries, every corpus file where one was reused gives the
    same findings. (A file with no reuse is analysed alike either way: every lookup there
    found no summary, calls.py reuses whatever one finds.)"""
    with_summaries, reused = {}, []
    for path in sorted(CORPUS.rglob("*.py")):
        before = len(reuses)
        with_summaries.update(_findings([path]))
        if len(reuses) > before:
            reused.append(path)
    assert len(reuses) >= 20 and len(reused) >= 10  # callers that run helpers alike
    monkeypatch.setattr(interpreter.Interpreter, "_summary_for", lambda self, *args: None)
    assert _findings(reused) == {path: with_summaries[path] for path in reused}


NET = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
"""  # the module class each case adds its methods to

HELPER = (
    NET
    + """
    def layer(self):
        return self.fc

    def other(self):
        {change}
        return self.layer()
"""
)


def test_a_summary_is_reused_while_the_instance_is_unchanged(reuses):
    _facts(HELPER.format(change="fc = nn.Linear(3, 3)"))
    assert reuses == ["layer"]


def test_a_summary_is_not_reused_once_the_instance_changed(reuses):
    _facts(HELPER.format(change="self.fc = nn.Linear(3, 3)"))
    assert reuses == []


EDITING_HELPER = (
    NET
    + """
    def bump(self):
        self.fc.weight.add_(1.0)

    def first(self):
        self.bump()

    def second(self):
        self.bump()
"""
)


def test_a_reused_run_places_its_edits_in_the_callers_run(reuses, monkeypatch):
    def runs(facts) -> set[str]:
        return {edit.body.standalone.name.value for edit in facts.edits}

    reused = runs(_facts(EDITING_HELPER))
    assert reuses == ["bump", "bump"]
    monkeypatch.setattr(interpreter.Interpreter, "_summary_for", lambda self, *args: None)
    assert reused == runs(_facts(EDITING_HELPER)) == {"bump", "first", "second"}


APPLYING = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])

    def _named(self, prefix=""):
        for name, block in self._modules.items():
            if block is not None:
                yield prefix + name, block

    def _apply(self, fn):
        for _, block in self._named():
            block._apply(fn)
        for key, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[key] = fn(buffer)
        return self
"""


def test_a_helper_many_methods_run_alike_is_analysed_once(monkeypatch):
    """nn.Module's pattern: `cuda()`, `cpu()`, `half()`, ... each `return
    self._apply(...)`: the helper's run is reused, not analysed again in every method."""
    methods = "".join(
        f"\n    def to_{k}(self):\n        return self._apply(lambda t: t)\n" for k in range(12)
    )
    counted = []
    original = interpreter.Interpreter.eval

    def counting(self, expr, state, frame):
        counted.append(expr)
        return original(self, expr, state, frame)

    monkeypatch.setattr(interpreter.Interpreter, "eval", counting)
    assert not lint_source("m.py", APPLYING + methods).internal_errors
    reusing = len(counted)
    counted.clear()
    monkeypatch.setattr(interpreter.Interpreter, "_summary_for", lambda self, *args: None)
    assert not lint_source("m.py", APPLYING + methods).internal_errors
    assert 0 < 2 * reusing < len(counted)


CLEARING = (
    NET
    + """
    def drop_grads(self):
        for p in self.parameters():
            p.grad = None

    def first(self):
        self.drop_grads()

    def second(self, flag):
        if flag:
            self.drop_grads()
"""
)


def test_a_reused_run_traces_its_training_events_in_the_callers_run(reuses, monkeypatch):
    def traced(facts) -> list[tuple]:
        events = sorted(facts.training, key=lambda event: event.time)
        return [(e.kind, e.run, [(p.kind, type(p.node).__name__) for p in e.path]) for e in events]

    reused = traced(_facts(CLEARING))
    assert reuses == ["drop_grads", "drop_grads"]
    monkeypatch.setattr(interpreter.Interpreter, "_summary_for", lambda self, *args: None)
    assert reused == traced(_facts(CLEARING))
    assert len({run for _, run, _ in reused}) == 3  # drop_grads, first, second


def test_no_summary_is_reused_once_the_module_body_may_have_rebound_globals(reuses):
    _facts(
        "import torch.nn as nn\n"
        "layer = nn.Linear(2, 2)\n"
        "def current():\n"
        "    return layer\n"
        "first = current()\n"
        "layer = nn.Linear(3, 3)\n"
        "second = [current(), current()]\n"
    )
    assert reuses == ["current"]  # within one statement of the module body only


INIT = """
    def __init__(self, width, bias=False):
        super().__init__()
        self.fc = nn.Linear(width, width, bias=bias)
"""
FORWARD = """
    def forward(self, x):
        self.fc.weight.add_(1.0)
        return self.fc(x)
"""
HEAD = "import torch.nn as nn\n\n\nclass Net(nn.Module):"


@pytest.mark.parametrize("source", [HEAD + INIT + FORWARD, HEAD + FORWARD + INIT])
def test_a_class_init_runs_once_for_itself_and_its_methods_instance(source, monkeypatch):
    """`__init__` analysed on its own builds the instance the class's other methods are
    analysed on (before them, wherever it is written): its body is interpreted once, and
    the methods see what it stored."""
    built: list[str] = []
    original = interpreter.Interpreter.torch_layer

    def counting(self, qualified, *rest):
        built.append(qualified)
        return original(self, qualified, *rest)

    monkeypatch.setattr(interpreter.Interpreter, "torch_layer", counting)
    findings = lint_source("m.py", source).diagnostics
    assert built == ["torch.nn.Linear"]
    edit = source[: source.index("self.fc.weight.add_")].count("\n") + 1
    assert [(d.code, d.line) for d in findings] == [("GL101", edit)]
