"""The interpreter's state: names, saved tensors, grad mode, pending edits, frames."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from gradlint.analysis.context import (
    ClassInfo,
)
from gradlint.analysis.dataflow import (
    graphs,
)
from gradlint.analysis.dataflow.events import (
    Body,
    InplaceEdit,
    PendingDataWrite,
    Saver,
)
from gradlint.analysis.dataflow.uses import (
    SavedUses,
)
from gradlint.analysis.dataflow.values import (
    Obj,
    Tensor,
    Value,
    join,
)


@dataclass
class State:
    """The flow-sensitive part: names, saved storages, grad mode."""

    env: dict[str, Value | None]
    saved: dict[int, Saver] = field(default_factory=dict)
    grad: bool | None = True  # None: decided at run time (`set_grad_enabled(flag)`)
    guarded: bool = False
    masks: frozenset[str] = frozenset()
    pending: list[Pending] = field(default_factory=list)
    graphs: graphs.Graphs = graphs.Graphs()
    uses: SavedUses = field(default_factory=SavedUses)

    def copy(self) -> State:
        return State(
            dict(self.env),
            dict(self.saved),
            self.grad,
            self.guarded,
            self.masks,
            list(self.pending),
            self.graphs,
            self.uses.copy(),
        )


def join_states(states: list[State]) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    first, *rest = live
    joined = first.copy()
    for other in rest:
        env, others = joined.env, other.env
        for name in set(env) | set(others):
            mine, theirs = env.get(name), others.get(name)
            if mine is not theirs or name not in env:  # join(v, v) is v
                env[name] = join(mine, theirs)
        for storage, saver in other.saved.items():
            joined.saved.setdefault(storage, saver)
        if joined.grad != other.grad:
            joined.grad = None
        joined.guarded = joined.guarded or other.guarded
        joined.masks = joined.masks & other.masks
        joined.pending += [p for p in other.pending if all(p is not q for q in joined.pending)]
        joined.graphs = joined.graphs.join(other.graphs)
        joined.uses.join(other.uses)
    return joined


def saved_after(start: State, exits: list[State]) -> dict:
    """What a call leaves saved for backward: the run's own map, and what each of its
    exits saved on the way (a `return F.relu(x)` in a taken branch returns from a copy of
    the state that the branch saved into), joined as branches join."""
    saved = dict(start.saved)
    for exit_ in exits:
        if exit_ is not None:
            for storage, saver in exit_.saved.items():
                saved.setdefault(storage, saver)
    return saved


@dataclass
class Pending:
    """Edits a callee made into a caller's tensor, confirmed if the caller reads one of
    `names` (bound to that tensor before the call) afterwards."""

    storage: int
    names: set[str]
    edits: list[InplaceEdit]
    caller_forward: cst.FunctionDef | None  # the module forward the caller runs in
    aside: bool  # the callee computes a result of its own: the edit is a side effect


@dataclass
class Frame:
    """One body being interpreted: a function, a method, or the module."""

    body: Body
    owner: ClassInfo | None
    depth: int
    returns: list[Value | None] = field(default_factory=list)
    order: int = 0
    bound_at: dict[str, int] = field(default_factory=dict)
    # loop counters on the pass being run: name -> (start, first pass, its `bound_at`)
    counters: dict[str, tuple[int, bool, int]] = field(default_factory=dict)
    read_parameters: set[str] = field(default_factory=set)
    # modules called whose parameters all count as read: torch layers, and modules whose
    # forward is not interpreted here (an interpreted one reports what it read)
    called_modules: set[str] = field(default_factory=set)
    data_writes: list[PendingDataWrite] = field(default_factory=list)
    # its writes through `.data` to a module it built itself (`_built_by`): its callers'
    # forward passes cannot have used that module
    own_module_writes: set[cst.CSTNode] = field(default_factory=set)
    # (order, order the loss was bound at, the storages its graph reaches; None: unknown)
    backward_calls: list[tuple[int, int, frozenset[int] | None]] = field(default_factory=list)
    statement: cst.CSTNode | None = None
    line: cst.CSTNode | None = None  # the statement line being interpreted
    exits: list[State] = field(default_factory=list)  # the states its returns leave
    sets_grad: bool = False  # switches grad mode for its caller too (set_grad_enabled)


@dataclass
class _Edit:
    node: cst.CSTNode
    target: cst.BaseExpression
    form: str
    value: Tensor | None = None
    mask: bool = False
    proves_tensor: bool = False
    out_arg: bool = False
    written: str | None = None


@dataclass(frozen=True)
class _Apply:
    """`Function.apply` of an autograd.Function of the file."""

    info: ClassInfo


@dataclass(frozen=True)
class Modules:
    """`module.modules()` / `children()`: setting `inplace` on them reaches every layer.
    `item`: one of the modules they yield (a loop's item), not the iterator itself."""

    owner: Obj | None
    item: bool = False


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name
