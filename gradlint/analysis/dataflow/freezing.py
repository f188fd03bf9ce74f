"""Freezing modules: `model.requires_grad_(False)` or `for p in model.parameters():
p.requires_grad = False` switches off every parameter of `model` and of its layers;
any later switch back on (of the module, of a part, or under a condition) leaves their
state unknown again."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from gradlint.analysis.context import ClassKind
from gradlint.analysis.dataflow.values import Obj, options_of
from gradlint.analysis.names import dotted


def freeze(obj: Obj, seen: set[int] | None = None) -> None:
    """Every parameter of `obj` and of its sub-modules requires no grad."""
    for module in modules(obj, seen):
        module.frozen = module.grad_off = True


def may_freeze(obj: Obj) -> None:
    """Something may have switched requires_grad off on some parameters of `obj` (under a
    condition, by name, at run time): no parameter of it or of its layers is proven to
    require grad."""
    for module in modules(obj):
        module.frozen = True


def thaw(obj: Obj, deep: bool) -> None:
    """Something switched requires_grad back on in `obj` (`deep`: on all of it): what
    was proven off is unknown again."""
    for module in modules(obj) if deep else [obj]:
        module.grad_off = False


def modules(obj: Obj, seen: set[int] | None = None):
    """`obj` and the sub-modules `obj.modules()` reaches: its attributes that are modules
    (or may be), and theirs; not the attributes of a plain object of the file's classes
    stored on it (`self.head = Head()`, Head no nn.Module: torch registers nothing of it)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    for value in list(obj.attrs.values()):
        for option in options_of(value):
            if isinstance(option, Obj) and not plain_object(option):
                yield from modules(option, seen)


def plain_object(value) -> bool:
    """An instance of a class of the file that is no nn.Module (nor of an unknown base):
    torch registers nothing it holds where it is stored."""
    info = value.info if isinstance(value, Obj) else None
    return info is not None and info.kind is ClassKind.PLAIN and not value.is_module


def loop_flag(loop: cst.For, truth: Callable[[cst.BaseExpression], bool | None]) -> bool | None:
    """For `for p in m.parameters(): ...` (or `for n, p in m.named_parameters()`): False
    when every iteration switches `p` off (an unconditional `p.requires_grad = False` /
    `p.requires_grad_(False)` / `p.detach_()`), True when the body switches requires_grad
    some other way (on, under a condition, with a run-time flag), None when it does not
    touch it.
    `truth` evaluates a flag expression."""
    target = loop.target
    if isinstance(target, cst.Tuple) and len(target.elements) == 2:  # named_parameters()
        target = target.elements[1].value
    name = dotted(target) if isinstance(target, cst.Name) else None
    if name is None:
        return None
    flags = [
        flag for node in _nodes(loop.body) if (flag := _switch(node, name, truth)) is not _NONE
    ]
    if not flags:
        return None
    unconditional = _switches_off(loop.body.body, name, truth)
    return not (unconditional and all(flag is False for flag in flags))


def _switches_off(statements, name: str, truth) -> bool:
    """Every path through `statements` switches `name` off: a statement of the block
    does, or an `if` each of whose arms (an `else` included) does."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            if any(_switch(small, name, truth) is False for small in statement.body):
                return True
        elif isinstance(statement, cst.If) and _each_arm_switches_off(statement, name, truth):
            return True
    return False


def _each_arm_switches_off(statement: cst.If, name: str, truth) -> bool:
    if not _switches_off(statement.body.body, name, truth):
        return False
    orelse = statement.orelse
    if isinstance(orelse, cst.If):  # elif
        return _each_arm_switches_off(orelse, name, truth)
    return orelse is not None and _switches_off(orelse.body.body, name, truth)


_NONE = object()


def _switch(node: cst.CSTNode, name: str, truth):
    """The flag a statement sets on `name`'s requires_grad: True / False / None (run
    time), `_NONE` when it sets none."""
    if isinstance(node, cst.Expr):
        node = node.value
    if isinstance(node, cst.Assign):
        for target in node.targets:
            attr = target.target
            if (
                isinstance(attr, cst.Attribute)
                and attr.attr.value == "requires_grad"
                and dotted(attr.value) == name
            ):
                return truth(node.value)
        return _NONE
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "requires_grad_"
        and dotted(node.func.value) == name
    ):
        return truth(node.args[0].value) if node.args else True
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "detach_"
        and dotted(node.func.value) == name
    ):
        return False  # a leaf detached in place no longer requires grad
    return _NONE


def _nodes(node: cst.CSTNode):
    for child in node.children:
        yield child
        yield from _nodes(child)
