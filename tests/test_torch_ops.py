"""Every entry of the GL1xx tables in gradlint/analysis/torch_ops.py, run in real torch
(the generated ones too: what autograd saves, in-place functions), and the long-tail ops
the hand tables missed, linted and run.

All entries run in one subprocess-free batch per table: each case is a tiny program
that must raise (or, for the safe list, must not raise) the expected autograd error.
"""

import inspect
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from gradlint.analysis import knowledge  # noqa: E402
from gradlint.analysis import torch_ops as ops  # noqa: E402

LEAF = "a leaf Variable that requires grad is being used in an in-place operation"
SAVED = "one of the variables needed for gradient computation has been modified"


def _error(program: str) -> str | None:
    """The message of the exception `program` raises, or None."""
    try:
        exec(program, {"torch": torch, "x": torch.randn(4, 4)})
    except Exception as error:  # noqa: BLE001 - any failure is reported back
        return str(error)
    return None


def _assert_all(cases: dict[str, str], expected: str) -> None:
    failures = {name: _error(p) for name, p in cases.items()}
    wrong = {name: message for name, message in failures.items() if expected not in (message or "")}
    assert not wrong, wrong


def test_inplace_tensor_methods_write_into_a_leaf():
    cases = {
        name: f"torch.nn.Parameter(torch.randn(4, 4)).{name}{sample}"
        for name, sample in ops.INPLACE_TENSOR_METHODS.items()
    }
    _assert_all(cases, LEAF)


def test_inplace_functions_write_into_their_first_argument():
    cases = {
        name: f"{name}(torch.nn.Parameter(torch.randn(4, 4)){sample})"
        for name, sample in ops.INPLACE_FUNCTIONS.items()
    }
    _assert_all(cases, LEAF)


def test_inplace_flag_functions_write_when_the_flag_is_set():
    """Every function the generated data gives an `inplace` flag (F.dropout, F.relu, ...)
    writes into its argument with the flag set where the data says it is."""
    cases = {}
    flagged = [n for n in knowledge.names("inplace_arg") if knowledge.op(n).name == n]
    assert {"torch.nn.functional.dropout", "torch.nn.functional.alpha_dropout"} <= set(flagged)
    for name in flagged:
        index, keyword = knowledge.op(name).inplace_arg
        parameters = list(inspect.signature(eval(name, {"torch": torch})).parameters.values())
        assert parameters[index].name == keyword == "inplace", name
        required = "".join(
            ", 0.1" for p in parameters[1:index] if p.default is inspect.Parameter.empty
        )
        training = ", training=True" if "training" in (p.name for p in parameters) else ""
        shape = {"1d": "(1, 4, 4)", "2d": "(1, 4, 4, 4)", "3d": "(1, 1, 4, 4, 4)"}.get(
            name[-2:], "(4, 4)"
        )
        leaf = f"torch.nn.Parameter(torch.randn{shape})"
        cases[name] = f"{name}({leaf}{required}, inplace=True{training})"
    _assert_all(cases, LEAF)


def test_inplace_flag_layers_write_into_their_input():
    """Every layer the generated data gives an `inplace` constructor flag, built with it
    set (by position), writes into its input."""
    cases = {}
    for name in _layers():
        facts = knowledge.layer(name)
        if facts.inplace_arg is None:
            continue
        index, keyword = facts.inplace_arg
        init = inspect.signature(eval(name, {"torch": torch}).__init__).parameters
        before = list(init.values())[1 : index + 2]  # after self, up to the flag
        assert before[-1].name == keyword == "inplace", name
        args = ", ".join(
            "0.5" if p.name == "p" or p.default is inspect.Parameter.empty else repr(p.default)
            for p in before[:-1]
        )
        layer = f"{name}({args}{', ' if args else ''}True)"
        assert eval(layer, {"torch": torch}).inplace is True, layer
        shape = {"1d": "(1, 4, 4)", "2d": "(1, 4, 4, 4)", "3d": "(1, 1, 4, 4, 4)"}.get(
            name[-2:], "(4, 4)"
        )
        cases[name] = f"{layer}(torch.nn.Parameter(torch.randn{shape}))"
    assert len(cases) >= 15
    _assert_all(cases, LEAF)


def _layers() -> list[str]:
    data = Path(knowledge.__file__).with_name(knowledge.DATA_FILE).read_text("utf-8")
    return sorted(json.loads(data)["layers"])


def test_saves_output_ops_need_their_result():
    cases = {
        name: f"h = torch.randn(4, 4, requires_grad=True)\nt = {name}(h{sample})\n"
        "t.mul_(2)\nt.sum().backward()"
        for name, sample in ops.SAVES_OUTPUT_FUNCTIONS.items()
    }
    cases |= {
        f"Tensor.{name}": f"h = torch.randn(4, 4, requires_grad=True)\nt = h.{name}{sample}\n"
        "t.mul_(2)\nt.sum().backward()"
        for name, sample in ops.SAVES_OUTPUT_METHODS.items()
    }
    _assert_all(cases, SAVED)


