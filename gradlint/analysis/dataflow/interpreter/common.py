"""Helpers and constants shared by the interpreter's modules."""

from __future__ import annotations

import functools

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis.context import (
    literal_bool,
)
from gradlint.analysis.dataflow import (
    cuts,
    graphs,
    optimizers,
)
from gradlint.analysis.dataflow.interpreter.state import Frame, Modules, State, _Marker
from gradlint.analysis.dataflow.shapes import row_shape
from gradlint.analysis.dataflow.uses import NO_GRADIENT
from gradlint.analysis.dataflow.values import (
    ANY_PARAMETER,
    ClassRef,
    Const,
    Function,
    Grad,
    Mapping,
    Number,
    Obj,
    Parameters,
    Seq,
    Tensor,
    Value,
    drawn_parameters,
    join,
    new_storage,
    replace,
    same_items,
)
from gradlint.analysis.names import ImportTable, dotted

MAX_DEPTH = 5  # calls interpreted inside their caller, below each analysed body


MAX_STEPS = 60_000  # statements interpreted per file, inlined calls included


_PARAMETER_ITERATORS = frozenset({"parameters", "named_parameters"})
# module methods that return the module itself (`model.to(device)`, `net.eval()`)
_SAME_MODULE_METHODS = frozenset(
    {"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16", "requires_grad_"}
)


_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList"})


_LIST_GROWTH = frozenset({"append", "extend", "insert"})
_LIST_SHRINKING = frozenset({"pop", "remove", "clear"})


_UNSHARED = _Marker("a fact no construction is shared on")


def _fingerprint(value: Value | None):
    """A hashable stand-in equal for values a constructor cannot tell apart; _UNSHARED for
    tensors and numbers cut from them (their storages and graphs are each their own)."""
    if value is None or isinstance(value, ClassRef | Function):
        return value
    if isinstance(value, Obj):
        return value  # by identity
    if isinstance(value, Number) and value.cut is None:
        return value  # a number of unknown value, with no history to keep apart
    if isinstance(value, Const):
        try:
            hash(value.value)
        except TypeError:
            return _UNSHARED
        return (type(value.value), value.value)
    if isinstance(value, Seq):
        items = tuple(_fingerprint(v) for v in value.items)
        cycle = tuple(_fingerprint(v) for v in value.cycle) if value.cycle is not None else None
        if _UNSHARED in items or (cycle is not None and _UNSHARED in cycle):
            return _UNSHARED
        return (Seq, items, value.any_length, cycle)
    if isinstance(value, Mapping):
        items = tuple((k, _fingerprint(v)) for k, v in value.items)
        others = _fingerprint(value.others)
        if others is _UNSHARED or any(f is _UNSHARED for _, f in items):
            return _UNSHARED
        return (Mapping, items, others)
    return _UNSHARED


OPT_IN = Const(_Marker("opt-in flag"))


AN_INT = Const(_Marker("an int"))  # `len(x)`, a `range()` loop variable, `x.size(0)`


_NO_EFFECT = _Marker("no grad effect")


def _returned(values: list) -> Value | None:
    """What a call gives back: its returns joined (unknown when any is)."""
    if not values or any(value is None for value in values):
        return None
    return functools.reduce(join, values)


def _fresh_result(returns: list, exits: list[State]) -> frozenset[int]:
    """The returned tensors an op of the function saved as its own output (`return
    torch.tanh(x)`) that nothing but the `return` read, on every way out: fresh outputs
    to the caller too (uses.py)."""
    found = set()
    for storage in {s for value in returns for s in _storages(value)}:
        firsts = [e.uses.fresh.get(storage, False) for e in exits]
        if firsts and all(first is None or isinstance(first, cst.Return) for first in firsts):
            found.add(storage)
    return frozenset(found)


def _heard(frame: Frame, receiver: str | None, parameters, modules, data_writes) -> None:
    """What a method run on `receiver` read and wrote, as its caller's `frame` sees it:
    `self.x` read by the method is `<receiver>.x` there, and a `.data` write in a helper
    happens, for the caller, at the call."""
    if receiver is not None:
        for mine, theirs in ((frame.read_parameters, parameters), (frame.called_modules, modules)):
            mine.update(receiver + name[4:] for name in theirs if name.startswith("self."))
    frame.data_writes.extend(replace(write, order=frame.order) for write in data_writes)


def _truth(value) -> bool | None:
    if isinstance(value, Const) and isinstance(value.value, bool | int | str | type(None)):
        return bool(value.value)
    return None


