"""The shape engine against real torch: every transfer function and table entry is run.

Each case is a program whose last statement binds `y`; the shape the engine infers for
`y` (and its memory order, when the engine claims one) must be what torch produces.
"""

import inspect
import textwrap
import warnings

import libcst as cst
import pytest
import torch

from gradlint.analysis import knowledge, torch_ops
from gradlint.analysis.dataflow import Tensor
from gradlint.analysis.shapes import Shape
from gradlint.config import Config
from gradlint.engine import parse
from gradlint.filecontext import FileContext

PRELUDE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.randn(2, 3, 4)
m = torch.randn(3, 5)
w = torch.randn(4, 6)
v = torch.randn(6)
"""

# Arguments for table entries that need some (sample run on `x.transpose(1, 2)`).
_ELEMENTWISE_ARGS = {
    "clamp": "min=0.0",
    "clamp_max": "1.0",
    "clamp_min": "0.0",
    "clip": "0.0, 1.0",
    "to": "torch.float64",
    "type": "torch.float64",
    "type_as": "x",
    "cumsum": "1",
    "cumprod": "1",
    "softmax": "-1",
    "log_softmax": "-1",
    "normalize": "dim=1",
}


def _torch_accepts(program: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(PRELUDE + program + "\n", {})
    except Exception:  # noqa: BLE001 - arguments this op needs that no table gives
        return False
    return True


def _elementwise_case(name: str) -> str | None:
    """`name` run as a method, else as a `torch.` or `F.` function, with the arguments
    above or the generated data's call on a (4, 4) tensor; None when torch refuses every
    spelling so built (`torch.dropout` needs `p` and `train`: its facts come from the
    generator's own run of torch)."""
    spellings = [
        ("torch.Tensor", "x.transpose(1, 2).{}({})"),
        ("torch", "torch.{}(x.transpose(1, 2){})"),
    ]
    spellings.append(("torch.nn.functional", "F.{}(x.transpose(1, 2){})"))
    for namespace, template in spellings:
        if not hasattr(eval(namespace, {"torch": torch}), name):
            continue
        facts = knowledge.op(f"{namespace}.{name}")
        args = _ELEMENTWISE_ARGS.get(name, facts.call[2:] if facts and facts.call else "")
        if namespace != "torch.Tensor" and args:
            args = f", {args}"
        program = "y = " + template.format(name, args)
        if _torch_accepts(program):
            return program
    return None


def _binary_case(name: str) -> str:
    program = f"y = x.transpose(1, 2).{name}(torch.randn(3))"
    if _torch_accepts(program):
        return program
    return f"y = x.transpose(1, 2).long().{name}(torch.ones(3, dtype=torch.long))"  # gcd, bitwise


def _reduction_cases(name: str, reduction) -> list[str]:
    lead = "2, " * reduction.dim  # `x.norm(p, dim)`
    cases = [f"y = x.{name}({lead}1)", f"y = x.{name}({lead}-1)"]
    if not reduction.dim_required:
        cases.append(f"y = x.{name}()")
    if reduction.keepdim is not None:
        between = "True, " * (reduction.keepdim - reduction.dim - 1)  # `std(dim, unbiased)`
        cases.append(f"y = x.{name}({lead}1, keepdim=True)")
        cases.append(f"y = x.{name}({lead}1, {between}True)")
        if between:
            cases.append(f"y = x.{name}({lead}1, True)")  # unbiased, not keepdim
    if name in ("sum", "mean", "amax", "logsumexp", "std", "var", "nansum"):
        cases.append(f"y = x.{name}(dim=(0, 2))")
    return cases


def _builds_without_arguments(name: str) -> bool:
    parameters = list(inspect.signature(getattr(torch.nn, name).__init__).parameters.values())
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in parameters[1:]
    )


_ELEMENTWISE_CASES = [
    _elementwise_case(n)
    for n in sorted(torch_ops.SHAPE_PRESERVING_OPS | torch_ops.SHAPE_KEEPING_OPS)
]
_LAYER_CASES = [
    f"y = nn.{n}()(torch.randn(2, 3, 5, 4).transpose(2, 3))"
    for n in sorted(torch_ops.SHAPE_PRESERVING_LAYERS)
    if _builds_without_arguments(n)
]

