"""What the interpreter tells the rules: events at nodes, with the facts of that moment."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from gradlint.analysis.dataflow.values import Tensor


@dataclass(frozen=True)
class Saver:
    """The op that saved a storage for backward, and how to reproduce it: `setup` binds
    `t` (the tensor later edited) and `out` (a result whose backward reads it)."""

    op: str
    setup: str


@dataclass(frozen=True)
class Body:
    """The function (or module body) an event happened in, as analysed."""

    node: cst.FunctionDef | None
    role: str | None  # "module_forward", "function_forward" or None
    differentiated: bool  # its results reach a backward()
    standalone: cst.FunctionDef | None  # the function analysed on its own, not inlined
    dirty: frozenset[str] = frozenset()  # ctx.mark_dirty(...) arguments of a Function


@dataclass(eq=False)
class InplaceEdit:
    """An in-place write into `value` (`t.add_()`, `t += 1`, `t[i] = v`, `out=t`, an
    in-place layer or functional), with what was saved and the grad mode at that point."""

    node: cst.CSTNode
    statement: cst.CSTNode  # the statement holding the edit (a fix may rewrite it)
    target: cst.BaseExpression
    form: str  # the witness line, the edited tensor named `t`
    value: Tensor
    body: Body
    grad: bool | None
    saver: Saver | None
    mask: bool = False
    out_arg: bool = False
    proves_tensor: bool = False
    written: str | None = None  # how to name the edited tensor when no expression does
    guarded: bool = False  # under a condition on an opt-in flag the file leaves unknown
    caller_reads: list[str] = field(default_factory=list)  # caller names read after the call


@dataclass(eq=False)
class DataWrite:
    """A write through `param.data` of a parameter or leaf."""

    node: cst.CSTNode
    name: str
    where: str  # "inside forward(), after the forward pass used it", ...


@dataclass(eq=False)
class RequiresGradChange:
    """`t.requires_grad = flag` (`assigned`) or `t.requires_grad_(flag)` on `value`, as it
    was before the change; `flag` None when only known at run time."""

    node: cst.CSTNode
    written: str
    value: Tensor
    flag: bool | None
    assigned: bool


@dataclass(eq=False)
class BackwardCall:
    """`loss.backward()`, `torch.autograd.backward(loss)` or `autograd.grad(loss, ...)`,
    with what is proven of the tensor differentiated."""

    node: cst.CSTNode
    written: str
    value: Tensor
