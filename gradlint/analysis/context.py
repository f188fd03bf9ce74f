"""Where a node sits: its enclosing class kind, method, and autograd's grad mode."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

import libcst as cst

from gradlint.analysis.names import ImportTable, dotted


class ClassKind(str, Enum):
    MODULE = "module"  # subclass of torch.nn.Module (or of a torch.nn layer)
    AUTOGRAD_FUNCTION = "autograd_function"  # subclass of torch.autograd.Function
    OPTIMIZER = "optimizer"  # subclass of torch.optim.Optimizer
    UNKNOWN = "unknown"  # a base we cannot resolve (imported from elsewhere)
    PLAIN = "plain"  # no base, or only builtins / known non-torch bases


_NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode"})
_ENABLE_GRAD = frozenset({"torch.enable_grad"})
_SET_GRAD = frozenset({"torch.set_grad_enabled", "torch._C._set_grad_enabled"})
_NOT_MODULES = frozenset({"torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.init"})
_BUILTIN_BASES = frozenset({"object", "Exception", "ValueError", "RuntimeError", "dict", "list"})


def kind_of_qualified_base(qualified: str) -> ClassKind | None:
    """The kind a base class gives, from its canonical qualified name."""
    if qualified in ("torch.autograd.Function", "torch.autograd.InplaceFunction"):
        return ClassKind.AUTOGRAD_FUNCTION
    head, _, last = qualified.rpartition(".")
    if not last[:1].isupper() or qualified in _NOT_MODULES:
        return None
    if head == "torch.nn" or head.startswith("torch.nn."):
        return ClassKind.MODULE
    if head == "torch.optim" or head.startswith("torch.optim."):
        return ClassKind.OPTIMIZER
    return None


@dataclass(eq=False)
class ClassInfo:
    node: cst.ClassDef
    name: str
    kind: ClassKind
    base_names: tuple[str, ...]  # as written, dotted
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)

    @property
    def is_module(self) -> bool:
        return self.kind is ClassKind.MODULE


def _blocks(statement: cst.CSTNode) -> Iterator[Sequence[cst.CSTNode]]:
    """The statement lists directly inside a compound statement (bodies, else, handlers,
    finally, match cases); a chained `elif` comes back as a one-statement list."""
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock):
        yield body.body
    for case in getattr(statement, "cases", ()):  # match
        yield case.body.body if isinstance(case.body, cst.IndentedBlock) else ()
    for handler in getattr(statement, "handlers", ()):  # try / try* (except*)
        if isinstance(handler.body, cst.IndentedBlock):
            yield handler.body.body
    for attr in ("orelse", "finalbody"):
        block = getattr(statement, attr, None)
        if isinstance(block, cst.If):
            yield (block,)
        elif block is not None and isinstance(block.body, cst.IndentedBlock):
            yield block.body.body


def _walk_classes(statements: Iterable[cst.CSTNode]) -> Iterator[cst.ClassDef]:
    """Every ClassDef in a statement list, in source order, nested ones and those in any
    block included, without a full traversal and without recursion (elif chains)."""
    stack = [iter(statements)]
    while stack:
        statement = next(stack[-1], None)
        if statement is None:
            stack.pop()
            continue
        if isinstance(statement, cst.ClassDef):
            yield statement
        if isinstance(statement, cst.BaseCompoundStatement):
            stack.extend(iter(block) for block in reversed(list(_blocks(statement))))


class ModuleIndex:
    """The classes of one file, each with its kind resolved through imports and local bases."""

    def __init__(self, module: cst.Module, imports: ImportTable) -> None:
        self.by_node: dict[cst.ClassDef, ClassInfo] = {}
        self.by_name: dict[str, ClassInfo] = {}
        for node in _walk_classes(module.body):
            bases = tuple(name for arg in node.bases if (name := dotted(arg.value)))
            info = ClassInfo(node, node.name.value, ClassKind.PLAIN, bases)
            for statement in node.body.body:
                if isinstance(statement, cst.FunctionDef):
                    info.methods[statement.name.value] = statement
            self.by_node[node] = info
            self.by_name.setdefault(info.name, info)
        self._resolve_kinds(imports)

    def lineage(self, info: ClassInfo) -> list[ClassInfo]:
        """`info` and the classes of the file it derives from, directly or not, each once."""
        chain, pending = [], [info]
        while pending:
            current = pending.pop()
            if current in chain:
                continue
            chain.append(current)
            pending.extend(b for b in map(self.by_name.get, current.base_names) if b is not None)
        return chain

    def _resolve_kinds(self, imports: ImportTable) -> None:
        pending = list(self.by_node.values())
        for _ in range(len(pending) + 1):  # local bases: a fixed point over the chain
            changed = False
            for info in pending:
                kind = self._kind_from_bases(info, imports)
                if kind is not info.kind:
                    info.kind, changed = kind, True
            if not changed:
                break

    def _kind_from_bases(self, info: ClassInfo, imports: ImportTable) -> ClassKind:
        kinds = []
        for base in info.base_names:
            local = self.by_name.get(base)
            if local is not None and local is not info:
                kinds.append(local.kind)
                continue
            qualified = imports.resolve_name(base)
            if qualified is None:
                kinds.append(ClassKind.PLAIN if base in _BUILTIN_BASES else ClassKind.UNKNOWN)
            else:
                kinds.append(kind_of_qualified_base(qualified) or ClassKind.UNKNOWN)
        for kind in (ClassKind.AUTOGRAD_FUNCTION, ClassKind.OPTIMIZER, ClassKind.MODULE):
            if kind in kinds:
                return kind
        return ClassKind.UNKNOWN if ClassKind.UNKNOWN in kinds else ClassKind.PLAIN


@dataclass
class Frame:
    """One function being visited."""

    node: cst.FunctionDef | cst.Lambda
    owner: ClassInfo | None  # the class when the function is a method
    grad_enabled: bool


class Scope:
    """The live context of the node being visited, kept up to date by the engine."""

    def __init__(
        self, imports: ImportTable, index: ModuleIndex, no_grad_names: Iterable[str] = ()
    ) -> None:
        self.imports = imports
        self.index = index
        self.extra_no_grad = frozenset(no_grad_names)
        self.classes: list[ClassInfo] = []
        self._class_depths: list[int] = []  # len(self.functions) when each class was entered
        self.functions: list[Frame] = []
        self._grad: list[bool] = [True]
        self._pushed: dict[cst.CSTNode, int] = {}  # node -> how many grad states it pushed

    # -- queries -----------------------------------------------------------------

    @property
    def grad_enabled(self) -> bool:
        """True only where autograd certainly records (unknown modes count as off)."""
        return self._grad[-1]

    @property
    def function(self) -> Frame | None:
        return self.functions[-1] if self.functions else None

    @property
    def method_class(self) -> ClassInfo | None:
        """The class whose method body (or nested function inside it) we are in."""
        for frame in reversed(self.functions):
            if frame.owner is not None:
                return frame.owner
        return None

    @property
    def method_name(self) -> str | None:
        for frame in reversed(self.functions):
            if frame.owner is not None:
                return frame.node.name.value
        return None

    def in_method(self, *names: str, kind: ClassKind | None = None) -> bool:
        """Inside method `names` (any name when empty) of a class of `kind` (any when None)."""
        owner = self.method_class
        if owner is None or (kind is not None and owner.kind is not kind):
            return False
        return not names or self.method_name in names

    # -- grad-mode recognition ----------------------------------------------------

    def grad_effect(self, expr: cst.BaseExpression) -> bool | None:
        """False for a no-grad context/decorator, True for enable_grad, None for neither."""
        call = expr if isinstance(expr, cst.Call) else None
        target = call.func if call is not None else expr
        qualified = self.imports.resolve(target)
        written = dotted(target)
        if qualified in _NO_GRAD or (written and written in self.extra_no_grad):
            if qualified == "torch.inference_mode" and call is not None and call.args:
                return None if literal_bool(call.args[0].value) is False else False
            return False
        if qualified in _ENABLE_GRAD:
            return True
        if qualified in _SET_GRAD and call is not None and call.args:
            # a flag only known at run time (`set_grad_enabled(train)`) is no proof of
            # either mode: the code keeps the mode around it (the dataflow tracks it as
            # unknown); treating it as off would call a training step's graph cut
            return literal_bool(call.args[0].value)
        if qualified in self.extra_no_grad:
            return False
        return None

    # -- engine hooks ---------------------------------------------------------------

    def enter(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.ClassDef):
            self.classes.append(self.index.by_node[node])
            self._class_depths.append(len(self.functions))
        elif isinstance(node, cst.FunctionDef):
            self._enter_function(node)
        elif isinstance(node, cst.With):
            effects = [self.grad_effect(item.item) for item in node.items]
            state = self.grad_enabled
            for effect in effects:
                if effect is not None:
                    state = effect
            self._push(node, state)
        elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            effect = self.grad_effect(node.value)
            if effect is not None and self.functions:  # torch.set_grad_enabled(False) alone
                self._grad[-1] = effect

    def leave(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.ClassDef):
            self.classes.pop()
            self._class_depths.pop()
        elif isinstance(node, cst.FunctionDef):
            self.functions.pop()
            self._pop(node)
        elif isinstance(node, cst.With):
            self._pop(node)

    def _enter_function(self, node: cst.FunctionDef) -> None:
        owner = self.classes[-1] if self._is_method(node) else None
        enabled = owner is None or owner.kind is not ClassKind.OPTIMIZER
        for decorator in node.decorators:
            effect = self.grad_effect(decorator.decorator)
            if effect is not None:
                enabled = effect
        self.functions.append(Frame(node, owner, enabled))
        self._push(node, enabled)

    def _is_method(self, node: cst.FunctionDef) -> bool:
        return bool(self.classes) and self._class_depths[-1] == len(self.functions)

    def _push(self, node: cst.CSTNode, state: bool) -> None:
        self._grad.append(state)
        self._pushed[node] = self._pushed.get(node, 0) + 1

    def _pop(self, node: cst.CSTNode) -> None:
        if self._pushed.pop(node, 0):
            self._grad.pop()


def literal_bool(expr: cst.BaseExpression | None) -> bool | None:
    """`True` / `False` written as such; None for anything else."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def literal_value(expr: cst.Integer | cst.Float | cst.Imaginary | cst.SimpleString):
    """`expr.evaluated_value` without compiling (libcst compiles each literal anew): the
    common spellings read directly, the rest memoised by their text."""
    text = expr.value
    kind = type(expr)
    if kind is cst.SimpleString:
        quote = text[:3] if text[:3] in ('"""', "'''") else text[:1]
        if quote in _QUOTES and "\\" not in text and "\r" not in text:  # the text itself
            return text[len(quote) : -len(quote)]
    elif kind is cst.Integer and text.isdigit() and (text[0] != "0" or text.strip("0") == ""):
        return int(text)
    return _literal_eval(text)


_QUOTES = frozenset({'"', "'", '"""', "'''"})


@lru_cache(maxsize=4096)
def _literal_eval(text: str):
    return ast.literal_eval(text)
