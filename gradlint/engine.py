"""Lint one file: parse once, build the shared analysis, walk once with every checker."""

from __future__ import annotations

import ast
import dataclasses
import gc
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, lru_cache, partial

import libcst as cst

from gradlint import callers, project, speedups
from gradlint.analysis.dataflow.interpreter.scan import CallScan
from gradlint.analysis.walk import (
    LAYOUT,
    TOKENS,
    defines_hook,
    iter_nodes,
    node_classes,
    skipped,
    visit,
    walk_hooks,
)
from gradlint.catalogue import load_catalogue
from gradlint.checks import Checker, load_checkers
from gradlint.config import DEFAULT_MAX_DEPTH, Config
from gradlint.depth import NOTEBOOK_FLAGS, compile_file, compiles_within, deeper_than, is_utf8
from gradlint.diagnostic import Diagnostic
from gradlint.filecontext import FileContext, own_line
from gradlint.guard import (
    MESSAGE_LIMIT,
    declared_encoding,
    deep_call,
    from_bom,
    in_child,
    internal_error,
)
from gradlint.notebook import SUFFIX as NOTEBOOK_SUFFIX

TYPE_CHECKING = False  # not `typing`'s
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


def _analysis_classes() -> list[type]:
    """The classes defined by gradlint's analysis modules loaded by now (its values,
    events and shapes: speedups' record constructors)."""
    return [
        value
        for name, module in list(sys.modules.items())
        if name.startswith("gradlint.analysis.")
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == name
    ]


speedups.install(node_classes(), _analysis_classes())  # before any node is built or hashed

# The prefilter (README, "Which files are linted"): a file with no import statement
# naming torch (or torchvision, ...) cannot reach any torch API (every rule needs a name
# imported from torch), so it is not parsed at all: mentions in strings and comments
# (`is_torch_available()`, docstrings) are not enough. A statement at the start of a line
# (after a newline or a lone carriage return) or after `;` or a compound statement's `:`,
# indented or not, backslash continuations included. Bytes that are not Python text are
# parsed when they hold `torch` at all (a `.pyc` renamed `.py`): Python's verdict is GL001.
_GAP = rb"(?:[ \t\f]|\\\r?\n|\\\r)"  # a blank or a backslash continuation
_IMPORTS_TORCH = re.compile(
    rb"(?:^|[;:\r])(?:\xef\xbb\xbf)?" + _GAP + rb"*"  # a UTF-8 byte order mark on line 1
    rb"(?:from" + _GAP + rb"+torch\w*\b"
    rb"|import" + _GAP + rb"+(?:(?:[^\r\n#;\\]|\\\r?\n|\\\r)*?(?:,|" + _GAP + rb"))?torch\w*\b)",
    re.MULTILINE,
)


def imports_torch(source: bytes) -> bool:
    """Whether the file has an import statement naming a torch package."""
    return b"torch" in source and _IMPORTS_TORCH.search(source) is not None


def is_python_text(source: bytes) -> bool:
    """Whether Python could read the bytes as text: no NUL byte, and they decode as UTF-8
    or as the coding cookie of their first two lines says."""
    if b"\0" in source:
        return False
    return is_utf8(source) or declared_encoding(source) is not None


def parsed_at_all(source: bytes) -> bool:
    """The prefilter: a file is parsed when it imports torch, or holds the bytes `torch`
    without being Python text (lint_source also parses a helper module torch-importing
    files of its project import)."""
    return b"torch" in source and (
        _IMPORTS_TORCH.search(source) is not None or not is_python_text(source)
    )


# Seconds libcst may take, in a child process, on a file CPython rejected (guard.in_child).
FALLBACK_PARSE_TIMEOUT = 20.0


@dataclass
class LintResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)


# Node types whose entry or exit changes the scope (context.Scope.enter / leave).
_SCOPE_TYPES = (cst.ClassDef, cst.FunctionDef, cst.With, cst.Expr)


