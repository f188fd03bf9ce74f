"""What torch does, as data: each table is proven entry by entry in real torch by
`tests/test_torch_ops.py`. Static analysis never imports torch; it reads these tables.

The tables of what autograd saves and of in-place functions are derived from the data
`tools/gen_torch_knowledge.py` generates from torch itself (gradlint/analysis/knowledge.py),
on first use; which methods edit in place, which functions and layers take an `inplace`
flag, which ops return views, save tensors or keep the layout: the analysis asks that data
directly. What stays hand-written here, and why torch is not asked for it:
- sample arguments for witness programs (INPLACE_TENSOR_METHODS, _INPLACE_FUNCTION_SAMPLES,
  CHECKPOINT_FUNCTIONS, ...): a witness is source text, and torch's op database gives
  its samples as tensor objects (index tensors, masks) with no spelling;
- Python-level roles that are not ops and that no op database describes: module
  containers, parameter constructors, checkpoint functions, factories that make a fresh
  leaf, methods whose result leaves the graph (`item`, `tolist`, `numpy`), metadata reads;
- the shape engine's families (SHAPE_*): what the engine models per name. The generated
  data has a shape family per op, but the engine's families are narrower (layout, dim
  argument positions) and are each proven in torch by tests/test_shapes.py;
- DIFFERENTIABLE_*, NO_GRADIENT_OPS, ZERO_GRADIENT_OPS: torch could be asked (the
  generated `differentiable` facts, dtype of results) and these are not derived yet:
  each entry is proven in torch by the tests, so a change stays visible.

Sample strings are the argument lists (or constructor arguments) the test uses to run an
entry; `x` stands for a float tensor of shape (4, 4).
"""

from __future__ import annotations

from gradlint.analysis import knowledge

# ---------------------------------------------------------------------------------------
# In-place edits and what autograd saves for backward (rule family GL1xx, checks/inplace.py)
# ---------------------------------------------------------------------------------------

# Tensor methods that write into their receiver -> sample arguments.
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


_DERIVED = {
    "INPLACE_FUNCTIONS": _inplace_functions,
    "SAVES_OUTPUT_FUNCTIONS": lambda: _functions(output=True),
    "SAVES_OUTPUT_METHODS": lambda: _methods(output=True),
    "SAVES_INPUT_FUNCTIONS": lambda: _functions(output=False),
    "SAVES_INPUT_METHODS": lambda: _methods(output=False),
    # The capitalised names of `torch.nn` that are not nn.Module subclasses; every other
    # `torch.nn.<Capitalised>` constructor builds a module whose parameters register only
    # when it is assigned to a module attribute or kept in a module container.
    "NN_NON_MODULE_CLASSES": knowledge.nn_non_modules,
}


def __getattr__(name: str) -> dict | frozenset:
    """The tables derived from the generated data, built on first use (a run over files
    that never reach them does not read the data)."""
    make = _DERIVED.get(name)
    if make is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    table = globals()[name] = make()
    return table


# Factories that make a fresh leaf (which requires grad when passed `requires_grad=True`).
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
# misspelled keyword such as `require_grad=True`.
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

# Tensor methods taking a `requires_grad=` keyword -> sample arguments.
REQUIRES_GRAD_KEYWORD_METHODS: dict[str, str] = {
    "new_tensor": "[1.0]",
    "new_zeros": "3",
    "new_ones": "3",
    "new_empty": "3",
    "new_full": "(3,), 1.0",
    "requires_grad_": "",
}

# Constructors of a parameter (registered only when assigned to a module attribute).
PARAMETER_CONSTRUCTORS = frozenset({"torch.nn.Parameter", "torch.nn.UninitializedParameter"})

# Containers that register the modules / parameters they hold.
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
CHECKPOINT_FUNCTIONS: dict[str, str] = {
    "torch.utils.checkpoint.checkpoint": "layer, x",
    "torch.utils.checkpoint.checkpoint_sequential": "torch.nn.Sequential(layer, layer2), 2, x",
}

