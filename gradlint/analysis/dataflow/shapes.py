"""Shapes and memory layouts of the interpreter's tensors, and the conflicts torch raises.

The interpreter (interpreter/) asks `ShapeFlow.refine` about every expression it has
evaluated, with the values of its parts: a tensor gets its symbolic shape (the algebra
is analysis/shapes/model.py), `x.shape` / `x.size(i)` give dims (`Const` ints or `Size`
symbols), a layer built by `nn.Linear(...)` gets its shape transfer. Operations whose
known shapes cannot fit are recorded as `ShapeConflict` events (GL301/302, GL401-404).
Unknown stays unknown: every transfer answers None unless the result is proven.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from gradlint.analysis import knowledge, torch_ops
from gradlint.analysis.context import literal_value
from gradlint.analysis.dataflow.events import ShapeConflict as Conflict
from gradlint.analysis.dataflow.values import (
    Const,
    Grad,
    Obj,
    Seq,
    Size,
    Tensor,
    new_storage,
    replace,
)
from gradlint.analysis.names import ImportTable, dotted
from gradlint.analysis.shapes import model
from gradlint.analysis.shapes.model import Dim, Prod, Shape, Sym
from gradlint.analysis.walk import iter_nodes

BATCH = Sym("batch")
_RESHAPES = frozenset({"view", "reshape"})
_JAXTYPING_KINDS = frozenset(
    {"Float", "Int", "Bool", "Shaped", "Real", "Num", "Integer", "Inexact", "Complex", "UInt"}
)
_ABSENT = object()  # a slice bound that was not written


@dataclass(frozen=True)
class Layer:
    """An nn layer object: `kind` in linear / embedding / conv / same / flatten / loss."""

    kind: str
    args: tuple = ()


Value = Any  # what the transfer functions read: Shape | int | Sym | Prod | tuple | str | None


def as_dim(value: Value) -> Dim | None:
    if isinstance(value, bool):
        return None
    return value if isinstance(value, int | Sym | Prod) else None


def literal_int(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(literal_value(expr))
    if (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, cst.Integer)
    ):
        return -int(literal_value(expr.expression))
    return None


def literal_str(expr: cst.BaseExpression | None) -> str | None:
    if isinstance(expr, cst.SimpleString):
        value = literal_value(expr)
        return value if isinstance(value, str) else None
    return None


def _literal_bool(expr: cst.BaseExpression | None) -> bool | None:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


@dataclass
class Args:
    """A call's arguments with their evaluated values."""

    positional: list[tuple[cst.BaseExpression, Value]]
    keywords: dict[str, tuple[cst.BaseExpression, Value]]
    complete: bool  # False when a `*args` / `**kwargs` could not be expanded

    def get(self, index: int | None, name: str | None = None) -> Value:
        if name is not None and name in self.keywords:
            return self.keywords[name][1]
        if index is not None and index < len(self.positional):
            return self.positional[index][1]
        return None

    def expr(self, index: int | None, name: str | None = None) -> cst.BaseExpression | None:
        if name is not None and name in self.keywords:
            return self.keywords[name][0]
        if index is not None and index < len(self.positional):
            return self.positional[index][0]
        return None

    def has(self, index: int | None, name: str | None = None) -> bool:
        return self.expr(index, name) is not None or not self.complete

    def shifted(self) -> Args:
        """The arguments after the first (the tensor of `torch.f(x, ...)`)."""
        return Args(self.positional[1:], self.keywords, self.complete)


_MISSING = object()  # a part the interpreter did not evaluate this time

Part = Callable[[cst.CSTNode], Any]  # the value of a sub-expression just evaluated


@dataclass(frozen=True)
class Pieces:
    """The shapes of the views chunk / split / unbind return (`any_length`: all alike)."""

    shapes: tuple[Shape, ...]
    any_length: bool = False


def shape_value(value) -> Value:
    """What the transfer functions read of an interpreter value."""
    if isinstance(value, Tensor):
        return value.shape
    if isinstance(value, Const):
        inner = value.value
        return inner if isinstance(inner, int | str) and not isinstance(inner, bool) else None
    if isinstance(value, Size):
        return value.dim
    if isinstance(value, Seq) and not value.any_length:
        return tuple(shape_value(item) for item in value.items)
    return None


def as_value(dims) -> Const | Size | Seq | None:
    """A dim (or a tuple of dims) as an interpreter value."""
    if isinstance(dims, bool):
        return None
    if isinstance(dims, int):
        return Const(dims)
    if isinstance(dims, Sym | Prod):
        return Size(dims)
    if isinstance(dims, tuple):
        return Seq(tuple(as_value(d) for d in dims))
    return None


def _with_shape(value, shape: Shape):
    return replace(value, shape=shape) if isinstance(value, Tensor) else value


def _tensor_with(value, shape: Shape):
    if isinstance(value, Tensor):
        return replace(value, shape=shape)
    return Tensor(new_storage(), Grad.UNKNOWN, shape=shape)


def shapes_differ(a: Shape, b: Shape) -> bool:
    """torch's `_make_grads` demands the gradient's shape to equal the output's exactly."""
    if a.dims is None or b.dims is None:
        return False
    if len(a.dims) != len(b.dims):
        return True
    return any(model.provably_different(x, y) for x, y in zip(a.dims, b.dims, strict=True))


def _batch_of_losses(shape: Shape) -> bool:
    """One loss per element (`reduction='none'`), of rank 1 at least: a batch's losses."""
    return shape.unreduced and (bool(shape.dims) or shape.min_rank >= 1)


def provably_not_scalar(shape: Shape) -> bool:
    """numel() != 1 for sure: some dim is an integer (or a multiple) greater than 1."""
    if shape.dims is None:
        return False
    for dim in shape.dims:
        coefficient = dim if isinstance(dim, int) else getattr(dim, "coef", 1)
        if coefficient > 1:
            return True
    return False


def module_constants(module: cst.Module) -> dict[str, int]:
    """`NAME = <int>` assignments at module level (the last one; gone if rebound)."""
    constants: dict[str, int] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                value = literal_int(small.value)
                name = small.targets[0].target.value
                if value is not None:
                    constants[name] = value
                else:
                    constants.pop(name, None)
    return constants


# The expression types whose values `ShapeFlow.refine` may change (exact types: libcst's
# node classes have no subclasses): a type refine learns must be added here.
REFINED = frozenset(
    {
        cst.Call,
        cst.Attribute,
        cst.Subscript,
        cst.BinaryOperation,
        cst.UnaryOperation,
        cst.Comparison,
        cst.Integer,
    }
)


