"""Autograd graphs as the interpreter sees them: which recorded ops a tensor's history
reaches, which of them saved tensors, what a backward frees and what an optimizer step
edits under a graph that is still alive.

A tensor's `graph` is the node of the op that made it (its grad_fn), linked to the
nodes of its inputs. Only nodes that saved tensors matter: a backward without
`retain_graph=True` frees what they saved, so a second backward through one of them
raises "Trying to backward through the graph a second time"; an in-place edit of a
saved tensor (an optimizer step updating the weights a layer saved) makes the backward
raise "one of the variables needed for gradient computation has been modified by an
inplace operation". An unknown history is `None`, and gives no finding.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import libcst as cst

_ticks = itertools.count(1)


@dataclass(eq=False)
class GraphNode:
    """One recorded op: `saved` holds the storages it saved for backward (empty for a
    node that only joins its inputs' histories), `time` orders it against steps."""

    parents: tuple[GraphNode, ...]
    saved: frozenset[int]
    label: str
    saves: bool
    time: int = field(default_factory=lambda: next(_ticks))
    params: frozenset[int] = frozenset()  # a learning layer's parameters, by storage


def reachable(roots: Iterable[GraphNode | None]) -> list[GraphNode]:
    """The nodes that saved tensors in these histories (a backward's traversal)."""
    found, seen = [], set()
    pending = [r for r in roots if r is not None]
    seen.update(id(r) for r in pending)
    while pending:
        node = pending.pop()
        if node.saves:
            found.append(node)
        for parent in node.parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                pending.append(parent)
    return found


def record(
    label: str, inputs: Iterable[GraphNode | None], saved: Iterable[int], params=frozenset()
) -> GraphNode | None:
    """The history of an op's result: a new node when the op saved tensors, else its
    inputs' history (one input: the same node; several: a node joining them)."""
    parents = tuple({id(p): p for p in inputs if p is not None}.values())
    saved = frozenset(saved)
    if saved:
        return GraphNode(parents, saved, label, True, params=params)
    if len(parents) == 1:
        return parents[0]
    if parents:
        return GraphNode(parents, frozenset(), label, False)
    return None


def params_reached(graph: GraphNode | None) -> frozenset[int]:
    """The learning layers' parameters a backward from `graph` reaches."""
    return frozenset().union(*(node.params for node in reachable([graph])))


def storages_reached(graph: GraphNode | None) -> frozenset[int] | None:
    """The parameters and saved tensors a backward from `graph` reaches (None: unknown)."""
    if graph is None:
        return None
    found: set[int] = set()
    for node in reachable([graph]):
        found |= node.params | node.saved
    return frozenset(found)


def either(a: GraphNode | None, b: GraphNode | None) -> GraphNode | None:
    """The history of a value that holds `a`'s tensor on some paths and `b`'s on others
    (branches joined, iterations of a loop): a backward may go through either."""
    if a is b or b is None:
        return a
    if a is None:
        return b
    return GraphNode((a, b), frozenset(), "", False)


def tick() -> int:
    return next(_ticks)


@dataclass(frozen=True)
class Step:
    """`optimizer.step()` (or `scaler.step(optimizer)`): an in-place update of the
    parameters in `storages`, at `time`; or (`no_grad`) an in-place edit made while grad
    was off, which moves the version counter all the same."""

    node: cst.CSTNode
    written: str
    storages: frozenset[int]
    time: int
    no_grad: bool = False


@dataclass(frozen=True)
class Freed:
    """A node a backward freed (`by`: that backward call)."""

    node: GraphNode
    by: cst.CSTNode


@dataclass(frozen=True)
class Graphs:
    """The flow-sensitive part: nodes freed by a backward (on some path, by node id),
    steps taken so far; whether a backward ran (on every path) since the body began, and
    the parameters whose `.grad` a `zero_grad()` cleared since (on some path): a step
    edits only parameters that have a gradient. Never mutated: each change makes a new
    one."""

    freed: dict[int, Freed] = field(default_factory=dict)
    steps: tuple[Step, ...] = ()
    filled: bool = False
    cleared: frozenset[int] = frozenset()

    def join(self, other: Graphs) -> Graphs:
        if other is self:
            return self
        steps = self.steps + tuple(s for s in other.steps if s not in self.steps)
        filled, cleared = self.filled and other.filled, self.cleared | other.cleared
        return Graphs({**other.freed, **self.freed}, steps, filled, cleared)

    def traverse(self, call: cst.CSTNode, roots: list[GraphNode | None], retains: bool | None):
        """A backward `call` through the histories `roots`: the freed nodes it reaches,
        the steps that edited what a live node saved after it was recorded, and the
        state after it."""
        nodes = reachable(roots)
        freed = tuple(self.freed[id(n)] for n in nodes if id(n) in self.freed)
        stale = tuple(
            (step, node)
            for node in nodes
            if id(node) not in self.freed
            for step in self.steps
            if step.time > node.time and step.storages & node.saved
        )
        # it fills the `.grad` of the parameters it reaches; one that reaches no known
        # layer may fill any (what `zero_grad()` cleared is then taken as filled again)
        reached = frozenset().union(*(node.params for node in nodes))
        cleared = self.cleared - reached if reached else frozenset()
        if retains is not False or not nodes:
            return freed, stale, Graphs(self.freed, self.steps, True, cleared)
        now = {id(n): Freed(n, call) for n in nodes if id(n) not in self.freed}
        return freed, stale, Graphs({**self.freed, **now}, self.steps, True, cleared)

    def step(self, step: Step) -> Graphs:
        """A step edits the parameters that have a gradient: an optimizer skips those
        whose `.grad` is None (cleared by `zero_grad()` and no backward since)."""
        edited = step.storages - self.cleared
        if not edited or not self.filled:
            return self
        steps = (*self.steps, replace(step, storages=edited))
        return Graphs(self.freed, steps, self.filled, self.cleared)

    def edited(self, step: Step) -> Graphs:
        """An in-place edit under no_grad: whatever saved the tensor before it is stale."""
        return Graphs(self.freed, (*self.steps, step), self.filled, self.cleared)

    def zero_grad(self, storages: frozenset[int]) -> Graphs:
        return Graphs(self.freed, self.steps, self.filled, self.cleared | storages)


def keeps_graph(
    call: cst.Call,
    positional_limit: int,
    truth: Callable[[cst.BaseExpression], bool | None],
    accepted: frozenset[str] | None = None,
) -> bool | None:
    """Whether a backward call keeps its graph: `retain_graph=` / `create_graph=` true
    (or more positionals than `positional_limit`), False when neither is passed or both
    are false, None when only known at run time. `truth` tells what a flag's expression
    evaluates to (None: unknown). A keyword outside `accepted` (`retain_variables=`, the
    name torch took before 0.4) makes torch raise TypeError at the call: None, for what
    the code meant is not what runs."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) > positional_limit:
        return None
    if accepted is not None and any(
        a.keyword is not None and a.keyword.value not in accepted for a in call.args
    ):
        return None
    keeps: bool | None = False
    for arg in call.args:
        if arg.star == "**":
            return None
        if arg.keyword is None or arg.keyword.value not in ("retain_graph", "create_graph"):
            continue
        value = truth(arg.value)
        if value is True:
            return True
        if value is None:
            keeps = None
    return keeps