class _Dispatcher(dict):
    """One traversal that keeps the scope current and fans each node out to the checkers:
    node type -> (enter, leave) for walk_hooks, built on the type's first node from the
    scope's hooks and the checkers' `visit_<Type>` / `leave_<Type>`. A node type nobody
    listens to costs a dict lookup; what a `visit_` returns is ignored."""

    def __init__(self, file: FileContext, checkers: list[Checker]) -> None:
        super().__init__()
        self.scope = file.scope
        self._checkers = [*file.walkers, *checkers]
        self._kinds = tuple(type(c) for c in self._checkers)

    def run(self, module: cst.Module) -> None:
        walk_hooks(module, self, skip=_skipped(self._kinds))

    def __missing__(self, node_type: type) -> tuple[Callable | None, Callable | None]:
        listening = _listening(self._kinds, node_type.__name__)
        visits = [getattr(self._checkers[i], name) for i, name in listening[0]]
        leaves = [getattr(self._checkers[i], name) for i, name in listening[1]]
        if issubclass(node_type, _SCOPE_TYPES):
            visits.insert(0, self.scope.enter)
            leaves.append(self.scope.leave)
        if issubclass(node_type, cst.Import | cst.ImportFrom):
            visits.append(self.scope.imports.add)  # function-level imports count from here on
        leave = leaves[0] if len(leaves) == 1 else _all(leaves)  # what a leave returns: ignored
        found = self[node_type] = (_all(visits), leave)
        return found


@cache
def _skipped(checkers: tuple[type, ...]) -> frozenset[type]:
    """What the walk passes over (walk.skipped) for these participants' hooks."""
    return skipped(lambda name: any(defines_hook(checker, name) for checker in checkers))


@cache
def _listening(kinds: tuple[type, ...], node_type: str) -> tuple[tuple, tuple]:
    """(position, method name) of each participant class's `visit_` and `leave_` hook for
    a node type, worked out once per process rather than per file."""
    return tuple(
        tuple(
            (i, f"{hook}_{node_type}")
            for i, kind in enumerate(kinds)
            if defines_hook(kind, f"{hook}_{node_type}")
        )
        for hook in ("visit", "leave")
    )


def _all(callbacks: list[Callable]) -> Callable | None:
    """One hook calling each callback in order (returning None), or None without any."""
    if not callbacks:
        return None

    def call_all(node: cst.CSTNode) -> None:
        for callback in callbacks:
            callback(node)

    return call_all


def _syntax_error(path: str, line: int, column: int, message: str) -> Diagnostic:
    doc = load_catalogue()["GL001"]
    return Diagnostic(
        path=path,
        line=line,
        column=column,
        end_line=line,
        end_column=column,
        code="GL001",
        message=message,
        name=doc.name,
        severity=doc.severity,
    )


