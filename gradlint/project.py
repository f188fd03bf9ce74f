"""The project index: what a file imports from its own project, read from the other files.

`from model import Net`, `from .utils import make_layers`, `from pkg import Net` (an
`__init__` re-export), `import pkg.mod as m` then `m.Net(...)`: the definitions these
name (and what they use from their own module, transitively, also across further project
imports) are read from the project's files and put before the linted file's text, whose
own import statements of them are blanked, so that the file is analysed as if it were one
file with them (`linked`). Findings are kept only on the linted file's own lines.

The project is what the file can import by path: its own directory (scripts), the
directory above its top-most package (`__init__.py` chain) and an enclosing `src/`.
Installed packages (`site-packages`) are never part of it: torch's knowledge speaks for
torch. A file in a package tree of over MAX_PACKAGE_FILES files (a library such as
torchvision) is linted alone: the cost of linking grows with the helpers it imports.
A name defined by two project modules, or by a project module and the file itself,
leaves the file unlinked (precision first); a definition set over MAX_LINES lines too.

`index_key` is the key material of the files a link may read (their paths and bytes,
found by a regular-expression scan of import lines, no parse): a file's cached findings
are stale when one of them changes. Import cycles end: each file is read once.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

TYPE_CHECKING = False  # not `typing`'s
if TYPE_CHECKING:
    import ast

# Lines of project definitions one file may be linked with; more costs more than it gives.
MAX_LINES = 400
# A package tree of more Python files than this is a library (torchvision, timm, ...), not
# a project: its files import their own helpers by the hundred, and linking them would
# cost more than half again the lint of their own text. Its files are linted alone.
MAX_PACKAGE_FILES = 60

_INSTALLED = ("site-packages", "dist-packages")
_IMPORT_LINE = re.compile(
    rb"^[ \t]*(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import\b|import[ \t]+([\w., \t]+))",
    re.MULTILINE,
)
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)


@dataclass(frozen=True)
class Linked:
    """What a file is linted with (see module doc): its text, line for line, with its
    imports of the project's definitions blanked and `m.Name` spelled `Name`; and the
    definitions, as top-level statements' texts to put before it."""

    source: bytes
    pieces: tuple[str, ...]
    files: tuple[str, ...] = ()  # the project files read


@dataclass
class _Module:
    """One project file's top-level statements, by what they define; and what linking the
    file itself reads of its tree (one parse serves both)."""

    path: str
    lines: list[str]
    defined: dict[str, tuple[int, int, frozenset[str]]] = field(default_factory=dict)
    imports: list[ast.stmt] = field(default_factory=list)
    text: str = ""
    own: frozenset[str] = frozenset()  # top-level functions, classes and names assigned
    every_import: list[ast.stmt] = field(default_factory=list)  # nested ones too
    # names the file binds anywhere (assignment targets, parameters): a module imported
    # whole under such a name may be shadowed, so its uses are left alone
    stored: frozenset[str] = frozenset()


# -- what a project is --------------------------------------------------------------------

# directories that hold no project code: virtualenvs, installed packages, build output
# (config.DEFAULT_EXCLUDE; a project's file tree skips them too)
OUTSIDE_PROJECT = (
    "venv",
    "__pycache__",
    "site-packages",
    "dist-packages",
    "build",
    "dist",
    "node_modules",
)

# -- where modules are --------------------------------------------------------------------


def _installed(path: str) -> bool:
    return any(part in _INSTALLED for part in os.path.normpath(path).split(os.sep))


@lru_cache(maxsize=256)
def _library(directory: str) -> bool:
    """Whether `directory` lies in a package tree of over MAX_PACKAGE_FILES Python files."""
    top = directory
    while os.path.isfile(os.path.join(os.path.dirname(top), "__init__.py")):
        top = os.path.dirname(top)
    if not os.path.isfile(os.path.join(top, "__init__.py")):
        return False
    count = 0
    for _, subdirectories, names in os.walk(top):
        subdirectories[:] = [d for d in subdirectories if not d.startswith((".", "__"))]
        count += sum(name.endswith(".py") for name in names)
        if count > MAX_PACKAGE_FILES:
            return True
    return False


