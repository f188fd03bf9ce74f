"""GL303 module-backward-never-called and GL304 autograd-function-contract."""

import warnings

import pytest
import torch
from conftest import codes, lint

from gradlint.catalogue import load_catalogue

# -- GL303 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "signature",
    [
        "backward(self, grad_output)",
        "mmBackward(self, grad_output)",
        "custom_backward(self, grad)",
        "backward(self, dout)",
        "backward(self, delta, retain=False)",
    ],
)
def test_gradient_method_on_module_is_flagged_at_def(signature):
    source = f"""
    import torch.nn as nn

    class Layer(nn.Module):
        def forward(self, x):
            return x

        def {signature}:
            return None
    """
    (finding,) = lint(source)
    assert (finding.code, finding.line, finding.column) == ("GL303", 8, 9)


@pytest.mark.parametrize(
    "method",
    [
        # not a gradient argument: the style-transfer tutorial's loss module
        "def backward(self, retain_graph=True):\n        self.loss.backward(retain_graph)",
        # hands the gradient on to autograd itself
        "def backward(self, grad_output):\n        self.out.backward(grad_output)",
        # not a backward name
        "def backward_hook_factory(self, grad):\n        return grad",
        # registered as a hook: autograd does call it
        "def _post_backward(self, grad):\n        return grad\n\n"
        "    def attach(self, t):\n        t.register_hook(self._post_backward)",
    ],
)
def test_legitimate_backward_like_methods_are_quiet(method):
    source = f"""
import torch.nn as nn


class Layer(nn.Module):
    {method}
"""
    assert codes(source) == []


def test_module_method_called_from_a_function_backward_is_quiet():
    source = """
    import torch
    import torch.nn as nn

    class Bridge(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, layer):
            ctx.layer = layer
            return layer.compute(x)

        @staticmethod
        def backward(ctx, grad_output):
            return ctx.layer.manual_backward(grad_output), None

    class Layer(nn.Module):
        def compute(self, x):
            return x * 2

        def manual_backward(self, grad_output):
            return grad_output * 2

        def forward(self, x):
            return Bridge.apply(x, self)
    """
    assert codes(source) == []
    namespace: dict = {}
    exec(source.replace("\n    ", "\n"), namespace)
    layer = namespace["Layer"]()
    calls = []
    original = layer.manual_backward
    layer.manual_backward = lambda grad: calls.append(grad) or original(grad)
    layer(torch.ones(2, requires_grad=True)).sum().backward()
    assert len(calls) == 1  # autograd does reach it, through the Function


def test_backward_on_plain_class_or_function_is_quiet():
    source = """
    import torch

    class NumpyLayer:
        def backward(self, grad_output):
            return grad_output

    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2
    """
    assert codes(source) == []


def test_seed_003_param_times_data_runs_in_torch():
    param = torch.nn.Parameter(torch.randn(3, 3))
    data = torch.randn(3, 3)
    (param * data).sum().backward()
    assert param.grad is not None and torch.equal(param.grad, data)


def _run(program: str) -> BaseException | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(program, "<witness>", "exec"), {"__name__": "__witness__"})
        except Exception as error:  # the program's failure is what it demonstrates
            return error
    return None


def _assert_reproduces(finding):
    error = _run(finding.witness.program)
    assert error is not None, finding.message
    assert str(error).startswith(finding.witness.expect), (error, finding.witness.expect)


def test_gl303_witness_and_bad_example():
    (bad,) = load_catalogue()["GL303"].bad_examples
    (finding,) = lint(bad)
    _assert_reproduces(finding)
    namespace: dict = {}
    exec(bad, namespace)
    module = namespace["MyLinear"](3, 2)
    calls = []
    module.backward = lambda grad_output: calls.append(grad_output)
    module(torch.randn(4, 3)).sum().backward()
    assert calls == [] and module.weight.grad is not None


# -- GL304 ---------------------------------------------------------------------------

FUNCTION = """
import torch
from torch.autograd import Function


class Fn(Function):
{body}
"""


def _function(body: str) -> str:
    return FUNCTION.format(body=body)