def _discarded(statement: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """`node` is the whole statement, or an expression statement whose value is dropped."""
    return statement is node or (isinstance(statement, cst.Expr) and statement.value is node)


def _names_grad(target: cst.BaseExpression) -> bool:
    """`p.grad` (or a tuple holding one) as an assignment or `del` target."""
    if isinstance(target, cst.Tuple | cst.List):
        return any(_names_grad(element.value) for element in target.elements)
    return isinstance(target, cst.Attribute) and target.attr.value == "grad"


# In-place methods on a `.grad` that keep what it holds: clipping, rescaling by a division,
# adding noise (`p.grad.data.clamp_(-c, c)` clips gradients, it does not clear them).
_KEEPING_GRADIENT = frozenset(
    {"clamp_", "clip_", "clamp_min_", "clamp_max_", "div_", "add_", "nan_to_num_", "renorm_"}
)


def _clears_gradients(call: cst.Call) -> bool:
    """`zero_grads(m)`, `m.zero_grad_all()`, `p.grad.zero_()`, `p.grad.data.mul_(0)`: a
    call named like zero_grad, or an in-place method on a `.grad` that may empty it."""
    last = _last_name(call.func) or ""
    if "zero_grad" in last:
        return True
    if last in _KEEPING_GRADIENT:
        return False
    return last.endswith("_") and ".grad." in (dotted(call.func) or "")


def _last_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def _storages(value, depth: int = 2):
    """The tensors a value holds (itself, or the items of a tuple / list / dict)."""
    if isinstance(value, Tensor):
        yield value.storage
    elif depth and isinstance(value, Seq):
        for item in value.items:
            yield from _storages(item, depth - 1)
    elif depth and isinstance(value, Mapping):
        for _, item in value.items:
            yield from _storages(item, depth - 1)


def _element(value, freezes: bool):
    """What iterating over `value` yields (`freezes`: the file switches requires_grad off
    somewhere, so a parameter met in a loop may be frozen)."""
    if isinstance(value, Parameters):  # `named_parameters()` yields (name, parameter)
        parameter = Tensor(new_storage(), Grad.LEAF, is_tensor=True, described="parameter")
        if value.owner is not None:  # one of the owner's parameters (`ANY_PARAMETER`)
            parameter = replace(
                value.owner.parameter(ANY_PARAMETER),
                grad=Grad.LEAF,
                merged=optimizers.owned(value.owner),  # which of them: not known
            )
        if freezes or (value.owner is not None and value.owner.frozen):
            parameter = None
        return Seq((None, parameter)) if value.named else parameter
    if isinstance(value, Seq) and value.any_length:
        return value.item(0)
    if isinstance(value, Seq) and value.items and all(_is_dim(v) for v in value.items):
        return AN_INT
    if isinstance(value, Seq) and value.items:
        return functools.reduce(join, value.items)  # what every element is
    if isinstance(value, Obj) and "*" in value.attrs:
        return value.attrs["*"]
    if isinstance(value, Modules):
        return Modules(value.owner, item=True)
    if isinstance(value, Tensor) and value.is_tensor:  # iterating a tensor unbinds it
        return replace(value.as_view(), multi_view="unbind", shape=row_shape(value.shape))
    if isinstance(value, Tensor):
        return None  # an argument not proven a tensor: a list of tensors iterates alike
    return None


def _is_dim(value) -> bool:
    """A dim argument (`x.max(1)`), not a second tensor (`torch.max(a, b)`)."""
    return value is AN_INT or (isinstance(value, Const) and type(value.value) is int)


def _histories(values, depth: int = 2) -> list:
    """The autograd histories of `values`, tensors in a tuple included (an LSTM's
    `(h, c)` state)."""
    found = []
    for value in values:
        if isinstance(value, Tensor):
            found.append(value.graph)
        elif isinstance(value, Seq) and depth:
            found.extend(_histories(value.items, depth - 1))
    return found


def _result_of(positional: list, state: State):
    tensors = [v for v in positional if isinstance(v, Tensor)]
    if any(t.grad.requires_grad for t in tensors) and state.grad:
        graph = graphs.record("", _histories(tensors), ())
        return Tensor(new_storage(), Grad.ON, is_tensor=True, graph=graph)
    if tensors and len(tensors) == len(positional) and all(t.grad is Grad.OFF for t in tensors):
        return Tensor(new_storage(), Grad.OFF, is_tensor=True)
    return None


def _combined(value, state: State):
    if isinstance(value, Seq):
        result = _result_of(list(value.items), state)
        return replace(result, cut=cuts.inherited(value.items)) if result is not None else None
    return None


def _inplace_flag(layer: Obj):
    if layer.attrs.get("inplace") is not None:
        return layer.attrs["inplace"]
    facts = knowledge.layer(layer.kind)
    if facts is None or facts.inplace_arg is None or layer.constructor is None:
        return Const(False)
    position, keyword = facts.inplace_arg
    flag = _argument(layer.constructor, keyword, position)
    if flag is None:
        return Const(False)
    value = literal_bool(flag)
    if value is not None:
        return Const(value)
    return None


def _sequence_arithmetic(operator, a, b):
    """`[x] + rest` and `[x] * n` on lists and tuples (`xs += ys` too)."""
    name = type(operator).__name__.removesuffix("Assign")
    if name == "Add" and isinstance(a, Seq) and isinstance(b, Seq):
        if not a.any_length and not b.any_length:
            return Seq(a.items + b.items)
        if a.cycle is not None and not b.any_length and same_items(a.cycle, b.items):
            return a  # one more pass of the loop that grew it
        if not a.items and not a.any_length:
            return b  # `params = []`, then `params += list(m.parameters())`
        parameters = None  # `list(a.parameters()) + list(b.parameters())`: both lists'
        drawn = (drawn_parameters(a), drawn_parameters(b))
        if None not in drawn:
            parameters = drawn[0] | drawn[1]
        return Seq((join(a.item(0), b.item(0)),), any_length=True, parameters=parameters)
    if name == "Multiply":
        seq = a if isinstance(a, Seq) else b
        if isinstance(seq, Seq) and len(seq.items) == 1:
            return Seq(seq.items, any_length=True)
    return None


def _takes_self(node: cst.FunctionDef) -> bool:
    return bool(node.params.params) and not any(
        dotted(d.decorator) in ("staticmethod", "classmethod") for d in node.decorators
    )


def _argument(call: cst.Call, keyword: str, position: int | None) -> cst.BaseExpression | None:
    """The argument passed as `keyword=` or at `position` (positional arguments only)."""
    for index, arg in enumerate(call.args):
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return arg.value
        elif arg.star:
            return None
        elif index == position:
            return arg.value
    return None


def note_parameter_read(frame, state, name: str) -> None:
    """`name` read where its value may feed a gradient: not under grad mode off
    (`with torch.no_grad():`) nor through what carries none (`.detach()`, `.data`, a
    comparison): GL102 counts a parameter as used by the forward pass only then."""
    if state.grad is not False and state.uses.quiet != NO_GRADIENT:
        frame.read_parameters.add(name)


def optional_tensor(param: cst.Param, imports: ImportTable) -> bool:
    """`x: torch.Tensor | None` / `Optional[torch.Tensor]`: a tensor where it is not None."""
    return param.annotation is not None and tensor_annotation(param, imports) is not None


def tensor_annotation(param: cst.Param, imports: ImportTable) -> str | None:
    """ "tensor" for `torch.Tensor`, "optional" for it or None, else None."""
    annotation = param.annotation.annotation
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        sides = [annotation.left, annotation.right]
    elif (
        isinstance(annotation, cst.Subscript)
        and imports.resolve(annotation.value) == "typing.Optional"
        and len(annotation.slice) == 1
        and isinstance(annotation.slice[0].slice, cst.Index)
    ):
        sides = [annotation.slice[0].slice.value, cst.Name("None")]
    else:
        sides = [annotation]
    tensors = [side for side in sides if imports.resolve(side) == "torch.Tensor"]
    others = [side for side in sides if not (isinstance(side, cst.Name) and side.value == "None")]
    if len(tensors) != 1 or len(others) != 1:
        return None
    return "tensor" if len(sides) == 1 else "optional"


def keeps_trainable(predicate: cst.BaseExpression) -> bool:
    """`lambda p: p.requires_grad`: a filter keeping the parameters that require grad."""
    if not isinstance(predicate, cst.Lambda) or len(predicate.params.params) != 1:
        return False
    name = predicate.params.params[0].name.value
    body = predicate.body
    return (
        isinstance(body, cst.Attribute)
        and body.attr.value == "requires_grad"
        and isinstance(body.value, cst.Name)
        and body.value.value == name
    )