TABLE_CASES = (
    [c for c in _ELEMENTWISE_CASES if c is not None]
    + [_binary_case(n) for n in sorted(torch_ops.SHAPE_BINARY_OPS)]
    + [c for n, r in sorted(torch_ops.SHAPE_REDUCTIONS.items()) for c in _reduction_cases(n, r)]
    + [f"y = x.{n}(1)[0]" for n in sorted(torch_ops.SHAPE_VALUE_INDEX_REDUCTIONS)]
    + [f"y = x.{n}(1)[1]" for n in sorted(torch_ops.SHAPE_VALUE_INDEX_REDUCTIONS)]
    + [f"y = torch.{n}(2, 3)" for n in sorted(torch_ops.SHAPE_SIZE_FACTORIES)]
    + [f"y = torch.{n}((2, 3))" for n in sorted(torch_ops.SHAPE_SIZE_FACTORIES)]
    + [f"y = torch.{n}(size=[4])" for n in sorted(torch_ops.SHAPE_SIZE_FACTORIES)]
    + [
        f"y = torch.{n}(x.transpose(1, 2){', 1.0' if n == 'full_like' else ''})"
        for n in sorted(torch_ops.SHAPE_LIKE_FACTORIES)
    ]
    + [f"y = torch.{n}(2, 3)" for n in sorted(torch_ops.SHAPE_LEGACY_CONSTRUCTORS)]
    + [f"y = torch.{n}([[1, 0], [0, 1], [1, 1]])" for n in torch_ops.SHAPE_LEGACY_CONSTRUCTORS]
    + [
        f"y = nn.{n}()(torch.rand(4, 3), torch.rand(4, 3))"
        for n, f in sorted(torch_ops.SHAPE_LOSS_MODULES.items())
        if torch_ops.SHAPE_LOSSES[f] == "input"
    ]
    + [
        f"y = F.{n}(torch.rand(4, 3), torch.rand(4, 3), reduction='none')"
        for n, kind in sorted(torch_ops.SHAPE_LOSSES.items())
        if kind == "input"
    ]
    + [
        f"y = F.{n}(torch.randn(4, 3), torch.randint(0, 3, (4,)), reduction={r!r})"
        for n, kind in sorted(torch_ops.SHAPE_LOSSES.items())
        if kind == "target"
        for r in ("none", "mean", "sum")
    ]
    + [c for c in _LAYER_CASES if _torch_accepts(c)]
    + [f"y = nn.{n}(3)(torch.randn(3, 4).t())" for n in ("BatchNorm1d", "LayerNorm")]
    + [
        f"y = nn.{n}(3, 8, 3)(torch.randn(2, 3, {', '.join(['9'] * d)}))"
        for n, d in sorted(torch_ops.SHAPE_CONV_LAYERS.items())
    ]
)

