"""What a file's own code builds and feeds its modules with, as source the probe evaluates.

Read from the static analysis, never computed here: the dataflow interpreter's values
(constructor arguments of every instance of a class of the file, argparse defaults,
module constants, instances passed to constructors, the arguments of every call of a
module instance) and the shape analysis (the shapes of tensors at module-level call
sites). The sources use only literals, `torch.<factory>(<literals>)`, `torch.nn.<Layer>`,
`SimpleNamespace` and the file's own class names.
"""

from __future__ import annotations

import ast

import libcst as cst

from gradlint.analysis.dataflow.interpreter import AN_INT
from gradlint.analysis.dataflow.values import Const, Grad, Mapping, Obj, Seq, Tensor
from gradlint.config import Config
from gradlint.filecontext import FileContext

_LITERALS = (bool, int, float, str, type(None))
_NESTING = 4  # instances passed to constructors passed to constructors ...
_NOT_CALLED = frozenset({"__init__", "forward", "__call__"})  # the probe runs those itself


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
    instance of a class of the file, of a torch layer or of `SimpleNamespace` built with
    proven arguments."""
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
        if value.kind == "types.SimpleNamespace":  # a config object: its proven fields
            return _call("SimpleNamespace", value.arguments, depth)
    return None


def _argument(value) -> str | None:
    """A proven value's source, else a tensor rebuilt from its proven shape."""
    source = None if isinstance(value, Tensor) else source_of(value)
    return source if source is not None else _shaped(value)


def _guessed(value) -> bool:
    """Whether `_argument` had to guess more than a tensor's values: its dtype is not
    proven float (an int tensor of zeros, a float one of unknown dtype)."""
    if isinstance(value, Tensor):
        return value.dtype != "float"
    if isinstance(value, Seq) and source_of(value) is None:
        return any(map(_guessed, value.items))
    return value == AN_INT


def constructors(context: FileContext) -> dict[str, list[dict]]:
    """Class name -> the constructor calls of its instances whose every argument is
    proven, or a tensor of a proven shape (then `guessed`: its values and dtype are
    not known), in the order the interpreter met them, those without guesses first."""
    found: dict[str, list[dict]] = {}
    for obj in context.dataflow.built:
        positional, keywords = obj.arguments or ([], {})
        args = [_argument(v) for v in positional]
        kwargs = {k: _argument(v) for k, v in keywords.items()}
        if obj.arguments is None or not all(args) or not all(kwargs.values()):
            continue
        guessed = any(map(_guessed, [*positional, *keywords.values()]))
        constructor = {"args": args, "kwargs": kwargs, "guessed": guessed}
        if constructor not in found.setdefault(obj.kind, []):
            found[obj.kind].append(constructor)
    return {name: sorted(calls, key=lambda c: c["guessed"]) for name, calls in found.items()}


def _tensor(value: Tensor) -> str | None:
    """A tensor of `value`'s shape and dtype (float when unknown) that requires grad as
    proven: not (a factory result, a detached tensor), as a leaf (`requires_grad=True`),
    else as an activation (a non-leaf, what a layer usually receives). Int and bool ones
    are zeros (a valid index); float ones random."""
    shape = value.shape
    if shape is None or shape.dims is None or not all(isinstance(d, int) for d in shape.dims):
        return None
    dims = ", ".join(map(str, shape.dims))
    if value.dtype in ("int", "bool"):
        return f"torch.zeros(({dims},), dtype=torch.{'long' if value.dtype == 'int' else 'bool'})"
    if value.grad is Grad.OFF:
        return f"torch.randn({dims})"
    if value.grad is Grad.LEAF:
        return f"torch.randn({dims}, requires_grad=True)"
    return f"torch.randn({dims}, requires_grad=True).clone()"