def _outside(path: str) -> bool:
    """Files the index does not link: installed ones, and those of a library's tree."""
    return _installed(path) or _library(os.path.dirname(os.path.abspath(path)))


@lru_cache(maxsize=256)
def roots(directory: str) -> tuple[str, ...]:
    """Directories absolute imports of a file in `directory` resolve against."""
    found = [directory]
    top = directory
    while os.path.isfile(os.path.join(top, "__init__.py")):
        top = os.path.dirname(top)
    if top not in found:
        found.append(top)
    parts = directory.split(os.sep)
    if "src" in parts:
        src = os.sep.join(parts[: len(parts) - parts[::-1].index("src")])
        if src not in found:
            found.append(src)
    return tuple(found)


@lru_cache(maxsize=4096)
def _module_file(base: str, dotted: str) -> str | None:
    """`base/a/b.py` or `base/a/b/__init__.py` for `a.b`."""
    target = os.path.join(base, *dotted.split(".")) if dotted else base
    if dotted and os.path.isfile(target + ".py"):
        return target + ".py"
    init = os.path.join(target, "__init__.py")
    return init if os.path.isfile(init) else None


@lru_cache(maxsize=8192)
def resolve(path: str, level: int, dotted: str) -> str | None:
    """The project file an import names from the file `path` (None: not the project's);
    memoised as `_module_file` is (a link asks the same question for each use)."""
    directory = os.path.dirname(os.path.abspath(path))
    if level:
        base = directory
        for _ in range(level - 1):
            base = os.path.dirname(base)
        found = _module_file(base, dotted)
    else:
        found = None
        for root in roots(directory):
            found = _module_file(root, dotted)
            if found is not None:
                break
    if found is None or _installed(found) or os.path.samefile(found, path):
        return None
    return found


# -- the cache key: a scan of import lines, no parse ----------------------------------------


def imported_files(path: str, source: bytes) -> list[str]:
    """Project files the import lines of `source` may name (over-approximated)."""
    found = []
    for match in _IMPORT_LINE.finditer(source):
        dots, module, plain = match.groups()
        names = [(len(dots or b""), (module or b"").decode())]
        if plain is not None:
            names = [(0, part.split()[0].decode()) for part in plain.split(b",") if part.split()]
        for level, dotted in names:
            if not dotted and not level:
                continue
            parts = dotted.split(".") if dotted else []
            for end in range(len(parts), -1 if level else 0, -1):  # packages on the way too
                file = resolve(path, level, ".".join(parts[:end]))
                if file is not None and file not in found:
                    found.append(file)
    if b"from" in source:  # `from pkg import mod`: the submodule's file too
        for match in re.finditer(
            rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t(]+([\w, \t\n]+)", source, re.M
        ):
            level, module = len(match.group(1)), match.group(2).decode()
            for name in re.findall(rb"\w+", match.group(3)):
                if name == b"as":
                    continue
                file = resolve(path, level, f"{module}.{name.decode()}".strip("."))
                if file is not None and file not in found:
                    found.append(file)
    return found


def index_key(path: str, source: bytes) -> bytes:
    """Paths and bytes of every project file `path` imports, transitively (a file's cache
    key part: its findings depend on them once linked)."""
    if b"import" not in source or _outside(path):
        return b""
    seen: dict[str, bytes] = {}
    pending = imported_files(path, source)
    while pending:
        file = pending.pop()
        if file in seen:
            continue
        try:
            with open(file, "rb") as handle:
                seen[file] = handle.read()
        except OSError:
            seen[file] = b"\0unreadable"
            continue
        pending += imported_files(file, seen[file])
    return b"".join(os.fsencode(f) + b"\0" + seen[f] + b"\0" for f in sorted(seen))


# -- reading a project module ---------------------------------------------------------------


