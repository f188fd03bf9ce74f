"""What the interpreter tells the rules: events at nodes, with the facts of that moment."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from gradlint.analysis.context import ClassInfo
from gradlint.analysis.dataflow.graphs import Freed, GraphNode, Step
from gradlint.analysis.dataflow.values import (
    Cut,
    Grad,
    Mapping,
    Obj,
    Parameters,
    Seq,
    Tensor,
    Value,
)


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
    # the module forward whose run this is: itself, or the forward running the helper
    forward: cst.FunctionDef | None = None


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
    # ... by a caller outside the forward that edits, or one that called the editing
    # helper for a result of its own (the edit is a side effect it did not ask for)
    read_by_module_caller: bool = False
    # a fresh output its op saved, edited and never differentiated afterwards (uses.py):
    # backward never runs the saver's backward
    unused: bool = False


@dataclass(eq=False)
class DataWrite:
    """A write through `param.data` of a parameter or leaf."""

    node: cst.CSTNode
    name: str
    where: str  # "inside forward(), after the forward pass used it", ...


@dataclass(frozen=True)
class PendingDataWrite:
    """A write through `.data` as a frame keeps it until it knows whether a backward of a
    graph reaching the parameters follows (`order`: when, among the frame's statements;
    `storages`: the parameters written, None when not known which)."""

    order: int
    node: cst.CSTNode
    name: str
    storages: frozenset[int] | None


@dataclass(eq=False)
class RequiresGradChange:
    """`t.requires_grad = flag` (`assigned`) or `t.requires_grad_(flag)` on `value`, as it
    was before the change; `flag` None when only known at run time."""

    node: cst.CSTNode
    written: str
    value: Tensor
    flag: bool | None
    assigned: bool
    created: bool = False  # `requires_grad=True` given to the factory that made `value`


@dataclass(eq=False)
class BackwardCall:
    """`loss.backward()`, `torch.autograd.backward(loss)` or `autograd.grad(loss, ...)`,
    with what is proven of the tensor differentiated (None: a list of losses) and of
    its graph at that moment: the nodes an earlier backward already freed, and the
    optimizer steps that edited what a live node of it saved (graphs.py)."""

    node: cst.CSTNode
    written: str
    value: Tensor | None
    retains: bool | None = False  # retain_graph / create_graph (None: a run-time flag)
    freed: tuple[Freed, ...] = ()
    stale: tuple[tuple[Step, GraphNode], ...] = ()


@dataclass(eq=False)
class CutFed:
    """A value cut from the parameters' graph (`cut`) fed to a layer that learns, whose
    parameters are `params` (by storage): `second(first(x).argmax(1))`."""

    node: cst.Call
    cut: Cut
    params: frozenset[int]


@dataclass(eq=False)
class DataAssigned:
    """`t.data = value`: `target` is `t` as it was before."""

    node: cst.CSTNode
    written: str
    target: Tensor
    value: Tensor


@dataclass(eq=False)
class ModuleAttributeSet:
    """`module.attr = value` on an nn.Module instance (`module` None: on every module of
    `model.modules()` / `children()`), inside `body`; `source` is the expression assigned.
    `grown`: the attribute's list or dict grown in place (`module.attr.append(v)`,
    `extend`, `insert`, `+=`, `module.attr[key] = v`), `value` then a Seq of what it holds
    after (for a dict, its values)."""

    node: cst.CSTNode
    written: str  # the module's expression
    module: Obj | None
    attr: str
    value: Value | None
    body: Body | None = None
    source: cst.BaseExpression | None = None
    grown: bool = False


@dataclass(eq=False)
class ModuleRegistration:
    """`module.add_module(name, m)`, `register_module`, `register_parameter`,
    `__setattr__` or `setattr(module, name, v)`: `name` None when not a literal, `module`
    None when not proven a module instance; `within` the class whose method runs it."""

    node: cst.Call
    method: str
    module: Obj | None
    within: ClassInfo | None
    name: str | None


@dataclass(eq=False)
class ContainerPassed:
    """A list, tuple or dict given to a call that may keep what it holds
    (`nn.Sequential(*layers)`, `nn.ModuleList(blocks)`, `build(layers)`): not to the
    builtins that only read or copy it (`len`, `enumerate`, `list`, ...) nor to a list's
    own `append` / `extend` / `insert`."""

    node: cst.Call
    value: Seq | Mapping


@dataclass(eq=False)
class OptimizerBuilt:
    """`torch.optim.<Optimizer>(params, ...)`, with what `params` holds. `drawn_from`: the
    `m.parameters()` the params are, through `list(...)` / `tuple(...)`; `trainable_only`:
    through `filter(lambda p: p.requires_grad, ...)` too."""

    node: cst.Call
    kind: str
    params: Value | None
    drawn_from: Parameters | None = None
    trainable_only: bool = False


@dataclass(eq=False)
class FunctionApplied:
    """`MyFunction.apply(...)` of an autograd.Function of the file; `inputs` None when a
    starred argument hides how many it passes."""

    node: cst.Call
    function: ClassInfo
    inputs: int | None


@dataclass(eq=False)
class Returned:
    """A `return` of a function analysed on its own, with the value it returns."""

    node: cst.Return
    function: cst.FunctionDef
    value: Value | None


@dataclass(eq=False)
class GradRead:
    """`t.grad` read, with what is proven of `t`."""

    node: cst.Attribute
    written: str
    value: Tensor


@dataclass(eq=False)
class ArrayOfGrad:
    """A tensor that requires grad handed to numpy (`t.numpy()`, `np.array(t)`,
    `np.mean([loss, ...])`) in a run from the file's own code: torch raises."""

    node: cst.Call
    how: str  # "`.numpy()`", "`numpy.mean(...)`"
    value: Tensor  # the tensor requiring grad


