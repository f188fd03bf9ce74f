"""What one walk of the file collects before the interpreter runs: calls, bindings,
functions by owner."""

from __future__ import annotations

import collections
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from gradlint.analysis.context import (
    ClassInfo,
    ModuleIndex,
    literal_bool,
)
from gradlint.analysis.dataflow.interpreter.common import _clears_gradients, _names_grad
from gradlint.analysis.dataflow.values import (
    Seq,
)
from gradlint.analysis.names import dotted, nested_blocks
from gradlint.analysis.walk import visit

_MAPPED_ITEMS = 8  # comprehensions over longer literals keep one item for all


def _functions(module: cst.Module, index: ModuleIndex) -> dict[cst.FunctionDef, ClassInfo | None]:
    """Every function of the file, with the class it is a method of."""
    found: dict[cst.FunctionDef, ClassInfo | None] = {}
    # iterators of statement lists, innermost last: no recursion, and no closure that
    # refers to itself (a cycle only the garbage collector would free, the tree with it)
    stack: list[tuple[Iterator[cst.CSTNode], ClassInfo | None]] = [(iter(module.body), None)]
    while stack:
        statements, owner = stack[-1]
        statement = next(statements, None)
        if statement is None:
            stack.pop()
        elif isinstance(statement, cst.FunctionDef):
            found[statement] = owner
            stack.append((iter(statement.body.body), None))
        elif isinstance(statement, cst.ClassDef):
            stack.append((iter(statement.body.body), index.by_node.get(statement)))
        elif isinstance(statement, cst.If | cst.Try | cst.With | cst.For | cst.While):
            stack.append((itertools.chain.from_iterable(nested_blocks(statement)), owner))
    return found


def _bound_once(module: cst.Module) -> set[str]:
    """Names the module's own statements (outside functions and classes) bind once."""
    bindings = _ModuleBindings()
    visit(module, bindings)
    return {name for name, count in bindings.counts.items() if count == 1}