def parse(
    path: str,
    source: bytes | str,
    max_depth: int = DEFAULT_MAX_DEPTH,
    original: bytes | None = None,
) -> cst.Module | Diagnostic:
    """The libcst module, or a GL001 diagnostic saying why it cannot be parsed. `original`:
    the file's own text when `source` is its linked text (project.Linked.source).

    CPython compiles the file first (parser, symbol table and compiler, as `compile`
    does): that is ~10x faster than libcst, gives the familiar messages (`return`
    outside a function included), and bounds how deep libcst's
    tree would be (depth.py: files nested deeper than `max_depth` would take libcst
    minutes). Call it through
    `guard.deep_call` for files that may be deep (lint_source does).
    """
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")
    source = from_bom(source)
    if b"\0" in source:
        line = source[: source.index(b"\0")].count(b"\n") + 1
        return _syntax_error(path, line, 1, "Cannot parse: source contains a NUL byte")
    try:
        deep = _cpython_depth(path, source, max_depth)  # None: no deeper than max_depth
    except SyntaxError as error:  # also bad encodings and coding cookies
        rejected = _rejection(path, error)
        if (
            any(word in error.msg for word in _FINAL)
            or isinstance(error, UnicodeError)
            or _cpython_parses(path, source)  # the symbol table's or compiler's error
        ):
            return rejected
        # Syntax newer than this interpreter (PEP 695 on 3.11, ...) may still suit libcst;
        # without CPython's tree there is no depth bound, so libcst first tries in a child.
        status, verdict = in_child(lambda: _libcst_verdict(source), FALLBACK_PARSE_TIMEOUT)
        if status != "ok" or verdict is not None:
            return rejected
        return _parse_with_libcst(path, source, rejected)
    except (RecursionError, MemoryError, ValueError) as error:
        return _syntax_error(path, 1, 1, f"Cannot parse: {_failure(error)}")
    if deep is not None and deep[0] > max_depth:
        depth, line = deep
        message = (
            f"Cannot parse: nested {depth} levels deep, more than max-depth = {max_depth} "
            "(libcst's parse time grows steeply with depth; raise max-depth to lint it)"
        )
        return _syntax_error(path, line, 1, message)
    module = (
        _parse_reusing_pieces(path, source, original)
        or _parse_in_chunks(source)
        or _parse_with_libcst(path, source, None)
    )
    if isinstance(module, Diagnostic):
        # CPython accepted the file: libcst's tokenizer rejects a few valid endings, such
        # as a line continuation right before the end of the file.
        trimmed = _TRAILING_CONTINUATION.sub(b"\n", source)
        if trimmed != source and isinstance(
            fixed := _parse_with_libcst(path, trimmed, None), cst.Module
        ):
            return fixed
        if _long_fstrings_blanked(source) is not source:  # CPython checked a blanked copy
            try:
                ast.parse(source, path)
            except SyntaxError as error:
                return _rejection(path, error)
        module.message = module.message.replace(
            "Cannot parse:", "Cannot parse with libcst (Python accepts the file):", 1
        )
    return module


# f-string literals longer than this are blanked for CPython's check (_long_fstrings_blanked).
LONG_FSTRING = 20_000
_FSTRING_START = re.compile(rb"(?<![\w'\"])(?:[fF][rR]?|[rR][fF])('''|\"\"\"|'|\")")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"()[]{}")
_SHALLOW = 20  # bracket depth inside a blanked f-string (libcst parses it alone)


def _rejection(path: str, error: SyntaxError) -> Diagnostic:
    """GL001 with CPython's message and place."""
    column = (error.offset or 1) if error.lineno else 1
    return _syntax_error(path, error.lineno or 1, column, f"Cannot parse: {error.msg}")


def _cpython_depth(path: str, source: bytes, max_depth: int) -> tuple[int, int] | None:
    """CPython's verdict on `source` (the SyntaxError `compile` raises) and, when libcst's
    tree may nest deeper than `max_depth`, its depth and line; None when it does not. The
    compilation bounds the depth of most files; CPython's tree measures the rest, and a
    file within the bound is then compiled to the end (at this thread's high limit)."""
    flags = NOTEBOOK_FLAGS if path.endswith(NOTEBOOK_SUFFIX) else 0
    compiled, shallow = _cpython(lambda text: compiles_within(text, path, max_depth, flags), source)
    if shallow:
        return None
    deep = deeper_than(_cpython_tree(path, source), source, max_depth)
    if not compiled and (deep is None or deep[0] <= max_depth):
        _cpython(lambda text: compile_file(text, path, flags), source)
    return deep


def _cpython_tree(path: str, source: bytes) -> ast.Module:
    return _cpython(lambda text: ast.parse(text, path), source)


def _cpython_parses(path: str, source: bytes) -> bool:
    """Whether CPython's parser accepts `source` (which its compilation rejected)."""
    try:
        _cpython_tree(path, source)
    except SyntaxError:
        return False
    except (RecursionError, MemoryError, ValueError):  # parsed, too deep for ast's objects
        pass
    return True


