"""Graph cuts: where a value leaves the graph of the parameters (GL201-GL203).

A value computed from a tensor that carries the parameters' graph (a module's output, a
parameter, anything computed from them) leaves that graph through a conversion to a
Python number or a new tensor (`.item()`, `float(t)`, `torch.tensor(t.tolist())`:
GL201), a detach (`.detach()`, `.data`, computing it under `no_grad`: GL202) or an op
torch gives no gradient (`argmax`, comparisons, integer casts, `round` / `sign` whose
gradient is zero: GL203). The result records that `Cut`; what is computed from it keeps
the cut as long as nothing else brings the graph back: any input carrying the graph (the
straight-through `x + (y - x).detach()`), or unknown, drops it. A `forward()` argument
brings no graph of the parameters seen here. `dropped` records a cut additive term of a
value that does carry the graph (`loss = ce + penalty_from_argmax`): it is kept through
sums, means, negation and scaling by what carries no graph.

Each cut is made without a node; `placed` gives it the expression the interpreter was
evaluating when it was made.
"""

from __future__ import annotations

import libcst as cst

from gradlint.analysis import torch_ops as ops
from gradlint.analysis.dataflow import graphs
from gradlint.analysis.dataflow.values import (
    Const,
    Cut,
    Grad,
    Mapping,
    Number,
    Seq,
    Size,
    Tensor,
    replace,
)

_LINEAR_TERMS = frozenset({"add", "sub", "subtract", "rsub"})
_KEEPS_TERMS = frozenset({"sum", "mean", "neg", "negative", "nansum", "nanmean"})
_SCALES = frozenset({"mul", "multiply", "div", "divide", "true_divide"})


def carries(value) -> bool:
    """`value` is proven to carry the parameters' graph (not only through a cut)."""
    return isinstance(value, Tensor) and value.cut is None and value.grad in (Grad.ON, Grad.LEAF)


def _flat(values):
    for value in values:
        if isinstance(value, Seq):
            yield from _flat(value.items)
        elif isinstance(value, Mapping):
            yield from _flat(v for _, v in value.items)
        else:
            yield value


def _neutral(value) -> bool:
    """Proven to bring no graph of the parameters: data, a number, a forward() argument."""
    if isinstance(value, Tensor):
        return value.grad is Grad.OFF or value.forward_input is not None
    if isinstance(value, Number):
        return value.data
    return value is not None


def _plain_number(value) -> bool:
    """A Python number: a Number that is no array, an int or float literal, a size."""
    if isinstance(value, Number):
        return not value.array
    if isinstance(value, Const):
        marker = getattr(value.value, "name", "")  # the interpreter's AN_INT
        return type(value.value) in (int, float, bool) or marker == "an int"
    return isinstance(value, Size)


def inherited(inputs) -> Cut | None:
    """The cut of a value computed from `inputs`: their first cut, when no input carries
    the parameters' graph or is unknown."""
    found = None
    for value in _flat(inputs):
        cut = value.cut if isinstance(value, Tensor | Number) else None
        if cut is not None:
            found = found or cut
        elif not _neutral(value):
            return None
    return found


def cut(code: str, how: str, inputs, integer: bool = False) -> Cut | None:
    """The cut of what an op leaving the graph (`code`, `how`) makes of `inputs`;
    `integer`: the op returns indices or a mask."""
    values = list(_flat(inputs))
    carriers = [v for v in values if carries(v)]
    if carriers:
        graph = graphs.record("", (v.graph for v in carriers), ())
        return Cut(code, how, integer=integer, graph=graph)
    source = inherited(values)
    if source is not None and code == "GL201" and source.code == "GL202":
        return Cut(code, how)  # `t.detach().numpy()`: the conversion is the cut
    return source


def number(how: str, inputs, array: bool = False) -> Number:
    """A Python number read out of `inputs` (`t.item()`, `float(t)`); `array`: or an array
    or list of them (`t.numpy()`, `t.tolist()`, a numpy function's result)."""
    found = cut("GL201", how, inputs)
    data = found is None and all(_neutral(v) for v in _flat(inputs))
    return Number(found, data=data, array=array)


