"""Every entry of the GL1xx tables in gradlint/analysis/torch_ops.py, run in real torch
(the generated ones too: what autograd saves, in-place functions), and the long-tail ops
the hand tables missed, linted and run.

All entries run in one subprocess-free batch per table: each case is a tiny program
that must raise (or, for the safe list, must not raise) the expected autograd error.
"""

import inspect

import pytest

torch = pytest.importorskip("torch")

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


def test_excluded_methods_are_not_inplace_writes():
    for name in ops.NOT_INPLACE_METHODS:
        assert _error(f"torch.nn.Parameter(torch.randn(4, 4)).{name}()") is None, name


def test_inplace_functions_write_into_their_first_argument():
    cases = {
        name: f"{name}(torch.nn.Parameter(torch.randn(4, 4)){sample})"
        for name, sample in ops.INPLACE_FUNCTIONS.items()
    }
    _assert_all(cases, LEAF)


def test_inplace_flag_functions_write_when_the_flag_is_set():
    cases = {}
    for name, index in ops.INPLACE_FLAG_FUNCTIONS.items():
        parameters = list(inspect.signature(eval(name, {"torch": torch})).parameters.values())
        assert [p.name for p in parameters].index("inplace") == index, name
        required = "".join(
            ", 0.1" for p in parameters[1:index] if p.default is inspect.Parameter.empty
        )
        shape = "(1, 4, 4, 4)" if name.endswith("dropout2d") else "(4, 4)"
        leaf = f"torch.nn.Parameter(torch.randn{shape})"
        cases[name] = f"{name}({leaf}{required}, inplace=True)"
    _assert_all(cases, LEAF)


def test_inplace_flag_modules_write_into_their_input():
    cases = {}
    for name, (index, sample) in ops.INPLACE_FLAG_MODULES.items():
        layer = eval(f"{name}{sample}", {"torch": torch})
        assert layer.inplace is True, name
        signature_index = list(_init_parameters(name)).index("inplace")
        assert signature_index == index, (name, signature_index)
        shape = "(1, 4, 4, 4)" if name.endswith("Dropout2d") else "(4, 4)"
        cases[name] = f"{name}{sample}(torch.nn.Parameter(torch.randn{shape}))"
    _assert_all(cases, LEAF)


def _init_parameters(name: str):
    cls = eval(name, {"torch": torch})
    return list(inspect.signature(cls.__init__).parameters)[1:]


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
    cases |= {
        name: f"h = torch.randn(4, 4, requires_grad=True)\nt = {name}{sample}(h)\n"
        "t.mul_(2)\nt.sum().backward()"
        for name, sample in ops.SAVES_OUTPUT_LAYERS.items()
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


def test_binary_ops_save_an_operand_when_the_other_requires_grad():
    plain = "t = torch.randn(2, 4, 4)\nw = torch.randn(2, 4, 4, requires_grad=True)\n"
    cases = {}
    for name in ops.SAVES_OPERANDS_FUNCTIONS:
        call = (
            f"{name}(t[0], w[0])"
            if name in ("torch.mm", "torch.nn.functional.linear")
            else (f"{name}(t, w)")
        )
        cases[name] = f"{plain}out = {call}\nt.add_(1)\nout.sum().backward()"
    for name in ops.SAVES_OPERANDS_METHODS:
        receiver, other = ("t[0]", "w[0]") if name == "mm" else ("t", "w")
        cases[f"Tensor.{name}"] = (
            f"{plain}out = {receiver}.{name}({other})\nt.add_(1)\nout.sum().backward()"
        )
    for symbol in ops.SAVES_OPERANDS_OPERATORS:
        cases[symbol] = f"{plain}out = t {symbol} w\nt.add_(1)\nout.sum().backward()"
    _assert_all(cases, SAVED)


def test_parameter_layers_have_those_parameters_and_save_their_input():
    for name, (parameters, sample, _) in ops.PARAMETER_LAYERS.items():
        layer = eval(f"{name}{sample}", {"torch": torch})
        assert set(parameters) <= dict(layer.named_parameters()).keys(), name
    cases = {
        name: f"t = torch.randn{ops.PARAMETER_LAYERS[name][2]}\n"
        f"out = {name}{ops.PARAMETER_LAYERS[name][1]}(t)\nt.add_(1)\nout.sum().backward()"
        for name in ops.SAVES_INPUT_LAYERS
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


def test_view_methods_share_the_version_counter():
    samples = {
        "view": "(16)",
        "view_as": "(x)",
        "transpose": "(0, 1)",
        "permute": "(1, 0)",
        "unsqueeze": "(0)",
        "expand": "(4, 4)",
        "expand_as": "(x)",
        "narrow": "(0, 0, 2)",
        "select": "(0, 0)",
        "unflatten": "(0, (2, 2))",
    }
    for name in ops.VIEW_METHODS:
        args = samples.get(name, "()")
        program = (
            f"t = torch.randn(4, 4, requires_grad=True).exp()\nv = t.{name}{args}\n"
            "v = v[0] if isinstance(v, tuple) else v\nv.mul_(2)\nt.sum().backward()"
        )
        assert SAVED in (_error(program) or ""), name


@pytest.mark.parametrize("expression", ops.SAVES_NOTHING_SAMPLES)
def test_results_nothing_saved_may_be_edited(expression):
    program = (
        f"x = torch.randn(4, 4, requires_grad=True) * 1\ny = {expression}\ny[y > 0] = 0\n"
        "y.sum().backward()"
    )
    assert _error(program) is None


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
