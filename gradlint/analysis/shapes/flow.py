"""Abstract interpretation of one function body (or the module body) over shapes.

Statements are walked in order; every expression's value is recorded against its node,
so a rule can ask `shape_of(node)` afterwards. `if` branches are joined (equal values
survive, others become unknown) and loops are iterated until the environment is stable.
Operations whose known shapes cannot fit are recorded as `Conflict`s for the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import libcst as cst

from gradlint.analysis import torch_ops
from gradlint.analysis.context import ClassInfo, ModuleIndex, literal_value
from gradlint.analysis.names import ImportTable, dotted
from gradlint.analysis.shapes import model
from gradlint.analysis.shapes.model import Dim, Prod, Shape, Sym
from gradlint.analysis.walk import iter_nodes

BATCH = Sym("batch")
_RESHAPES = frozenset({"view", "reshape"})
JAXTYPING_KINDS = frozenset(
    {"Float", "Int", "Bool", "Shaped", "Real", "Num", "Integer", "Inexact", "Complex", "UInt"}
)
_MAX_LOOP_ROUNDS = 6
_ABSENT = object()  # a slice bound that was not written
_OWN_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


@dataclass(frozen=True)
class Layer:
    """An nn layer object: `kind` in linear / embedding / conv / same / flatten / loss."""

    kind: str
    args: tuple = ()


@dataclass(frozen=True)
class SelfRef:
    """`self`, or an instance of an nn.Module class defined in the file."""

    owner: ClassInfo


@dataclass(frozen=True)
class Conflict:
    """Known shapes that torch will reject (or silently mis-handle) at `node`."""

    kind: str
    node: cst.CSTNode
    operands: tuple
    op: str = ""
    extra: tuple = field(default=())


Value = Any  # Shape | int | Sym | Prod | tuple | Layer | SelfRef | str | None


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


def _terminates(block: cst.BaseSuite) -> bool:
    """The block always leaves (return / raise / continue / break) at its end."""
    body = getattr(block, "body", ())
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return any(
            isinstance(s, cst.Return | cst.Raise | cst.Continue | cst.Break) for s in last.body
        )
    return False


def _assigned_names(node: cst.CSTNode) -> set[str]:
    """Every plain name a statement may bind or delete (targets, `del`, `global`, ...)."""
    names = set()
    for child in iter_nodes(node):
        if isinstance(child, cst.Name):
            names.add(child.value)
    return names


def join_env(a: dict, b: dict) -> dict:
    return {name: value for name, value in a.items() if name in b and b[name] == value}


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


class FileView(Protocol):
    """What a function's interpretation reads of its file: `FileShapes` (file.py) is one."""

    imports: ImportTable
    index: ModuleIndex
    constants: dict[str, int]
    collecting_init: bool  # running `__init__`: `self.x = ...` are recorded in init_attrs
    init_attrs: dict[str, Value]

    def annotation_shape(self, annotation: cst.BaseExpression) -> Shape | None: ...

    def attributes(self, owner: ClassInfo) -> dict[str, Value]: ...