BROKEN_FUNCTIONS = {
    "too few gradients": """
    @staticmethod
    def forward(ctx, x, alpha):
        return x * alpha

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2
""",
    "too few on one path": """
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return grad_output, grad_output
        return None
""",
    "extra gradient that is not None": """
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2, grad_output
""",
    "setup_context applies defaults": """
    @staticmethod
    def forward(x, scale=2.0):
        return x * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return -grad_output
""",
    "self in a static method": """
    @staticmethod
    def forward(ctx, x):
        self.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2
""",
    "ctx in a method without it": """
    def forward(self, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2
""",
    "static with self and ctx": """
    @staticmethod
    def forward(self, ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2
""",
    "static backward without ctx": """
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(grad_output):
        return grad_output * 2
""",
    "saves an int": """
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 2)
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2
""",
    "saves a shape": """
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.shape)
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2
""",
    "saves a local from item()": """
    @staticmethod
    def forward(ctx, x):
        peak = x.max().item()
        ctx.save_for_backward(x, peak)
        return x / peak

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
""",
    "legacy state read via apply": """
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * self.k

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
""",
}

# How torch fails when each broken function is applied (and backpropagated).
TORCH_FAILURES = {
    "too few gradients": ("(x, 2.0)", "returned an incorrect number of gradients"),
    "too few on one path": ("(x, x)", "returned an incorrect number of gradients"),
    "extra gradient that is not None": ("(x,)", "returned an incorrect number of gradients"),
    "setup_context applies defaults": ("(x,)", "returned an incorrect number of gradients"),
    "self in a static method": ("(x,)", "name 'self' is not defined"),
    "ctx in a method without it": ("(x,)", "name 'ctx' is not defined"),
    "static with self and ctx": ("(x,)", "Fn.forward() missing 1 required positional"),
    "static backward without ctx": ("(x,)", "Fn.backward() takes 1 positional argument"),
    "saves an int": ("(x,)", "save_for_backward can only save variables"),
    "saves a shape": ("(x,)", "save_for_backward can only save variables"),
    "saves a local from item()": ("(x,)", "save_for_backward can only save variables"),
    "legacy state read via apply": ("(x,)", "'FnBackward' object has no attribute 'k'"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_FUNCTIONS))
def test_broken_function_is_flagged_and_fails_in_torch(case):
    source = _function(BROKEN_FUNCTIONS[case])
    found = codes(source)
    assert found and set(found) == {"GL304"}, found
    arguments, message = TORCH_FAILURES[case]
    program = (
        f"{source}\nx = torch.randn(3, requires_grad=True)\nFn.apply{arguments}.sum().backward()\n"
    )
    error = _run(program)
    assert error is not None and message in str(error), error


def test_witnesses_of_function_findings_reproduce():
    cases = ["too few gradients", "saves an int", "legacy state read via apply"]
    for case in cases:
        findings = [d for d in lint(_function(BROKEN_FUNCTIONS[case])) if d.witness]
        assert findings, case
        for finding in findings:
            _assert_reproduces(finding)


def test_instance_call_and_direct_forward_are_flagged():
    source = (
        _function(BROKEN_FUNCTIONS["too few gradients"].replace("x * alpha", "x"))
        + """

def use(x):
    a = Fn()(x, 2.0)
    fn = Fn()
    b = fn(x, 2.0)
    c = Fn.forward(None, x, 2.0)
    return Fn.apply(x, 2.0)
"""
    )
    lines = source.splitlines()
    calls = [lines.index(f"    {call}") + 1 for call in ("a = Fn()(x, 2.0)", "b = fn(x, 2.0)")]
    direct = lines.index("    c = Fn.forward(None, x, 2.0)") + 1
    findings = [d for d in lint(source) if d.line >= calls[0]]
    assert [(d.line, d.code) for d in findings] == [(n, "GL304") for n in (*calls, direct)]
    _assert_reproduces(findings[0])