class _ModuleBindings(cst.CSTVisitor):
    """How often the module's own statements bind each name (a loop target counts twice,
    an augmented assignment rebinds); function and class bodies are not entered."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.counts[node.name.value] += 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.counts[node.name.value] += 1
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        _count_targets(node.target, self.counts)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        _count_targets(node.target, self.counts)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        _count_targets(node.target, self.counts, twice=True)

    def visit_For(self, node: cst.For) -> None:
        _count_targets(node.target, self.counts, twice=True)

    def visit_AsName(self, node: cst.AsName) -> None:
        _count_targets(node.name, self.counts)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        _count_targets(node.target, self.counts)


def _count_targets(target, counts, twice: bool = False) -> None:
    if isinstance(target, cst.Name):
        counts[target.value] += 2 if twice else 1
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _count_targets(element.value, counts, twice)
    elif isinstance(target, cst.StarredElement):
        _count_targets(target.value, counts, twice)


@dataclass
class _Calls:
    names: set[str] = field(default_factory=set)
    backward: bool = False
    clears: bool = False  # clears gradients (`zero_grad()`, `p.grad = None`, ...)


class CallScan(cst.CSTVisitor):
    """Which names each body calls, and whether it calls backward(). Its hooks ride on the
    engine's one walk of the file (FileContext.walkers); `complete` once it has left the
    module."""

    def __init__(self) -> None:
        self.complete = False
        self.by_body: dict[cst.FunctionDef | None, _Calls] = {None: _Calls()}
        self.stack: list[cst.FunctionDef | None] = [None]
        self.dirty: dict[cst.FunctionDef, set[str]] = {}
        self.freezes = False  # something switches requires_grad off
        # where each capitalised name (a class) is called: the bodies, None at module level
        self.builders: dict[str, set[cst.FunctionDef | None]] = {}
        self.by_callee: dict[str, list[cst.Call]] = {}  # `f(...)` calls by the name called
        self.by_method: dict[str, list[cst.Call]] = {}  # `x.f(...)` calls by the method name
        # each identifier's occurrences: all of them, as a keyword (`f(name=...)`), as an
        # attribute (`x.name`), and naming a function defined
        self.mentions: collections.Counter[str] = collections.Counter()
        self.keywords: collections.Counter[str] = collections.Counter()
        self.attributes: collections.Counter[str] = collections.Counter()
        self.defined: collections.Counter[str] = collections.Counter()

    def leave_Module(self, node: cst.Module) -> None:
        self.complete = True

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if isinstance(attribute, cst.Attribute) and attribute.attr.value == "requires_grad":
                self.freezes = self.freezes or literal_bool(node.value) is not True
            if _names_grad(attribute):
                self.by_body[self.stack[-1]].clears = True

    def visit_Del(self, node: cst.Del) -> None:
        if _names_grad(node.target):
            self.by_body[self.stack[-1]].clears = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append(node)
        self.by_body.setdefault(node, _Calls())
        self.defined[node.name.value] += 1

    def visit_Name(self, node: cst.Name) -> None:
        self.mentions[node.value] += 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes[node.attr.value] += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.by_callee.setdefault(node.func.value, []).append(node)
        elif isinstance(node.func, cst.Attribute):
            self.by_method.setdefault(node.func.attr.value, []).append(node)
        for arg in node.args:
            if arg.keyword is not None:
                self.keywords[arg.keyword.value] += 1
        calls = self.by_body[self.stack[-1]]
        name = dotted(node.func) or ""
        if name and (name.count(".") == 0 or (name.startswith("self.") and name.count(".") == 1)):
            calls.names.add(name)
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else name
        if last in ("backward", "grad"):
            calls.backward = True
        calls.clears = calls.clears or _clears_gradients(node)
        if last == "requires_grad_" and node.args and literal_bool(node.args[0].value) is not True:
            self.freezes = True  # False, or a flag decided at run time (`not freeze`)
        if last == "detach_":  # a leaf detached in place stops requiring grad
            self.freezes = True
        if last[:1].isupper():
            self.builders.setdefault(last, set()).add(self.stack[-1])
        if last == "mark_dirty" and self.stack[-1] is not None:
            marked = self.dirty.setdefault(self.stack[-1], set())
            marked.update(dotted(a.value) or "" for a in node.args)

    def add(self, other: CallScan) -> None:
        """What `other` found walking statements this scan did not walk (a project
        definition's, walked once per process), as if it had walked them next."""
        for body, calls in other.by_body.items():
            mine = self.by_body.setdefault(body, _Calls())
            mine.names |= calls.names
            mine.backward = mine.backward or calls.backward
            mine.clears = mine.clears or calls.clears
        for body, marked in other.dirty.items():
            self.dirty.setdefault(body, set()).update(marked)
        self.freezes = self.freezes or other.freezes
        for name, bodies in other.builders.items():
            self.builders.setdefault(name, set()).update(bodies)
        for name, calls in other.by_callee.items():
            self.by_callee.setdefault(name, []).extend(calls)
        for name, calls in other.by_method.items():
            self.by_method.setdefault(name, []).extend(calls)
        self.mentions.update(other.mentions)
        self.keywords.update(other.keywords)
        self.attributes.update(other.attributes)
        self.defined.update(other.defined)

    def only_called(self, name: str, method: bool) -> list[cst.Call] | None:
        """The calls of a function (`name(...)`) or of a method (`x.name(...)`) of the
        file, when every other occurrence of the identifier is a function's definition:
        it is never passed, stored or returned. None otherwise."""
        functions = self.by_callee.get(name, [])
        methods = self.by_method.get(name, [])
        bare = self.mentions[name] - self.attributes[name] - self.keywords[name]
        if bare != len(functions) + self.defined[name]:
            return None
        if method and self.attributes[name] != len(methods):
            return None
        return methods if method else functions


def _maps_items(expr, clause, source) -> bool:
    """A comprehension with one clause and no condition over a short sequence of known
    length: it has one item per item of the source."""
    return (
        clause is expr.for_in
        and clause.inner_for_in is None
        and not clause.ifs
        and isinstance(source, Seq)
        and not source.any_length
        and 0 < len(source.items) <= _MAPPED_ITEMS
    )


def _comp_clauses(for_in):
    while for_in is not None:
        yield for_in
        for_in = for_in.inner_for_in