def _cpython(check: Callable[[bytes], T], source: bytes) -> T:
    """`check` of `source` with long f-strings blanked, or of `source` itself when CPython
    rejects the blanked copy."""
    checked = _long_fstrings_blanked(source)
    try:
        return check(checked)
    except SyntaxError:
        if checked is source:
            raise
    return check(source)


def _long_fstrings_blanked(source: bytes) -> bytes:
    """`source` with the text of each f-string longer than LONG_FSTRING bytes replaced by
    spaces (newlines kept), for CPython's check only: Python 3.11 checks an f-string in
    time quadratic in its length (a 600 KB one: 4.5 s, libcst's whole parse: 1 s). libcst
    still parses the f-string, expressions included, and rejects what is malformed in it.
    Kept as is: an f-string whose end is not found or whose brackets nest deeply (the
    depth guard must see them); a blanked copy CPython rejects is checked again whole."""
    if len(source) < LONG_FSTRING or not _may_hold_long_string(source):
        return source
    pieces, done = [], 0
    for match in _FSTRING_START.finditer(source):
        start = match.end()
        if start < done:
            continue  # a prefix inside the f-string just blanked
        end = _fstring_end(source, start, match.group(1))
        if end is None or end - start < LONG_FSTRING or _deeply_nested(source[start:end]):
            continue
        pieces += [source[done:start], re.sub(rb"[^\n]", b" ", source[start:end])]
        done = end
    return b"".join([*pieces, source[done:]]) if pieces else source


def _may_hold_long_string(source: bytes) -> bool:
    """A line or a triple-quoted span (quotes paired in order) of LONG_FSTRING bytes: the
    cheap test before the scan for f-strings. Quotes paired wrongly only cost speed."""
    if max(map(len, source.split(b"\n"))) >= LONG_FSTRING:
        return True
    for quote in (b'"""', b"'''"):
        opening = source.find(quote)
        while opening >= 0:
            closing = source.find(quote, opening + 3)
            if closing < 0:
                break
            if closing - opening >= LONG_FSTRING:
                return True
            opening = source.find(quote, closing + 3)
    return False


def _fstring_end(source: bytes, start: int, quote: bytes) -> int | None:
    """Where the string literal opened just before `start` by `quote` closes (the offset of
    its closing quote), or None when it does not on this line (a one-quote string)."""
    at = start
    while True:
        found = source.find(quote, at)
        if found < 0:
            return None
        text = source[at:found]
        if len(quote) == 1 and b"\n" in text:
            return None
        if (len(text) - len(text.rstrip(b"\\"))) % 2 == 0:  # the quote is not escaped
            return found
        at = found + 1


def _deeply_nested(text: bytes) -> bool:
    depth = 0
    for byte in text.translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"([{" else -1
        if depth > _SHALLOW:
            return True
    return False


# CPython's verdicts that no newer Python reverses: no libcst second opinion for them.
_FINAL = ("nested", "Exceeds the limit", "null bytes", "indent")
_TRAILING_CONTINUATION = re.compile(rb"[ \t\f]*\\\r?\n?\s*\Z")


def _libcst_verdict(source: bytes) -> None | str:
    """None when libcst parses `source`, else its message. Run by `parse` in a child
    forked from the deep-stack thread: the child's one thread has that stack."""
    try:
        cst.parse_module(source)
    except Exception as error:
        return str(error)[:MESSAGE_LIMIT]
    return None


# A file of at least this many bytes is parsed by libcst in chunks of about CHUNK_BYTES.
CHUNKED_PARSE_BYTES = 512 * 1024
CHUNK_BYTES = 256 * 1024
# Where a chunk may start: a line that opens a top-level definition or decorator.
_DEFINITION_START = re.compile(rb"^(?:@|def[ \t]|class[ \t]|async[ \t]+def[ \t])", re.MULTILINE)
_CONTINUED_DEFINITION = re.compile(rb"(?:^|\n)@[^\n]*\n(?:[ \t\f]*(?:#[^\n]*)?\r?\n)*\Z")