@lru_cache(maxsize=512)
def _read(path: str, stamp: tuple[int, int]) -> _Module | None:
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return _parsed(path, text)


def _parsed(path: str, text: str) -> _Module | None:
    """`text`'s module (None: CPython cannot parse it)."""
    import ast

    try:
        tree = ast.parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    module = _Module(path, text.splitlines(), text=text)
    own, stored = set(), set()
    for statement in tree.body:
        nodes = _nodes(statement)
        stored.update(_stored(nodes))
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(statement.name)
        elif isinstance(statement, ast.Assign):
            own |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
        start = min([statement.lineno, *(d.lineno for d in _decorators(statement))])
        span = (start, statement.end_lineno or statement.lineno)
        if isinstance(statement, ast.Import | ast.ImportFrom):
            module.imports.append(statement)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            module.defined[statement.name] = (*span, _ids(nodes))
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if all(isinstance(target, ast.Name) for target in targets) and statement.value:
                for target in targets:
                    module.defined[target.id] = (*span, _names(statement.value))
        elif isinstance(statement, ast.Try):  # `try: import x` / `except ImportError: ...`
            module.imports += [
                s for s in statement.body if isinstance(s, ast.Import | ast.ImportFrom)
            ]
    module.own, module.stored = frozenset(own), frozenset(stored)
    module.every_import = [
        s for s in _statements(tree.body) if isinstance(s, ast.Import | ast.ImportFrom)
    ]
    return module


def _decorators(statement: ast.stmt) -> list:
    return getattr(statement, "decorator_list", [])


def _names(node: ast.AST) -> frozenset[str]:
    return _ids(_nodes(node))


def _ids(nodes: list) -> frozenset[str]:
    """The names read or bound among `nodes`."""
    import ast

    return frozenset(n.id for n in nodes if type(n) is ast.Name)


def _stored(nodes: list) -> list[str]:
    """The names bound among `nodes` (assignment targets, parameters)."""
    import ast

    return [
        node.id if type(node) is ast.Name else node.arg
        for node in nodes
        if type(node) is ast.arg or (type(node) is ast.Name and type(node.ctx) is ast.Store)
    ]


def _nodes(node: ast.AST) -> list:
    """`node` and every node below it (`ast.walk`'s, in another order, without its
    generators: a third of its time)."""
    from ast import AST

    found, pending = [], [node]
    while pending:
        current = pending.pop()
        found.append(current)
        for name in current._fields:
            value = getattr(current, name, None)
            if type(value) is list:
                pending += [item for item in value if isinstance(item, AST)]
            elif isinstance(value, AST):
                pending.append(value)
    return found


def definitions(path: str, text: str) -> tuple[list[str], list[tuple[int, int]]] | None:
    """The lines of a project file and the line spans of its top-level definitions (each
    span's lines are a piece of `Linked.pieces`), when `text` is the file's text; else None."""
    module = _module(path)
    if module is None or "".join(line + "\n" for line in module.lines) not in (text, text + "\n"):
        return None
    return module.lines, sorted({definition[:2] for definition in module.defined.values()})


def _module(path: str) -> _Module | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return _read(path, (status.st_mtime_ns, status.st_size))


# -- linking ----------------------------------------------------------------------------------


class _Unlinkable(Exception):
    """The file is analysed alone (a clash, a definition set too large, unreadable code)."""