# Differentiable ops: applied to a float tensor that requires grad, the result has a
# grad_fn (a non-leaf, whose requires_grad flag cannot be set). Operators need no table
# (`+ - * / @ **` and unary `-` always record).
# `torch.<name>(x, ...)` functions -> sample arguments after the input, or
# None for the functions taking a sequence of tensors (`torch.cat([x, x])`).
DIFFERENTIABLE_FUNCTIONS: dict[str, str | None] = {
    "torch.abs": "",
    "torch.cat": None,
    "torch.exp": "",
    "torch.log": "",
    "torch.matmul": ", x",
    "torch.mean": "",
    "torch.mm": ", x",
    "torch.relu": "",
    "torch.sigmoid": "",
    "torch.softmax": ", 0",
    "torch.stack": None,
    "torch.sum": "",
    "torch.tanh": "",
    "torch.nn.functional.linear": ", x",
    "torch.nn.functional.relu": "",
    "torch.nn.functional.softmax": ", dim=0",
}


# ---------------------------------------------------------------------------------------
# Shape transfer (symbolic shape engine, gradlint/analysis/shapes/; tests/test_shapes.py)
# Each name is run in torch by the test on a transposed (non-contiguous) input to prove
# the result shape and the memory layout the engine assumes.
# ---------------------------------------------------------------------------------------

# Ops (tensor methods and torch / torch.nn.functional functions of one tensor) whose
# result has the input's shape and memory layout.
SHAPE_PRESERVING_OPS: frozenset[str] = frozenset(
    {
        "abs", "acos", "asin", "atan", "bfloat16", "bool", "byte", "ceil", "char", "clamp",
        "clamp_max", "clamp_min", "clip", "clone", "cos", "cosh", "cpu", "detach", "double",
        "dropout", "elu", "erf", "exp", "expm1", "float", "floor", "frac", "gelu", "half",
        "hardtanh", "int", "leaky_relu", "log", "log10", "log1p", "log2", "long", "mish",
        "neg", "reciprocal", "relu", "relu6", "requires_grad_", "round", "rsqrt", "selu",
        "short", "sigmoid", "sign", "silu", "sin", "sinh", "softplus", "sqrt", "square",
        "tan", "tanh", "to", "trunc", "type", "type_as", "nan_to_num",
    }
)  # fmt: skip

# Ops of one tensor whose result has the input's shape but a layout of its own.
SHAPE_KEEPING_OPS: frozenset[str] = frozenset(
    {"softmax", "log_softmax", "logsigmoid", "cumsum", "cumprod", "normalize"}
)