class FunctionShapes:
    """Shapes of every expression of one function body, and the conflicts found there."""

    def __init__(self, shapes: FileView, body: list[cst.CSTNode], env: dict) -> None:
        self.shapes = shapes
        self.imports = shapes.imports
        self.values: dict[cst.CSTNode, Value] = {}
        self.conflicts: dict[cst.CSTNode, dict[str, Conflict]] = {}
        self._block(body, env)

    # -- queries ------------------------------------------------------------------------

    def value_of(self, node: cst.CSTNode) -> Value:
        return self.values.get(node)

    def conflicts_at(self, node: cst.CSTNode) -> list[Conflict]:
        return list(self.conflicts.get(node, {}).values())

    def shape_of(self, node: cst.CSTNode) -> Shape | None:
        value = self.values.get(node)
        return value if isinstance(value, Shape) else None

    # -- statements ---------------------------------------------------------------------

    def _block(self, statements, env: dict) -> None:
        for statement in statements:
            self._statement(statement, env)

    def _statement(self, statement: cst.CSTNode, env: dict) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small, env)
        elif isinstance(statement, cst.If):
            self._if(statement, env)
        elif isinstance(statement, cst.For):
            self.ev(statement.iter, env)
            self._loop(statement.body.body, env, statement.target)
            if statement.orelse is not None:
                self._block(statement.orelse.body.body, env)
        elif isinstance(statement, cst.While):
            self.ev(statement.test, env)
            self._loop(statement.body.body, env, None)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                self.ev(item.item, env)
                if item.asname is not None:
                    self._unbind(item.asname.name, env)
            self._block(statement.body.body, env)
        elif isinstance(statement, cst.Try):
            self._try(statement, env)
        elif isinstance(statement, cst.FunctionDef | cst.ClassDef):
            env.pop(statement.name.value, None)
        else:  # match and other statements: whatever they bind becomes unknown
            for name in _assigned_names(statement):
                env.pop(name, None)

    def _small(self, small: cst.CSTNode, env: dict) -> None:
        if isinstance(small, cst.Assign):
            value = self.ev(small.value, env)
            for target in small.targets:
                self._bind(target.target, value, env)
        elif isinstance(small, cst.AnnAssign):
            value = self.ev(small.value, env) if small.value is not None else None
            annotated = self.shapes.annotation_shape(small.annotation.annotation)
            self._bind(small.target, annotated or value, env)
        elif isinstance(small, cst.AugAssign):
            value = self._binary(small, small.target, small.operator, small.value, env)
            self._bind(small.target, value, env)
        elif isinstance(small, cst.Expr | cst.Return) and small.value is not None:
            self.ev(small.value, env)
        else:  # del, global, import, ...: names they touch become unknown
            for name in _assigned_names(small):
                env.pop(name, None)

    def _if(self, statement: cst.If, env: dict) -> None:
        self.ev(statement.test, env)
        taken = dict(env)
        self._block(statement.body.body, taken)
        other = dict(env)
        if isinstance(statement.orelse, cst.If):
            self._if(statement.orelse, other)
        elif statement.orelse is not None:
            self._block(statement.orelse.body.body, other)
        if _terminates(statement.body):
            result = other
        elif isinstance(statement.orelse, cst.Else) and _terminates(statement.orelse.body):
            result = taken
        else:
            result = join_env(taken, other)
        env.clear()
        env.update(result)

    def _loop(self, body, env: dict, target: cst.BaseExpression | None) -> None:
        entry = dict(env)
        for _ in range(_MAX_LOOP_ROUNDS):
            current = dict(entry)
            if target is not None:
                self._unbind(target, current)
            self._block(body, current)
            joined = join_env(entry, current)
            if joined == entry:
                break
            entry = joined
        env.clear()
        env.update(entry)

    def _try(self, statement: cst.Try, env: dict) -> None:
        before = dict(env)
        self._block(statement.body.body, env)
        result = join_env(before, env)
        for handler in statement.handlers:
            branch = dict(result)
            self._block(handler.body.body, branch)
            result = join_env(result, branch)
        if statement.orelse is not None:
            self._block(statement.orelse.body.body, result)
        if statement.finalbody is not None:
            self._block(statement.finalbody.body.body, result)
        env.clear()
        env.update(result)

    def _bind(self, target: cst.BaseExpression, value: Value, env: dict) -> None:
        if isinstance(target, cst.Name):
            if value is None:
                env.pop(target.value, None)
            else:
                env[target.value] = value
        elif isinstance(target, cst.Tuple | cst.List):
            elements = target.elements
            fits = isinstance(value, tuple) and len(value) == len(elements)
            for i, element in enumerate(elements):
                if isinstance(element, cst.StarredElement):
                    self._unbind(element.value, env)
                    fits = False
                else:
                    self._bind(element.value, value[i] if fits else None, env)
        elif isinstance(target, cst.Attribute) and self.shapes.collecting_init:
            name = dotted(target)
            if name and name.startswith("self.") and name.count(".") == 1 and value is not None:
                self.shapes.init_attrs[name[5:]] = value

    def _unbind(self, target: cst.BaseExpression, env: dict) -> None:
        self._bind(target, None, env)

    # -- expressions ----------------------------------------------------------------------

    def ev(self, node: cst.BaseExpression | None, env: dict) -> Value:
        if node is None:
            return None
        value = self._expression(node, env)
        if value is None:
            self.values.pop(node, None)
        else:
            self.values[node] = value
        return value

    def _expression(self, node: cst.BaseExpression, env: dict) -> Value:
        literal = literal_int(node)
        if literal is not None:
            return literal
        if isinstance(node, cst.Name):
            if node.value in env:
                return env[node.value]
            return self.shapes.constants.get(node.value)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, env)
        if isinstance(node, cst.Call):
            return self._call(node, env)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, node.left, node.operator, node.right, env)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, env)
        if isinstance(node, cst.Tuple | cst.List):
            items = [self.ev(e.value, env) for e in node.elements]
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                return None
            return tuple(items)
        if isinstance(node, cst.IfExp):
            self.ev(node.test, env)
            body, orelse = self.ev(node.body, env), self.ev(node.orelse, env)
            return body if body == orelse else None
        if isinstance(node, cst.SimpleString):
            return literal_str(node)
        if isinstance(node, _OWN_SCOPES):
            return None  # their names are not this function's: never read them from env
        if isinstance(node, cst.NamedExpr):
            value = self.ev(node.value, env)
            self._bind(node.target, value, env)
            return value
        for child in node.children:  # still record what is inside (comprehensions, ...)
            if isinstance(child, cst.BaseExpression):
                self.ev(child, env)
        return None

    def _attribute(self, node: cst.Attribute, env: dict) -> Value:
        name = node.attr.value
        base = self.ev(node.value, env)
        if isinstance(base, SelfRef):
            return self.shapes.attributes(base.owner).get(name)
        if not isinstance(base, Shape):
            return None
        if name == "shape":
            return base.dims
        if name in ("data", "real"):
            return base
        if name == "T":
            return self._permute(base, list(range((base.rank or 0) - 1, -1, -1)))
        if name == "mT":
            return self._transpose(base, -2, -1)
        return None

    def _binary(self, node, left_expr, operator, right_expr, env: dict) -> Value:
        left = self.ev(left_expr, env)
        right = self.ev(right_expr, env)
        if isinstance(operator, cst.MatrixMultiply | cst.MatrixMultiplyAssign):
            return self._matmul(node, "@", left, right)
        left_dim, right_dim = as_dim(left), as_dim(right)
        if left_dim is not None and right_dim is not None:
            return _dim_arithmetic(operator, left_dim, right_dim)
        if isinstance(left, Shape) and isinstance(right, Shape):
            return self._broadcast(node, _operator_name(operator), left, right)
        tensor = left if isinstance(left, Shape) else right
        scalar_expr = right_expr if tensor is left else left_expr
        if isinstance(tensor, Shape) and _is_number(scalar_expr, left_dim or right_dim):
            return _keep(tensor)
        return None

    def _subscript(self, node: cst.Subscript, env: dict) -> Value:
        base = self.ev(node.value, env)
        indices = []
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Index):
                indices.append(("index", self.ev(index.value, env), index.value))
            else:
                parts = (index.lower, index.upper, index.step)
                bounds = [_ABSENT if b is None else self.ev(b, env) for b in parts]
                indices.append(("slice", bounds, index))
        if isinstance(base, tuple) and len(indices) == 1 and indices[0][0] == "index":
            position = as_dim(indices[0][1])
            if isinstance(position, int) and -len(base) <= position < len(base):
                return base[position]
            return None
        if isinstance(base, Shape):
            return _index_tensor(base, indices)
        return None

    # -- calls ----------------------------------------------------------------------------

    def _arguments(self, call: cst.Call, env: dict) -> Args:
        positional, keywords, complete = [], {}, True
        for arg in call.args:
            value = self.ev(arg.value, env)
            if arg.star == "*":
                if isinstance(value, tuple):
                    positional.extend((arg.value, item) for item in value)
                else:
                    complete = False
            elif arg.star == "**":
                complete = False
            elif arg.keyword is not None:
                keywords[arg.keyword.value] = (arg.value, value)
            else:
                positional.append((arg.value, value))
        return Args(positional, keywords, complete)

    def _call(self, node: cst.Call, env: dict) -> Value:
        func = node.func
        qualified = self.imports.resolve(func)
        args = self._arguments(node, env)
        if qualified is not None and qualified.startswith("torch."):
            return self._torch_function(node, qualified, args)
        if isinstance(func, cst.Attribute):
            receiver = self.ev(func.value, env)
            if receiver is None and func.attr.value in torch_ops.SHAPE_TENSOR_ONLY_METHODS:
                receiver = Shape.unknown()
            full_reduction = func.attr.value in ("mean", "sum") and not node.args
            if receiver is None and full_reduction:
                receiver = Shape.unknown()  # `.mean()` of anything is 0-dim
            if isinstance(receiver, Shape):
                return self._method(node, func.attr.value, receiver, args)
        if isinstance(func, cst.Name) and func.value not in env:
            owner = self.shapes.index.by_name.get(func.value)
            if owner is not None and owner.is_module:
                return SelfRef(owner)  # an instance: its attributes come from `__init__`
        callee = self.ev(func, env)
        if isinstance(callee, Layer) and args.positional:
            return self._layer_call(node, callee, args)
        return None

    def _torch_function(self, node: cst.Call, qualified: str, args: Args) -> Value:
        namespace, _, name = qualified.rpartition(".")
        if name == "Parameter":
            return args.get(0, "data")
        if namespace == "torch.nn":
            return _layer(name, args)
        if namespace not in ("torch", "torch.nn.functional"):
            return None
        factory = _factory(name, args)
        if factory is not None:
            return factory
        if name in ("cat", "concat", "stack"):
            return _concatenate(name, args)
        if name in ("mm", "matmul", "bmm"):
            return self._matmul(node, name, args.get(0), args.get(1))
        if name == "linear":
            return self._linear(node, args.get(0), args.get(1), "F.linear")
        if name in torch_ops.SHAPE_LOSSES:
            return _loss(name, args.get(0, "input"), args.get(1, "target"), args, 2)
        first = args.get(0, "input")
        if isinstance(first, Shape):
            return self._method(node, name, first, args.shifted())
        return None

    def _method(self, node: cst.Call, name: str, shape: Shape, args: Args) -> Value:
        if name in torch_ops.SHAPE_PRESERVING_OPS or name.rstrip("_") in (
            torch_ops.SHAPE_PRESERVING_OPS | torch_ops.SHAPE_BINARY_OPS
        ):
            other = args.get(0, "other")
            if name.rstrip("_") in torch_ops.SHAPE_BINARY_OPS and isinstance(other, Shape):
                return self._broadcast(node, name, shape, other)
            if name.rstrip("_") in torch_ops.SHAPE_BINARY_OPS and not _is_number(
                args.expr(0, "other"), as_dim(other)
            ):
                return None
            return _keep(shape)
        if name in torch_ops.SHAPE_KEEPING_OPS:
            return Shape(shape.dims, min_rank=shape.min_rank, lead=shape.lead)
        if name == "contiguous":
            if shape.dims is None:
                return Shape(None, None, shape.min_rank, shape.lead, dense=True)
            return Shape.contiguous(shape.dims)
        if name in ("size", "dim", "numel"):
            return _size_query(name, shape, args)
        if name in torch_ops.SHAPE_REDUCTIONS:
            return _reduction(shape, args, torch_ops.SHAPE_REDUCTIONS[name])
        if name in torch_ops.SHAPE_VALUE_INDEX_REDUCTIONS:
            return _value_index_reduction(node, self, name, shape, args)
        if name in _RESHAPES:
            return self._reshape(node, name, shape, args)
        if name in ("mm", "matmul", "bmm"):
            return self._matmul(node, name, shape, args.get(0))
        if name in ("new_zeros", "new_ones", "new_empty", "new_full"):
            sizes = _sizes(args, 0)
            return Shape.contiguous(sizes) if sizes is not None else None
        return _shape_method(self, node, name, shape, args)

    # -- transfer functions that can conflict ---------------------------------------------

    def _record(self, conflict: Conflict) -> None:
        """Keep every conflict of every loop round: each round's facts hold for some run."""
        self.conflicts.setdefault(conflict.node, {})[conflict.kind] = conflict

    def _broadcast(self, node, op: str, a: Shape, b: Shape) -> Shape | None:
        clash = model.broadcast_conflict(a, b)
        if clash is not None:
            self._record(Conflict("broadcast", node, (a, b), op, clash))
            return None
        result = model.broadcast(a, b)
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
        new = model.resolve_view_sizes(shape, sizes)
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
        origin = node if _folds_into_rows(sizes) else None
        if shape.is_contiguous:
            return Shape.contiguous(new, origin)
        return Shape(tuple(new), origin=origin)

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
        """`x.view(64, ...)` in forward, where x's first dim is the batch."""
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
        hard_coded = isinstance(first, cst.Integer) or (
            written is not None and written.isupper() and written in self.shapes.constants
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
            return Shape(x.dims, min_rank=x.min_rank, lead=x.lead)
        if layer.kind == "embedding" and x.dims is not None:
            return Shape.contiguous(x.dims + (layer.args[1],))
        if layer.kind == "conv" and x.rank == layer.args[2] + 2:
            return Shape.contiguous(
                (x.dims[0], layer.args[1]) + tuple(model.fresh() for _ in range(layer.args[2]))
            )
        if layer.kind == "flatten":
            return _flatten(x, layer.args[0], layer.args[1])
        return None

    def _transpose(self, shape: Shape, a: int, b: int) -> Shape | None:
        if shape.rank is None:
            return None
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
    """An elementwise result: same shape and layout, provenance kept for GL403."""
    return shape


def _dim_arithmetic(operator, a: Dim, b: Dim) -> Dim | None:
    if isinstance(operator, cst.Multiply):
        return model.mul(a, b)
    if isinstance(operator, cst.FloorDivide):
        return model.div(a, b)
    if isinstance(a, int) and isinstance(b, int):
        if isinstance(operator, cst.Add):
            return a + b
        if isinstance(operator, cst.Subtract):
            return a - b
    return None


def _folds_into_rows(sizes: list) -> bool:
    """`reshape(-1, 10)`: the -1 leads and the feature size is written out (GL403)."""
    return -1 in sizes[:-1]


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


def _sum_dims(dims: list[Dim]) -> Dim:
    if all(isinstance(d, int) for d in dims):
        return sum(dims)
    return model.fresh()


def _loss(function: str, x: Value, target: Value, args: Args | None, reduction) -> Shape | None:
    if args is not None:
        if args.keywords.keys() & {"reduce", "size_average"} or not args.complete:
            return None
        written = args.expr(None, "reduction")
        reduction = literal_str(written) if written is not None else "mean"
    if reduction in ("mean", "sum"):
        return Shape.contiguous(())
    if reduction != "none":
        return None
    if torch_ops.SHAPE_LOSSES[function] == "target":
        return target if isinstance(target, Shape) and target.dims is not None else None
    if isinstance(x, Shape) and isinstance(target, Shape):
        return model.broadcast(x, target)
    return None


def _layer(name: str, args: Args) -> Layer | None:
    if not args.complete:
        return None
    if name == "Linear":
        features = as_dim(args.get(0, "in_features")), as_dim(args.get(1, "out_features"))
        return Layer("linear", features) if None not in features else None
    if name == "Embedding":
        sizes = as_dim(args.get(0, "num_embeddings")), as_dim(args.get(1, "embedding_dim"))
        return Layer("embedding", sizes) if None not in sizes else None
    if name in torch_ops.SHAPE_CONV_LAYERS:
        channels = as_dim(args.get(0, "in_channels")), as_dim(args.get(1, "out_channels"))
        if None in channels:
            return None
        return Layer("conv", (*channels, torch_ops.SHAPE_CONV_LAYERS[name]))
    if name in torch_ops.SHAPE_PRESERVING_LAYERS:
        return Layer("same")
    if name == "Flatten":
        start = as_dim(args.get(0, "start_dim")) if args.has(0, "start_dim") else 1
        end = as_dim(args.get(1, "end_dim")) if args.has(1, "end_dim") else -1
        return Layer("flatten", (start, end)) if None not in (start, end) else None
    if name in torch_ops.SHAPE_LOSS_MODULES:
        if args.keywords.keys() & {"reduce", "size_average"}:
            return None
        written = args.expr(None, "reduction")
        reduction = literal_str(written) if written is not None else "mean"
        return Layer("loss", (torch_ops.SHAPE_LOSS_MODULES[name], reduction))
    return None


def _size_query(name: str, shape: Shape, args: Args) -> Value:
    if name == "dim":
        return shape.rank
    if name == "numel":
        return shape.numel() if shape.dims is not None else None
    if not args.positional and "dim" not in args.keywords:
        return shape.dims
    index = as_dim(args.get(0, "dim"))
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


def _reduction(shape: Shape, args: Args, dim_position: int) -> Shape | None:
    if not args.complete:
        return None
    dim_expr = args.expr(dim_position, "dim")
    if dim_expr is None:
        dim_expr = args.expr(None, "axis")
    keepdim = _literal_bool(args.expr(dim_position + 1, "keepdim"))
    if args.has(dim_position + 1, "keepdim") and keepdim is None:
        return None
    if dim_expr is None or (isinstance(dim_expr, cst.Name) and dim_expr.value == "None"):
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


def _value_index_reduction(node, flow: FunctionShapes, name: str, shape: Shape, args: Args):
    other = args.get(0, "other")
    if isinstance(other, Shape):
        return flow._broadcast(node, name, shape, other)
    if not args.positional and "dim" not in args.keywords:
        return Shape.contiguous(()) if args.complete else None
    result = _reduction(shape, args, 0)
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
    return Shape(dims, order)


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
    """Basic indexing: ints drop a dim, slices keep it, None inserts one."""
    if shape.dims is None:
        if len(indices) == 1 and indices[0][0] == "slice":
            return Shape.unknown(min_rank=shape.min_rank)
        return None
    current, position = shape, 0
    for kind, value, expr in indices:
        if kind == "index" and isinstance(expr, cst.Name) and expr.value == "None":
            current = _unsqueeze(current, position)
            position += 1
        elif kind == "index":
            if not isinstance(as_dim(value), int) or position >= len(current.dims):
                return None
            current = _drop_dims(current, {position})
            if shape.order is not None and not _outermost(shape, position):
                current = Shape(current.dims)
        else:
            if position >= len(current.dims):
                return None
            current = _sliced(current, position, value)
            position += 1
        if current is None:
            return None
    return current


def _outermost(shape: Shape, position: int) -> bool:
    return shape.order[position] == min(shape.order)


def _sliced(shape: Shape, position: int, bounds: list) -> Shape | None:
    lower, upper, step = bounds
    dims = list(shape.dims)
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
    else:
        dims[position] = model.fresh()
    return Shape(tuple(dims), shape.order)


def _shape_method(flow: FunctionShapes, node, name: str, shape: Shape, args: Args) -> Value:
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
    if name == "argsort":
        return _keep(shape)
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
