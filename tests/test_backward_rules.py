"""GL301 / GL302, and the acceptance seeds of the shape rules."""

import re
from pathlib import Path

import pytest

from tests.conftest import lint

SEEDS = Path("/work/shared/seeds")
SHAPE_CODES = {"GL301", "GL302", "GL401", "GL402", "GL403", "GL404"}


def _findings(source: str):
    return [(d.line, d.code) for d in lint(source) if d.code in SHAPE_CODES]


def _seed_examples(prefix: str) -> list[str]:
    (path,) = SEEDS.glob(f"{prefix}_*.txt")
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason="seed documents not present")


@needs_seeds
def test_seed_000_only_example_3_is_flagged_at_its_backward_line():
    first, second, third = _seed_examples("000")
    assert _findings(first) == []
    assert _findings(second) == []
    backward_line = next(n for n, line in enumerate(third.splitlines(), 1) if ".backward(" in line)
    assert _findings(third) == [(backward_line, "GL301")]
    (finding,) = [d for d in lint(third) if d.code == "GL301"]
    assert "gradient has shape (10, 3) but `reduced_tensor_3` has shape (10,)" in finding.message


@needs_seeds
def test_seed_001_example_1_names_10_vs_20_features_at_the_reshape():
    source = _seed_examples("001")[0]
    reshape_line = next(n for n, text in enumerate(source.splitlines(), 1) if "reshape(" in text)
    findings = [d for d in lint(source) if d.code in SHAPE_CODES]
    assert [(d.line, d.code) for d in findings] == [(reshape_line, "GL403")]
    assert "10 features" in findings[0].message and "expects 20" in findings[0].message


@needs_seeds
def test_seed_002_example_3_view_of_5x4_to_10x2_is_clean():
    assert _findings(_seed_examples("002")[2]) == []


@needs_seeds
def test_seed_004_integer_gradient_of_the_right_shape_is_clean():
    (path,) = SEEDS.glob("004_*.txt")
    text = path.read_text()
    code = text[text.index("X = torch.tensor") : text.index("print(X.grad)")]
    assert _findings("import torch\n" + code) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("y = torch.randn(4, 3, requires_grad=True).sum(1)\ny.backward(torch.ones(4, 3))", "GL301"),
        ("y = torch.randn(3, requires_grad=True).mean()\ny.backward(torch.ones(1))", "GL301"),
        (
            "y = torch.randn(3, requires_grad=True).sum()\ny.backward(torch.FloatTensor([1]))",
            "GL301",
        ),
        (
            "x = torch.randn(3, 2, requires_grad=True)\ny = x * 2\n"
            "torch.autograd.backward(y, torch.ones(2, 3))",
            "GL301",
        ),
        (
            "x = torch.randn(3, 2, requires_grad=True)\ny = x * 2\n"
            "torch.autograd.backward([y], [torch.ones(2, 3)])",
            "GL301",
        ),
        ("x = torch.randn(3, 2, requires_grad=True)\n(x @ torch.randn(2, 4)).backward()", "GL302"),
        (
            "x = torch.randn(5, requires_grad=True)\n"
            "l = torch.nn.functional.mse_loss(x, torch.randn(5), reduction='none')\nl.backward()",
            "GL302",
        ),
        ("x = torch.randn(3, 2, requires_grad=True)\ntorch.autograd.backward(x * 2)", "GL302"),
    ],
)
def test_flagged(source, expected):
    assert [c for _, c in _findings("import torch\n" + source)] == [expected]


@pytest.mark.parametrize(
    "source",
    [
        # the gradient matches, reduced or not
        "y = torch.randn(4, 3, requires_grad=True).sum(1)\ny.backward(torch.ones(4))",
        "y = torch.randn(4, 3, requires_grad=True)\n(y * 2).backward(torch.ones_like(y))",
        # a (1,)-shaped output is one element: an implicit gradient works
        "y = torch.randn(3, requires_grad=True).sum(0, keepdim=True)\ny.backward()",
        # an integer gradient is converted by torch (seed 004)
        "y = torch.randn(2, 2, requires_grad=True) * 2\ny.backward(torch.tensor([[1, 2], [3, 4]]))",
        # scalars from reductions and default-reduced losses
        "x = torch.randn(4, 3, requires_grad=True)\nx.sum().backward()",
        "x = torch.randn(4, 3, requires_grad=True)\n"
        "torch.nn.CrossEntropyLoss()(x, torch.randint(0, 3, (4,))).backward()",
        # unknown shapes and symbolic sizes that may be 1 never fire
        "def f(loss):\n    loss.backward()",
        "def f(loss, g):\n    loss.backward(g)",
        "def f(n):\n    y = torch.randn(n, requires_grad=True) * 2\n    y.backward()",
        # legacy losses with size_average / reduce are not modelled
        "x = torch.randn(4, requires_grad=True)\n"
        "torch.nn.MSELoss(reduce=False)(x, x.detach()).backward(torch.ones(4))",
        # gradient given for every output
        "a = torch.randn(2, requires_grad=True) * 2\nb = torch.randn(3, requires_grad=True) * 2\n"
        "torch.autograd.backward([a, b], [torch.ones(2), torch.ones(3)])",
    ],
)
def test_clean(source):
    assert _findings("import torch\n" + source) == []


def test_witness_reproduces_the_message():
    (finding,) = lint(
        "import torch\ny = torch.randn(4, 3, requires_grad=True).sum(1)\n"
        "y.backward(torch.ones(4, 3))\n"
    )
    with pytest.raises(RuntimeError, match=re.escape(finding.witness.expect)):
        exec(finding.witness.program, {})


def test_full_reduction_of_an_unknown_output_is_0_dim_against_a_unit_gradient():
    """WGAN-style `one = torch.FloatTensor([1])`: `.mean()` of anything is 0-dim."""
    source = """
import torch


def train_critic(netD, real, one):
    mone = torch.FloatTensor([1]) * -1
    errD_real = netD(real).mean()
    errD_real.backward(mone)
    errD_fake = netD(real).sum()
    errD_fake.backward()
    errD_other = netD(real).mean(0)
    errD_other.backward(torch.ones(1))
"""
    assert [(d.line, d.code) for d in lint(source)] == [(8, "GL301")]
