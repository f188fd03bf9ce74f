"""What a file's own code builds and feeds its modules with, as source the probe evaluates.

Read from the static analysis, never computed here: the dataflow interpreter's values
(constructor arguments of every instance of a class of the file, argparse defaults,
module constants, instances passed to constructors, the arguments of every call of a
module instance) and the shape analysis (the shapes of tensors at module-level call
sites). The sources use only literals, `torch.<factory>(<literals>)`, `torch.nn.<Layer>`
and the file's own class names.
"""

from __future__ import annotations

import ast

import libcst as cst

from gradlint.analysis.dataflow.values import Const, Grad, Mapping, Obj, Seq, Tensor
from gradlint.analysis.shapes.model import Shape
from gradlint.config import Config
from gradlint.filecontext import FileContext

_LITERALS = (bool, int, float, str, type(None))
_NESTING = 4  # instances passed to constructors passed to constructors ...


def file_context(path: str, source: str) -> FileContext | None:
    """The file's analysis, or None when libcst cannot parse it."""
    try:
        return FileContext(path, cst.parse_module(source), Config())
    except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
        return None


def _literal(value: object) -> str | None:
    if not isinstance(value, _LITERALS):
        return None
    text = repr(value)
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):  # inf, nan
        return None
    return text


def _call(callee: str, arguments: tuple[list, dict], depth: int) -> str | None:
    positional, keywords = arguments
    parts = [source_of(v, depth + 1) for v in positional]
    parts += [f"{k}={s}" if (s := source_of(v, depth + 1)) else None for k, v in keywords.items()]
    return f"{callee}({', '.join(parts)})" if all(parts) else None


def source_of(value, depth: int = 0) -> str | None:
    """Source rebuilding a proven value: a literal, a tuple or dict of them, or an
    instance of a class of the file or of a torch layer built with proven arguments."""
    if depth > _NESTING:
        return None
    if isinstance(value, Const):
        return _literal(value.value)
    if isinstance(value, Seq) and not value.any_length:
        items = [source_of(v, depth + 1) for v in value.items]
        if not all(items):
            return None
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if isinstance(value, Mapping):
        items = [(k, source_of(v, depth + 1)) for k, v in value.items]
        if not all(s for _, s in items):
            return None
        return "{" + ", ".join(f"{k!r}: {s}" for k, s in items) + "}"
    if isinstance(value, Obj) and value.arguments is not None:
        if value.info is not None and value.info.is_module:
            return _call(value.info.name, value.arguments, depth)
        if value.torch_layer:
            return _call(value.kind, value.arguments, depth)
    return None


def constructors(context: FileContext) -> dict[str, list[dict]]:
    """Class name -> the constructor calls of its instances whose every argument is
    proven, in the order the interpreter met them."""
    found: dict[str, list[dict]] = {}
    for obj in context.dataflow.built:
        positional, keywords = obj.arguments or ([], {})
        args = [source_of(v) for v in positional]
        kwargs = {k: source_of(v) for k, v in keywords.items()}
        if obj.arguments is None or not all(args) or not all(kwargs.values()):
            continue
        constructor = {"args": args, "kwargs": kwargs}
        if constructor not in found.setdefault(obj.kind, []):
            found[obj.kind].append(constructor)
    return found


def _tensor(shape: Shape | None, requires_grad: bool) -> str | None:
    if shape is None or shape.dims is None or not all(isinstance(d, int) for d in shape.dims):
        return None
    flag = ", requires_grad=True" if requires_grad else ""
    return f"torch.randn({', '.join(map(str, shape.dims))}{flag})"


def _shaped(value, depth: int = 0) -> str | None:
    """A tensor (or a tuple / list of them) rebuilt from the shape the interpreter proved;
    float, since shapes carry no dtype. A leaf that requires grad stays one."""
    if isinstance(value, Tensor) and value.shape is not None and value.shape.dims is not None:
        return _tensor(value.shape, value.grad is Grad.LEAF)
    if isinstance(value, Seq) and not value.any_length and value.items and depth < _NESTING:
        parts = [_shaped(item, depth + 1) for item in value.items]
        return f"[{', '.join(parts)}]" if all(parts) else None
    return None


def call_inputs(context: FileContext) -> dict[str, list[list[str]]]:
    """Class name -> argument lists of calls of its instances in the module body or a
    top-level function (where the shape analysis sees the arguments), each argument a
    proven value or a tensor of a known shape."""
    top_level = {s for s in context.module.body if isinstance(s, cst.FunctionDef)}
    found: dict[str, list[list[str]]] = {}
    for call in context.dataflow.module_calls:
        positional, keywords = call.arguments
        nodes = call.call.args
        if keywords or len(nodes) != len(positional) or any(a.star for a in nodes):
            continue
        if call.body is not None and call.body not in top_level:
            continue
        inputs = []
        for value in positional:
            source = None if isinstance(value, Tensor) else source_of(value)
            inputs.append(source if source is not None else _shaped(value))
        if inputs and all(inputs) and inputs not in found.setdefault(call.module.kind, []):
            found[call.module.kind].append(inputs)
    return found