class ShapeFlow:
    """The shape part of the interpreter: refines the values it computes, records conflicts."""

    def __init__(
        self, imports: ImportTable, module: cst.Module, calls: dict[str, list[cst.Call]]
    ) -> None:
        self.imports = imports
        self.constants = module_constants(module)
        self.conflicts: dict[cst.CSTNode, dict[str, Conflict]] = {}
        # a merged dim's size -> the names of its factors as the merge wrote them
        # (`B * H`), outermost first; None once two orders were seen
        self.factor_orders: dict[Dim, tuple[str, ...] | None] = {}
        self._calls = calls  # the file's `f(...)` calls by the name called, in source order

    # -- entry points ---------------------------------------------------------------------

    def constant(self, name: str) -> Const | None:
        value = self.constants.get(name)
        return Const(value) if value is not None else None

    def constructor_arguments(self, class_name: str, init: cst.FunctionDef) -> dict[str, Const]:
        """The `__init__` arguments every call of the class in the file passes as the same
        int literal (`MyModule(20, 5)`): a method analysed on its own sees those sizes."""
        calls = self._calls.get(class_name, [])
        params = [p.name.value for p in init.params.params[1:]]
        seen: dict[str, set] = {}
        for call in calls:
            for position, arg in enumerate(call.args):
                if arg.star:
                    return {}
                if arg.keyword is not None:
                    name = arg.keyword.value
                elif position < len(params):
                    name = params[position]
                else:
                    continue
                seen.setdefault(name, set()).add(literal_int(arg.value))
        return {
            name: Const(values.pop())
            for name, values in seen.items()
            if len(values) == 1
            and None not in values
            and len(calls) == _count_binding(calls, name, params)
        }

    def annotated(self, param: cst.Param) -> Shape | None:
        """`x: Float[Tensor, "batch 20"]` (jaxtyping) -> (batch, 20)."""
        annotation = param.annotation.annotation if param.annotation is not None else None
        if not isinstance(annotation, cst.Subscript) or len(annotation.slice) != 2:
            return None
        kind = dotted(annotation.value)
        if kind is None or kind.rpartition(".")[2] not in _JAXTYPING_KINDS:
            return None
        spec = annotation.slice[1].slice
        text = literal_str(spec.value) if isinstance(spec, cst.Index) else None
        if text is None:
            return None
        dims = []
        for token in text.split():
            if token.isdigit():
                dims.append(int(token))
            elif token.isidentifier() and token != "_":
                dims.append(Sym(token))
            else:
                return None  # variadic (`...`, `*batch`) or anonymous dims
        return Shape.contiguous(dims)

    def argument(self, function: cst.FunctionDef, name: str, submodule: bool) -> Shape:
        """A `forward()` argument, dense, of unknown rank; batch first for an entry module.
        A submodule's argument is what its parent's forward passes (an edge index of shape
        (2, E)): batch first only when the forward reads its first dim as a size of its own
        (`bsz, seq_len, _ = x.shape`, `x.size(0)`)."""
        batched = not submodule or _reads_leading_size(function, name)
        return Shape(None, None, lead=BATCH if batched else None, dense=True)

    def unpacked(self, tensor: Tensor, names: list[str | None]) -> tuple[Tensor, Seq] | None:
        """`B, L, H, D = x.shape` of a tensor of unknown rank: x has that rank, each name a
        size of its own (so `x.view(B, H, L, D)` is seen to reorder x's dims)."""
        shape = tensor.shape
        if shape is None or shape.dims is not None or len(names) < max(shape.min_rank, 1):
            return None
        dims = tuple(
            shape.lead if i == 0 and shape.lead is not None else model.named(name or "?")
            for i, name in enumerate(names)
        )
        order = None
        if shape.dense or (shape.swap is not None and shape.swap[1] < len(dims)):
            order = list(range(len(dims)))
        if order is not None and shape.swap is not None:  # a dense tensor, two dims swapped
            first, second = shape.swap
            order[first], order[second] = second, first
        refined = replace(tensor, shape=Shape(dims, tuple(order) if order else None))
        return refined, as_value(dims)

    def shape_read(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The tensor `expr` reads the whole shape of (`x.shape`, `x.size()`)."""
        if isinstance(expr, cst.Attribute) and expr.attr.value == "shape":
            return expr.value
        if (
            isinstance(expr, cst.Call)
            and not expr.args
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "size"
        ):
            return expr.func.value
        return None

    def layer_output(self, call: cst.Call, layer: Obj, positional: list, value):
        """The output of a torch layer called on `positional`."""
        if not isinstance(layer.layer_shape, Layer) or not positional:
            return value
        args = Args([(call, shape_value(v)) for v in positional], {}, True)
        return self._result(value, self._layer_call(call, layer.layer_shape, args))

    def refine(self, expr: cst.BaseExpression, value, part: Part):
        """`value`, computed by the interpreter for `expr` (of a REFINED type: the
        interpreter asks for no other), with what shapes prove."""
        if value is None:
            literal = literal_int(expr)
            if literal is not None:
                return Const(literal)
        if isinstance(expr, cst.Call):
            return self._call(expr, value, part)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, value, part)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, value, part)
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr, value, part)
        if isinstance(expr, cst.Comparison) and isinstance(value, Tensor):
            return self._comparison(expr, value, part)
        if isinstance(expr, cst.UnaryOperation) and isinstance(value, Tensor):
            operand = part(expr.expression)
            if isinstance(operand, Tensor) and operand.shape is not None:
                return replace(value, shape=operand.shape)
        return value

    # -- expressions ----------------------------------------------------------------------

    def _result(self, value, result):
        """`value` refined by a transfer function's answer."""
        if isinstance(result, Shape):
            return _tensor_with(value, result)
        if isinstance(result, Pieces):
            if isinstance(value, Tensor) and not result.any_length:  # one tensor per piece
                pieces = (replace(value, storage=new_storage(), shape=s) for s in result.shapes)
                return Seq(tuple(pieces))
            if not isinstance(value, Seq) or not isinstance(value.item(0), Tensor):
                return value
            item = value.item(0)
            return Seq(tuple(replace(item, shape=s) for s in result.shapes), result.any_length)
        if (
            isinstance(result, tuple)
            and len(result) == 2
            and all(isinstance(r, Shape) for r in result)
        ):
            if isinstance(value, Seq) and len(value.items) == 2:  # the interpreter's own pair
                return Seq(
                    tuple(_with_shape(v, r) for v, r in zip(value.items, result, strict=True))
                )
            values = _tensor_with(value if isinstance(value, Tensor) else None, result[0])
            indices = Tensor(new_storage(), Grad.OFF, is_tensor=True, shape=result[1])
            return Seq((values, indices))
        dims = as_value(result)
        return dims if dims is not None else value

    @staticmethod
    def _rank_read(expr: cst.BaseExpression, part: Part) -> int | None:
        """The rank `len(x.size())` / `len(x.shape)` reads, when x's rank is known."""
        if isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value != "size":
                return None
            tensor = part(expr.func.value)
        elif isinstance(expr, cst.Attribute) and expr.attr.value == "shape":
            tensor = part(expr.value)
        else:
            return None
        if isinstance(tensor, Tensor) and tensor.shape is not None:
            return tensor.shape.rank
        return None

    def _attribute(self, expr: cst.Attribute, value, part: Part):
        base = part(expr.value)
        if not isinstance(base, Tensor) or base.shape is None:
            return value
        shape, name = base.shape, expr.attr.value
        if name == "shape":
            return as_value(shape.dims) if shape.dims is not None else value
        if name in ("data", "real"):
            return _tensor_with(value, shape) if isinstance(value, Tensor) else value
        if name == "T" and shape.rank is not None:
            return self._result(value, self._permute(shape, list(range(shape.rank - 1, -1, -1))))
        if name == "mT":
            return self._result(value, self._transpose(shape, -2, -1))
        return value

    def _subscript(self, expr: cst.Subscript, value, part: Part):
        base = part(expr.value)
        if not isinstance(base, Tensor) or base.shape is None or not isinstance(value, Tensor):
            return value
        indices = []
        for element in expr.slice:
            index = element.slice
            if isinstance(index, cst.Index):
                found = part(index.value)
                kind = "tensor" if isinstance(found, Tensor) and found.dtype == "int" else "index"
                indices.append((kind, shape_value(found), index.value))
            else:
                parts = (index.lower, index.upper, index.step)
                bounds = [_ABSENT if b is None else shape_value(part(b)) for b in parts]
                window = _window_rows(index, bounds, part)
                indices.append(("slice", bounds if window is None else window, index))
        return self._result(value, _index_tensor(base.shape, indices))

    def _comparison(self, expr: cst.Comparison, value: Tensor, part: Part) -> Tensor:
        """`x == 0`, `a < b`: elementwise, the broadcast of both shapes (layout unknown)."""
        if len(expr.comparisons) != 1 or isinstance(
            expr.comparisons[0].operator, cst.In | cst.NotIn | cst.Is | cst.IsNot
        ):
            return value
        operands = (expr.left, expr.comparisons[0].comparator)
        values = [part(operand) for operand in operands]
        shapes = [shape_value(v) for v in values]
        if all(isinstance(shape, Shape) for shape in shapes):
            result = model.broadcast(*shapes)
        elif any(isinstance(shape, Shape) for shape in shapes) and all(
            isinstance(shape, Shape) or _is_number(operand, as_dim(shape))
            for operand, shape in zip(operands, shapes, strict=True)
        ):
            result = next(shape for shape in shapes if isinstance(shape, Shape))
        else:
            return value
        if result is None or result.dims is None:
            return value
        return replace(value, shape=Shape(result.dims))

    def _binary(self, expr: cst.BinaryOperation, value, part: Part):
        left, right = part(expr.left), part(expr.right)
        lv, rv = shape_value(left), shape_value(right)
        operator = expr.operator
        if isinstance(operator, cst.MatrixMultiply):
            return self._result(value, self._matmul(expr, "@", lv, rv))
        left_dim, right_dim = as_dim(lv), as_dim(rv)
        if left_dim is not None and right_dim is not None:
            if isinstance(left, Size) or isinstance(right, Size):
                return self._result(value, _dim_arithmetic(operator, left_dim, right_dim))
            return value
        if isinstance(lv, Shape) and isinstance(rv, Shape):
            return self._result(value, self._broadcast(expr, _operator_name(operator), lv, rv))
        tensor = lv if isinstance(lv, Shape) else rv
        other = right if tensor is lv else left
        number = isinstance(other, Size) or (
            isinstance(other, Const) and type(other.value) in (int, float)
        )
        if isinstance(tensor, Shape) and number and isinstance(value, Tensor):
            return _tensor_with(value, _keep(tensor))
        if isinstance(tensor, Shape) and tensor.unreduced and isinstance(value, Tensor):
            # losses times a tensor of unknown shape: broadcasting never removes a dim
            return _tensor_with(
                value, Shape(None, min_rank=max(tensor.min_rank, 1), unreduced=True)
            )
        return value

    def _arguments(self, call: cst.Call, part: Part) -> Args:
        positional, keywords, complete = [], {}, True
        for arg in call.args:
            value = part(arg.value)
            if arg.star == "*":
                if isinstance(value, Seq) and not value.any_length:
                    positional.extend((arg.value, shape_value(v)) for v in value.items)
                else:
                    complete = False
            elif arg.star == "**":
                complete = False
            elif arg.keyword is not None:
                keywords[arg.keyword.value] = (arg.value, shape_value(value))
            else:
                positional.append((arg.value, shape_value(value)))
        return Args(positional, keywords, complete)

    def _call(self, node: cst.Call, value, part: Part):
        func = node.func
        qualified = self.imports.resolve(func)
        self._backward(node, qualified, part)
        if isinstance(value, Obj) and value.torch_layer and value.constructor is node:
            value.layer_shape = _layer(value.kind.rpartition(".")[2], self._arguments(node, part))
            return value
        if qualified is not None and qualified.startswith("torch."):
            args = self._arguments(node, part)
            return self._result(value, self._torch_function(node, qualified, args))
        if qualified is not None and qualified.startswith("numpy."):
            return self._result(value, _numpy_factory(qualified, self._arguments(node, part)))
        if isinstance(func, cst.Name) and func.value == "len" and len(node.args) == 1:
            rank = self._rank_read(node.args[0].value, part)
            return Const(rank) if rank is not None else value
        if not isinstance(func, cst.Attribute):
            return value
        receiver = part(func.value)
        name = func.attr.value
        shape = receiver.shape if isinstance(receiver, Tensor) else None
        full_reduction = name in ("mean", "sum") and not node.args
        tensor_only = name in torch_ops.SHAPE_TENSOR_ONLY_METHODS
        if shape is None and (
            full_reduction or (tensor_only and isinstance(receiver, Tensor | None))
        ):
            shape = Shape.unknown()  # `.mean()` of anything is 0-dim
        if shape is None:
            return value
        return self._result(value, self._method(node, name, shape, self._arguments(node, part)))

    def _backward(self, call: cst.Call, qualified: str | None, part: Part) -> None:
        """GL301 / GL302: a gradient whose shape differs from its output's, or none for an
        output that is not a scalar."""
        if any(arg.star for arg in call.args):
            return
        func = call.func
        if qualified == "torch.autograd.backward":
            outputs, gradients = _argument(call, 0, "tensors"), _argument(call, 1, "grad_tensors")
        elif qualified == "torch.autograd.grad":
            outputs, gradients = _argument(call, 0, "outputs"), _argument(call, 2, "grad_outputs")
        elif (
            isinstance(func, cst.Attribute)
            and func.attr.value == "backward"
            and qualified is None
            and isinstance(part(func.value), Tensor)
        ):
            outputs, gradients = func.value, _argument(call, 0, "gradient")
        else:
            return
        if outputs is None:
            return
        out, out_rest = _elements(outputs, part)
        if gradients is None or part(gradients) == Const(None):
            for expr, tensor in [*out, *([out_rest] if out_rest else [])]:
                shape = tensor.shape if isinstance(tensor, Tensor) else None
                if shape is not None and (provably_not_scalar(shape) or _batch_of_losses(shape)):
                    self._record(Conflict("implicit", call, (shape,), extra=(expr,)))
            return
        grads, grads_rest = _elements(gradients, part)
        if out_rest is None and grads_rest is None and len(out) != len(grads):
            return
        pairs = list(zip(out, grads, strict=False))
        if grads_rest is not None:  # `[torch.ones(1)] * n`: every output gets that gradient
            pairs += [(o, grads_rest) for o in out[len(grads) :]]
        if out_rest is not None:
            pairs += [(out_rest, g) for g in grads[len(out) :]]
        if out_rest is not None and grads_rest is not None:
            pairs.append((out_rest, grads_rest))
        for (expr, tensor), (gradient, grad) in pairs:
            if not isinstance(tensor, Tensor) or not isinstance(grad, Tensor):
                continue
            if tensor.shape is None or grad.shape is None:
                continue
            if shapes_differ(tensor.shape, grad.shape):
                extra = (expr, gradient)
                self._record(Conflict("gradient", call, (tensor.shape, grad.shape), extra=extra))

    def _torch_function(self, node: cst.Call, qualified: str, args: Args) -> Value:
        namespace, _, name = qualified.rpartition(".")
        if name in ("Parameter", "from_numpy"):  # the data itself (from_numpy shares it)
            return args.get(0, "data")
        if namespace not in ("torch", "torch.nn.functional"):
            return None
        factory = _factory(name, args)
        if factory is not None:
            return factory
        if name in ("cat", "concat", "stack"):
            return _concatenate(name, args)
        if name == "meshgrid":
            return _meshgrid(args)
        if name in ("mm", "matmul", "bmm"):
            return self._matmul(node, name, args.get(0), args.get(1))
        if name == "linear":
            return self._linear(node, args.get(0), args.get(1), "F.linear")
        pool = torch_ops.SHAPE_POOL_FUNCTIONS.get(name)
        first = args.get(0, "input")
        if pool is not None and isinstance(first, Shape):
            kind, spatial = pool
            rest = args.shifted()
            if kind == "adaptive":
                return _pooled(
                    first, spatial, None, _tuple_arg(rest.get(0, "output_size"), spatial)
                )
            return _pooled(first, spatial, _window(rest, spatial, 0, kernel="kernel_size"), None)
        if name == "interpolate" and isinstance(first, Shape):
            return _interpolated(first, args.shifted())
        if name in torch_ops.SHAPE_LOSSES:
            return _loss(name, args.get(0, "input"), args.get(1, "target"), args, 2)
        first = args.get(0, "input")
        if isinstance(first, Shape):
            return self._method(node, name, first, args.shifted())
        return None

    def _method(self, node: cst.Call, name: str, shape: Shape, args: Args) -> Value:
        if name == "contiguous":
            if shape.dims is None:
                return Shape(None, None, shape.min_rank, shape.lead, dense=True)
            return Shape.contiguous(shape.dims)
        base = name.rstrip("_")
        binary = base in torch_ops.SHAPE_BINARY_OPS
        if (
            binary
            or name in torch_ops.SHAPE_PRESERVING_OPS
            or base in torch_ops.SHAPE_PRESERVING_OPS
        ):
            other = args.get(0, "other")
            if binary and isinstance(other, Shape):
                return self._broadcast(node, name, shape, other)
            if binary and not _is_number(args.expr(0, "other"), as_dim(other)):
                return None
            return _keep(shape)
        if name in torch_ops.SHAPE_KEEPING_OPS:
            return Shape(shape.dims, min_rank=shape.min_rank, lead=shape.lead)
        if base in torch_ops.SHAPE_MASKED_OPS:
            return self._masked(node, name, shape, args.get(0, "mask"))
        if name in ("size", "dim", "numel"):
            return _size_query(name, shape, args)
        reduction = torch_ops.SHAPE_REDUCTIONS.get(name)
        if reduction is not None:
            return _reduction(shape, args, reduction)
        if name in torch_ops.SHAPE_VALUE_INDEX_REDUCTIONS:
            return _value_index_reduction(node, self, name, shape, args)
        if name in _RESHAPES:
            return self._reshape(node, name, shape, args)
        if name in ("mm", "matmul", "bmm"):
            return self._matmul(node, name, shape, args.get(0))
        if name in ("new_zeros", "new_ones", "new_empty", "new_full"):
            sizes = _sizes(args, 0)
            return Shape.contiguous(sizes) if sizes is not None and None not in sizes else None
        return _shape_method(self, node, name, shape, args)

    # -- transfer functions that can conflict ---------------------------------------------

    def _record(self, conflict: Conflict) -> None:
        """Keep every conflict of every loop round: each round's facts hold for some run."""
        self.conflicts.setdefault(conflict.node, {})[conflict.kind] = conflict

    def _masked(self, node, name: str, shape: Shape, mask: Value) -> Shape | None:
        """`x.masked_fill(mask, value)`: the broadcast of both shapes, laid out anew; the
        in-place form keeps `x`, which the mask must broadcast to."""
        if not isinstance(mask, Shape):
            return _keep(shape) if name.endswith("_") else None
        result = self._broadcast(node, name, shape, mask)
        if result is None or name.endswith("_"):
            return result if result is None else _keep(shape)
        return Shape(result.dims, min_rank=result.min_rank, lead=result.lead)

    def _broadcast(self, node, op: str, a: Shape, b: Shape) -> Shape | None:
        clash = model.broadcast_conflict(a, b)
        if clash is not None:
            self._record(Conflict("broadcast", node, (a, b), op, clash))
            return None
        result = model.broadcast(a, b)
        if result is None and (a.unreduced or b.unreduced):  # never fewer dims than the loss
            return Shape(None, min_rank=max(a.min_rank, b.min_rank, 1), unreduced=True)
        if result is None and a.dims is None and b.dims is None and a.lead is not None:
            return Shape.unknown(lead=a.lead)
        return result

    def _matmul(self, node, op: str, a: Value, b: Value) -> Shape | None:
        if not (isinstance(a, Shape) and isinstance(b, Shape)):
            return None
        if op in ("mm", "bmm") and a.rank is not None and b.rank is not None:
            wanted = 2 if op == "mm" else 3
            if a.rank != wanted or b.rank != wanted:
                return None
        clash = model.matmul_conflict(a, b)
        if clash is not None:
            self._record(Conflict("matmul", node, (a, b), op, clash))
            return None
        return model.matmul(a, b)

    def _linear(self, node, x: Value, weight: Value, op: str) -> Shape | None:
        if not isinstance(x, Shape) or not isinstance(weight, Shape) or weight.rank != 2:
            return None
        out_features, in_features = weight.dims
        return self._apply_linear(node, x, in_features, out_features, op)

    def _apply_linear(self, node, x: Shape, in_features, out_features, op: str) -> Shape | None:
        if x.dims is None:
            return Shape.unknown(min_rank=1, lead=x.lead)
        if not x.dims:
            return None
        if model.provably_different(x.dims[-1], in_features):
            origin = x.origin
            if origin is not None and origin is not node:
                self._record(Conflict("reshape_feeds_layer", origin, (x,), op, (in_features,)))
            self._record(Conflict("linear", node, (x,), op, (in_features, out_features)))
            return None
        return Shape.contiguous(x.dims[:-1] + (out_features,))

    def _reshape(self, node: cst.Call, name: str, shape: Shape, args: Args) -> Shape | None:
        sizes = _sizes(args, 0, "shape" if name == "reshape" else "size")
        if sizes is None:
            return None
        clash = model.reshape_count_conflict(shape, sizes)
        if clash is not None:
            self._record(Conflict("reshape_count", node, (shape,), name, (tuple(sizes), clash)))
            return None
        self._note_batch_literal(node, name, shape, args)
        if name == "view" and model.swapped_merge(shape, sizes):
            merged = (shape.lead, "...") if sizes != [-1] else ("...",)
            self._record(Conflict("view_order", node, (shape,), name, (tuple(sizes), merged)))
            return None
        new = model.resolve_view_sizes(shape, sizes)
        if new is not None and shape.dims is not None and model.reordered(shape.dims, new):
            self._record(Conflict("reordered", node, (shape,), name, (tuple(new),)))
        # a -1 stands for what the written sizes leave: among sizes all known numbers
        # that can match other dims by coincidence (64 = 8 * 8), so only symbolic ones
        if new is not None and shape.dims is not None and (-1 not in sizes or _named(shape)):
            moved = model.moved_while_merging(shape.dims, new)
            if moved is not None:
                self._record(Conflict("moved", node, (shape,), name, (tuple(new), tuple(moved))))
        elif new is not None and shape.dims is not None:
            moved = _own_sizes_moved(node, shape, new, args)
            if moved is not None:
                self._record(Conflict("moved", node, (shape,), name, (tuple(new), moved)))
        if new is None:
            if any(s is None for s in sizes):
                return None
            dims = [model.fresh() if s == -1 else s for s in sizes]
            return Shape(tuple(dims), origin=node if _folds_into_rows(sizes) else None)
        if name == "view":
            merged = model.out_of_order_merge(shape, new)
            if merged is not None:
                self._record(Conflict("view_order", node, (shape,), name, (tuple(new), merged)))
                return None
        self._factor_order(node, name, shape, new, args)
        origin = node if _folds_into_rows(sizes) else None
        if shape.is_contiguous:
            return Shape.contiguous(new, origin)
        return Shape(tuple(new), origin=origin)

    def _factor_order(self, node: cst.Call, name: str, shape: Shape, new: list[Dim], args: Args):
        """Note the order of the factors each merge writes (`reshape(B * H, L, D)` of a
        `(B, H, L, D)` tensor); a split of that dim into the same names in another order
        (`view(H, B, L, D)`) is a conflict: each new dim mixes pieces of the other. The
        names as written and the sizes must both match, so unrelated dims of equal size
        are never taken for the merged one."""
        exprs = [expr for expr, _ in args.positional]
        if shape.dims is None or args.keywords or len(exprs) != len(new):
            return
        for olds, news in model.merge_groups(shape.dims, new) or ():
            if len(olds) > 1 and len(news) == 1:
                names = _product_names(exprs[news[0]])
                if names is not None and len(names) == len(olds):
                    seen = self.factor_orders.setdefault(new[news[0]], names)
                    if seen != names:
                        self.factor_orders[new[news[0]]] = None
            elif len(olds) == 1 and len(news) > 1:
                names = tuple(dotted(exprs[j]) for j in news)
                made = self.factor_orders.get(shape.dims[olds[0]])
                if None in names or made is None:
                    continue
                if made != names and sorted(made) == sorted(names):
                    extra = (tuple(new), olds[0], made)
                    self._record(Conflict("split_order", node, (shape,), name, extra))

    def _unflatten(self, node: cst.Call, shape: Shape, args: Args) -> Shape | None:
        dim, sizes = as_dim(args.get(0, "dim")), args.get(1, "sizes")
        if not isinstance(dim, int) or not isinstance(sizes, tuple) or shape.dims is None:
            return None
        position = model.normalize_dim(dim, len(shape.dims))
        sizes = [as_dim(s) for s in sizes]
        if position is None or None in sizes:
            return None
        part = Shape.contiguous(shape.dims[position : position + 1])
        clash = model.reshape_count_conflict(part, sizes)
        if clash is not None:
            extra = (tuple(sizes), clash, position)
            self._record(Conflict("reshape_count", node, (shape,), "unflatten", extra))
            return None
        new = model.resolve_view_sizes(part, sizes)
        if new is None:
            return None
        dims = shape.dims[:position] + tuple(new) + shape.dims[position + 1 :]
        return Shape.contiguous(dims) if shape.is_contiguous else Shape(dims)

    def _note_batch_literal(self, node: cst.Call, name: str, shape: Shape, args: Args) -> None:
        """`x.view(64, ...)` / `x.view(args.batch_size, ...)` where x's first dim is the
        batch (a forward() input, rows cut into batches)."""
        if shape.lead is not BATCH and not (shape.dims and shape.dims[0] is BATCH):
            return
        first = args.expr(0)
        if isinstance(first, cst.Tuple | cst.List) and first.elements:
            first = first.elements[0].value
        size = args.positional[0][1] if args.positional else None
        if isinstance(size, tuple):
            size = size[0] if size else None
        if not isinstance(size, int) or size <= 1:
            return
        written = first.value if isinstance(first, cst.Name) else None
        if isinstance(first, cst.Attribute):  # `args.batch_size`, `self.batch_size`: a setting
            written = dotted(first)
        hard_coded = isinstance(first, cst.Integer | cst.Attribute) or (
            written is not None and written in self.constants  # `batch_size = 32` above
        )
        if hard_coded:
            self._record(Conflict("batch_literal", node, (shape,), name, (size, written or "")))

    def _layer_call(self, node: cst.Call, layer: Layer, args: Args) -> Value:
        x = args.positional[0][1]
        if layer.kind == "loss":
            return _loss(layer.args[0], x, args.get(1), None, layer.args[1])
        if not isinstance(x, Shape):
            return None
        if layer.kind == "linear":
            return self._apply_linear(node, x, layer.args[0], layer.args[1], "linear")
        if layer.kind == "same":
            (name,) = layer.args
            if name in torch_ops.SHAPE_LAYOUT_KEEPING_LAYERS:  # elementwise: any layout kept
                return Shape(x.dims, x.order, x.min_rank, x.lead, x.dense, swap=x.swap)
            if x.dims is None:
                return Shape(None, min_rank=x.min_rank, lead=x.lead)
            if name in torch_ops.SHAPE_CHANNELS_LAST_LAYERS:
                return _laid_out(x, x.dims)
            if name in torch_ops.SHAPE_CONTIGUOUS_LAYERS:
                return Shape.contiguous(x.dims)
            return Shape(x.dims, min_rank=x.min_rank, lead=x.lead)
        if layer.kind == "embedding" and x.dims is not None:
            return Shape.contiguous(x.dims + (layer.args[1],))
        if layer.kind == "conv" and x.dims is None:  # batched or not, dim 0 is kept
            return Shape.unknown(min_rank=layer.args[2] + 1, lead=x.lead)
        if layer.kind == "conv" and x.rank == layer.args[2] + 2:
            in_channels, out_channels, spatial, window = layer.args
            if model.provably_different(x.dims[1], in_channels):
                return None  # torch raises; not this rule's concern
            return _laid_out(x, (x.dims[0], out_channels) + _windowed(x.dims[2:], window))
        if layer.kind == "pool":
            return _pooled(x, *layer.args)
        if layer.kind == "flatten":
            return _flatten(x, layer.args[0], layer.args[1])
        if layer.kind == "unflatten":
            dim, sizes = layer.args
            return self._unflatten(node, x, Args([(node, dim), (node, sizes)], {}, True))
        return None

    def _transpose(self, shape: Shape, a: int, b: int) -> Shape | None:
        if shape.rank is None:
            if not shape.dense or shape.swap is not None or min(a, b) < 0 or a == b:
                return None  # a layout is claimed for dense tensors of unknown rank only
            lead = shape.lead if min(a, b) > 0 else None
            return Shape(None, lead=lead, min_rank=max(a, b) + 1, swap=(min(a, b), max(a, b)))
        first, second = model.normalize_dim(a, shape.rank), model.normalize_dim(b, shape.rank)
        if first is None or second is None:
            return None
        perm = list(range(shape.rank))
        perm[first], perm[second] = perm[second], perm[first]
        return model.permuted(shape, perm)

    def _permute(self, shape: Shape, perm: list) -> Shape | None:
        if shape.rank is None or any(not isinstance(p, int) for p in perm):
            return None
        normalized = [model.normalize_dim(p, shape.rank) for p in perm]
        return None if None in normalized else model.permuted(shape, normalized)


# -- helpers that need no state ---------------------------------------------------------------


def _operator_name(operator: cst.BaseBinaryOp | cst.BaseAugOp) -> str:
    return type(operator).__name__.removesuffix("Assign").lower()


def _is_number(expr: cst.BaseExpression | None, dim: Dim | None) -> bool:
    return dim is not None or isinstance(expr, cst.Float | cst.Integer)


def _keep(shape: Shape) -> Shape:
    """An elementwise result: same shape and layout (dense again: no gaps), provenance
    kept for GL403."""
    return replace(shape, gaps=frozenset()) if shape.gaps else shape


def _dim_arithmetic(operator, a: Dim, b: Dim) -> Dim | None:
    if isinstance(operator, cst.Multiply):
        return model.mul(a, b)
    if isinstance(operator, cst.FloorDivide):
        return model.floordiv(a, b) if b != 0 else None
    if isinstance(a, int) and isinstance(b, int):
        if isinstance(operator, cst.Add):
            return a + b
        if isinstance(operator, cst.Subtract):
            return a - b
    return None


def _folds_into_rows(sizes: list) -> bool:
    """`reshape(-1, 10)`: the -1 leads and the feature size is written out (GL403)."""
    return -1 in sizes[:-1]


def _own_sizes_moved(node: cst.Call, shape: Shape, new: list[Dim], args: Args):
    """`x.view(x.size(0), -1, x.size(1))`: every size written is a dim of the tensor
    itself (`x.size(k)`, `x.shape[k]`) but one -1, which takes the dims left; when the
    dims come out in another order (the -1's not all of size 1) they were moved without a
    permute, whatever the sizes are. The groups (old dims, new dim), else None."""
    receiver = dotted(node.func.value) if isinstance(node.func, cst.Attribute) else None
    exprs = [expr for expr, _ in args.positional]
    if receiver is None or args.keywords or len(exprs) != len(new) or len(shape.dims) < 3:
        return None
    read = [_own_dim(expr, receiver) for expr in exprs]
    read = [k if k is None else model.normalize_dim(k, len(shape.dims)) for k in read]
    rest = [i for i, k in enumerate(read) if k is None]
    taken = [k for k in read if k is not None]
    if len(rest) != 1 or len(set(taken)) != len(taken) or literal_int(exprs[rest[0]]) != -1:
        return None
    left = tuple(i for i in range(len(shape.dims)) if i not in taken)
    if not left or all(shape.dims[i] == 1 for i in left):
        return None
    groups = [((k,) if k is not None else left, (j,)) for j, k in enumerate(read)]
    order = [i for olds, _ in groups for i in olds if shape.dims[i] != 1]  # 1s move freely
    return tuple(groups) if order != sorted(order) else None


def _reads_leading_size(function: cst.FunctionDef, name: str) -> bool:
    """`function` reads the first dim of its argument `name` as a size: `name.size(0)`,
    `name.shape[0]`, `len(name)`, or the first name of `b, ... = name.shape` /
    `name.size()`."""
    for node in iter_nodes(function):
        if _own_dim(node, name) == 0:
            return True
        called = isinstance(node, cst.Call) and dotted(node.func) == "len"
        if called and len(node.args) == 1 and dotted(node.args[0].value) == name:
            return True
        if isinstance(node, cst.Assign) and isinstance(node.targets[0].target, cst.Tuple):
            value = node.value
            if isinstance(value, cst.Call) and not value.args:
                value = value.func  # `name.size()`
            first = node.targets[0].target.elements[0].value
            whole = isinstance(value, cst.Attribute) and value.attr.value in ("shape", "size")
            named = isinstance(first, cst.Name) and first.value != "_"
            if whole and named and dotted(value.value) == name:
                return True
    return False


def _own_dim(expr: cst.BaseExpression, receiver: str) -> int | None:
    """k for `x.size(k)` or `x.shape[k]` of the tensor written `receiver`."""
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and len(expr.args) == 1
        and expr.func.attr.value == "size"
        and dotted(expr.func.value) == receiver
    ):
        return literal_int(expr.args[0].value)
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute):
        shape_of = expr.value
        if shape_of.attr.value == "shape" and dotted(shape_of.value) == receiver:
            index = expr.slice[0].slice if len(expr.slice) == 1 else None
            return literal_int(index.value) if isinstance(index, cst.Index) else None
    return None


