"""Which tensors are proven integer or boolean: torch lets only floating point and complex
tensors require grad ("Only Tensors of floating point and complex dtype can require
gradients"). A dtype is "int", "bool" or "float"; None is unknown and gives no finding.
Each fact here was checked in torch 2.13."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.dataflow.values import Const, Seq
from gradlint.analysis.names import ImportTable

_INT = frozenset(
    {"long", "int", "int64", "int32", "int16", "int8", "short", "uint8", "uint16", "uint32"}
    | {"uint64"}
)
_FLOAT = frozenset(
    {"float", "float32", "float64", "double", "half", "float16", "bfloat16"}
    | {"complex64", "complex128", "cfloat", "cdouble"}
)
# torch functions (and Tensor methods of the same name) whose result is integer / boolean
INDEX_RESULTS = frozenset(
    {"argmax", "argmin", "argsort", "randint", "randint_like", "randperm", "nonzero"}
    | {"bucketize", "searchsorted", "multinomial"}
)
_BOOL_RESULTS = frozenset(
    {"isnan", "isinf", "isfinite", "isneginf", "isposinf", "isclose", "eq", "ne", "gt"}
    | {"lt", "ge", "le", "logical_and", "logical_or", "logical_not", "logical_xor"}
)
# Tensor casts: `t.long()`, `t.bool()`, `t.float()`
_CAST_METHODS = {
    "long": "int",
    "int": "int",
    "short": "int",
    "byte": "int",
    "char": "int",
    "bool": "bool",
    "float": "float",
    "double": "float",
    "half": "float",
    "bfloat16": "float",
}
# Python's types as dtypes: `dtype=float` is torch.float64, int torch.int64, bool torch.bool
_BUILTIN_TYPES = {"float": "float", "int": "int", "bool": "bool"}
# ops returning (values, indices): always, or when given a dim
ALWAYS_PAIRED = frozenset({"sort", "topk", "kthvalue", "mode", "cummax", "cummin"})
PAIRED_WITH_DIM = frozenset({"max", "min", "median", "nanmedian"})
# float factories (the default dtype is float32); `full` and `tensor` follow their data
_FLOAT_FACTORIES = frozenset({"zeros", "ones", "empty", "rand", "randn", "eye", "linspace"})


def named(expr: cst.BaseExpression | None, imports: ImportTable) -> str | None:
    """The dtype `torch.long` / `torch.float16` / `torch.bool` names, or None."""
    if expr is None:
        return None
    qualified = imports.resolve(expr) or ""
    if not qualified and isinstance(expr, cst.Name) and expr.value in _BUILTIN_TYPES:
        return _BUILTIN_TYPES[expr.value]  # `dtype=float`: torch.float64
    head, _, last = qualified.rpartition(".")
    if head != "torch":
        return None
    if last == "bool":
        return "bool"
    if last in _INT:
        return "int"
    return "float" if last in _FLOAT else None


def of_data(value) -> str | None:
    """`torch.tensor(data)` without a dtype: int64 for Python ints, bool for bools,
    float32 for floats (any float in a list makes it float)."""
    if isinstance(value, Const) and type(value.value) in (int, float, bool):
        return {int: "int", float: "float", bool: "bool"}[type(value.value)]
    if isinstance(value, Seq) and value.items and not value.any_length:
        kinds = {of_data(item) for item in value.items}
        if None in kinds or len(kinds - {"int"}) > 1 or kinds == {"bool", "int"}:
            return None
        return "float" if "float" in kinds else kinds.pop()
    return None


def of_torch_call(last: str, explicit: str | None, positional: list) -> str | None:
    """The dtype of `torch.<last>(...)`; `explicit` from its `dtype=` argument."""
    if explicit is not None:
        return explicit
    if last in INDEX_RESULTS:
        return "int"
    if last in _BOOL_RESULTS:
        return "bool"
    if last == "tensor" and positional:
        return of_data(positional[0])
    if last == "arange" and positional:
        return "int" if all(_whole(v) for v in positional) else None
    return "float" if last in _FLOAT_FACTORIES else None


def of_method(method: str, explicit: str | None) -> str | None:
    """The dtype of `t.<method>(...)` when the method alone decides it."""
    if method in ("to", "type"):
        return explicit
    if method in INDEX_RESULTS:
        return "int"
    if method in _BOOL_RESULTS:
        return "bool"
    return _CAST_METHODS.get(method)


def _whole(value) -> bool:
    return isinstance(value, Const) and type(value.value) is int


def cannot_require_grad(dtype: str | None) -> bool:
    return dtype in ("int", "bool")