STRUCTURAL_CASES = [
    "y = torch.randint(5, (2, 3))",
    "y = torch.randint(0, 5, (2, 3))",
    "y = torch.full((2, 3), 1.5)",
    "y = torch.arange(10)",
    "y = torch.arange(2, 11, 3)",
    "y = torch.eye(3)",
    "y = torch.eye(2, 3)",
    "y = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])",
    "y = torch.tensor(3.0)",
    "y = nn.Parameter(torch.randn(2, 3))",
    "y = x.new_zeros(2, 3)",
    "y = x.new_ones((2, 5))",
    "y = x * 2 if x.sum() > 0 else x - 1",
    "y = x.transpose(0, 2)",
    "y = x.transpose(-1, -2)",
    "y = x.mT",
    "y = x.permute(2, 0, 1)",
    "y = x.permute((1, 2, 0))",
    "y = m.t()",
    "y = m.T",
    "y = x.unsqueeze(1)",
    "y = x.unsqueeze(-1)",
    "y = x.transpose(1, 2).unsqueeze(0)",
    "y = x.unsqueeze(1).squeeze(1)",
    "y = torch.randn(2, 1, 4).squeeze()",
    "y = x.flatten(1)",
    "y = x.flatten()",
    "y = x.flatten(0, 1)",
    "y = x.view(6, 4)",
    "y = x.view(-1, 4)",
    "y = x.reshape(2, -1)",
    "y = x.view(x.size(0), -1)",
    "y = x.view(x.shape[0], x.shape[1] * x.shape[2])",
    "y = x.transpose(1, 2).reshape(2, 12)",
    "y = x.transpose(1, 2).contiguous()",
    "y = x.transpose(1, 2).contiguous().view(2, -1)",
    "y = x.transpose(1, 2).view(2, 4, 3)",
    "y = x.transpose(1, 2).clone()",
    "y = x.transpose(1, 2).float()",
    "y = x.transpose(1, 2) * 2",
    "y = 2 * x.transpose(1, 2)",
    "y = x.transpose(1, 2) + x.transpose(1, 2)",
    "y = x + x.transpose(1, 2).transpose(1, 2)",
    "y = x.transpose(1, 2) + torch.randn(4, 1)",
    "y = x[:, :1].expand(2, 3, 4)",
    "y = x.repeat(2, 1, 1)",
    "y = x.repeat(3, 1, 1, 2)",
    "y = torch.cat([x, x], dim=1)",
    "y = torch.cat((x, x, x))",
    "y = torch.stack([x, x], dim=2)",
    "y = torch.stack([m, m])",
    "y = x[0]",
    "y = x[:, 1]",
    "y = x[:, None]",
    "y = x[:1]",
    "y = x[1:, :2]",
    "y = x.transpose(0, 1)[0]",
    "y = x @ w",
    "y = torch.matmul(x, w)",
    "y = torch.mm(m.t(), m)",
    "y = torch.bmm(x, torch.randn(2, 4, 7))",
    "y = w @ v",
    "y = v @ v",
    "y = F.linear(x, torch.randn(7, 4))",
    "y = nn.Linear(4, 7)(x)",
    "y = nn.Embedding(10, 7)(torch.tensor([[1, 2, 3]]))",
    "y = nn.Flatten()(x)",
    "y = x.topk(2, 1)[1]",
    "y = x.topk(2, -1)[0]",
    "y = x.sort(1)[0]",
    "y = x.transpose(1, 2).sort(1)[0]",
    "y = x.transpose(1, 2).topk(2, 1)[1]",
    "y = x.argsort(2)",
    "y = x.max(1, keepdim=True)[0]",
    "y = torch.max(x, x)",
    "y = x.sum(1).mean()",
    "y = torch.zeros(x.size(0), x.shape[2])",
    "y = torch.randn(*x.shape)",
    "y = x.expand_as(x)",
    "y = x.view_as(torch.randn(4, 6))",
    "y = nn.Conv2d(3, 4, 3, stride=2, padding=1)(torch.randn(2, 3, 9, 9))",
    "y = nn.Conv1d(3, 4, 5, dilation=2)(torch.randn(2, 3, 20))",
    "y = nn.MaxPool2d(2)(torch.randn(2, 3, 9, 9))",
    "y = nn.AvgPool2d(3, stride=2, padding=1)(torch.randn(2, 3, 9, 9))",
    "y = F.max_pool2d(torch.randn(2, 3, 9, 9), 3, stride=2)",
    "y = nn.AdaptiveAvgPool2d((2, 3))(torch.randn(2, 3, 9, 9))",
    "y = F.adaptive_avg_pool2d(torch.randn(2, 3, 9, 9), 1)",
    "y = F.avg_pool1d(torch.randn(2, 3, 9), 2)",
    "y = nn.Unflatten(1, (2, 2))(torch.randn(3, 4))",
    "y = F.interpolate(torch.randn(1, 3, 4, 4), size=(6, 5))",
    "y = F.interpolate(torch.randn(1, 3, 4, 4), scale_factor=2)",
    "y = x.chunk(2, dim=-1)[1]",
    "y = x.chunk(2, dim=1)[1]",
    "a, b = x.split([1, 2], dim=1)\ny = b",
    "a, b = torch.split(x, 2, dim=2)\ny = b",
    "y = x.narrow(2, 1, 2)",
    "y = x.unbind(1)[0]",
    "y = x.repeat_interleave(2, 0)",
    "y = x.transpose(1, 2).repeat_interleave(3, dim=1)",
    "y = x.repeat_interleave(2)",
    "B, L, D = x.shape\ny = x.reshape(B * L, D)",
    "y = torch.randn(2, 12).view(2, 2 + (-2) % 3, 4)",
    "y = x.permute(*([0] + list(range(2, 3)) + [1]))",
    "def f(a):\n    return a.chunk(2, -1)[0]\ny = f(x)",
    "a, b = torch.meshgrid(torch.arange(4), torch.arange(5), indexing='ij')\ny = b",
    "a, b = torch.meshgrid(torch.arange(4), torch.arange(5), indexing='xy')\ny = a",
    "a, b, c = torch.meshgrid([torch.arange(2), torch.arange(3), torch.arange(4)])\ny = c",
    "a, b = torch.meshgrid(torch.arange(3).float(), torch.arange(4).float())\ny = a * x + 1",
    "y = m[:, m.argmax(1)]",
    "y = x[:, :, x.max(2)[1]]",
    "y = x[:, :, x.argmax(2)]",
    # layouts through layers: channels-last inputs stay channels-last, others contiguous
    "y = nn.Conv2d(3, 4, 3)(torch.randn(2, 5, 6, 3).permute(0, 3, 1, 2))",
    "y = nn.Conv2d(3, 4, 3)(torch.randn(2, 5, 3, 6).permute(0, 2, 1, 3))",
    "y = nn.Conv2d(1, 4, 3)(torch.randn(2, 5, 6, 1).permute(0, 3, 1, 2))",
    "y = nn.Conv3d(3, 4, 3)(torch.randn(2, 5, 5, 6, 3).permute(0, 4, 1, 2, 3))",
    "y = nn.MaxPool2d(2)(torch.randn(2, 6, 6, 3).permute(0, 3, 1, 2))",
    "y = nn.AdaptiveAvgPool2d(1)(torch.randn(2, 6, 6, 3).permute(0, 3, 1, 2))",
    "y = F.interpolate(torch.randn(1, 4, 4, 3).permute(0, 3, 1, 2), scale_factor=2)",
    "y = nn.BatchNorm2d(3)(torch.randn(2, 5, 6, 3).permute(0, 3, 1, 2))",
    "y = nn.GroupNorm(1, 3)(torch.randn(2, 5, 6, 3).permute(0, 3, 1, 2))",
    "y = nn.BatchNorm2d(5)(torch.randn(2, 6, 5, 3).permute(0, 2, 1, 3))",
    "y = nn.LayerNorm(6)(torch.randn(2, 5, 6, 3).permute(0, 3, 1, 2))",
    "y = nn.ReLU()(torch.randn(2, 5, 6, 3).permute(0, 3, 1, 2))",
    "y = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU())(torch.randn(2, 5, 6, 3).permute(0, 3, 1, 2))",
]