def _named(shape: Shape) -> bool:
    """Some dim of the shape is a size the code names, not a number."""
    return any(not isinstance(dim, int) for dim in shape.dims or ())


def _product_names(expr: cst.BaseExpression) -> tuple[str, ...] | None:
    """`B * self.heads` -> ("B", "self.heads"): the names a product multiplies, in order."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        left, right = _product_names(expr.left), _product_names(expr.right)
        return left + right if left is not None and right is not None else None
    name = dotted(expr)
    return (name,) if name is not None else None


def _sizes(args: Args, start: int, keyword: str = "size") -> list[Dim | None] | None:
    """Sizes given as varargs, one tuple / list, or a keyword."""
    if not args.complete:
        return None
    if keyword in args.keywords:
        value = args.keywords[keyword][1]
        return [as_dim(v) for v in value] if isinstance(value, tuple) else None
    rest = [value for _, value in args.positional[start:]]
    if len(rest) == 1 and isinstance(rest[0], tuple):
        rest = list(rest[0])
    if not rest or any(isinstance(v, tuple | Shape) for v in rest):
        return None
    return [as_dim(v) for v in rest]


def _factory(name: str, args: Args) -> Shape | None:
    if name in torch_ops.SHAPE_SIZE_FACTORIES:
        sizes = _sizes(args, 0)
    elif name == "full":
        size = args.get(0, "size")
        sizes = [as_dim(v) for v in size] if isinstance(size, tuple) else None
    elif name == "randint":
        size = args.get(None, "size")
        if size is None and args.positional:
            size = args.positional[-1][1]
        sizes = [as_dim(v) for v in size] if isinstance(size, tuple) else None
    elif name in torch_ops.SHAPE_LIKE_FACTORIES:
        first = args.get(0, "input")
        return first if isinstance(first, Shape) else None
    elif name == "arange":
        sizes = _arange(args)
    elif name == "eye":
        n, m = as_dim(args.get(0, "n")), as_dim(args.get(1, "m"))
        sizes = [n, m if args.has(1, "m") else n]
    elif name in ("tensor", "as_tensor") or name in torch_ops.SHAPE_LEGACY_CONSTRUCTORS:
        return _data_shape(name, args)
    else:
        return None
    if sizes is None or any(s is None for s in sizes):
        return None
    return Shape.contiguous(sizes)


def _numpy_factory(qualified: str, args: Args) -> Shape | None:
    """A new C-ordered numpy array: `np.random.rand(2, 8, 8, 3)`, `np.zeros((4, 3))`."""
    name = qualified.removeprefix("numpy.")
    if name in ("random.rand", "random.randn"):
        sizes = _sizes(args, 0)
    elif name in ("zeros", "ones", "empty") and not args.has(2, "order"):
        shape = args.get(0, "shape")
        sizes = [as_dim(v) for v in shape] if isinstance(shape, tuple) else [as_dim(shape)]
    else:
        return None
    if not sizes or None in sizes:
        return None
    return Shape.contiguous(sizes)


def _arange(args: Args) -> list[Dim] | None:
    if args.keywords.keys() - {"dtype", "device", "requires_grad"} or not args.complete:
        return None
    bounds = [value for _, value in args.positional]
    if not bounds or len(bounds) > 3 or not all(isinstance(b, int) for b in bounds):
        return None
    start, end, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds[:2], 1)
    if len(bounds) == 3:
        step = bounds[2]
    length = model.arange_length(start, end, step)
    return [length] if length is not None else None


def _nested_list_shape(expr: cst.BaseExpression) -> tuple[int, ...] | None:
    if isinstance(expr, cst.Integer | cst.Float) or literal_int(expr) is not None:
        return ()
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, cst.Float):
        return ()
    if not isinstance(expr, cst.List | cst.Tuple):
        return None
    inner = [_nested_list_shape(e.value) for e in expr.elements]
    if not inner:
        return (0,)
    if None in inner or any(shape != inner[0] for shape in inner):
        return None
    return (len(inner),) + inner[0]


def _data_shape(name: str, args: Args) -> Shape | None:
    if not args.complete or not args.positional:
        return None
    first = args.positional[0][0]
    if name in torch_ops.SHAPE_LEGACY_CONSTRUCTORS and not isinstance(first, cst.List):
        sizes = [as_dim(v) for _, v in args.positional]
        literal = all(isinstance(e, cst.Integer) for e, _ in args.positional)
        return Shape.contiguous(sizes) if literal and None not in sizes else None
    dims = _nested_list_shape(first)
    return Shape.contiguous(dims) if dims is not None else None


def _concatenate(name: str, args: Args) -> Shape | None:
    tensors = args.get(0, "tensors")
    dim = as_dim(args.get(1, "dim")) if args.has(1, "dim") else 0
    if not isinstance(tensors, tuple) or not tensors or not isinstance(dim, int):
        return None
    if not all(isinstance(t, Shape) and t.dims is not None for t in tensors):
        return None
    rank = tensors[0].rank
    if any(t.rank != rank for t in tensors):
        return None
    if name == "stack":
        axis = model.normalize_dim(dim, rank + 1)
        if axis is None or any(t.dims != tensors[0].dims for t in tensors):
            return None
        dims = list(tensors[0].dims)
        dims.insert(axis, len(tensors))
        return Shape.contiguous(dims)
    axis = model.normalize_dim(dim, rank)
    if axis is None:
        return None
    others = [t.dims[:axis] + t.dims[axis + 1 :] for t in tensors]
    if any(o != others[0] for o in others):
        return None
    dims = list(tensors[0].dims)
    dims[axis] = _sum_dims([t.dims[axis] for t in tensors])
    return Shape.contiguous(dims)


def _meshgrid(args: Args) -> Pieces | None:
    """`torch.meshgrid(a, b, indexing=...)` of 1-D tensors: one grid per input, each of
    the sizes of all (the first two swapped for "xy"), expanded (no layout claimed)."""
    grids = [value for _, value in args.positional]
    if len(grids) == 1 and isinstance(grids[0], tuple):
        grids = list(grids[0])
    indexing = literal_str(args.expr(None, "indexing")) if args.has(None, "indexing") else "ij"
    if not args.complete or not grids or indexing not in ("ij", "xy"):
        return None
    if not all(isinstance(g, Shape) and g.rank == 1 for g in grids):
        return None
    dims = [g.dims[0] for g in grids]
    if indexing == "xy" and len(dims) > 1:
        dims[0], dims[1] = dims[1], dims[0]
    return Pieces(tuple(Shape(tuple(dims)) for _ in grids))


def _sum_dims(dims: list[Dim]) -> Dim:
    if all(isinstance(d, int) for d in dims):
        return sum(dims)
    return model.fresh()


def _loss_reduction(args: Args) -> str | None:
    """A loss's `reduction=` (written, or a string the file binds); `'none'` for the legacy
    `reduce=False`, which ignores `size_average`; None when not known."""
    if "reduce" in args.keywords:
        return "none" if _literal_bool(args.expr(None, "reduce")) is False else None
    if "size_average" in args.keywords or not args.complete:
        return None
    if args.expr(None, "reduction") is None:
        return "mean"
    value = args.get(None, "reduction")
    return value if isinstance(value, str) else None


def _loss(function: str, x: Value, target: Value, args: Args | None, reduction) -> Shape | None:
    if args is not None:
        reduction = _loss_reduction(args)
    if reduction in ("mean", "sum"):
        return Shape.contiguous(())
    if reduction != "none":
        return None
    classes = torch_ops.SHAPE_LOSSES[function] == "target"  # the input has a class dim
    rank = len(x.dims) if isinstance(x, Shape) and x.dims is not None else None
    result = None
    if classes and isinstance(target, Shape) and target.dims is not None:
        result = target
    elif classes and rank is not None and rank >= 2:
        result = Shape.contiguous(x.dims[:1] + x.dims[2:])  # the class dim goes
    elif not classes and isinstance(x, Shape) and isinstance(target, Shape):
        result = model.broadcast(x, target)
    if result is None:
        if rank is not None and rank < (2 if classes else 1):
            return None  # an unbatched input: its loss may be a scalar
        return Shape(None, min_rank=1, unreduced=True)  # a batch of losses, rank unknown
    return dataclasses.replace(result, unreduced=True) if result.dims else result


def _tuple_arg(value, count: int) -> tuple | None:
    """An int-or-tuple argument (`kernel_size=3`, `(3, 3)`) as `count` ints, or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * count
    if isinstance(value, tuple) and len(value) == count and all(type(v) is int for v in value):
        return value
    return None