@dataclass(frozen=True)
class ModuleCall:
    """`model(x)`: an instance of a module class of the file called on `arguments` (the
    values of `call`'s arguments, in order) inside `body`."""

    module: Obj
    call: cst.Call
    arguments: tuple[list, dict]
    body: cst.FunctionDef | None


@dataclass(frozen=True)
class FunctionCall:
    """`f(x)`, `obj.method(x)`, `Cls.method(x)`: a function of the file the interpreter
    followed into (bound to `bound`, an instance), called on `arguments` inside `body`
    with grad mode `grad` (None: unknown)."""

    function: cst.FunctionDef
    bound: Obj | None
    call: cst.Call
    arguments: tuple[list, dict]
    body: cst.FunctionDef | None
    grad: bool | None


@dataclass(eq=False)
class CheckpointCall:
    """`checkpoint(function, *inputs)` run with grad enabled, with its inputs' values."""

    node: cst.Call
    inputs: list[Value | None]

    @property
    def inputs_need_no_grad(self) -> bool:
        """Every input proven a tensor that requires no grad."""
        return bool(self.inputs) and all(
            isinstance(v, Tensor) and v.grad is Grad.OFF for v in self.inputs
        )


@dataclass(eq=False)
class BuiltInForward:
    """A torch layer or `nn.Parameter` constructed while a module's forward runs (in the
    forward itself, or a function it calls: `function`)."""

    node: cst.Call
    function: cst.FunctionDef
    value: Value | None


@dataclass(frozen=True)
class ShapeConflict:
    """Known shapes that torch will reject (or silently mis-handle) at `node`: `kind` is
    view_order, reshape_count, reordered, moved, batch_literal, reshape_feeds_layer, matmul,
    linear, broadcast (GL401-GL404), gradient or implicit (GL301, GL302)."""

    kind: str
    node: cst.CSTNode
    operands: tuple
    op: str = ""
    extra: tuple = field(default=())


@dataclass(frozen=True)
class Place:
    """A choice of control flow an event sits under: branch `index` of an `if` (0: its
    body, 1: its else), the body of an `if` whose test the run proved true on every pass
    of the loops around it ("taken": it runs whenever they do), part `index` of a `try`
    (0: its body, k: its k-th handler), pass `index` (0 or 1) of a loop, or a call of a
    function of the file run inline."""

    kind: str  # "if", "taken", "try", "loop" or "call"
    node: cst.CSTNode
    index: int = 0


@dataclass(eq=False)
class TrainingEvent:
    """A step of training as the interpreter met it, for the training-loop rules. `kind`:
    "backward" (`x.backward(...)` of anything, `torch.autograd.backward` / `grad`),
    "step" (`x.step(...)` of anything: the rules tell optimizers apart), "zero_grad"
    (`x.zero_grad()`), "clear" (a `.grad` assigned, deleted or edited in place; a call
    of a function named like zero_grad, or of a function the file defines to clear
    gradients), "optimizer" (a `torch.optim` optimizer built: `receiver`, the very value
    its steps are called on), "forward" (a module called, from `time` to `end`) or
    "mode" (`module.train(...)` / `module.eval()` on `receiver`, setting `mode`).

    `run` tells the analysed bodies apart (the module, each function on its own), `path`
    is where the event sits in it (branches, loop passes, inlined calls), `time` orders it
    against the other events and the graph nodes (graphs.tick)."""

    kind: str
    node: cst.CSTNode
    line: cst.CSTNode | None  # the statement line holding it
    run: int
    path: tuple[Place, ...]
    time: int
    # step, zero_grad: what the method is called on; optimizer: the one built; forward:
    # the module called
    receiver: Value | None = None
    argument: Value | None = None  # step: its first positional argument (an optimizer?)
    storages: frozenset[int] | None = None  # zero_grad: the parameters its receiver holds
    accumulates: bool = True  # backward: fills `.grad` (autograd.grad does not)
    nodes: tuple[GraphNode, ...] = ()  # backward: the live nodes its graph reaches
    # backward: in a function run on its own that takes arguments (unknown here): its
    # loss may come from tensors they carry, with graphs through layers not seen
    given_unknowns: bool = False
    # step: every parameter it holds has no `.grad` (cleared by `zero_grad()`, reached by
    # no backward since), so it edits nothing
    idle: bool = False
    end: int = 0  # forward: when the call returned
    mode: bool | None = None  # mode: True for train mode, False for eval, None: not known