def _parse_in_chunks(source: bytes) -> cst.Module | None:
    """libcst's module of a big file CPython accepted, parsed a chunk of top-level
    statements at a time and joined (the same code, so the same positions), or None to
    parse it whole: a small file, no place to cut, or a chunk libcst rejects.

    libcst's native parser holds several times the source's size per byte while it
    parses (a 4 MB file: GBs); parsed in chunks its peak is a chunk's. A chunk starts at
    a line that opens a top-level `def`, `class` or decorator, not right after a
    decorator line. Were such a line inside a string or brackets, the chunk before it
    would end inside them and libcst would reject it: then the file is parsed whole."""
    if len(source) < CHUNKED_PARSE_BYTES or b"\r" in source:
        return None
    cuts, start = [], 0
    for match in _DEFINITION_START.finditer(source, CHUNK_BYTES):
        at = match.start()
        decorated = _CONTINUED_DEFINITION.search(source, max(start, at - 4096), at)
        if at - start >= CHUNK_BYTES and not decorated:
            cuts.append(at)
            start = at
    if not cuts or len(source) - start < CHUNK_BYTES // 4:  # no cut, or a last crumb
        cuts = cuts[:-1]
    if not cuts:
        return None
    bounds = list(zip([0, *cuts], [*cuts, len(source)], strict=True))
    try:
        with speedups.unvalidated():
            first = cst.parse_module(source[: bounds[0][1]])
            if not any(isinstance(getattr(s, "body", None), cst.IndentedBlock) for s in first.body):
                return None  # the file's indentation is detected in the first chunk
            config = cst.PartialParserConfig(
                encoding=first.encoding,
                default_indent=first.default_indent,
                default_newline=first.default_newline,
            )
            modules = [first]
            for begin, end in bounds[1:]:
                modules.append(cst.parse_module(source[begin:end], config))
    except (cst.ParserSyntaxError, SyntaxError, UnicodeError, LookupError, ValueError):
        return None
    return _joined(modules)


# Project files whose definitions files linted earlier in this process were linked with
# (Linked.files), and the texts of those definitions (`_piece_module`'s).
_LINKED_FROM: set[str] = set()
_PIECE_TEXTS: set[str] = set()
_CODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)