def _window(args: Args, spatial: int, first: int, kernel: str, stride_default=None):
    """(kernel, stride, padding, dilation, ceil_mode) of a conv or pool, each per spatial
    dim; None when one is not known. Positions count from the kernel size (`first`)."""
    if not args.complete:
        return None
    size = _tuple_arg(args.get(first, kernel), spatial)
    stride = (
        _tuple_arg(args.get(first + 1, "stride"), spatial)
        if args.has(first + 1, "stride")
        else None
    )
    if stride is None:
        written = args.expr(first + 1, "stride")
        if written is not None and not (isinstance(written, cst.Name) and written.value == "None"):
            return None
        stride = (stride_default,) * spatial if stride_default else size
    padding = (
        _tuple_arg(args.get(first + 2, "padding"), spatial)
        if args.has(first + 2, "padding")
        else (0,) * spatial
    )
    dilation = (
        _tuple_arg(args.get(first + 3, "dilation"), spatial)
        if args.has(first + 3, "dilation")
        else (1,) * spatial
    )
    ceil = args.expr(None, "ceil_mode")
    if ceil is not None and _literal_bool(ceil) is not False:
        return None
    if None in (size, stride, padding, dilation):
        return None
    return size, stride, padding, dilation


def _windowed(dims: tuple, window) -> tuple:
    """Spatial sizes after a conv / pool window: (n + 2p - d(k - 1) - 1) // s + 1."""
    out = []
    for position, dim in enumerate(dims):
        if window is None or not isinstance(dim, int):
            out.append(model.fresh())
            continue
        size, stride, padding, dilation = (part[position] for part in window)
        span = dim + 2 * padding - dilation * (size - 1) - 1
        out.append(span // stride + 1 if span >= 0 else model.fresh())
    return tuple(out)


def _pooled(x: Shape, spatial: int, window, output_size) -> Shape | None:
    """A pool over the last `spatial` dims of a batched or unbatched input."""
    if x.dims is None:  # dim 0 is kept either way
        return Shape.unknown(min_rank=spatial + 1, lead=x.lead)
    if len(x.dims) not in (spatial + 1, spatial + 2):
        return None
    head, tail = x.dims[:-spatial], x.dims[-spatial:]
    if output_size is not None:
        return _laid_out(x, head + tuple(output_size))
    return _laid_out(x, head + _windowed(tail, window))


def _interpolated(x: Shape, args: Args) -> Shape | None:
    """`F.interpolate(x, size=...)` / `scale_factor=<int>`: (N, C, *new spatial sizes)."""
    if x.dims is None or len(x.dims) < 3 or not args.complete:
        return None
    spatial = len(x.dims) - 2
    size = _tuple_arg(args.get(0, "size"), spatial)
    if size is None and args.has(1, "scale_factor"):
        scale = _tuple_arg(args.get(1, "scale_factor"), spatial)
        if scale is None or not all(isinstance(d, int) for d in x.dims[2:]):
            return None
        size = tuple(d * f for d, f in zip(x.dims[2:], scale, strict=True))
    return _laid_out(x, x.dims[:2] + size) if size is not None else None


def _channels_last(x: Shape) -> bool:
    """Channels innermost (`images.permute(0, 3, 1, 2)` of NHWC data, 4 or 5 dims)."""
    if x.dims is None or x.rank not in (4, 5):
        return False
    return x.order == (0, x.rank - 1, *range(1, x.rank - 1))


def _laid_out(x: Shape, dims: tuple) -> Shape:
    """The output of a convolution, pool or normalisation of input x: channels-last when
    x is (suggest_memory_format), contiguous otherwise."""
    if _channels_last(x) and len(dims) == len(x.dims):
        return Shape(tuple(dims), x.order)
    return Shape.contiguous(dims)


def _layer(name: str, args: Args) -> Layer | None:
    if not args.complete:
        return None
    if name == "Linear":
        features = as_dim(args.get(0, "in_features")), as_dim(args.get(1, "out_features"))
        # a size the file does not fix (`config.hidden_size`) is a size of its own: the
        # output keeps every dim of the input but the last
        return Layer("linear", tuple(f if f is not None else model.fresh() for f in features))
    if name == "Embedding":
        sizes = as_dim(args.get(0, "num_embeddings")), as_dim(args.get(1, "embedding_dim"))
        return Layer("embedding", tuple(s if s is not None else model.fresh() for s in sizes))
    if name in torch_ops.SHAPE_CONV_LAYERS:
        # channels the file does not fix are sizes of their own, as a Linear's features
        channels = tuple(
            c if c is not None else model.fresh()
            for c in (as_dim(args.get(0, "in_channels")), as_dim(args.get(1, "out_channels")))
        )
        spatial = torch_ops.SHAPE_CONV_LAYERS[name]
        window = _window(args, spatial, 2, kernel="kernel_size", stride_default=1)
        return Layer("conv", (*channels, spatial, window))
    pool = torch_ops.SHAPE_POOL_LAYERS.get(name)
    if pool is not None:
        kind, spatial = pool
        if kind == "adaptive":
            return Layer("pool", (spatial, None, _tuple_arg(args.get(0, "output_size"), spatial)))
        return Layer("pool", (spatial, _window(args, spatial, 0, kernel="kernel_size"), None))
    if name in torch_ops.SHAPE_PRESERVING_LAYERS:
        return Layer("same", (name,))
    if name == "Unflatten":
        dim, sizes = as_dim(args.get(0, "dim")), args.get(1, "unflattened_size")
        return Layer("unflatten", (dim, sizes)) if isinstance(dim, int) else None
    if name == "Flatten":
        start = as_dim(args.get(0, "start_dim")) if args.has(0, "start_dim") else 1
        end = as_dim(args.get(1, "end_dim")) if args.has(1, "end_dim") else -1
        return Layer("flatten", (start, end)) if None not in (start, end) else None
    if name in torch_ops.SHAPE_LOSS_MODULES:
        reduction = _loss_reduction(args)
        return Layer("loss", (torch_ops.SHAPE_LOSS_MODULES[name], reduction)) if reduction else None
    return None


def _size_query(name: str, shape: Shape, args: Args) -> Value:
    if name == "dim":
        return shape.rank
    if name == "numel":
        return shape.numel() if shape.dims is not None else None
    if not args.positional and "dim" not in args.keywords:
        return shape.dims
    index = as_dim(args.get(0, "dim"))
    if index == 0 and shape.dims is None:
        return shape.lead
    if not isinstance(index, int) or shape.dims is None:
        return None
    position = model.normalize_dim(index, shape.rank)
    return shape.dims[position] if position is not None else None


def _dim_list(value: Value) -> list[int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return list(value)
    return None


def _reduction(shape: Shape, args: Args, reduction: knowledge.Reduction) -> Shape | None:
    if not args.complete:
        return None
    dim_position = reduction.dim
    dim_expr = args.expr(dim_position, "dim")
    if dim_expr is None:
        dim_expr = args.expr(None, "axis")
    keepdim = _literal_bool(args.expr(reduction.keepdim, "keepdim"))
    if args.has(reduction.keepdim, "keepdim") and keepdim is None:
        return None
    if dim_expr is None or (isinstance(dim_expr, cst.Name) and dim_expr.value == "None"):
        if reduction.dim_required:
            return None
        if "dtype" in args.keywords or len(args.positional) <= dim_position:
            return Shape.contiguous(()) if not keepdim else None
        return None
    if _literal_bool(dim_expr) is not None:
        return None  # `x.std(True)`: unbiased, not a dim
    dims = _dim_list(
        args.get(dim_position, "dim") if "axis" not in args.keywords else args.get(None, "axis")
    )
    if dims is None:
        return Shape.unknown()
    if shape.dims is None:
        return Shape.unknown(min_rank=max(d + 1 if d >= 0 else -d for d in dims))
    return model.reduced(shape, dims, bool(keepdim))


def _value_index_reduction(node, flow: ShapeFlow, name: str, shape: Shape, args: Args):
    other = args.get(0, "other")
    if isinstance(other, Shape):
        return flow._broadcast(node, name, shape, other)
    if not args.positional and "dim" not in args.keywords:
        return Shape.contiguous(()) if args.complete else None
    result = _reduction(shape, args, torch_ops.SHAPE_VALUE_INDEX_REDUCTIONS[name])
    return (result, result) if result is not None else None


def _flatten(shape: Shape, start: int, end: int) -> Shape | None:
    if shape.dims is None:
        return None
    if not shape.dims:
        return Shape.contiguous((1,))
    first = model.normalize_dim(start, len(shape.dims))
    last = model.normalize_dim(end, len(shape.dims))
    if first is None or last is None or first > last:
        return None
    dims = shape.dims[:first] + (model.mul(*shape.dims[first : last + 1]),) + shape.dims[last + 1 :]
    return Shape.contiguous(dims) if shape.is_contiguous else Shape(dims)


def _insert_order(order: tuple[int, ...] | None, position: int) -> tuple[int, ...] | None:
    """The layout after a size-1 dim is inserted at `position` (its place is irrelevant)."""
    if order is None:
        return None
    anchor = order[position - 1] + 0.5 if position > 0 else -0.5
    values = list(order)
    values.insert(position, anchor)
    ranking = sorted(range(len(values)), key=values.__getitem__)
    result = [0] * len(values)
    for rank, index in enumerate(ranking):
        result[index] = rank
    return tuple(result)


def _unsqueeze(shape: Shape, dim: int) -> Shape | None:
    if shape.dims is None:
        return None
    position = model.normalize_dim(dim, len(shape.dims) + 1)
    if position is None:
        return None
    dims = shape.dims[:position] + (1,) + shape.dims[position:]
    return Shape(dims, _insert_order(shape.order, position))


def _drop_dims(shape: Shape, dropped: set[int]) -> Shape:
    dims = tuple(d for i, d in enumerate(shape.dims) if i not in dropped)
    order = None
    if shape.order is not None:
        kept = [o for i, o in enumerate(shape.order) if i not in dropped]
        ranking = sorted(range(len(kept)), key=kept.__getitem__)
        order_list = [0] * len(kept)
        for rank, index in enumerate(ranking):
            order_list[index] = rank
        order = tuple(order_list)
    kept_dims = [i for i in range(len(shape.dims)) if i not in dropped]
    gaps = frozenset(kept_dims.index(g) for g in shape.gaps if g not in dropped)
    return Shape(dims, order, gaps=gaps)


def row_shape(shape: Shape | None) -> Shape | None:
    """What iterating over a tensor yields (`q, k, v = qkv`): one index of dim 0."""
    if shape is None or not shape.dims:
        return None
    return _indexed(shape, 0)


def _indexed(shape: Shape, position: int) -> Shape:
    """`x[:, i]` / a piece of `unbind`: dim `position` is dropped. When it held more than
    one element, the next dim inside it in memory now skips over the rest of it (a gap:
    merging that dim with the one outside can no longer be a view)."""
    result = _drop_dims(shape, {position})
    if shape.order is None or shape.dims[position] == 1:
        return result
    inside = [
        i for i, d in enumerate(shape.dims) if d != 1 and shape.order[i] > shape.order[position]
    ]
    if not inside:
        return result  # the innermost dim: the others keep their spacing
    inner = min(inside, key=lambda i: shape.order[i])
    return replace(result, gaps=result.gaps | {inner - (inner > position)})


def _squeeze(shape: Shape, args: Args) -> Shape | None:
    if shape.dims is None or not args.complete:
        return None
    if not args.positional and "dim" not in args.keywords:
        if any(not isinstance(d, int) for d in shape.dims):
            return None
        return _drop_dims(shape, {i for i, d in enumerate(shape.dims) if d == 1})
    dims = _dim_list(args.get(0, "dim"))
    if dims is None:
        return None
    positions = {model.normalize_dim(d, len(shape.dims)) for d in dims}
    if None in positions:
        return None
    if any(not isinstance(shape.dims[p], int) for p in positions):
        return None
    return _drop_dims(shape, {p for p in positions if shape.dims[p] == 1})


def _index_tensor(shape: Shape, indices: list) -> Shape | None:
    """Basic indexing: ints drop a dim, slices keep it, None inserts one; one integer index
    tensor puts its own dims in place of the dim it indexes (a new tensor)."""
    if shape.dims is None:
        if len(indices) == 1 and indices[0][0] == "slice":
            return Shape.unknown(min_rank=shape.min_rank)
        return None
    advanced = [value for kind, value, _ in indices if kind == "tensor"]
    if advanced:
        return _gathered(shape, indices, advanced[0]) if len(advanced) == 1 else None
    current, position = shape, 0
    for kind, value, expr in indices:
        if kind == "index" and isinstance(expr, cst.Name) and expr.value == "None":
            current = _unsqueeze(current, position)
            position += 1
        elif kind == "index":
            if not isinstance(as_dim(value), int) or position >= len(current.dims):
                return None
            current = _indexed(current, position)
        else:
            if position >= len(current.dims):
                return None
            current = _sliced(current, position, value)
            position += 1
        if current is None:
            return None
    return current


def _gathered(shape: Shape, indices: list, index: Value) -> Shape | None:
    """`x[:, idx]`: full slices around one integer index tensor, whose dims replace the
    dim it indexes (`logits[:, labels]` of (B, C) with labels (B,) is (B, B))."""
    if not isinstance(index, Shape) or index.dims is None:
        return None
    position = next(i for i, (kind, _, _) in enumerate(indices) if kind == "tensor")
    whole = [_ABSENT, _ABSENT, _ABSENT]
    if any(kind == "index" or (kind == "slice" and value != whole) for kind, value, _ in indices):
        return None
    if len(indices) > len(shape.dims):
        return None
    dims = shape.dims[:position] + index.dims + shape.dims[position + 1 :]
    return Shape(dims)


@dataclass(frozen=True)
class Window:
    """`x[i : i + k]` with `i` a position the code varies (a loop over `range(0, n, k)`):
    k rows, but the last window of rows is shorter unless k divides the row count."""

    rows: int


def _window_rows(index: cst.Slice, bounds: list, part: Part) -> Window | None:
    upper = index.upper
    if (
        index.lower is None
        or index.step is not None
        or not isinstance(upper, cst.BinaryOperation)
        or not isinstance(upper.operator, cst.Add)
        or not upper.left.deep_equals(index.lower)
        or isinstance(bounds[0], int)
    ):
        return None
    rows = as_dim(shape_value(part(upper.right)))
    return Window(rows) if isinstance(rows, int) and rows > 1 else None


def _sliced(shape: Shape, position: int, bounds: list | Window) -> Shape | None:
    dims = list(shape.dims)
    if isinstance(bounds, Window):
        size = dims[position]
        whole = isinstance(size, int) and size % bounds.rows == 0
        # rows cut into batches: the last one may be short (a batch of unknown size)
        dims[position] = bounds.rows if whole else BATCH if position == 0 else model.fresh()
        return Shape(tuple(dims), shape.order)
    lower, upper, step = bounds
    if lower is _ABSENT and upper is _ABSENT and step is _ABSENT:
        return shape
    size = dims[position]
    lower = 0 if lower is _ABSENT else lower
    upper = size if upper is _ABSENT else upper
    if (
        step is _ABSENT
        and isinstance(size, int)
        and isinstance(upper, int)
        and isinstance(lower, int)
        and upper >= 0
        and lower >= 0
    ):
        dims[position] = max(0, min(upper, size) - lower)
    elif step is _ABSENT and lower == 0 and upper == 1:
        dims[position] = 1  # `[:1]`: one row of any tensor not empty along that dim
    else:
        dims[position] = model.fresh()
    narrowed = dims[position]
    if isinstance(size, int) and isinstance(narrowed, int) and 1 < narrowed < size:
        # fewer elements than the stride of the dim outside it: merging them is no view
        return Shape(tuple(dims), shape.order, gaps=shape.gaps | {position})
    return Shape(tuple(dims), shape.order, gaps=shape.gaps)


def _shape_method(flow: ShapeFlow, node, name: str, shape: Shape, args: Args) -> Value:
    """Layout-changing methods: transposes, (un)squeeze, flatten, expand, topk, ..."""
    if not args.complete:
        return None
    if name == "t":
        if shape.rank is None and shape.min_rank >= 2 and shape.dense:
            return Shape((model.fresh(), model.fresh()), (1, 0))  # `t()` needs rank <= 2
        return flow._transpose(shape, 0, 1) if shape.rank == 2 else shape if shape.rank else None
    if name in ("transpose", "swapaxes", "swapdims"):
        a, b = as_dim(args.get(0, "dim0")), as_dim(args.get(1, "dim1"))
        return flow._transpose(shape, a, b) if isinstance(a, int) and isinstance(b, int) else None
    if name == "permute":
        perm = args.get(0, "dims") if len(args.positional) == 1 else [v for _, v in args.positional]
        return flow._permute(shape, list(perm)) if isinstance(perm, tuple | list) else None
    if name == "unsqueeze":
        dim = as_dim(args.get(0, "dim"))
        return _unsqueeze(shape, dim) if isinstance(dim, int) else None
    if name == "squeeze":
        return _squeeze(shape, args)
    if name == "flatten":
        start = as_dim(args.get(0, "start_dim")) if args.has(0, "start_dim") else 0
        end = as_dim(args.get(1, "end_dim")) if args.has(1, "end_dim") else -1
        ok = isinstance(start, int) and isinstance(end, int)
        return _flatten(shape, start, end) if ok else None
    if name in ("view_as", "reshape_as", "expand_as"):
        other = args.get(0, "other")
        if not isinstance(other, Shape) or other.dims is None:
            return None
        return (
            Shape(other.dims)
            if name == "expand_as"
            else flow._reshape(
                node, name.removesuffix("_as"), shape, Args([(node, other.dims)], {}, True)
            )
        )
    if name == "expand":
        sizes = _sizes(args, 0)
        if sizes is None or shape.dims is None or len(sizes) < len(shape.dims):
            return None
        padded = (None,) * (len(sizes) - len(shape.dims)) + shape.dims
        dims = [old if new == -1 else new for new, old in zip(sizes, padded, strict=True)]
        return Shape(tuple(dims)) if None not in dims else None
    if name == "repeat":
        sizes = _sizes(args, 0)
        if sizes is None or None in sizes or shape.dims is None or len(sizes) < len(shape.dims):
            return None
        padded = (1,) * (len(sizes) - len(shape.dims)) + shape.dims
        return Shape.contiguous(model.mul(a, b) for a, b in zip(padded, sizes, strict=True))
    if name in ("topk", "sort"):
        return _topk(name, shape, args)
    if name == "unflatten":
        return flow._unflatten(node, shape, args)
    if name == "argsort" or (name == "astype" and not args.has(1, "order")):
        return _keep(shape)  # numpy's astype keeps the array's layout
    if name in ("chunk", "split", "unbind", "narrow"):
        return _pieces(name, shape, args)
    if name == "repeat_interleave":
        repeats = as_dim(args.get(0, "repeats"))
        if repeats is None or shape.dims is None:
            return None
        if not args.has(1, "dim"):
            return Shape.contiguous((model.mul(shape.numel(), repeats),))
        dim = as_dim(args.get(1, "dim"))
        position = model.normalize_dim(dim, len(shape.dims)) if isinstance(dim, int) else None
        if position is None:
            return None
        dims = list(shape.dims)
        dims[position] = model.mul(dims[position], repeats)
        return Shape.contiguous(dims)
    return None


def _pieces(name: str, shape: Shape, args: Args) -> Pieces | Shape | None:
    """The views chunk / split / unbind / narrow return: each piece of a dim cut in
    several is narrower than the stride of the dim outside it in memory (a gap)."""
    dim_position = {"chunk": 1, "split": 1, "unbind": 0, "narrow": 0}.get(name)
    if dim_position is None or shape.dims is None:
        return None
    default = 0 if name != "narrow" else None
    dim = as_dim(args.get(dim_position, "dim")) if args.has(dim_position, "dim") else default
    if not isinstance(dim, int):
        return None
    position = model.normalize_dim(dim, len(shape.dims))
    if position is None:
        return None
    size = shape.dims[position]

    def piece(length: Dim) -> Shape:
        dims = shape.dims[:position] + (length,) + shape.dims[position + 1 :]
        return Shape(dims, shape.order, gaps=shape.gaps | {position})

    if name == "unbind":
        return Pieces((_indexed(shape, position),), any_length=True)
    if name == "narrow":
        length = as_dim(args.get(2, "length"))
        if length is None:
            return None
        return (
            piece(length)
            if model.provably_different(length, size)
            else Shape(shape.dims[:position] + (length,) + shape.dims[position + 1 :], shape.order)
        )
    if name == "chunk":
        chunks = as_dim(args.get(0, "chunks"))
        if not isinstance(chunks, int) or chunks < 2:
            return None
        length = model.div(size, chunks)
        if length is not None:  # a size `chunks` divides: exactly `chunks` equal pieces
            if chunks <= 16:
                return Pieces((piece(length),) * chunks)
            return Pieces((piece(length),), any_length=True)
        if not isinstance(size, int) or size < chunks:
            return None
        step = -(-size // chunks)  # torch: pieces of ceil(size / chunks), the last smaller
        lengths = [min(step, size - start) for start in range(0, size, step)]
        return Pieces(tuple(piece(n) for n in lengths))
    sizes = args.get(0, "split_size_or_sections")
    if isinstance(sizes, tuple) and len(sizes) > 1 and all(as_dim(d) is not None for d in sizes):
        return Pieces(tuple(piece(as_dim(d)) for d in sizes))
    length = as_dim(sizes)
    if length is not None and model.div(size, length) not in (None, 1):
        return Pieces((piece(length),), any_length=True)
    return None


def _topk(name: str, shape: Shape, args: Args) -> Value:
    k = as_dim(args.get(0, "k")) if name == "topk" else None
    dim_position = 1 if name == "topk" else 0
    dim = as_dim(args.get(dim_position, "dim")) if args.has(dim_position, "dim") else -1
    if not isinstance(dim, int):
        return None
    if shape.dims is None:
        rank = max(shape.min_rank, dim + 1 if dim >= 0 else -dim)
        result = Shape(None, None, rank, dense=name == "topk")  # topk allocates its outputs
        return (result, result)
    position = model.normalize_dim(dim, len(shape.dims))
    if position is None:
        return None
    dims = list(shape.dims)
    if name == "sort":
        result = Shape(tuple(dims))  # sort keeps the input's layout, topk allocates
        return (result, result)
    dims[position] = k if k is not None else model.fresh()
    result = Shape.contiguous(dims)
    return (result, result)


def _argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None]
    return positional[index].value if index < len(positional) else None


def _elements(expr: cst.BaseExpression, part: Part):
    """The tensors a backward argument holds, each with the expression that names it, and
    what any further items of unknown number are (`[loss] + losses`, `[g] * n`)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left, left_rest = _elements(expr.left, part)
        right, right_rest = _elements(expr.right, part)
        if left_rest is not None:  # items after an unknown number of them: unplaced
            return left, (expr, None)
        return left + right, right_rest
    if isinstance(expr, cst.Tuple | cst.List):
        if any(isinstance(e, cst.StarredElement) for e in expr.elements):
            return [], None
        return [(e.value, part(e.value)) for e in expr.elements], None
    value = part(expr)
    if isinstance(value, Seq):
        if value.any_length:
            return [], (expr, value.item(0))
        return [(expr, item) for item in value.items], None
    return [(expr, value)], None


def _count_binding(calls: list[cst.Call], name: str, params: list[str]) -> int:
    """How many calls pass `name` (an argument left to its default is not bound)."""
    count = 0
    for call in calls:
        for position, arg in enumerate(call.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == name or (
                keyword is None and position < len(params) and params[position] == name
            ):
                count += 1
                break
    return count
