"""Who uses a file's functions from the rest of its project, and in which grad mode: the
reverse of project.py's index (which links what a file imports, not who calls it).

`load_from(self, weights)` edits its parameters in place with no `torch.no_grad()` of its
own; its only caller, in another file, runs it inside `with torch.no_grad():`. The file
alone cannot show that, so the edit reads as one made while autograd records.
`called_without_grad` answers for one function: every use of its name in the project's
files (its own file's included) is a call lexically inside a no-grad block (`with
torch.no_grad():`, `torch.inference_mode()`, `torch.set_grad_enabled(False)`, or a
function decorated with one), and there is at least one. A use of the name that is not a
call (a callback handed on, `getattr`), or a call elsewhere, answers no. Calls on a
receiver proven to be an instance of another class that defines the method itself
(`model = VisionTransformer(...)` then `model.load_from(...)`) dispatch to that class's
method and are not counted. Uses are found by name, over-approximated: more uses can
only answer no.

The project is the linted file's directory tree: the top of its package chain, and the
directories above it that hold Python files themselves (a script beside a namespace
package `models/`), at most MAX_PROJECT_FILES files. Files in installed packages or in a
library's tree (project.py) have no answer. `key` is the cache key material: the paths
and bytes of the files whose uses an answer may read.

`imported_by_torch_code` answers the engine's prefilter for a file with no torch import:
a helper module that a torch-importing file of the project imports is linted too.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

from gradlint import project

# A directory tree of more Python files than this is not walked for callers (its files are
# linted alone, as a library's are).
MAX_PROJECT_FILES = 400
# Directories above the package top a project may hold its scripts in.
MAX_LEVELS_UP = 2
_DEFINED = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)
_WORD = re.compile(rb"\w+")
# a file that does import torch (`import torch`, `from torch.nn import ...` starting a
# line): stricter than the engine's prefilter, which parses any file whose import lines
# may name a torch package (`import numpy as torch` too: parsing it costs little; taking
# it as a caller would lint its helpers as torch code)
_IMPORTS_TORCH = re.compile(rb"^[ \t]*(?:import|from)[ \t]+torch\b", re.MULTILINE)
_NO_GRAD = {"no_grad", "inference_mode"}


@dataclass(frozen=True)
class _Use:
    """A use of a name: whether it is a call made without grad, and the class its receiver
    is proven to be an instance of (`model.load_from(...)` after `model = Net(...)`)."""

    without_grad: bool
    receiver: str | None = None


@dataclass
class _FileUses:
    """One file's uses of names, the methods each of its classes defines, and the names it
    imports from other modules (local -> (level, module, name))."""

    uses: dict[str, list[_Use]] = field(default_factory=dict)
    methods: dict[str, frozenset[str]] = field(default_factory=dict)
    imported: dict[str, tuple[int, str, str]] = field(default_factory=dict)


# -- the project's files ------------------------------------------------------------------


def _has_python(directory: str) -> bool:
    try:
        return any(name.endswith(".py") for name in os.listdir(directory))
    except OSError:
        return False


@lru_cache(maxsize=256)
def _top(directory: str) -> str:
    """The directory whose tree is the project of a file in `directory`."""
    top = min(project.roots(directory), key=len)
    for _ in range(MAX_LEVELS_UP):
        parent = os.path.dirname(top)
        if parent == top or not _has_python(parent):
            break
        top = parent
    return top


@lru_cache(maxsize=64)
def _tree(top: str) -> tuple[str, ...] | None:
    """The Python files under `top` (None: more than MAX_PROJECT_FILES)."""
    found: list[str] = []
    for directory, subdirectories, names in os.walk(top):
        subdirectories[:] = sorted(
            d
            for d in subdirectories
            if not d.startswith((".", "__"))
            and d not in project.OUTSIDE_PROJECT
            and "venv" not in d
        )
        found += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".py")]
        if len(found) > MAX_PROJECT_FILES:
            return None
    return tuple(found)


def _project(path: str) -> tuple[str, ...]:
    """The other files of `path`'s project ((): none, or no answer for it)."""
    if not os.path.isfile(path) or project._outside(path):
        return ()
    files = _tree(_top(os.path.dirname(os.path.abspath(path))))
    if files is None:
        return ()
    here = os.path.abspath(path)
    return tuple(f for f in files if f != here)


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