def arithmetic(operator: cst.BaseBinaryOp | cst.BaseAugOp, left, right):
    """`left <op> right` where neither is a tensor: a Number when one is, None if not.
    A number scaled by an unknown factor (`t.item() * reward`) stays cut: whatever the
    factor is, the parameters' graph is not in the number."""
    if not isinstance(left, Number) and not isinstance(right, Number):
        return None
    known = inherited([left, right])
    # with an operand not proven a number (a tensor, an array, a string at run time) the
    # result may be one too: `unknown * n`, `"-" * n`
    array = not all(_plain_number(v) for v in (left, right))
    if known is None and all(_neutral(v) for v in (left, right)):
        return Number(data=True, array=array)
    scales = cst.Multiply | cst.Divide | cst.MultiplyAssign | cst.DivideAssign
    if known is None and isinstance(operator, scales):
        known = next(v.cut for v in (left, right) if isinstance(v, Number))
    return Number(known, array=array)


def after_op(result, facts, inputs, grad_mode: bool | None):
    """The cut facts of an op's result: a non-differentiable op (torch's own facts) or one
    whose gradient is zero cuts; an op under `no_grad` cuts what carried the graph; other
    ops keep the cut of their inputs, and the terms dropped from a sum."""
    if not isinstance(result, Tensor):
        return result
    name = facts.name.rpartition(".")[2] if facts is not None else ""
    if grad_mode is False and any(carries(v) for v in inputs):
        found = Cut("GL202", "computing it under `torch.no_grad()`")
    elif facts is not None and _non_differentiable(facts, name):
        values_kept = name in ops.ZERO_GRADIENT_OPS or name in ops.BACKWARD_RAISING_OPS
        found = cut("GL203", f"`{name}`", inputs, integer=not values_kept)
    else:
        found = inherited(inputs)
    return replace(result, cut=found, dropped=_dropped(name, inputs, result))


def _non_differentiable(facts, name: str) -> bool:
    fresh = name.endswith("_like") or name.startswith("new_") or name in ops.FRESH_TENSOR_FACTORIES
    return name in ops.NON_DIFFERENTIABLE_OPS or (not facts.differentiable and not fresh)


def _dropped(name: str, inputs, result: Tensor) -> Cut | None:
    """An additive term of `result` cut from the graph that the rest of it carries."""
    if not carries(result) and result.grad is not Grad.UNKNOWN:
        return None
    terms = [v for v in inputs if isinstance(v, Tensor | Number)]
    kept = next((v.dropped for v in terms if isinstance(v, Tensor) and v.dropped), None)
    if name in _LINEAR_TERMS:
        cut_term = next((v.cut for v in terms if v.cut is not None), None)
        if cut_term is not None and any(carries(v) or _carries_terms(v) for v in terms):
            return cut_term
        return kept
    if name in _KEEPS_TERMS:
        return kept
    if name in _SCALES and kept is not None:
        scaled = [v for v in inputs if not (isinstance(v, Tensor) and v.dropped)]
        return kept if all(_neutral(v) for v in scaled) else None
    return None


def _carries_terms(value) -> bool:
    return isinstance(value, Tensor) and value.dropped is not None


def placed(value, node: cst.CSTNode):
    """`value` with the cuts made while evaluating `node` placed at it."""
    if isinstance(value, Tensor):
        if value.cut is not None and value.cut.node is None:
            value = replace(value, cut=replace(value.cut, node=node))
        if value.dropped is not None and value.dropped.node is None:
            value = replace(value, dropped=replace(value.dropped, node=node))
        return value
    if isinstance(value, Number) and value.cut is not None and value.cut.node is None:
        return replace(value, cut=replace(value.cut, node=node))
    if isinstance(value, Seq) and not value.any_length and len(value.items) == 2:
        items = tuple(placed(item, node) for item in value.items)  # (values, indices)
        return Seq(items) if items != value.items else value
    return value
