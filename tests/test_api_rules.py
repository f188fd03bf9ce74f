"""GL204 requires-grad-typo and GL205 checkpoint-reentrant, with their torch tables."""

import warnings

import pytest
import torch
from conftest import codes, lint

from gradlint.analysis import knowledge, torch_ops
from gradlint.autofix import apply_fixes
from gradlint.catalogue import load_catalogue
from gradlint.checks.api import is_requires_grad_typo


def _run(program: str) -> BaseException | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(program, "<program>", "exec"), {"__name__": "__program__"})
        except Exception as error:  # the program's failure is what it demonstrates
            return error
    return None


# -- GL204: misspellings ---------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["require_grad", "requires_grads", "requires_gradient", "requiresGrad", "required_grad"],
)
def test_misspellings_are_recognised(name):
    assert is_requires_grad_typo(name)


@pytest.mark.parametrize(
    "name", ["requires_grad", "_requires_grad", "retain_grad", "needs_grad", "grad", "required"]
)
def test_other_names_are_not_misspellings(name):
    assert not is_requires_grad_typo(name)


@pytest.mark.parametrize(
    "call",
    [
        "torch.zeros(3, require_grad=True)",
        "torch.tensor([1.0], requires_gradient=True)",
        "nn.Parameter(torch.zeros(3), requires_grads=False)",
        "Variable(torch.zeros(3), require_grad=True)",
        "torch.zeros(3).new_zeros(2, requiresGrad=True)",
        "torch.zeros(3).requires_grad_(require_grad=True)",
    ],
)
def test_misspelled_keyword_is_flagged_and_raises(call):
    source = f"""
import torch
import torch.nn as nn
from torch.autograd import Variable

value = {call}
"""
    (finding,) = lint(source)
    assert finding.code == "GL204" and finding.severity == "error"
    assert isinstance(_run(source), TypeError)


def test_keywords_of_other_callables_are_quiet():
    source = """
    import torch

    def make(require_grad=False):
        return torch.zeros(3, requires_grad=require_grad)

    t = make(require_grad=True)
    cfg = dict(require_grad=True)
    """
    assert codes(source) == []


def test_misspelled_attribute_is_flagged_unless_read_back():
    source = """
    import torch.nn as nn

    model = nn.Linear(2, 2)
    for p in model.parameters():
        p.require_grad = False
    """
    (finding,) = lint(source)
    assert (finding.code, finding.line, finding.severity) == ("GL204", 6, "warning")
    error = _run(finding.witness.program)
    assert isinstance(error, AssertionError) and str(error) == finding.witness.expect
    own_attribute = """
    import torch

    class Options:
        def __init__(self):
            self.require_grad = True
            self.requires_grads = False

    if Options().require_grad:
        x = torch.zeros(3)
    """
    assert codes(own_attribute) == []


# -- GL204: non-leaves -----------------------------------------------------------------

NON_LEAVES = [
    "y = x * 2",
    "y = x.sum()",
    "y = torch.exp(x)",
    "y = x[0]",
    "y = -x",
    "y = torch.cat([x, x])",
    "y = x.clone()",
    "y = w @ x",
]


@pytest.mark.parametrize("assignment", NON_LEAVES)
def test_requires_grad_on_result_of_recorded_op_is_flagged_and_raises(assignment):
    source = f"""
import torch

x = torch.randn(3, requires_grad=True)
w = torch.nn.Parameter(torch.randn(3, 3))
{assignment}
y.requires_grad = True
"""
    (finding,) = lint(source)
    assert (finding.code, finding.line) == ("GL204", 7)
    error = _run(source)
    assert "you can only change requires_grad flags of leaf variables" in str(error)


LEAVES = [
    "y = x.detach()\ny.requires_grad = True",
    "with torch.no_grad():\n    y = x * 2\ny.requires_grad = True",
    "y = torch.randn(3) * 2\ny.requires_grad = True",
    "y = x * 2\ny = y.detach()\ny.requires_grad = True",
    "y = x * 2\nif flag:\n    y = torch.zeros(3)\ny.requires_grad = True",
    "y = x * 2\ny.requires_grad_(True)",
    "y = x.argmax()\nz = y",
    "y = x.data\ny.requires_grad = True",
]


@pytest.mark.parametrize("code", LEAVES)
def test_leaves_and_unknowns_are_quiet(code):
    source = f"""
import torch

flag = True
x = torch.randn(3, requires_grad=True)
{code}
"""
    assert codes(source) == []
    assert _run(source) is None


def test_try_bodies_are_followed():
    source = """
    import torch

    x = torch.randn(3, requires_grad=True)
    try:
        y = x * 2
        y.requires_grad = True
    except RuntimeError:
        y = torch.zeros(3)
    y.requires_grad = True
    """
    assert [(d.line, d.code) for d in lint(source)] == [(7, "GL204")]


def test_layer_output_in_a_module():
    source = """
    import torch
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            hidden = self.fc(x)
            hidden.requires_grad = True
            return hidden

    class Scaler(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(4))

        def forward(self, x):
            scaled = self.scale * 2
            scaled.requires_grad_(False)
            return x * scaled
    """
    assert [(d.line, d.code) for d in lint(source)] == [(12, "GL204"), (22, "GL204")]


def test_frozen_layer_output_is_a_leaf():
    source = """
    import torch
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(10, 4)
            self.embed.weight.requires_grad = False

        def forward(self, ids):
            hidden = self.embed(ids)
            hidden.requires_grad = True
            return hidden
    """
    assert codes(source) == []
    namespace: dict = {}
    exec(source.replace("\n    ", "\n"), namespace)
    assert namespace["Encoder"]()(torch.tensor([1, 2])).requires_grad