class _Linker:
    """Collects, module by module, the definitions a file needs and the text giving them."""

    def __init__(self, home: str) -> None:
        self.home = home  # the linted file: names imported from it are its own
        self.needed: dict[str, set[str]] = {}  # project file -> names it must provide
        self.order: list[str] = []  # files, dependencies first
        self.aliases: dict[str, list[tuple[str, str]]] = {}  # file -> (local, provided)
        self.providers: dict[str, str] = {}  # name defined in the text -> its file
        self.lines = 0

    def need(self, file: str, name: str, chain: tuple[str, ...] = ()) -> bool:
        """Make `file` provide `name` (a definition, or an import of another project
        module it re-exports); False when it cannot."""
        module = _module(file)
        if module is None:
            return False
        wanted = self.needed.setdefault(file, set())
        if name in wanted:
            return True
        if name in module.defined:
            wanted.add(name)
            start, end, uses = module.defined[name]
            self.lines += end - start + 1
            if self.lines > MAX_LINES:
                raise _Unlinkable
            owner = self.providers.setdefault(name, file)
            if owner != file:
                raise _Unlinkable  # two project modules define the name
            for used in sorted(uses):
                if used != name and (used in module.defined or self._imported(module, used)):
                    self.need(file, used, chain)
            self._place(file)
            return True
        return self._reexport(module, name, chain)

    def _place(self, file: str) -> None:
        if file in self.order:
            self.order.remove(file)
        self.order.append(file)

    def _imported(self, module: _Module, name: str) -> bool:
        """Whether `module` imports `name` from a project module (and link it then)."""
        return self._reexport(module, name, ())

    def _reexport(self, module: _Module, name: str, chain: tuple[str, ...]) -> bool:
        if module.path in chain:
            return False  # an import cycle: what is not defined on the way is not found
        import ast

        for statement in module.imports:
            if not isinstance(statement, ast.ImportFrom):
                continue
            for alias in statement.names:
                if (alias.asname or alias.name) != name:
                    continue
                source = resolve(module.path, statement.level, statement.module or "")
                if source is not None and os.path.samefile(source, self.home):
                    return True  # a cycle back to the linted file: its own definition
                if source is None:
                    return False
                if not self.need(source, alias.name, (*chain, module.path)):
                    return False
                if alias.asname and alias.asname != alias.name:
                    self.aliases.setdefault(module.path, []).append((alias.asname, alias.name))
                    self.providers.setdefault(alias.asname, module.path)
                self._place(module.path)
                self.needed.setdefault(module.path, set())
                return True
        return False

    def pieces(self) -> list[str]:
        """The definitions as top-level statements' texts, each module's after those it
        depends on, with the imports of installed packages each module makes (its project
        imports are the pieces themselves) and the aliases it re-exports under."""
        import ast

        out: list[str] = []
        imports_seen: set[str] = set()
        for file in self.order:
            module = _module(file)
            if module is None:
                raise _Unlinkable
            for statement in module.imports:
                if isinstance(statement, ast.ImportFrom) and (
                    statement.module == "__future__"
                    or statement.level
                    or resolve(file, 0, statement.module or "") is not None
                ):
                    continue
                if isinstance(statement, ast.Import) and any(
                    resolve(file, 0, alias.name) is not None for alias in statement.names
                ):
                    continue
                line = _unparsed(statement)
                if line not in imports_seen:
                    imports_seen.add(line)
                    out.append(line)
            spans = sorted(
                module.defined[name][:2]
                for name in self.needed.get(file, ())
                if name in module.defined
            )
            done = 0
            for start, end in spans:
                if end <= done:
                    continue
                out.append("".join(line + "\n" for line in module.lines[start - 1 : end]))
                done = end
            out += [f"{local} = {name}\n" for local, name in self.aliases.get(file, ())]
        return out


@lru_cache(maxsize=4096)
def _unparsed(statement: ast.stmt) -> str:
    """An import statement of a project module as a line (once per statement read)."""
    import ast

    return ast.unparse(statement) + "\n"


def _statement_lines(source: str, node: ast.stmt) -> tuple[int, int] | None:
    """The lines a statement spans, when it has them to itself (no `;` on them)."""
    lines = source.splitlines()[node.lineno - 1 : node.end_lineno]
    if any(";" in line for line in lines):
        return None
    return node.lineno, node.end_lineno or node.lineno