def infer(program: str) -> Shape | None:
    """The engine's shape for `y`, bound by the program's last statement."""
    source = PRELUDE + textwrap.dedent(program) + "\n"
    module = parse("case.py", source)
    file = FileContext("case.py", module, Config())
    last = module.body[-1]
    assign = last.body[0]
    assert isinstance(assign, cst.Assign)
    value = file.dataflow.value_of(assign.value)
    return value.shape if isinstance(value, Tensor) else None


# What torch warns about in calls these programs make on purpose (every shape-preserving
# layer built without arguments, a loss's default reduction, meshgrid's default
# indexing, dropout2d on a 3-d input): their shapes are under test, not the advice.
TORCH_ADVICE = (
    r"Implicit dimension choice for (log_softmax|softmax|softmin) has been deprecated",
    r"reduction: 'mean' divides the total loss by both the batch size and the support size",
    r"torch\.meshgrid: in an upcoming release, it will be required to pass the indexing",
    r"dropout2d: Received a 3D input to dropout2d",
)


def run(program: str) -> torch.Tensor:
    scope: dict = {}
    with warnings.catch_warnings():
        for advice in TORCH_ADVICE:
            warnings.filterwarnings("ignore", message=advice, category=UserWarning)
        exec(PRELUDE + textwrap.dedent(program) + "\n", scope)
    return scope["y"]


def memory_order(tensor: torch.Tensor) -> tuple[int, ...]:
    """Memory position of each dim of size > 1 (0 = outermost), from torch's strides."""
    dims = [i for i in range(tensor.dim()) if tensor.shape[i] > 1]
    ranked = sorted(dims, key=lambda i: -tensor.stride(i))
    return tuple(ranked.index(i) for i in dims)


def _claimed_order(shape: Shape) -> tuple[int, ...]:
    dims = [i for i, d in enumerate(shape.dims) if d != 1]
    ranked = sorted(dims, key=lambda i: shape.order[i])
    return tuple(ranked.index(i) for i in dims)