# Elementwise ops of two operands: the result is the broadcast of both shapes, laid out
# like the first operand of full rank.
SHAPE_BINARY_OPS: frozenset[str] = frozenset(
    {
        "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod",
        "pow", "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "atan2",
        "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    }
)  # fmt: skip

# Reductions -> index of the `dim` argument among the positional arguments after the
# tensor (`x.norm(p, dim)` takes p first).
SHAPE_REDUCTIONS: dict[str, int] = {
    "sum": 0, "mean": 0, "prod": 0, "amax": 0, "amin": 0, "logsumexp": 0, "std": 0,
    "var": 0, "norm": 1, "nansum": 0, "nanmean": 0, "all": 0, "any": 0,
    "argmax": 0, "argmin": 0, "count_nonzero": 0,
}  # fmt: skip

# Reductions that return (values, indices) when given a dim, a scalar without one.
SHAPE_VALUE_INDEX_REDUCTIONS: frozenset[str] = frozenset({"max", "min", "median", "mode"})

# Tensor factories whose sizes come as varargs, one tuple / list, or `size=`.
SHAPE_SIZE_FACTORIES: frozenset[str] = frozenset({"randn", "rand", "zeros", "ones", "empty"})

# `*_like` factories: the argument's shape and layout (memory_format=preserve_format).
SHAPE_LIKE_FACTORIES: frozenset[str] = frozenset(
    {"randn_like", "rand_like", "zeros_like", "ones_like", "empty_like", "full_like"}
)

# Legacy typed constructors: sizes when given ints, data when given a list.
SHAPE_LEGACY_CONSTRUCTORS: frozenset[str] = frozenset(
    {"Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"}
)

# Loss functions (torch.nn.functional names) -> shape of the unreduced loss:
# "input" = broadcast(input, target); "target" = the target's shape (class-index losses).
SHAPE_LOSSES: dict[str, str] = {
    "mse_loss": "input", "l1_loss": "input", "smooth_l1_loss": "input",
    "huber_loss": "input", "binary_cross_entropy": "input",
    "binary_cross_entropy_with_logits": "input", "kl_div": "input",
    "soft_margin_loss": "input", "cross_entropy": "target", "nll_loss": "target",
}  # fmt: skip

# nn loss modules -> their functional form.
SHAPE_LOSS_MODULES: dict[str, str] = {
    "MSELoss": "mse_loss", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss",
    "HuberLoss": "huber_loss", "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits", "KLDivLoss": "kl_div",
    "SoftMarginLoss": "soft_margin_loss", "CrossEntropyLoss": "cross_entropy",
    "NLLLoss": "nll_loss",
}  # fmt: skip

# nn layers whose output has the input's shape (its layout is not modelled).
SHAPE_PRESERVING_LAYERS: frozenset[str] = frozenset(
    {
        "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "GELU", "SiLU", "Mish", "Sigmoid",
        "Tanh", "Softmax", "LogSoftmax", "Softplus", "Hardtanh", "Dropout", "Identity",
        "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
        "InstanceNorm1d", "InstanceNorm2d", "Dropout2d", "AlphaDropout",
    }
)  # fmt: skip

# Convolutions -> number of spatial dims (input is (N, C_in, *spatial)).
SHAPE_CONV_LAYERS: dict[str, int] = {"Conv1d": 1, "Conv2d": 2, "Conv3d": 3}

# Pooling layers and functionals -> (kind, number of spatial dims): "window" pools take
# (kernel_size, stride=kernel_size, padding=0, dilation=1), "adaptive" an output_size.
SHAPE_POOL_LAYERS: dict[str, tuple[str, int]] = {
    "MaxPool1d": ("window", 1), "MaxPool2d": ("window", 2), "MaxPool3d": ("window", 3),
    "AvgPool1d": ("window", 1), "AvgPool2d": ("window", 2), "AvgPool3d": ("window", 3),
    "AdaptiveAvgPool1d": ("adaptive", 1), "AdaptiveAvgPool2d": ("adaptive", 2),
    "AdaptiveAvgPool3d": ("adaptive", 3), "AdaptiveMaxPool1d": ("adaptive", 1),
    "AdaptiveMaxPool2d": ("adaptive", 2), "AdaptiveMaxPool3d": ("adaptive", 3),
}  # fmt: skip
SHAPE_POOL_FUNCTIONS: dict[str, tuple[str, int]] = {
    "max_pool1d": ("window", 1), "max_pool2d": ("window", 2), "max_pool3d": ("window", 3),
    "avg_pool1d": ("window", 1), "avg_pool2d": ("window", 2), "avg_pool3d": ("window", 3),
    "adaptive_avg_pool1d": ("adaptive", 1), "adaptive_avg_pool2d": ("adaptive", 2),
    "adaptive_avg_pool3d": ("adaptive", 3), "adaptive_max_pool1d": ("adaptive", 1),
    "adaptive_max_pool2d": ("adaptive", 2), "adaptive_max_pool3d": ("adaptive", 3),
}  # fmt: skip

# Tensor methods whose result is again a tensor that requires grad when the receiver does
# (device / dtype moves, in-place initialisers, shape changes) -> sample arguments, or
# None for `cuda`, which needs a GPU (checked to be a Tensor method only).
TENSOR_PRESERVING_METHODS: dict[str, str | None] = {
    "to": "(torch.float32)",
    "cpu": "()",
    "cuda": None,
    "float": "()",
    "double": "()",
    "half": "()",
    "clone": "()",
    "contiguous": "()",
    "view": "(16)",
    "reshape": "(16)",
    "unsqueeze": "(0)",
    "expand": "(2, 4, 4)",
    "repeat": "(2, 1)",
    "t": "()",
    "normal_": "()",
    "uniform_": "()",
    "fill_": "(0.0)",
    "zero_": "()",
    "mul_": "(2.0)",
    "add_": "(1.0)",
}

# Tensor methods numpy arrays do not have: calling one shows the receiver is a tensor
# (of unknown shape when nothing else is known about it).
SHAPE_TENSOR_ONLY_METHODS: frozenset[str] = frozenset(
    {"topk", "t", "permute", "unsqueeze", "contiguous", "masked_fill", "eq", "expand_as"}
)


# ---------------------------------------------------------------------------------------
# Graph cuts and training loops (GL201-GL203, GL305, GL503, GL504: checks/flow.py,
# checks/training.py; proven by tests/test_flow_rules.py)
# ---------------------------------------------------------------------------------------

# Tensor methods whose result leaves autograd's graph -> the rule that reports it. Run on
# a tensor that requires grad, each returns a Python value or a tensor without grad_fn.
GRAPH_CUT_METHODS: dict[str, str] = {
    "detach": "GL202",
    "item": "GL201",
    "tolist": "GL201",
    "numpy": "GL201",  # on `t.detach()`: the array no longer knows the graph
}

# Callables that build a new tensor from their argument's values -> sample call on `t`
# (a tensor computed from a parameter). The result has no grad_fn: the graph is cut.
GRAPH_CUT_FUNCTIONS: dict[str, str] = {
    "torch.tensor": "torch.tensor(t.tolist())",
    "torch.Tensor": "torch.Tensor(t.tolist())",
    "torch.FloatTensor": "torch.FloatTensor(t.tolist())",
    "torch.from_numpy": "torch.from_numpy(t.detach().numpy())",
    "torch.autograd.Variable": "torch.autograd.Variable(t)",
}

# Ops with no gradient: their result does not require grad (integer / boolean results)
# -> sample call on `t`.
NO_GRADIENT_OPS: dict[str, str] = {
    "argmax": "t.argmax()",
    "argmin": "t.argmin()",
    "eq": "t.eq(0)",
    "ne": "t.ne(0)",
    "gt": "t.gt(0)",
    "lt": "t.lt(0)",
    "ge": "t.ge(0)",
    "le": "t.le(0)",
    "greater": "t.greater(0)",
    "less": "t.less(0)",
    "isclose": "t.isclose(t)",
    "signbit": "t.signbit()",
    "long": "t.long()",
    "int": "t.int()",
    "bool": "t.bool()",
    "byte": "t.byte()",
    "short": "t.short()",
    "char": "t.char()",
}

# Ops whose gradient is zero almost everywhere: backward runs, parameters get zeros.
ZERO_GRADIENT_OPS: frozenset[str] = frozenset({"round", "floor", "ceil", "sign", "trunc"})

# Tensor methods whose result keeps the graph of their receiver (and arguments) ->
# sample arguments; `scale` / `unscale_` are GradScaler methods and are not run.
GRAPH_KEEPING_METHODS: dict[str, str | None] = {
    "to": "(torch.float64)", "cpu": "()", "float": "()", "double": "()", "half": "()",
    "bfloat16": "()", "type": "(torch.float64)", "type_as": "(t)", "view": "(-1)",
    "view_as": "(t)", "reshape": "(-1)", "reshape_as": "(t)", "flatten": "()",
    "squeeze": "()", "unsqueeze": "(0)", "permute": "(1, 0)", "transpose": "(0, 1)",
    "t": "()", "contiguous": "()", "expand": "(2, 2, 3)", "expand_as": "(t)",
    "repeat": "(2, 1)", "clone": "()", "sum": "()", "mean": "()", "max": "()",
    "min": "()", "prod": "()", "norm": "()", "pow": "(2)", "exp": "()", "log": "()",
    "abs": "()", "sqrt": "()", "sigmoid": "()", "tanh": "()", "relu": "()",
    "softmax": "(-1)", "log_softmax": "(-1)", "clamp": "(0, 1)", "mul": "(t)",
    "add": "(t)", "sub": "(t)", "div": "(2)", "matmul": "(t.t())", "mm": "(t.t())",
    "masked_fill": "(t > 0, 0.0)", "gather": "(1, torch.zeros(2, 1, dtype=torch.long))",
    "index_select": "(0, torch.tensor([0]))", "split": "(1)", "chunk": "(2)",
    "cuda": None, "bmm": None, "scale": None, "unscale_": None,
}  # fmt: skip

# Tensor metadata reads and methods: no graph, no data (shapes, dtypes, devices, ...).
TENSOR_METADATA: frozenset[str] = frozenset(
    {"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "grad", "grad_fn"}
    | {"size", "dim", "numel", "nelement", "stride", "data_ptr", "element_size"}
)

# torch functions creating fresh tensors that carry no graph.
FRESH_TENSOR_FACTORIES: frozenset[str] = frozenset(
    {"zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "linspace", "eye"}
    | {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like"}
)