def linked(path: str, source: bytes) -> Linked | None:
    """`source` after the project definitions it imports (see module doc), or None when it
    imports none or cannot be linked."""
    if b"import" not in source or _outside(path):
        return None
    cookie = _COOKIE.search(source[: source.find(b"\n", source.find(b"\n") + 1) + 1])
    if cookie is not None and cookie.group(1).lower() not in (b"utf-8", b"utf8"):
        return None
    if not imported_files(path, source):
        return None
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # the file's text as an importer reads it (a notebook's is not its script): one parse
    read = _module(path) if path.endswith(".py") else None
    parsed = read if read is not None and read.text == text else _parsed(path, text)
    if parsed is None:
        return None
    try:
        return _link(path, text, parsed)
    except (_Unlinkable, RecursionError):
        return None


def _link(path: str, text: str, parsed: _Module) -> Linked | None:
    import ast

    linker = _Linker(path)
    blanked: list[tuple[int, int]] = []
    aliases: list[str] = []
    modules: dict[str, str] = {}  # `m` (or `pkg.mod`) in the file -> its project file
    own = set(parsed.own)
    for statement in parsed.every_import:
        if isinstance(statement, ast.ImportFrom):
            source = resolve(path, statement.level, statement.module or "")
            if source is None:
                continue
            span = _statement_lines(text, statement)
            if span is None or any(alias.name == "*" for alias in statement.names):
                continue
            snapshot = (dict(linker.needed), list(linker.order), linker.lines)
            provided = []
            for alias in statement.names:
                submodule = resolve(
                    path, statement.level, f"{statement.module or ''}.{alias.name}".strip(".")
                )
                if alias.name in (_module(source) or _Module("", [])).defined or submodule is None:
                    if not linker.need(source, alias.name):
                        break
                    provided.append(alias)
                elif (alias.asname or alias.name) not in parsed.stored:
                    modules[alias.asname or alias.name] = submodule
                    provided.append(None)
                else:
                    break
            else:
                if all(alias is None for alias in provided):
                    continue  # only submodules: their uses are rewritten, the import kept
                if any(alias is None for alias in provided):
                    continue
                blanked.append(span)
                for alias in statement.names:
                    if alias.asname and alias.asname != alias.name:
                        aliases.append(f"{alias.asname} = {alias.name}\n")
                continue
            linker.needed, linker.order, linker.lines = snapshot
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                source = resolve(path, 0, alias.name)
                local = alias.asname or alias.name
                if source is not None and local.split(".")[0] not in parsed.stored:
                    modules[local] = source
    rewritten = _module_uses(text, modules, linker)
    if not blanked and rewritten is text:
        return None
    pieces = list(dict.fromkeys(linker.pieces() + aliases))
    if own & set(linker.providers) or not pieces:
        return None
    lines = rewritten.splitlines(keepends=True)
    for start, end in blanked:
        indent = re.match(r"[ \t]*", lines[start - 1]).group(0)
        lines[start - 1] = indent + "pass\n"
        for number in range(start, end):
            lines[number] = "\n"
    body = "".join(lines)
    return Linked(body.encode("utf-8"), tuple(pieces), tuple(linker.order))


def _statements(body: list) -> list:
    """Every statement, nested ones too (imports inside functions, `if`, `try`)."""
    import ast

    found, pending = [], list(body)
    while pending:
        statement = pending.pop()
        found.append(statement)
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(statement, name, None)
            if isinstance(block, list):
                pending += [s for s in block if isinstance(s, ast.stmt | ast.excepthandler)]
    return found


def _module_uses(text: str, modules: dict[str, str], linker: _Linker) -> str:
    """`text` with `m.Name` (a module imported whole) spelled `Name` and padded with
    spaces to the same length, for each Name the module provides."""
    if not modules:
        return text
    for local, file in sorted(modules.items(), key=lambda item: -len(item[0])):
        pattern = re.compile(rf"(?<![\w.]){re.escape(local)}\.(\w+)\b")

        def spelled(match: re.Match, file: str = file) -> str:
            name = match.group(1)
            try:
                found = linker.need(file, name)
            except _Unlinkable:
                found = False
            return name + " " * (len(match.group(0)) - len(name)) if found else match.group(0)

        text = pattern.sub(spelled, text)
    return text