def test_saves_input_ops_need_their_input():
    cases = {
        name: f"t = torch.randn(4, 4, requires_grad=True) * 1\nout = {name}(t{sample})\n"
        "t.mul_(2)\nout.sum().backward()"
        for name, sample in ops.SAVES_INPUT_FUNCTIONS.items()
    }
    cases |= {
        f"Tensor.{name}": f"t = torch.randn(4, 4, requires_grad=True) * 1\n"
        f"out = t.{name}{sample}\nt.mul_(2)\nout.sum().backward()"
        for name, sample in ops.SAVES_INPUT_METHODS.items()
    }
    _assert_all(cases, SAVED)


def test_factories_make_leaves_that_require_grad_on_request():
    for name in ops.TENSOR_FACTORIES:
        args = "(torch.randn(4, 4))" if name.endswith("_like") else "(4)"
        if name in ("torch.tensor", "torch.full"):
            args = "([1.0])" if name == "torch.tensor" else "((4,), 1.0)"
        if name == "torch.full_like":
            args = "(torch.randn(4), 1.0)"
        if name in ("torch.arange", "torch.linspace"):
            args = "(0.0, 4.0, 1.0)" if name == "torch.arange" else "(0.0, 1.0, 4)"
        tensor = eval(f"{name}{args[:-1]}, requires_grad=True)", {"torch": torch})
        assert tensor.is_leaf and tensor.requires_grad, name


# Results autograd saves nothing of: `y = x * 2; y[y > 0] = 0` is legal (torch runs the
# backward), and gradlint stays silent. Expressions over `x` (computed from a leaf).
SAVES_NOTHING = (
    "x + 1",
    "x - x",
    "x * 2",
    "x / 2",
    "x.view(16)",
    "x.reshape(2, 8)",
    "x.clone()",
    "-x",
    "torch.cat([x, x])",
    "x.sum(0)",
    "torch.nn.functional.dropout(x, 0.5)",
    "torch.nn.Linear(4, 4)(x)",
    "torch.nn.Conv1d(4, 4, 1)(x.unsqueeze(0))",
    "torch.nn.BatchNorm1d(4)(x)",
)


@pytest.mark.parametrize("expression", SAVES_NOTHING)
def test_results_nothing_saved_may_be_edited(expression):
    from gradlint.engine import lint_source

    program = (
        f"x = torch.randn(4, 4, requires_grad=True) * 1\ny = {expression}\ny[y > 0] = 0\n"
        "y.sum().backward()\n"
    )
    assert _error(program) is None
    assert lint_source("m.py", "import torch\n\n" + program).diagnostics == []


# -- long-tail ops the hand tables missed, now known from the generated data ------------

LONG_TAIL_CASES = {
    # torch.cumprod saves its output: stick-breaking weights edited in place
    "cumprod": """
    def forward(self, x):
        v = torch.sigmoid(self.fc(x))
        remaining = torch.cumprod(1 - v, dim=-1)
        remaining.mul_(0.5)  # backward raises
        return v * remaining
""",
    # torch.logsumexp saves its output: a log-normaliser shifted in place
    "logsumexp": """
    def forward(self, x):
        lse = torch.logsumexp(self.fc(x), dim=-1)
        lse -= 2.0  # backward raises
        return lse
""",
    # Tensor.norm saves its output: the norm clamped in place before dividing
    "Tensor.norm": """
    def forward(self, x):
        v = self.fc(x)
        n = v.norm(dim=-1, keepdim=True)
        n.clamp_(min=1e-6)  # backward raises
        return v / n
""",
    # F.softmin saves its output: attention weights masked in place
    "softmin": """
    def forward(self, x):
        d = self.fc(x)
        w = F.softmin(d, dim=-1)
        w.masked_fill_(d > 1.0, 0.0)  # backward raises
        return w
""",
    # torch.atan saves its input: the angle's source rescaled in place
    "atan": """
    def forward(self, x):
        h = self.fc(x)
        a = torch.atan(h)
        h.mul_(2)  # backward raises
        return a + h
""",
}

MODULE = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Case(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
"""


@pytest.mark.parametrize("name", sorted(LONG_TAIL_CASES))
def test_long_tail_ops_flagged_and_raising_in_torch(name):
    from gradlint.engine import lint_source

    source = MODULE + LONG_TAIL_CASES[name]
    findings = lint_source("case.py", source).diagnostics
    edit = next(n for n, line in enumerate(source.splitlines(), 1) if "backward raises" in line)
    assert [(d.line, d.code) for d in findings] == [(edit, "GL103")], findings
    program = f"{source}\nCase()(torch.randn(3, 4)).sum().backward()\n"
    assert SAVED in (_error(program) or ""), name


def test_saving_tables_come_from_the_generated_data():
    from gradlint.analysis import knowledge

    assert len(ops.SAVES_OUTPUT_FUNCTIONS) > 40 and len(ops.SAVES_INPUT_FUNCTIONS) > 100
    for name, call in ops.SAVES_OUTPUT_FUNCTIONS.items():
        facts = knowledge.op(name)
        assert facts is not None and facts.output_saved({0}) and facts.call == call, name
