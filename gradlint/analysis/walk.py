"""A fast pre-order walk over a libcst tree, in source order, without rebuilding nodes.

libcst's `node.visit(visitor)` reconstructs and revalidates every node it passes (it is
built for transformers), which costs about three times the walk itself. This walk reads
the child fields directly, in the order libcst's own traversal visits them, so visitors
see exactly the same sequence of nodes.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable, Iterator, Mapping
from functools import cache

import libcst as cst

# Nodes that hold only layout (whitespace, newlines, comments): skipped unless asked for.
# All are concrete leaf classes of libcst, so membership is tested on the exact type.
LAYOUT: frozenset[type[cst.CSTNode]] = frozenset(
    {
        cst.SimpleWhitespace,
        cst.ParenthesizedWhitespace,
        cst.EmptyLine,
        cst.TrailingWhitespace,
        cst.Newline,
        cst.Comment,
    }
)


def node_classes() -> list[type[cst.CSTNode]]:
    """CSTNode and every subclass of it, each once."""
    classes, seen = [cst.CSTNode], {}
    while classes:
        kind = classes.pop()
        if kind not in seen:
            seen[kind] = None
            classes.extend(kind.__subclasses__())
    return list(seen)


def _tokens() -> frozenset[type[cst.CSTNode]]:
    """libcst's token nodes (`,` `.` `=` `(` operators, ...): all their fields are
    whitespace, so below them there is only layout."""
    return frozenset(
        kind
        for kind in node_classes()
        if dataclasses.is_dataclass(kind)
        and all(f.name.startswith("whitespace") for f in dataclasses.fields(kind))
    )


# Token nodes, a fifth of a tree: a walk that skips layout skips those nobody listens to.
TOKENS = _tokens()

_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


class _FieldRecorder(cst.CSTVisitor):
    """Notes the fields `_visit_and_replace_children` visits, without descending."""

    def __init__(self) -> None:
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


def child_fields(node: cst.CSTNode) -> tuple[str, ...]:
    """The fields of `node`'s type in libcst's traversal order (learnt once per type).

    A field libcst skips when it is empty (an f-string's absent `format_spec`) is not
    seen on the first node of a type; the remaining dataclass fields follow, so such a
    field is still walked when another node fills it.
    """
    node_type = type(node)
    fields = _FIELDS.get(node_type)
    if fields is None:
        recorder = _FieldRecorder()
        node._visit_and_replace_children(recorder)
        visited = tuple(dict.fromkeys(recorder.fields))
        rest = tuple(f.name for f in dataclasses.fields(node) if f.name not in visited)
        fields = _FIELDS[node_type] = visited + rest
    return fields


def _node_types(hint: object) -> frozenset[type[cst.CSTNode]] | None:
    """The node classes a field annotated `hint` may hold (empty: none, as for `str`,
    `Literal[...]`, `MaybeSentinel`); None when the annotation does not say."""
    if hint is typing.Any:
        return None
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return frozenset()
    if origin is None:
        if not isinstance(hint, type):
            return None  # a forward reference left as text
        return _node_subclasses(hint) if issubclass(hint, cst.CSTNode) else frozenset()
    found: set[type[cst.CSTNode]] = set()
    for argument in typing.get_args(hint):
        if argument is Ellipsis:
            continue
        kinds = _node_types(argument)
        if kinds is None:
            return None
        found |= kinds
    return frozenset(found)


@cache
def _node_subclasses(kind: type[cst.CSTNode]) -> frozenset[type[cst.CSTNode]]:
    """`kind` and its subclasses that can be instantiated (a node is of one of those)."""
    found, pending = set(), [kind]
    while pending:
        current = pending.pop()
        if current not in found:
            found.add(current)
            pending.extend(current.__subclasses__())
    return frozenset(k for k in found if not inspect.isabstract(k))


@cache
def _field_types(kind: type[cst.CSTNode]) -> dict[str, frozenset[type[cst.CSTNode]] | None]:
    """Each field of a node class -> the node classes its annotation allows (_node_types:
    libcst's annotations are the classes themselves, not postponed text)."""
    return {f.name: _node_types(f.type) for f in dataclasses.fields(kind)}


class _Plan(dict):
    """node type -> the fields a walk skipping `skip` reads, in child_fields' order: those
    whose annotation allows some node class outside `skip` (a token's or a parenthesis'
    field, or a whitespace field, is never read when those are skipped)."""

    def __init__(self, skip: frozenset[type]) -> None:
        super().__init__()
        self.skip = skip

    def learn(self, node: cst.CSTNode) -> tuple[str, ...]:
        types = _field_types(type(node))
        fields = self[type(node)] = tuple(
            name
            for name in child_fields(node)
            if (kinds := types.get(name)) is None or not kinds <= self.skip
        )
        return fields


@cache
def _plan_for(skip: frozenset[type]) -> _Plan:
    return _Plan(skip)


class _NodeTypes(dict):
    """type -> whether it is a libcst node: `isinstance(x, cst.CSTNode)` goes through
    ABCMeta's Python-level check, a dict lookup per field does not."""

    def __missing__(self, kind: type) -> bool:
        found = self[kind] = issubclass(kind, cst.CSTNode)
        return found


_IS_NODE = _NodeTypes()


def children(node: cst.CSTNode, skip: frozenset[type] = LAYOUT) -> Iterator[cst.CSTNode]:
    """The direct children of `node` in source order, without those of the `skip` types."""
    return iter(_children(node, skip, _plan_for(skip)))


def _children(node: cst.CSTNode, skip: frozenset[type], plan: _Plan) -> list[cst.CSTNode]:
    found = []
    fields = plan.get(type(node))
    for name in plan.learn(node) if fields is None else fields:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for child in value:
                kind = type(child)
                if kind not in skip and _IS_NODE[kind]:
                    found.append(child)
        elif kind not in skip and _IS_NODE[kind]:
            found.append(value)
    return found


Hooks = tuple[Callable[[cst.CSTNode], object] | None, Callable[[cst.CSTNode], object] | None]


def walk_hooks(
    node: cst.CSTNode, hooks: Mapping[type, Hooks], skip: frozenset[type] = LAYOUT
) -> None:
    """`hooks[type(node)]` is (enter, leave), either None: `enter` runs before the node's
    children (returning False skips them), `leave` after. A node type without hooks costs
    one lookup: this loop runs for every node of every walk."""
    _walk_hooks(node, hooks, skip, _plan_for(skip))


def _walk_hooks(node: cst.CSTNode, hooks: Mapping[type, Hooks], skip, plan: _Plan) -> None:
    enter, leave = hooks[type(node)]
    if enter is None or enter(node) is not False:
        fields = plan.get(type(node))
        for name in plan.learn(node) if fields is None else fields:  # children(), inlined
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    kind = type(child)
                    if kind not in skip and _IS_NODE[kind]:
                        _walk_hooks(child, hooks, skip, plan)
            elif kind not in skip and _IS_NODE[kind]:
                _walk_hooks(value, hooks, skip, plan)
    if leave is not None:
        leave(node)


class _Everywhere(dict):
    """The same hooks for every node type."""

    def __init__(self, hooks: Hooks) -> None:
        super().__init__()
        self.hooks = hooks

    def __missing__(self, kind: type) -> Hooks:
        self[kind] = self.hooks
        return self.hooks


def walk(
    node: cst.CSTNode,
    enter: Callable[[cst.CSTNode], object],
    leave: Callable[[cst.CSTNode], object],
    skip: frozenset[type] = LAYOUT,
) -> None:
    """Call `enter` on each node before its children and `leave` after them (whatever
    `enter` returns: every node is entered)."""

    def enter_all(child: cst.CSTNode) -> None:
        enter(child)

    walk_hooks(node, _Everywhere((enter_all, leave)), skip)


def iter_nodes(node: cst.CSTNode, skip: frozenset[type] = LAYOUT) -> Iterator[cst.CSTNode]:
    """`node` and all its descendants, pre-order, in source order."""
    plan = _plan_for(skip)
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        found = _children(current, skip, plan)
        found.reverse()
        stack += found


@cache
def defines_hook(kind: type, name: str) -> bool:
    """Whether a visitor class (a `CSTVisitor` or a plain class) defines `name` itself:
    `CSTVisitor` has a no-op stub for every `visit_<Type>`, `leave_<Type>` and
    `visit_<Type>_<field>` name."""
    method = getattr(kind, name, None)
    return method is not None and method is not getattr(cst.CSTVisitor, name, None)


@cache
def _plan(kind: type) -> tuple[str, frozenset[type]]:
    """How to visit with this visitor class: ("libcst" | "by_name" | "generic", skip)."""
    attribute_hooks = (
        name for name in dir(kind) if name.startswith(("visit_", "leave_")) and name.count("_") > 1
    )
    if any(defines_hook(kind, name) for name in attribute_hooks):
        return "libcst", frozenset()
    if kind.on_visit is cst.CSTVisitor.on_visit and kind.on_leave is cst.CSTVisitor.on_leave:
        return "by_name", skipped(lambda name: defines_hook(kind, name))
    return "generic", frozenset()


HOOKS = ("visit", "leave")
# Leaf expressions: below them only layout and their parentheses (tokens).
LEAVES: frozenset[type[cst.CSTNode]] = frozenset(
    {cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis}
)


def skipped(listens: Callable[[str], bool]) -> frozenset[type[cst.CSTNode]]:
    """What a walk passes over for hooks `listens("visit_Comma")` says exist: nothing when
    a layout node (whitespace, comments) has a hook; else layout, the token types without
    a hook, and the leaf expressions without one (names, numbers, strings: a third of a
    tree) when parentheses have none either (below them lie only layout and parentheses)."""

    def unheard(kinds: frozenset[type[cst.CSTNode]]) -> frozenset[type[cst.CSTNode]]:
        return frozenset(t for t in kinds if not any(listens(f"{h}_{t.__name__}") for h in HOOKS))

    if any(listens(f"{h}_{t.__name__}") for t in LAYOUT for h in HOOKS):
        return frozenset()
    silent = unheard(TOKENS)
    if cst.LeftParen not in silent or cst.RightParen not in silent:
        return LAYOUT | silent
    return LAYOUT | silent | unheard(LEAVES)


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for a read-only `CSTVisitor`, several times faster.

    The same `on_visit` / `on_leave` calls in the same order, and `on_visit` returning
    False still prunes the subtree. A visitor with the default name dispatch
    (`visit_Call`, `leave_Name`, ...) is not shown layout nodes it has no method for;
    one with attribute hooks (`visit_Call_func`) goes through libcst's own traversal.
    """
    how, skip = _plan(type(visitor))
    if how == "libcst":
        node.visit(visitor)
    elif how == "by_name":
        walk_hooks(node, _NameHooks(visitor), skip)
    else:
        on_visit = visitor.on_visit  # libcst descends when it returns a true value
        hooks = (lambda child: bool(on_visit(child)), visitor.on_leave)
        walk_hooks(node, _Everywhere(hooks), frozenset())


class _NameHooks(dict):
    """node type -> the visitor's own `visit_<Type>`, `leave_<Type>` (or None), found once."""

    def __init__(self, visitor: cst.CSTVisitor) -> None:
        super().__init__()
        self.visitor = visitor

    def __missing__(self, node_type: type) -> tuple[Callable | None, Callable | None]:
        kind, name = type(self.visitor), node_type.__name__
        hooks = tuple(
            getattr(self.visitor, f"{h}_{name}") if defines_hook(kind, f"{h}_{name}") else None
            for h in ("visit", "leave")
        )
        self[node_type] = hooks
        return hooks