def _shaped(value, depth: int = 0) -> str | None:
    """A tensor (or a tuple / list of them) rebuilt from the shape the interpreter proved;
    float, since shapes carry no dtype."""
    if isinstance(value, Tensor) and value.shape is not None and value.shape.dims is not None:
        return _tensor(value)
    if isinstance(value, Seq) and not value.any_length and value.items and depth < _NESTING:
        parts = [_shaped(item, depth + 1) for item in value.items]
        return f"[{', '.join(parts)}]" if all(parts) else None
    return None


def call_inputs(context: FileContext) -> dict[str, list[dict]]:
    """Class name -> argument lists (`inputs`) of calls of its instances in the module
    body or a top-level function (where the shape analysis sees the arguments), each
    argument a proven value or a tensor of a known shape (`guessed` when a dtype is not
    proven float); for calls on tensors of unknown shapes, only their `grads` (the
    `Grad` values: "leaf", "off", ...)."""
    top_level = {s for s in context.module.body if isinstance(s, cst.FunctionDef)}
    found: dict[str, list[dict]] = {}
    for call in context.dataflow.module_calls:
        positional, keywords = call.arguments
        nodes = call.call.args
        if keywords or len(nodes) != len(positional) or any(a.star for a in nodes):
            continue
        if call.body is not None and call.body not in top_level:
            continue
        inputs = [_argument(value) for value in positional]
        shaped = {"inputs": inputs, "guessed": any(map(_guessed, positional))}
        if inputs and all(inputs) and shaped not in found.setdefault(call.module.kind, []):
            found[call.module.kind].append(shaped)
        elif inputs and all(isinstance(v, Tensor) for v in positional):
            # shapes unknown: what is proven of their grad still shapes the guesses
            grads = [v.grad.value for v in positional]
            found.setdefault(call.module.kind, []).append({"grads": grads})
    return found


class _Calls(cst.CSTVisitor):
    """The calls inside a node."""

    def __init__(self) -> None:
        self.found: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.found.add(node)


def _applies(function: cst.FunctionDef, applied: set[cst.Call]) -> bool:
    calls = _Calls()
    function.visit(calls)
    return not calls.found.isdisjoint(applied)


def function_calls(context: FileContext) -> list[dict]:
    """Calls the file makes of its modules' methods other than `forward`, and of its
    top-level functions that apply an `autograd.Function` of the file, wherever the
    interpreter followed them with known arguments: the method's class and name
    (`owner`, `name`), the class of the instance it is called on (`instance`, None for a
    call through the class), arguments as in `call_inputs` (`guessed` when a tensor is
    rebuilt from its shape or an int of unknown value is 0) and the grad mode (`grad`)."""
    body = context.module.body
    top_level = {s for s in body if isinstance(s, cst.FunctionDef)}
    owners = {
        method: statement.name.value
        for statement in body
        if isinstance(statement, cst.ClassDef)
        for method in statement.body.body
        if isinstance(method, cst.FunctionDef)
    }
    applied = {event.node for event in context.dataflow.applied}
    appliers = {f for f in top_level if _applies(f, applied)} if applied else set()
    found: list[dict] = []
    for event in context.dataflow.function_calls:
        positional, keywords = event.arguments
        if keywords or any(a.star for a in event.call.args):
            continue
        name, owner = event.function.name.value, owners.get(event.function)
        instance = event.bound.kind if isinstance(event.bound, Obj) else None
        if owner is not None:
            module = isinstance(event.bound, Obj) and event.bound.is_module
            if name in _NOT_CALLED or not (module or event.bound is None):
                continue
        elif event.function not in appliers:
            continue
        # an int the analysis knows only as an int (a loop index, a `len`) is guessed: 0
        positional = [Const(0) if v == AN_INT else v for v in positional]
        args = [_argument(value) for value in positional]
        if not all(args):
            continue
        call = {
            "owner": owner,
            "name": name,
            "instance": instance,
            "args": args,
            "guessed": any(map(_guessed, event.arguments[0])),
            "grad": event.grad is not False,
        }
        if call not in found:
            found.append(call)
    return found