CORRECT_FUNCTIONS = [
    # None for non-tensor inputs, extra trailing None
    """
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x * alpha

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None, None
""",
    # setup_context: forward takes no ctx
    """
    @staticmethod
    def forward(x, y):
        return x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y, grad_output * x
""",
    # non-literal returns, *args forwards, saving None
    """
    @staticmethod
    def forward(ctx, *tensors):
        ctx.save_for_backward(*tensors, None)
        ctx.count = len(tensors)
        return sum(tensors)

    @staticmethod
    def backward(ctx, grad_output):
        grads = tuple(grad_output for _ in range(ctx.count))
        return grads
""",
    # a default argument: the caller may pass one input
    """
    @staticmethod
    def forward(ctx, x, scale=2.0):
        return x * scale

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2
""",
    # non-static methods used through .apply work: ctx arrives as `self`
    """
    def forward(self, x):
        self.save_for_backward(x)
        return x * 2

    def backward(self, grad_output):
        return grad_output * 2
""",
    # a tuple-returning method is not counted as one gradient
    """
    @staticmethod
    def forward(ctx, x, y):
        return torch.cat([x, y])

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.chunk(2)
""",
]


@pytest.mark.parametrize("body", CORRECT_FUNCTIONS)
def test_correct_functions_are_quiet_and_run(body):
    source = _function(body)
    assert codes(source) == []
    program = f"{source}\nx = torch.randn(3, requires_grad=True)\nFn.apply(x, x).sum().backward()\n"
    if "scale=2.0" in body or "def forward(self, x)" in body:
        program = program.replace("Fn.apply(x, x)", "Fn.apply(x)")
    assert _run(program) is None


def test_forward_reused_inside_another_function_is_quiet():
    source = (
        _function(CORRECT_FUNCTIONS[0])
        + """

class Twice(Function):
    @staticmethod
    def forward(ctx, x):
        return Fn.forward(ctx, x, 2.0)

    @staticmethod
    def backward(ctx, grad_output):
        return Fn.backward(ctx, grad_output)[0]
"""
    )
    assert codes(source) == []


def test_gl304_bad_examples_fail_in_torch():
    bad = load_catalogue()["GL304"].bad_examples
    drivers = [
        ("ScaleBy.apply(torch.randn(3, requires_grad=True), 2.0).sum().backward()", "incorrect"),
        ("", "Legacy autograd function with non-static forward method"),
        ("Clip.apply(torch.randn(3, requires_grad=True))", "save_for_backward can only save"),
    ]
    assert len(bad) == len(drivers)
    for example, (driver, message) in zip(bad, drivers, strict=True):
        error = _run(example + "\n" + driver)
        assert error is not None and message in str(error), error


# erikwijmans/Pointnet2_PyTorch pointnet2_ops/pointnet2_utils.py (issue 31, batch 13): CUDA
# ops wrapped in Functions whose forward marks every output non-differentiable and whose
# backward returns `()`: no output requires grad, so torch never calls that backward.
THREE_NN = """
import torch
from torch.autograd import Function


class ThreeNN(Function):
    @staticmethod
    def forward(ctx, unknown, known):
        dist2 = torch.cdist(unknown, known).topk(3, dim=-1, largest=False)
        dist, idx = torch.sqrt(dist2.values), dist2.indices
        ctx.mark_non_differentiable({marked})
        return dist, idx

    @staticmethod
    def backward(ctx, grad_dist, grad_idx):
        return ()


three_nn = ThreeNN.apply
unknown = torch.randn(2, 5, 3, requires_grad=True)
known = torch.randn(2, 8, 3, requires_grad=True)
dist, idx = three_nn(unknown, known)
loss = (unknown * 2).sum() + dist.sum()
loss.backward()
"""


def test_backward_of_a_function_with_only_non_differentiable_outputs_is_quiet():
    source = THREE_NN.format(marked="dist, idx")
    assert "GL304" not in codes(source)
    assert _run(source) is None


def test_backward_of_a_function_with_a_differentiable_output_is_flagged():
    source = THREE_NN.format(marked="idx")
    assert "GL304" in codes(source)
    assert "incorrect number of gradients" in str(_run(source))