def test_gl204_bad_examples_fail_in_torch():
    typo, freeze, nonleaf, integer, module = load_catalogue()["GL204"].bad_examples
    assert isinstance(_run(typo), TypeError)
    for example in (freeze, module):
        namespace: dict = {}
        exec(example, namespace)
        assert all(p.requires_grad for p in namespace["backbone"].parameters())
    assert "leaf variables" in str(_run(nonleaf))
    assert "floating point and complex dtype" in str(_run(integer))


# -- GL205 -----------------------------------------------------------------------------

CHECKPOINT_CALLS = [
    ("from torch.utils.checkpoint import checkpoint", "checkpoint(f, x)"),
    ("import torch.utils.checkpoint as cp", "cp.checkpoint(f, x)"),
    ("import torch", "torch.utils.checkpoint.checkpoint(f, x, use_reentrant=None)"),
    ("from torch.utils import checkpoint", "checkpoint.checkpoint(f, x)"),
    ("from torch.utils.checkpoint import checkpoint_sequential", "checkpoint_sequential(f, 2, x)"),
]


@pytest.mark.parametrize(("imports", "call"), CHECKPOINT_CALLS)
def test_checkpoint_without_use_reentrant_false_is_flagged(imports, call):
    source = f"{imports}\n\n\ndef run(f, x):\n    return {call}\n"
    (finding,) = lint(source)
    assert (finding.code, finding.line) == ("GL205", 5)
    assert not finding.fix.is_safe
    fixed, [applied] = apply_fixes(source, [finding], unsafe=True)
    assert applied is finding
    assert "use_reentrant=False)" in fixed
    assert codes(fixed) == []


@pytest.mark.parametrize(
    "call",
    [
        "checkpoint(f, x, use_reentrant=False)",
        "checkpoint(f, x, use_reentrant=True)",
        "checkpoint(f, x, use_reentrant=reentrant)",
        "checkpoint(f, x, **kwargs)",
        "functools.partial(checkpoint, use_reentrant=False)(f, x)",
    ],
)
def test_explicit_or_unknown_use_reentrant_is_quiet(call):
    source = f"""
import functools
from torch.utils.checkpoint import checkpoint


def run(f, x, reentrant, kwargs):
    return {call}
"""
    assert codes(source) == []


def test_gl205_witness_and_bad_example():
    (bad,) = load_catalogue()["GL205"].bad_examples
    (finding,) = lint(bad)
    error = _run(finding.witness.program)
    assert isinstance(error, AssertionError) and str(error) == finding.witness.expect
    namespace: dict = {}
    exec(bad, namespace)
    block = namespace["Block"]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = block(torch.randn(2, 4))  # a frozen input
    assert not out.requires_grad and block.ff.weight.grad is None


# -- the tables, proven in torch ---------------------------------------------------------


@pytest.mark.parametrize("name", sorted(torch_ops.REQUIRES_GRAD_KEYWORD_FUNCTIONS))
def test_requires_grad_keyword_functions(name):
    function = eval(name, {"torch": torch})
    sample = torch_ops.REQUIRES_GRAD_KEYWORD_FUNCTIONS[name]
    x = torch.zeros(3)
    made = eval(f"f({sample}, requires_grad=True)", {"f": function, "x": x})
    assert made.requires_grad and made.is_leaf
    with pytest.raises(TypeError):
        eval(f"f({sample}, require_grad=True)", {"f": function, "x": x})


@pytest.mark.parametrize("method", sorted(torch_ops.REQUIRES_GRAD_KEYWORD_METHODS))
def test_requires_grad_keyword_methods(method):
    sample = torch_ops.REQUIRES_GRAD_KEYWORD_METHODS[method]
    separator = ", " if sample else ""
    made = eval(f"x.{method}({sample}{separator}requires_grad=True)", {"x": torch.zeros(3)})
    assert made.requires_grad and made.is_leaf
    with pytest.raises(TypeError):
        eval(f"x.{method}({sample}{separator}require_grad=True)", {"x": torch.zeros(3)})


@pytest.mark.parametrize("name", sorted(torch_ops.CHECKPOINT_FUNCTIONS))
def test_checkpoint_functions_default_to_reentrant(name):
    function = eval(name, {"torch": torch})
    layer = torch.nn.Linear(4, 4)
    x = torch.randn(4, 4)
    sample = torch_ops.CHECKPOINT_FUNCTIONS[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = {"f": function, "layer": layer, "layer2": torch.nn.Linear(4, 4), "x": x}
        eval(f"f({sample})", {**names, "torch": torch})
    assert any("use_reentrant" in str(w.message) for w in caught)
    assert any("None of the inputs have requires_grad=True" in str(w.message) for w in caught)


_DIFFERENTIABLE_FUNCTIONS = [
    name
    for name in knowledge.names("call")
    if not name.startswith("torch.Tensor.") and knowledge.op(name).differentiable
]


def test_differentiable_functions_make_non_leaves():
    """The generated `differentiable` facts (GL204 asks them): every function with a known
    call on a (4, 4) tensor that requires grad gives a non-leaf (one of its results, for
    `linalg.lu`), or the input itself (`atleast_1d` of a matrix)."""
    assert len(_DIFFERENTIABLE_FUNCTIONS) > 200
    for name in _DIFFERENTIABLE_FUNCTIONS:
        x = torch.randn(4, 4, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(f"{name}(x{knowledge.op(name).call})", {"x": x, "torch": torch})
        results = list(result) if isinstance(result, tuple | list) else [result]
        assert any(r is x or r.grad_fn is not None for r in results), name


def test_operators_record_on_tensors_that_require_grad():
    x = torch.randn(4, 4, requires_grad=True)
    for result in (x + 1, x - 1, x * 2, x / 2, x @ x, x**2, -x, x[0]):
        assert not result.is_leaf