def check(program: str) -> None:
    inferred = infer(program)
    actual = run(program)
    assert inferred is not None and inferred.dims is not None, f"no shape for {program}"
    assert len(inferred.dims) == actual.dim(), f"{program}: {inferred} vs {actual.shape}"
    for claimed, size in zip(inferred.dims, actual.shape, strict=True):
        # a symbol is an unknown size: sound, only an integer makes a claim
        assert not isinstance(claimed, int) or claimed == size, f"{program}: {inferred}"
    if inferred.order is not None:
        assert _claimed_order(inferred) == memory_order(actual), f"{program}: layout differs"


@pytest.mark.parametrize("program", TABLE_CASES)
def test_table_entry_matches_torch(program):
    check(program)


def test_most_generated_entries_are_run_here():
    """The entries the cases above cannot call are few (their facts come from the
    generator's own run of torch)."""
    assert sum(c is not None for c in _ELEMENTWISE_CASES) > 0.8 * len(_ELEMENTWISE_CASES)
    assert sum(map(_torch_accepts, _LAYER_CASES)) > 30


@pytest.mark.parametrize("program", STRUCTURAL_CASES)
def test_transfer_function_matches_torch(program):
    check(program)


# (program, whether `.view` there is rejected by torch) -> the engine must agree.
VIEW_CASES = [
    ("y = m.t().view(-1)", True),
    ("y = m.t().view(15)", True),
    ("y = x.transpose(1, 2).view(2, 4, 3)", False),
    ("y = x.transpose(1, 2).view(2, 2, 2, 3)", False),
    ("y = x.transpose(1, 2).view(2, -1)", True),
    ("y = x.transpose(0, 1).view(6, 4)", True),
    ("y = x.transpose(0, 1).view(3, 8)", True),
    ("y = x.permute(0, 2, 1).view(2, 12)", True),
    ("y = torch.randn(2, 3, 4, 5).permute(0, 2, 3, 1).view(2, -1, 3)", False),
    ("y = torch.randn(2, 3, 4, 5).permute(0, 2, 3, 1).view(2, 20, 3)", False),
    ("y = torch.randn(2, 3, 4, 5).permute(0, 3, 1, 2).view(2, 5, 12)", False),
    ("y = torch.randn(2, 3, 4, 5).permute(0, 3, 1, 2).view(2, 15, 4)", True),
    ("y = x.transpose(1, 2).contiguous().view(2, -1)", False),
    ("y = x[:, 1].view(-1)", True),
    ("y = x[:, :, 1].view(-1)", False),
    ("y = x.unbind(1)[0].view(-1)", True),
    ("y = torch.randn(2, 1, 4)[:, 0].view(-1)", False),
    ("y = x.transpose(0, 1)[1].view(-1)", True),
    ("y = x.transpose(1, 2)[:, 0].view(-1)", False),
    ("y = (x[:, 1] * 2).view(-1)", False),
    (
        "v, u = torch.meshgrid(torch.arange(3).float(), torch.arange(4).float(), indexing='ij')\n"
        "y = (u * x + x[:, :1]).permute(0, 2, 1).view(-1)",
        True,
    ),
    ("y = nn.Conv2d(3, 4, 3)(torch.randn(2, 5, 6, 3).permute(0, 3, 1, 2)).view(2, -1)", True),
    ("y = nn.Conv2d(3, 4, 3)(torch.randn(2, 5, 3, 6).permute(0, 2, 1, 3)).view(2, -1)", False),
    ("y = nn.Conv2d(1, 4, 3)(torch.randn(2, 5, 6, 1).permute(0, 3, 1, 2)).view(2, -1)", True),
    ("y = x.view(x.size(0), -1)", False),
    ("y = torch.randn(1, 3).t().view(-1)", False),
    ("y = x.unsqueeze(1).transpose(0, 1).view(2, 12)", False),
    ("y = x.chunk(2, dim=2)[0].view(2, -1)", True),
    ("y = x.chunk(2, dim=2)[0].view(6, 2)", False),
    ("y = x.narrow(1, 0, 2).view(-1)", True),
    ("y = x[:, 1:].view(-1)", True),
    ("y = x[:, :2, 1:].view(2, -1)", True),
    ("y = x[:, :, 1:3].view(2, 3, 2)", False),
    ("y = x[1:].view(-1)", False),
    ("y = x[:, :, :1].view(-1)", False),
    ("y = x[:, 1:].contiguous().view(-1)", False),
    ("y = torch.randn(2, 3, 12).split([4, 8], dim=2)[1].view(2, 3, 2, 4)", False),
    ("q, k = torch.randn(5, 16).split([8, 8], dim=-1)\ny = q.view(-1, 2)", True),
    (
        "_, pred = torch.randn(8, 10).topk(5, 1, True, True)\n"
        "pred = pred.t()\n"
        "correct = pred.eq(torch.randint(0, 10, (8,)).view(1, -1).expand_as(pred))\n"
        "y = correct[:5].view(-1)",
        True,
    ),
]