@lru_cache(maxsize=4096)
def _words(path: str, stamp: tuple[int, int]) -> frozenset[bytes]:
    """Every identifier in the file (a superset of the names it uses)."""
    return frozenset(_WORD.findall(_read(path) or b""))


def _mentioning(path: str, names: set[bytes]) -> list[str]:
    """The project's other files naming any of `names`."""
    found = []
    for file in _project(path):
        stamp = _stamp(file)
        if stamp is not None and names & _words(file, stamp):
            found.append(file)
    return found


def _defined(source: bytes) -> set[bytes]:
    return {name for name in _DEFINED.findall(source) if not name.startswith(b"__")}


def key(path: str, source: bytes) -> bytes:
    """Paths and bytes of the project files naming a function `source` defines: the uses
    `called_without_grad` reads (a file's cache key part)."""
    names = _defined(source)
    if not names:
        return b""
    parts = []
    for file in _mentioning(path, names):
        text = _read(file)
        text = b"\0unreadable" if text is None else text
        parts.append(os.fsencode(file) + b"\0" + text + b"\0")
    return b"".join(parts)


def imported_by_torch_code(path: str) -> bool:
    """Whether a file of the project that imports torch imports `path`: a helper module
    with no torch import of its own, working on the tensors its callers hand it (a top-k
    `accuracy(output, target, topk=(1,))` in utils/eval.py)."""
    here = os.path.abspath(path)
    for file in _project(path):
        stamp = _stamp(file)
        if stamp is not None and here in _imported_by_torch_file(file, stamp):
            return True
    return False


@lru_cache(maxsize=4096)
def _imported_by_torch_file(path: str, stamp: tuple[int, int]) -> frozenset[str]:
    """The project files `path` imports, if it imports torch (else none), and those the
    packages' `__init__.py` among them import in turn (`from .eval import *`)."""
    source = _read(path)
    if source is None or _IMPORTS_TORCH.search(source) is None:
        return frozenset()
    found: set[str] = set()
    pending = project.imported_files(path, source)
    while pending:
        file = os.path.abspath(pending.pop())
        if file in found:
            continue
        found.add(file)
        if os.path.basename(file) == "__init__.py" and (text := _read(file)) is not None:
            pending += project.imported_files(file, text)
    return frozenset(found)


