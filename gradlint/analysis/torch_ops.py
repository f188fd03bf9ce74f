"""What torch does, as data. Static analysis never imports torch; it reads these tables.

Most tables are derived on first use (`__getattr__`) from the data
`tools/gen_torch_knowledge.py` generates by running torch 2.13
(gradlint/analysis/knowledge.py): what autograd saves, in-place functions, ops with an
integer / bool result or a zero gradient, methods that keep the graph, reductions and
their dim / keepdim positions, layers keeping the input's shape, conv / pool windows.
Which methods edit in place, which functions and layers take an `inplace` flag, which
ops return views or keep the layout: the analysis asks that data directly.

What stays hand-written here says, table by table, why torch is not asked; in short:
- sample arguments for witness programs and tests (INPLACE_TENSOR_METHODS, ...): a
  witness is source text, and torch's op database gives its samples as tensor objects;
- Python-level roles no op database describes: module containers, parameter
  constructors, checkpoint functions, methods whose result leaves the graph (`item`,
  `tolist`, `numpy`), metadata reads, GradScaler methods;
- choices of the shape engine (which dtype / device moves it treats as keeping layout,
  how losses are reduced).
Every hand-written entry is proven in real torch by the tests (tests/test_torch_ops.py,
tests/test_shapes.py, tests/test_flow_rules.py, ...).

Sample strings are the argument lists (or constructor arguments) the test uses to run an
entry; `x` stands for a float tensor of shape (4, 4).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from gradlint.analysis import knowledge

# ---------------------------------------------------------------------------------------
# In-place edits and what autograd saves for backward (rule family GL1xx, checks/inplace.py)
# ---------------------------------------------------------------------------------------

# Tensor methods that write into their receiver -> sample arguments. Hand-written: the
# arguments of a witness program (which methods edit in place is `knowledge.inplace_method`).
INPLACE_TENSOR_METHODS: dict[str, str] = {
    "abs_": "()",
    "add_": "(1.0)",
    "addcdiv_": "(x, x + 2)",
    "addcmul_": "(x, x)",
    "addmm_": "(x, x)",
    "bernoulli_": "(0.5)",
    "clamp_": "(min=0.0)",
    "clamp_max_": "(1.0)",
    "clamp_min_": "(0.0)",
    "clip_": "(0.0, 1.0)",
    "copy_": "(x)",
    "cos_": "()",
    "div_": "(2.0)",
    "exp_": "()",
    "exponential_": "()",
    "fill_": "(0.0)",
    "fill_diagonal_": "(0.0)",
    "floor_": "()",
    "index_add_": "(0, torch.tensor([0]), x[:1])",
    "index_copy_": "(0, torch.tensor([0]), x[:1])",
    "index_fill_": "(0, torch.tensor([0]), 0.0)",
    "index_put_": "((torch.tensor([0]),), torch.tensor(1.0))",
    "lerp_": "(x, 0.5)",
    "log_": "()",
    "masked_fill_": "(x > 0, 0.0)",
    "masked_scatter_": "(x > 0, x)",
    "mul_": "(2.0)",
    "neg_": "()",
    "normal_": "()",
    "pow_": "(2)",
    "put_": "(torch.tensor([0]), torch.tensor([1.0]))",
    "random_": "()",
    "reciprocal_": "()",
    "relu_": "()",
    "renorm_": "(2, 0, 1.0)",
    "round_": "()",
    "scatter_": "(0, torch.zeros(1, 4, dtype=torch.long), 0.0)",
    "scatter_add_": "(0, torch.zeros(1, 4, dtype=torch.long), x[:1])",
    "scatter_reduce_": "(0, torch.zeros(1, 4, dtype=torch.long), x[:1], 'sum')",
    "sigmoid_": "()",
    "sign_": "()",
    "sin_": "()",
    "sqrt_": "()",
    "squeeze_": "()",
    "sub_": "(1.0)",
    "t_": "()",
    "tanh_": "()",
    "transpose_": "(0, 1)",
    "tril_": "()",
    "triu_": "()",
    "uniform_": "()",
    "unsqueeze_": "(0)",
    "zero_": "()",
}

# Functions that always write into their first argument -> remaining sample arguments
# (`INPLACE_FUNCTIONS`): derived from the generated data on first use. (Functions with an
# `inplace` flag: `knowledge.op(name).inplace_arg`.)

# In-place functions the generated witness calls do not fit -> sample arguments.
# Hand-written: no call of the generator's (x, one number) shape fits threshold_.
_INPLACE_FUNCTION_SAMPLES = {
    "torch.nn.functional.threshold_": ", 0.0, 0.0",  # takes two numbers; witnesses pass one
}


def _inplace_functions() -> dict[str, str]:
    found = dict(_INPLACE_FUNCTION_SAMPLES)
    for name in knowledge.names("call"):
        facts = knowledge.op(name)
        if facts is not None and facts.call is not None and knowledge.inplace_function(f"{name}_"):
            found[f"{name}_"] = facts.call
    return found


# Ops whose backward reads their *output* (editing the result in place breaks backward)
# and ops whose backward reads their *input* (saved when it requires grad), with the
# arguments after the input of a call torch ran on a (4, 4) tensor: derived from the
# generated data (gradlint/analysis/knowledge.py) on first use, see `__getattr__`.
#   SAVES_OUTPUT_FUNCTIONS: qualified function -> sample arguments after the input
#   SAVES_OUTPUT_METHODS: Tensor method -> sample arguments
#   SAVES_INPUT_FUNCTIONS, SAVES_INPUT_METHODS: the same for the input


def _saving(name: str, output: bool) -> str | None:
    facts = knowledge.op(name)
    if facts is None or facts.call is None or facts.returns_tuple:
        return None
    saves = facts.output_saved({0}) if output else 0 in facts.saved({0})
    return facts.call if saves else None


def _functions(output: bool) -> dict[str, str]:
    found = {}
    for name in knowledge.names("call"):
        if not name.startswith("torch.Tensor."):
            call = _saving(name, output)
            if call is not None:
                found[name] = call
    return found


def _methods(output: bool) -> dict[str, str]:
    found = {}
    for name in knowledge.names("call"):
        if name.startswith("torch.Tensor."):
            call = _saving(name, output)
            if call is not None:
                found[name.removeprefix("torch.Tensor.")] = f"({call.removeprefix(', ')})"
    return found


Row = dict[str, Any]  # one op's generated facts (knowledge.rows)
_NAMESPACES = frozenset({"torch", "torch.Tensor", "torch.nn.functional"})


@cache
def _spellings() -> dict[str, list[tuple[str, Row]]]:
    """Every Tensor method and `torch.<name>` / `torch.nn.functional.<name>` function
    (aliases included) with its facts, by bare name: the rules and the shape engine match
    methods and these functions by their last name."""
    found: dict[str, list[tuple[str, Row]]] = {}
    for name, row in knowledge.rows():
        namespace, _, bare = name.rpartition(".")
        if namespace in _NAMESPACES and not row.get("attribute"):  # `x.T` is never called
            found.setdefault(bare, []).append((namespace, row))
    return found


def _bare_names(holds: Callable[[Row], Any], methods: bool = False) -> frozenset[str]:
    """Bare names all of whose spellings satisfy `holds` (only those of a Tensor method
    when `methods`)."""
    return frozenset(
        bare
        for bare, spellings in _spellings().items()
        if all(holds(row) for _, row in spellings)
        and (not methods or any(namespace == "torch.Tensor" for namespace, _ in spellings))
    )


def _no_gradient() -> frozenset[str]:
    return _bare_names(lambda f: not f.get("differentiable") and f.get("integer_output"))


def _zero_gradient() -> frozenset[str]:
    return _bare_names(lambda f: f.get("differentiable") and f.get("zero_gradient"))


def _backward_raising() -> frozenset[str]:
    return _bare_names(lambda f: f.get("differentiable") and f.get("backward_raises"))


def _graph_keeping() -> frozenset[str]:
    def keeps(f: Row) -> bool:
        return f.get("differentiable") and not (f.get("zero_gradient") or f.get("backward_raises"))

    return _bare_names(keeps, methods=True) | _GRAPH_KEEPING_EXTRA


def _tensor_preserving() -> frozenset[str]:
    return (
        _bare_names(lambda f: f.get("differentiable") and not f.get("returns_tuple"), methods=True)
        | frozenset(knowledge.inplace_methods())
        | {"cuda"}  # needs a GPU: the op database runs on the CPU
    )


def _same_shape(f: Row) -> bool:
    return f.get("shape") == "elementwise" and not f.get("returns_tuple")


def _shape_preserving() -> frozenset[str]:
    def keeps(f: Row) -> bool:
        return _same_shape(f) and f.get("keeps_strides") and f.get("keeps_layout")

    return _bare_names(keeps) - knowledge.binary_methods() | _SHAPE_PRESERVING_EXTRA


def _layers(holds: Callable[[knowledge.LayerFacts], bool]) -> frozenset[str]:
    return frozenset(
        name.removeprefix("torch.nn.")
        for name in knowledge.layer_names()
        if holds(knowledge.layer(name))  # type: ignore[arg-type]
    )


def _windows(namespace: str, kinds: tuple[str, ...]) -> dict[str, tuple[str, int]]:
    return {
        name.removeprefix(namespace): window
        for name, window in knowledge.windows().items()
        if name.removeprefix(namespace).isidentifier() and window[0] in kinds
    }


_DERIVED: dict[str, Callable[[], Any]] = {
    "INPLACE_FUNCTIONS": _inplace_functions,
    "SAVES_OUTPUT_FUNCTIONS": lambda: _functions(output=True),
    "SAVES_OUTPUT_METHODS": lambda: _methods(output=True),
    "SAVES_INPUT_FUNCTIONS": lambda: _functions(output=False),
    "SAVES_INPUT_METHODS": lambda: _methods(output=False),
    # The capitalised names of `torch.nn` that are not nn.Module subclasses; every other
    # `torch.nn.<Capitalised>` constructor builds a module whose parameters register only
    # when it is assigned to a module attribute or kept in a module container.
    "NN_NON_MODULE_CLASSES": knowledge.nn_non_modules,
    # Ops whose result is an integer / bool tensor without history (argmax, eq, isnan,
    # long, nonzero, multinomial, ...): applied to a value carrying the graph, no
    # gradient gets through.
    "NO_GRADIENT_OPS": _no_gradient,
    # Ops whose gradient is zero almost everywhere (round, floor, ceil, sign, trunc, fix,
    # fill): backward runs, the parameters get zeros.
    "ZERO_GRADIENT_OPS": _zero_gradient,
    # Ops recording a graph whose backward raises "not implemented" (floor_divide,
    # heaviside, unique).
    "BACKWARD_RAISING_OPS": _backward_raising,
    # What no gradient gets through: the three above.
    "NON_DIFFERENTIABLE_OPS": lambda: _no_gradient() | _zero_gradient() | _backward_raising(),
    # Tensor methods whose result keeps the graph of their receiver (and arguments).
    "GRAPH_KEEPING_METHODS": _graph_keeping,
    # Tensor methods whose result is again a tensor that requires grad when the receiver
    # does: differentiable methods returning one tensor, and in-place methods (which
    # return their receiver).
    "TENSOR_PRESERVING_METHODS": _tensor_preserving,
    # Ops (tensor methods and torch / torch.nn.functional functions of one tensor) whose
    # result has the input's shape and memory layout (strides included).
    "SHAPE_PRESERVING_OPS": _shape_preserving,
    # Ops of one tensor whose result has the input's shape but a layout of its own.
    "SHAPE_KEEPING_OPS": lambda: _bare_names(_same_shape) - _shape_preserving(),
    # Elementwise ops of two operands: the result is the broadcast of both shapes, laid
    # out like the first operand of full rank (`max(other)` apart: a reduction given an
    # int).
    "SHAPE_BINARY_OPS": lambda: knowledge.binary_methods() - knowledge.reductions().keys(),
    # Ops of a tensor and a boolean mask (`masked_fill`): the result is the broadcast of
    # both shapes, with a layout of its own.
    "SHAPE_MASKED_OPS": knowledge.masked_methods,
    # Reductions over a `dim` argument (bare name -> where dim / keepdim sit), those
    # returning (values, indices) given a dim apart.
    "SHAPE_REDUCTIONS": lambda: {
        n: r for n, r in knowledge.reductions().items() if not r.values_indices
    },
    "SHAPE_VALUE_INDEX_REDUCTIONS": lambda: {
        n: r for n, r in knowledge.reductions().items() if r.values_indices
    },
    # nn layers whose output has the input's shape (its layout is not modelled).
    "SHAPE_PRESERVING_LAYERS": lambda: _layers(lambda layer: layer.keeps_shape),
    # Convolutions -> number of spatial dims (input is (N, C_in, *spatial)).
    "SHAPE_CONV_LAYERS": lambda: {n: w[1] for n, w in _windows("torch.nn.", ("conv",)).items()},
    # Pooling layers and functionals -> (kind, number of spatial dims): "window" pools take
    # (kernel_size, stride=kernel_size, padding=0, dilation=1), "adaptive" an output_size.
    "SHAPE_POOL_LAYERS": lambda: _windows("torch.nn.", ("window", "adaptive")),
    "SHAPE_POOL_FUNCTIONS": lambda: _windows("torch.nn.functional.", ("window", "adaptive")),
}


def __getattr__(name: str) -> Any:
    """The tables derived from the generated data, built on first use (a run over files
    that never reach them does not read the data)."""
    make = _DERIVED.get(name)
    if make is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    table = globals()[name] = make()
    return table


# Factories that make a fresh leaf (which requires grad when passed `requires_grad=True`).
# Hand-written: the op database has no samples of factories (nothing to differentiate).
TENSOR_FACTORIES = frozenset(
    {
        "torch.tensor",
        "torch.randn",
        "torch.rand",
        "torch.zeros",
        "torch.ones",
        "torch.empty",
        "torch.full",
        "torch.eye",
        "torch.arange",
        "torch.linspace",
        "torch.randn_like",
        "torch.rand_like",
        "torch.zeros_like",
        "torch.ones_like",
        "torch.empty_like",
        "torch.full_like",
    }
)

# ---------------------------------------------------------------------------------------
# Parameters, requires_grad and checkpointing (GL204, GL205, GL501, GL502:
# checks/api.py, checks/modules.py)
# ---------------------------------------------------------------------------------------

# Callables taking a `requires_grad=` keyword -> sample positional arguments. Each makes a
# leaf that requires grad when given `requires_grad=True`, and raises TypeError on a
# misspelled keyword such as `require_grad=True`. Hand-written: Python-level signatures
# (Parameter, Variable and the factories), which no op database describes.
REQUIRES_GRAD_KEYWORD_FUNCTIONS: dict[str, str] = {
    "torch.tensor": "[1.0]",
    "torch.randn": "3",
    "torch.rand": "3",
    "torch.zeros": "3",
    "torch.ones": "3",
    "torch.empty": "3",
    "torch.full": "(3,), 1.0",
    "torch.eye": "3",
    "torch.arange": "3.0",
    "torch.linspace": "0.0, 1.0, 3",
    "torch.logspace": "0.0, 1.0, 3",
    "torch.randn_like": "x",
    "torch.rand_like": "x",
    "torch.zeros_like": "x",
    "torch.ones_like": "x",
    "torch.empty_like": "x",
    "torch.full_like": "x, 1.0",
    "torch.nn.Parameter": "x",
    "torch.autograd.Variable": "x",
}

# Tensor methods taking a `requires_grad=` keyword -> sample arguments (hand-written: as
# above).
REQUIRES_GRAD_KEYWORD_METHODS: dict[str, str] = {
    "new_tensor": "[1.0]",
    "new_zeros": "3",
    "new_ones": "3",
    "new_empty": "3",
    "new_full": "(3,), 1.0",
    "requires_grad_": "",
}

# Constructors of a parameter (registered only when assigned to a module attribute).
# Hand-written: a Python class role, not an op.
PARAMETER_CONSTRUCTORS = frozenset({"torch.nn.Parameter", "torch.nn.UninitializedParameter"})

# Containers that register the modules / parameters they hold (hand-written: a Python
# class role, not an op).
MODULE_CONTAINERS = frozenset(
    {
        "torch.nn.ModuleList",
        "torch.nn.ModuleDict",
        "torch.nn.Sequential",
        "torch.nn.ParameterList",
        "torch.nn.ParameterDict",
    }
)

# Checkpoint functions: without `use_reentrant` they warn and run the reentrant variant,
# whose output does not require grad when no input does. -> sample arguments (`layer` and
# `layer2` are nn.Linear(4, 4), `x` a (4, 4) tensor that does not require grad).
# Hand-written: torch.utils functions, outside the op and module databases.
CHECKPOINT_FUNCTIONS: dict[str, str] = {
    "torch.utils.checkpoint.checkpoint": "layer, x",
    "torch.utils.checkpoint.checkpoint_sequential": "torch.nn.Sequential(layer, layer2), 2, x",
}


# ---------------------------------------------------------------------------------------
# Shape transfer (symbolic shape engine, gradlint/analysis/shapes/; tests/test_shapes.py)
# Each name is run in torch by the test on a transposed (non-contiguous) input to prove
# the result shape and the memory layout the engine assumes.
# ---------------------------------------------------------------------------------------

# Ops keeping shape and layout, as the engine calls them, that the generated data does
# not hold as elementwise (its samples use other overloads): `detach` is a view (shape
# family "view"), `requires_grad_` sets a flag, `to` / `type_as` take a tensor too,
# `clamp` / `clip` tensor bounds (a broadcast); with number bounds they keep both.
_SHAPE_PRESERVING_EXTRA = frozenset({"detach", "requires_grad_", "to", "type_as", "clamp", "clip"})


# Tensor factories whose sizes come as varargs, one tuple / list, or `size=`.
# Hand-written: how the engine reads sizes from source text (no op database samples).
SHAPE_SIZE_FACTORIES: frozenset[str] = frozenset({"randn", "rand", "zeros", "ones", "empty"})

# `*_like` factories: the argument's shape and layout (memory_format=preserve_format).
# Hand-written: the engine's factory path, which runs before the op tables.
SHAPE_LIKE_FACTORIES: frozenset[str] = frozenset(
    {"randn_like", "rand_like", "zeros_like", "ones_like", "empty_like", "full_like"}
)

# Legacy typed constructors: sizes when given ints, data when given a list.
# Hand-written: classes, outside the op database.
SHAPE_LEGACY_CONSTRUCTORS: frozenset[str] = frozenset(
    {"Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"}
)

# Loss functions (torch.nn.functional names) -> shape of the unreduced loss:
# "input" = broadcast(input, target); "target" = the target's shape (class-index losses).
# Hand-written: which losses the engine models (their shapes under each `reduction=` are
# run in torch by tests/test_shapes.py).
SHAPE_LOSSES: dict[str, str] = {
    "mse_loss": "input", "l1_loss": "input", "smooth_l1_loss": "input",
    "huber_loss": "input", "binary_cross_entropy": "input",
    "binary_cross_entropy_with_logits": "input", "kl_div": "input",
    "soft_margin_loss": "input", "cross_entropy": "target", "nll_loss": "target",
}  # fmt: skip

# nn loss modules -> their functional form (hand-written: a naming pairing, not a fact
# torch computes).
SHAPE_LOSS_MODULES: dict[str, str] = {
    "MSELoss": "mse_loss", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss",
    "HuberLoss": "huber_loss", "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits", "KLDivLoss": "kl_div",
    "SoftMarginLoss": "soft_margin_loss", "CrossEntropyLoss": "cross_entropy",
    "NLLLoss": "nll_loss",
}  # fmt: skip

# nn layers (of SHAPE_PRESERVING_LAYERS) by the memory layout of their output, checked in
# torch 2.13 on a channels-last and on a transposed input (tests/test_shapes.py): the
# elementwise ones keep any layout; SHAPE_CHANNELS_LAST_LAYERS keep a channels-last one
# (as convolutions and pools do) and are contiguous otherwise; SHAPE_CONTIGUOUS_LAYERS
# are always contiguous; for the others no layout is claimed.
SHAPE_LAYOUT_KEEPING_LAYERS: frozenset[str] = frozenset(
    {
        "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "GELU", "SiLU", "Mish", "Sigmoid",
        "Tanh", "Softplus", "Hardtanh", "Dropout", "Identity", "Dropout2d", "AlphaDropout",
    }
)  # fmt: skip
SHAPE_CHANNELS_LAST_LAYERS: frozenset[str] = frozenset(
    {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm"}
)
SHAPE_CONTIGUOUS_LAYERS: frozenset[str] = frozenset(
    {"Softmax", "LogSoftmax", "LayerNorm", "InstanceNorm1d", "InstanceNorm2d"}
)

# Tensor methods numpy arrays do not have: calling one shows the receiver is a tensor
# (of unknown shape when nothing else is known about it). Hand-written: a comparison with
# numpy, which the analysis does not import either.
SHAPE_TENSOR_ONLY_METHODS: frozenset[str] = frozenset(
    {"topk", "t", "permute", "unsqueeze", "contiguous", "masked_fill", "eq", "expand_as"}
)


# ---------------------------------------------------------------------------------------
# Graph cuts and training loops (GL201-GL203, GL305, GL503, GL504: checks/flow.py,
# checks/training.py; proven by tests/test_flow_rules.py)
# ---------------------------------------------------------------------------------------

# Tensor methods whose result leaves autograd's graph -> the rule that reports it. Run on
# a tensor that requires grad, each returns a Python value or a tensor without grad_fn.
# Hand-written: which rule reports each is the analysis' choice, and item / tolist / numpy
# return no tensor (no op database entry).
GRAPH_CUT_METHODS: dict[str, str] = {
    "detach": "GL202",
    "item": "GL201",
    "tolist": "GL201",
    "numpy": "GL201",  # on `t.detach()`: the array no longer knows the graph
}

# Callables that build a new tensor from their argument's values -> sample call on `t`
# (a tensor computed from a parameter). The result has no grad_fn: the graph is cut.
# Hand-written: constructors copying Python data, which no op database describes.
GRAPH_CUT_FUNCTIONS: dict[str, str] = {
    "torch.tensor": "torch.tensor(t.tolist())",
    "torch.Tensor": "torch.Tensor(t.tolist())",
    "torch.FloatTensor": "torch.FloatTensor(t.tolist())",
    "torch.from_numpy": "torch.from_numpy(t.detach().numpy())",
    "torch.autograd.Variable": "torch.autograd.Variable(t)",
}

# Graph-keeping methods the generated data cannot hold: `cuda` needs a GPU (the op
# database runs on the CPU); `scale` / `unscale_` are GradScaler methods, not ops.
_GRAPH_KEEPING_EXTRA = frozenset({"cuda", "scale", "unscale_"})

# Tensor metadata reads and methods: no graph, no data (shapes, dtypes, devices, ...).
# Hand-written: attributes and methods returning no tensor, not ops.
TENSOR_METADATA: frozenset[str] = frozenset(
    {"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "grad", "grad_fn"}
    | {"size", "dim", "numel", "nelement", "stride", "data_ptr", "element_size"}
)

# torch functions creating fresh tensors that carry no graph (hand-written: factories, as
# TENSOR_FACTORIES).
FRESH_TENSOR_FACTORIES: frozenset[str] = frozenset(
    {"zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "linspace", "eye"}
    | {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like"}
)