@pytest.mark.parametrize(("program", "rejected"), VIEW_CASES)
def test_view_layout_model_agrees_with_torch(program, rejected):
    source = PRELUDE + program + "\n"
    module = parse("case.py", source)
    file = FileContext("case.py", module, Config())
    view = module.body[-1].body[0].value
    kinds = list(file.dataflow.shape_conflicts.get(view, {}))
    try:
        run(program)
        raised = False
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
        raised = True
    assert raised is rejected
    assert ("view_order" in kinds) is rejected


def test_transpose_of_unknown_layout_claims_no_layout():
    """`.t()` of an input of unknown layout may be contiguous again: nothing is claimed."""
    check("def f(a):\n    return a.topk(2, 1)[1]\ny = f(x)")  # followed into the call
    source = (
        PRELUDE + "class Net(nn.Module):\n    def forward(self, a, p):\n"
        "        q = p.sort(1)[1].t()\n        r = a.topk(2, 1)[1].t()\n"
    )
    module = parse("case.py", source)
    file = FileContext("case.py", module, Config())
    function = module.body[-1].body.body[0]
    q_value = function.body.body[0].body[0].value
    r_value = function.body.body[1].body[0].value
    assert file.dataflow.value_of(q_value).shape is None
    assert file.dataflow.value_of(r_value).shape.order == (1, 0)


def test_unknown_never_yields_a_shape():
    assert infer("y = unknown_helper(x).view(3, 8)") is None
    assert infer("y = torch.randn(*unknown_sizes)") is None


def test_loop_joins_to_a_fixed_point():
    program = "y = torch.randn(2, 3)\nfor _ in range(3):\n    y = y.t()\ny = y"
    assert infer(program) is None
    each_item = "y = torch.zeros(3)\nfor n in (4, 3):\n    y = torch.zeros(n)\ny = y"
    assert infer(each_item) is None  # (3,) before the loop, (4,) after one round
    stable = "y = torch.randn(2, 3)\nfor _ in range(3):\n    y = y * 2\ny = y"
    assert infer(stable).dims == (2, 3)


def test_branches_join_equal_shapes_only():
    same = "if v.sum() > 0:\n    y = torch.zeros(2)\nelse:\n    y = torch.ones(2)\ny = y"
    assert infer(same).dims == (2,)
    different = "if v.sum() > 0:\n    y = torch.zeros(2)\nelse:\n    y = torch.ones(3)\ny = y"
    assert infer(different) is None


def test_tensor_only_methods_are_tensor_methods_numpy_lacks():
    import numpy

    for name in torch_ops.SHAPE_TENSOR_ONLY_METHODS:
        assert hasattr(torch.Tensor, name), name
        assert not hasattr(numpy.ndarray, name), name


def test_comprehension_names_are_not_the_function_names():
    program = "y = [x.view(7, 3) for x in [torch.randn(3, 7)]]"
    source = PRELUDE + program + "\n"
    module = parse("case.py", source)
    file = FileContext("case.py", module, Config())
    assert not file.dataflow.shape_conflicts


def test_walrus_match_and_del_rebind_names():
    assert infer("if (z := torch.randn(4)) is not None:\n    pass\ny = z").dims == (4,)
    assert infer("z = torch.randn(4)\ndel z\nz = z if False else z\ny = z") is None
    program = "z = torch.randn(4)\nmatch 1:\n    case 1:\n        z = torch.randn(5)\ny = z"
    assert infer(program) is None


def test_elif_that_returns_does_not_hide_its_else():
    program = (
        "def f(a):\n    z = torch.randn(2)\n    if a:\n        z = torch.randn(3)\n"
        "    elif a is None:\n        return\n    else:\n        z = torch.randn(4)\n    return z\n"
        "y = torch.randn(1)"
    )
    source = PRELUDE + program + "\n"
    module = parse("case.py", source)
    file = FileContext("case.py", module, Config())
    function = module.body[-2]
    returned = function.body.body[-1].body[0].value
    assert file.dataflow.value_of(returned).shape is None