def _read(path: str) -> bytes | None:
    """The file's bytes; None when unreadable or not a regular file (opening a FIFO named
    `x.py` would block forever)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


# -- uses -------------------------------------------------------------------------------------


def called_without_grad(path: str, source: bytes, owner: str | None, name: str) -> bool:
    """Whether every use of `name` (a method of class `owner` of `path`, or a function of
    it) in the project, `source` (the file's text) included, is a call without grad."""
    files = _mentioning(path, {name.encode()})
    if not files:
        return False
    own = _uses_of_source(source)
    if own is None:
        return False
    uses = [(path, use) for use in own.uses.get(name, ())]
    for file in files:
        stamp = _stamp(file)
        found = _file_uses(file, stamp) if stamp is not None else None
        if found is None:
            return False
        uses += [(file, use) for use in found.uses.get(name, ())]
    counted = [use for file, use in uses if not _dispatched_elsewhere(file, use, path, owner, name)]
    return bool(counted) and all(use.without_grad for use in counted)


def _dispatched_elsewhere(file: str, use: _Use, home: str, owner: str | None, name: str) -> bool:
    """A call on an instance of another class that defines `name` itself."""
    if use.receiver is None:
        return False
    found = _class_methods(file, use.receiver)
    if found is None:
        return False
    where, methods = found
    if owner is not None and use.receiver == owner and os.path.samefile(where, home):
        return False
    return name in methods


def _class_methods(file: str, name: str, hops: int = 4) -> tuple[str, frozenset[str]] | None:
    """The file defining class `name` as `file` sees it, and the methods it defines."""
    stamp = _stamp(file)
    uses = _file_uses(file, stamp) if stamp is not None else None
    if uses is None:
        return None
    if name in uses.methods:
        return file, uses.methods[name]
    if name not in uses.imported or not hops:
        return None
    level, module, original = uses.imported[name]
    source = project.resolve(file, level, module)
    return None if source is None else _class_methods(source, original, hops - 1)


@lru_cache(maxsize=1024)
def _file_uses(path: str, stamp: tuple[int, int]) -> _FileUses | None:
    """The file's uses (None: unreadable or not Python, so its uses are unknown)."""
    source = _read(path)
    return None if source is None else _uses_of_source(source)


@lru_cache(maxsize=64)
def _uses_of_source(source: bytes) -> _FileUses | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = _FileUses()
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            found.methods[statement.name] = frozenset(
                s.name
                for s in statement.body
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
            )
        elif isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                local = alias.asname or alias.name
                found.imported[local] = (statement.level, statement.module or "", alias.name)
    try:
        _Walker(found).scope(tree.body, without_grad=False, params=())
    except RecursionError:
        return None
    return found


def _grad_effect(expr: ast.expr) -> bool | None:
    """True: a context turning grad off; False: one turning it on; None: neither."""
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    argument = expr.args[0] if expr.args else None
    literal = argument.value if isinstance(argument, ast.Constant) else None
    if last in _NO_GRAD:
        # inference_mode(False), or a mode decided at run time: not off
        return argument is None or literal is True
    if last == "set_grad_enabled":
        return literal is False  # grad on, or a mode decided at run time: not off
    if last == "enable_grad":
        return False
    return None


class _Walker:
    """Records each use of a name with the grad mode it runs in, scope by scope."""

    def __init__(self, found: _FileUses) -> None:
        self.found = found

    def scope(self, body: list[ast.stmt], without_grad: bool, params: tuple[str, ...]) -> None:
        receivers = _receivers(body, params)
        for statement in body:
            self.node(statement, without_grad, receivers)

    def node(self, node: ast.AST, without_grad: bool, receivers: dict[str, str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                self.node(decorator, without_grad, receivers)
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self.node(default, without_grad, receivers)
            inside = any(_grad_effect(d) for d in node.decorator_list)
            arguments = node.args
            params = tuple(
                a.arg
                for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                + [arguments.vararg, arguments.kwarg]
                if a is not None
            )
            self.scope(node.body, inside, params)
            return
        if isinstance(node, ast.ClassDef):
            for expr in [*node.bases, *node.keywords, *node.decorator_list]:
                self.node(expr, without_grad, receivers)
            self.scope(node.body, False, ())
            return
        if isinstance(node, ast.Lambda):
            self.node(node.body, False, {})
            return
        if isinstance(node, ast.With | ast.AsyncWith):
            mode = without_grad
            for item in node.items:
                self.node(item.context_expr, without_grad, receivers)
                effect = _grad_effect(item.context_expr)
                if effect is not None:
                    mode = effect
            for statement in node.body:
                self.node(statement, mode, receivers)
            return
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                receiver = receivers.get(func.value.id) if type(func.value) is ast.Name else None
                self._use(func.attr, _Use(without_grad, receiver))
                self.node(func.value, without_grad, receivers)
            elif isinstance(func, ast.Name):
                self._use(func.id, _Use(without_grad))
            else:
                self.node(func, without_grad, receivers)
            for argument in [*node.args, *node.keywords]:
                self.node(argument, without_grad, receivers)
            return
        if isinstance(node, ast.Attribute):
            self._use(node.attr, _Use(False))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self._use(node.id, _Use(False))
        for child in ast.iter_child_nodes(node):
            self.node(child, without_grad, receivers)

    def _use(self, name: str, use: _Use) -> None:
        self.found.uses.setdefault(name, []).append(use)


def _receivers(body: list[ast.stmt], params: tuple[str, ...]) -> dict[str, str]:
    """Names of a scope bound only to an instance of one class built there (`model =
    VisionTransformer(config)`), with that class's name."""
    bound: dict[str, set[str | None]] = {param: {None} for param in params}
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.setdefault(node.name, set()).add(None)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if type(target) is ast.Name:
                bound.setdefault(target.id, set()).add(_built_class(value))
                pending.append(value)
                continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.setdefault(node.id, set()).add(None)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                bound.setdefault(name, set()).add(None)
        elif isinstance(node, ast.alias):
            bound.setdefault((node.asname or node.name).split(".")[0], set()).add(None)
        pending += ast.iter_child_nodes(node)
    return {
        name: next(iter(classes))
        for name, classes in bound.items()
        if len(classes) == 1 and None not in classes
    }


def _built_class(value: ast.expr) -> str | None:
    """`Net` for `Net(...)` (what it builds is asked of the class `Net` names, if any)."""
    if isinstance(value, ast.Call) and type(value.func) is ast.Name:
        return value.func.id
    return None