def _parse_reusing_pieces(path: str, source: bytes, original: bytes | None) -> cst.Module | None:
    """libcst's module of a project file that files linted before it were linked with: the
    trees of its definitions parsed for them (`_piece_module`) joined with the rest of the
    file, parsed a stretch at a time; the tree a parse of the whole file gives. None (parse
    it whole) when none of its definitions was parsed, or they cannot be cut out alike:
    a definition followed by an indented or blank-but-indented line (which libcst gives to
    its last block), newlines other than `\n`, a coding cookie, blocks indented in
    different ways in different stretches (each stretch detects its own)."""
    if not _LINKED_FROM or os.path.abspath(path) not in _LINKED_FROM:
        return None
    if b"\r" in source or _CODING_COOKIE.search(source, 0, _second_line_end(source)):
        return None
    try:
        text = source.decode("utf-8")
        found = project.definitions(path, text if original is None else original.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    if found is None:
        return None
    # a linked text has the file's lines, a blanked import or a respelled `m.Name` aside:
    # the same statements on the same lines, and the definitions it left alone
    lines = text.splitlines()
    if len(lines) != len(found[0]):
        return None
    spans = found[1]
    ends = len(lines) if text.endswith("\n") else len(lines) - 1  # lines ending in `\n`
    stretches: list[tuple[bool, str]] = []  # (a parsed definition, its text)
    done = 0
    for start, end in spans:
        piece = "".join(line + "\n" for line in lines[start - 1 : end])
        if start - 1 < done or end > ends or piece not in _PIECE_TEXTS:
            continue
        if not _cut_after(lines, end):
            continue
        if start - 1 > done:
            stretches.append((False, "".join(line + "\n" for line in lines[done : start - 1])))
        stretches.append((True, piece))
        done = end
    if not stretches:
        return None
    if done < len(lines):
        rest = "".join(line + "\n" for line in lines[done:])
        stretches.append((False, rest if text.endswith("\n") else rest[:-1]))
    try:
        with speedups.unvalidated():
            modules = [
                _piece_module(piece) if parsed else cst.parse_module(piece)
                for parsed, piece in stretches
            ]
    except (cst.ParserSyntaxError, SyntaxError, UnicodeError, LookupError, ValueError):
        return None
    indents = {module.default_indent for module in modules if _holds_block(module)}
    if len(indents) > 1:
        return None
    joined = _joined(modules)
    indent = next(iter(indents), modules[0].default_indent)
    return joined.with_changes(default_indent=indent, encoding="utf-8")


def _second_line_end(source: bytes) -> int:
    return source.find(b"\n", source.find(b"\n") + 1) + 1 or len(source)


def _cut_after(lines: list[str], end: int) -> bool:
    """Whether the file can be cut after line `end` (a top-level statement's last) with
    the same tree: every line up to the next statement is empty or a comment at the margin
    (libcst gives a block the lines after it up to its last indented comment or
    blank-but-indented line)."""
    for line in lines[end:]:
        if line and (line[0].isspace() or line[0] != "#"):
            return not line[0].isspace()
    return True


def _holds_block(module: cst.Module) -> bool:
    """Whether the module has an indented block (its default indent is then its first)."""
    return any(
        type(node) is cst.IndentedBlock
        for statement in module.body
        for node in iter_nodes(statement, _HOLD_NO_DEFINITION)
    )


def _joined(modules: list[cst.Module]) -> cst.Module:
    """One module of the chunks' statements, in order: each chunk's footer (and the next
    one's header) become leading lines of the next chunk's first statement."""
    body: list[cst.BaseStatement] = [*modules[0].body]
    carried = list(modules[0].footer)
    for module in modules[1:]:
        statements = list(module.body)
        lines = [*carried, *module.header]
        if not statements:  # comments and blank lines only: the next statement's
            carried = [*lines, *module.footer]
            continue
        if lines:
            statements[0] = statements[0].with_changes(
                leading_lines=[*lines, *statements[0].leading_lines]
            )
        body += statements
        carried = list(module.footer)
    first, last = modules[0], modules[-1]
    return first.with_changes(
        body=body, footer=carried, has_trailing_newline=last.has_trailing_newline
    )


def _parse_with_libcst(
    path: str, source: bytes | str, rejected: Diagnostic | None
) -> cst.Module | Diagnostic:
    """libcst's module; on failure `rejected` (CPython's clearer verdict) or libcst's own."""
    try:
        with speedups.unvalidated():
            return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        first = (str(error).splitlines() or [""])[0]
        line, column = error.raw_line, error.raw_column + 1
        reason = first or _failure(error)
        return rejected or _syntax_error(path, line, column, f"Cannot parse: {reason}")
    except (SyntaxError, UnicodeError, LookupError, ValueError) as error:
        if rejected is None and isinstance(source, bytes) and not is_utf8(source):
            # CPython 3.11 lets comments hold bytes that are not UTF-8, libcst's decoder
            # does not: read as U+FFFD, they stay in the comments
            return _parse_with_libcst(path, source.decode("utf-8", "replace"), None)
        return rejected or _syntax_error(path, 1, 1, f"Cannot parse: {_failure(error)}")


def _failure(error: BaseException) -> str:
    """Why a parser failed, never empty: CPython 3.11's parser raises a MemoryError without
    a message when its stack of nested constructs overflows (10,000 `elif`s, 3,000 nested
    lambdas)."""
    if isinstance(error, RecursionError):
        return "nesting too deep for the parser"
    if isinstance(error, MemoryError):
        return (
            "too deeply nested for CPython's parser (its stack overflowed: MemoryError), "
            "or out of memory"
        )
    return " ".join(str(error).split()) or type(error).__name__


def lint_source(path: str, source: bytes | str, config: Config | None = None) -> LintResult:
    """All findings of one file, before suppression comments are applied. Never raises:
    what the parser or the analysis cannot handle is GL001 (nesting too deep, out of
    memory) or an internal error (a bug) in the result."""
    config = config or Config()
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    raw = from_bom(raw)
    try:
        with _collector_paused():  # CPython's trees of the file and the modules it imports
            link = project.linked(path, raw)
    except Exception as error:  # a bug in the index: the file is linted alone
        return _alone(path, raw, config, _own_text_parsed(path, raw), [internal_error(path, error)])
    parsed = _own_text_parsed(path, raw)
    if link is not None and (parsed or any(map(_piece_imports_torch, link.pieces))):
        _LINKED_FROM.update(link.files)
        linked = _guarded(path, link.source, config, link.pieces, raw)
        if not linked.internal_errors and not any(d.code == "GL001" for d in linked.diagnostics):
            return linked
    return _alone(path, raw, config, parsed)


def _own_text_parsed(path: str, raw: bytes) -> bool:
    """The prefilter's answer for the file's own text: it imports torch (parsed_at_all),
    or it is a helper module torch-importing files of its project import."""
    return parsed_at_all(raw) or _helper_of_torch_code(path, raw)


def _helper_of_torch_code(path: str, raw: bytes) -> bool:
    """A Python file with no torch import that a torch-importing file of its project
    imports (callers.py): its functions work on the tensors their callers pass."""
    return is_python_text(raw) and callers.imported_by_torch_code(path)


def _piece_imports_torch(piece: str) -> bool:
    return imports_torch(piece.encode("utf-8", "surrogatepass"))


def _alone(
    path: str, raw: bytes, config: Config, parsed: bool, errors: list[str] | None = None
) -> LintResult:
    """`lint_source` of the file's own text (`parsed`: _own_text_parsed's answer)."""
    if not parsed:
        return LintResult(internal_errors=errors or [])
    result = _guarded(path, raw, config)
    result.internal_errors[:0] = errors or []
    return result


def _guarded(
    path: str,
    raw: bytes,
    config: Config,
    pieces: tuple[str, ...] = (),
    original: bytes | None = None,
) -> LintResult:
    """The linting of `raw` on a deep-stack thread, its exceptions turned into results."""
    try:
        with _collector_paused():
            return deep_call(lambda: lint_in_thread(path, raw, config, pieces, original))
    except RecursionError:
        reason = "Cannot analyse: nesting too deep"
    except MemoryError:
        reason = "Cannot analyse: out of memory"
    except Exception as error:  # a bug must not take the other files down
        return LintResult(internal_errors=[internal_error(path, error)])
    found = [_syntax_error(path, 1, 1, reason)] if config.is_selected("GL001") else []
    return LintResult(diagnostics=found)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while one file is linted. Parsing builds a
    tree of ~10 objects per source byte that all live until the file is done, and each
    collection the allocations trigger walks the whole growing tree: a third of libcst's
    parse time. The tree holds no cycles (freed by reference counting when the file is
    done); what cycles the analysis makes are collected once the collector is back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def lint_in_thread(
    path: str,
    source: bytes,
    config: Config,
    pieces: tuple[str, ...] = (),
    original: bytes | None = None,
) -> LintResult:
    """`lint_source`'s work, on the calling thread (lint_source runs it on a deep-stack
    one and turns its exceptions into results). `pieces` (project.Linked) go before the
    file's own statements; findings on their lines are dropped. `original`: the file's
    own text when `source` is its linked text."""
    result = LintResult()
    module = parse(path, source, config.max_depth, original)
    if isinstance(module, Diagnostic):
        if config.is_selected("GL001"):
            result.diagnostics.append(module)
        return result
    own, header, added, foreign = module, len(module.header), 0, frozenset()
    if pieces:
        statements, added, foreign = _linked_statements(pieces)
        module = module.with_changes(body=(*statements, *module.body))
    file = FileContext(
        path,
        module,
        config,
        foreign,
        partial(callers.called_without_grad, path, source),
        (header, added),
    )
    checkers = [
        checker(file)
        for checker in load_checkers()
        if any(config.is_selected(code) for code in checker.codes)
    ]
    for piece in pieces:  # the checkers walk the file's own statements; the calls scan all
        file.call_scan.add(_piece_scan(piece))
    _Dispatcher(file, checkers).run(own)
    found = file.diagnostics if not added else _own_lines(file.diagnostics, header, added)
    result.diagnostics = sorted(found, key=Diagnostic.sort_key)
    return result


def _own_lines(diagnostics: list[Diagnostic], header: int, added: int) -> list[Diagnostic]:
    """Findings on the file's own lines (after its `header` lines, the `added` lines of
    project definitions follow), numbered as in the file."""
    kept = []
    for found in diagnostics:
        line = own_line(found.line, (header, added))
        if line is None:
            continue
        shift = found.line - line
        if shift:
            found.line -= shift
            found.end_line -= shift
            if found.fix is not None:
                edits = tuple(
                    dataclasses.replace(e, line=e.line - shift, end_line=e.end_line - shift)
                    for e in found.fix.edits
                )
                found.fix = dataclasses.replace(found.fix, edits=edits)
        kept.append(found)
    return kept


def _linked_statements(pieces: tuple[str, ...]) -> tuple[list, int, frozenset]:
    """The statements of the pieces, the lines they take and their functions."""
    statements, lines, functions = [], 0, set()
    for piece in pieces:
        parsed = _piece(piece)
        statements += parsed[0]
        lines += parsed[1]
        functions |= parsed[2]
    return statements, lines, frozenset(functions)


@lru_cache(maxsize=4096)
def _piece_module(text: str) -> cst.Module:
    """One definition's module, parsed once per process."""
    _PIECE_TEXTS.add(text)
    with speedups.unvalidated():
        return cst.parse_module(text)


@lru_cache(maxsize=4096)
def _piece(text: str) -> tuple[tuple[cst.BaseStatement, ...], int, frozenset]:
    """One definition's statements, lines and functions."""
    module = _piece_module(text)
    body = module.body
    functions = frozenset(
        node
        for node in iter_nodes(cst.Module(body=body), _HOLD_NO_DEFINITION)
        if type(node) is cst.FunctionDef
    )
    # the statements print as `text` does unless comments or blank lines surround them
    # or its newlines are not the default ones
    plain = not (module.header or module.footer) and module.has_trailing_newline
    if plain and module.default_newline == "\n":
        return body, text.count("\n"), functions
    return body, cst.Module(body=body).code.count("\n"), functions


@lru_cache(maxsize=4096)
def _piece_scan(text: str) -> CallScan:
    """What the calls scan finds in one definition (its syntax alone), once per process."""
    scan = CallScan()
    visit(cst.Module(body=_piece(text)[0]), scan)
    return scan


# Nodes below which no function is defined (a `def` is a statement of a block):
# expressions, lines of small statements, layout and tokens.
_HOLD_NO_DEFINITION = (
    frozenset(
        kind
        for kind in node_classes()
        if issubclass(kind, cst.BaseExpression | cst.SimpleStatementLine | cst.SimpleStatementSuite)
    )
    | LAYOUT
    | TOKENS
)
