"""How deep libcst's tree of a file would be, known before libcst parses it.

libcst's parse time grows steeply (about cubically) with the depth of left-nested chains
(`a + b + ...`, `x[0][0]...`, `f()()...`): files deeper than `max-depth` get GL001 instead
of minutes of parsing. `compiles_within` bounds the depth while CPython compiles the file
(as `compile` does); only a file it cannot bound gets CPython's tree, from which
`deeper_than` / `nesting_depth` read the depth.
"""

from __future__ import annotations

import ast
import codecs
import functools
import itertools
import re
import sys
import warnings

# Units of depth, from libcst's parse time per level (measured on libcst 1.9): a level of
# a left-nested chain costs most (1,000 `x[0][0]...` take 1.5 s, growing as depth**2.2),
# an `elif` or an `and` operand an eighth of that (8,000 `elif`s or `and`s: ~1 s).
_LEVEL, _LINK = 8, 1


# Words and single other characters: at least as many as Python's tokens in any text.
_TOKENS = re.compile(rb"\w+|\S")
_LEAVES = (ast.Constant, ast.Name, ast.expr_context)  # two levels at most, contexts included


def nesting_depth(tree: ast.AST) -> tuple[int, int]:
    """How deep libcst's tree of this module is, in levels weighted by parse cost, and the
    line where it is deepest.

    CPython's depth, except that an `elif` (a nested `if` in CPython's tree and in
    libcst's) and each operand of `a and b and c` (one node in CPython's tree, a chain of
    nested ones in libcst's) weigh an eighth of a level: libcst parses them in linear
    time; its stack, not its time, is what they strain."""
    deepest, line = 0, 1
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest, line = depth, getattr(node, "lineno", line)
        if isinstance(node, ast.BoolOp):
            stack.extend((value, depth + _LINK * len(node.values)) for value in node.values)
            continue
        if (
            isinstance(node, ast.If)
            and len(node.orelse) == 1
            and isinstance(node.orelse[0], ast.If)
        ):
            stack.append((node.orelse[0], depth + _LINK))  # elif
            stack.extend((child, depth + _LEVEL) for child in (node.test, *node.body))
            continue
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                stack.append((value, depth + _LEVEL))
            elif isinstance(value, list):
                stack.extend((item, depth + _LEVEL) for item in value if isinstance(item, ast.AST))
    return deepest // _LEVEL, line


# A level of nesting_depth's is a statement or an expression (which CPython's symbol table
# builder counts as it recurses), or one of at most two other nodes between two of them
# (arguments -> arg -> annotation; a keyword, comprehension, withitem, except handler or
# match_case; a name's context, an operator), below the module: at most 1 + 3 counted.
# The operands of a BoolOp weigh an eighth of a level each, its node one counted level:
# at most a quarter of a level more per `and` / `or` on the path.
_NODES_PER_COUNTED = 3
_COUNTED_PER_FRAME = 3  # CPython 3.10/3.11's COMPILER_STACK_FRAME_SCALE (symtable.c)
_BOOL_OPERATORS = (re.compile(rb"and\b"), re.compile(rb"or\b"))  # and `for`, `tensor`, ...
_SLACK = 16
# compile's flags for a notebook: IPython runs a cell's top-level `await`, `async for`
# and `async with`.
NOTEBOOK_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


def compiles_within(source: bytes, path: str, limit: int, flags: int = 0) -> tuple[bool, bool]:
    """Compile `source` to bytecode, raising the SyntaxError `compile` raises: the
    parser's, the symbol table's (a duplicate argument, `nonlocal` at module level) and
    the compiler's own (`return` or `yield` outside a function, `break` outside a loop,
    `case _:` before other cases, ...). Returns (compiled, shallow): whether the whole
    compilation ran, and whether it proved that libcst's tree nests no deeper than
    `limit` levels (nesting_depth's). (False, False): the file may be deeper; it was not
    compiled to the end (compile_file does that).

    CPython 3.10 and 3.11 build the symbol table recursively (the compiler's own AST
    optimizer likewise), counting each statement and expression (patterns too) against
    three per frame of the recursion limit left: with the limit lowered, a file nested
    deeper than that raises RecursionError. That bounds the depth at a third of the cost
    of ast.parse's tree. The limit is process-wide: it is set for the compilation only
    (a hundred frames or more above the caller's) and restored."""
    bool_operators = sum(len(pattern.findall(source)) for pattern in _BOOL_OPERATORS)
    counted = (limit - 1 - bool_operators // 4 - _SLACK) // _NODES_PER_COUNTED
    if counted < _COUNTED_PER_FRAME or not _compile_counts_nesting():
        compile_file(source, path, flags)
        return True, False
    return _compiled_within(source, path, counted // _COUNTED_PER_FRAME, flags)


def compile_file(source: bytes, path: str, flags: int = 0) -> None:
    """`compile(source, path, "exec")` to bytecode, its warnings (`is` with a literal, an
    invalid escape) silenced: its SyntaxError, or nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # also what `-W error` would turn into SyntaxError
        compile(source, path, "exec", flags, dont_inherit=True)


def _compiled_within(source: bytes, path: str, frames: int, flags: int) -> tuple[bool, bool]:
    """compiles_within's answer with at most `frames` frames of recursion limit left
    (each allows _COUNTED_PER_FRAME levels of nesting); SyntaxError raised."""
    old_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(_frame_depth() + frames)
    except RecursionError:  # deeper already than that: no bound from this compilation
        compile_file(source, path, flags)
        return True, False
    try:
        compile_file(source, path, flags)
    except RecursionError:
        return False, False
    finally:
        sys.setrecursionlimit(old_limit)
    return True, True


def _frame_depth() -> int:
    """Python frames on this thread's stack: at most what CPython counts against the
    recursion limit, so a limit set from it allows at most the frames asked for."""
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


@functools.cache
def _compile_counts_nesting() -> bool:
    """Whether this Python's compiler bounds nesting as compiles_within needs: a chain
    deeper than the frames allowed times _COUNTED_PER_FRAME fails, a shallow one compiles
    (CPython 3.12 and later count C stack, not the recursion limit)."""
    frames = 20
    deep = b"x = " + b"+".join([b"a"] * (frames * _COUNTED_PER_FRAME + 2)) + b"\n"
    shallow = b"x = " + b"+".join([b"a"] * frames) + b"\n"
    try:
        return _compiled_within(deep, "", frames, 0) == (False, False) and _compiled_within(
            shallow, "", frames, 0
        ) == (True, True)
    except SyntaxError:
        return False


def deeper_than(tree: ast.AST, source: bytes, limit: int) -> tuple[int, int] | None:
    """`nesting_depth(tree)` when the tree may nest deeper than `limit` levels, else None,
    without walking what is too short to get that deep: a level of an expression is a
    node with a token of its own, or one of at most one tokenless node (a name's load
    context, a lambda's arguments) per token, so a statement or expression of `t` tokens
    holds nothing more than 2t + 16 levels below it. A statement's bytes bound its tokens;
    an expression's words and other characters (`_TOKENS`, more than Python's tokens)
    bound them closer, and an expression too long for that bound is judged by its parts."""
    if b"\r" in source or not is_utf8(source) or source.startswith(codecs.BOM_UTF8):
        return nesting_depth(tree)  # CPython's offsets count other bytes than these
    lengths = map((1).__add__, map(len, source.split(b"\n")))  # newlines included
    starts = list(itertools.accumulate(lengths, initial=0))  # each line's offset

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column

    stack: list[tuple[ast.AST, int]] = [(statement, 1) for statement in tree.body]
    while stack:
        node, above = stack.pop()  # `above`: levels above it, at most
        if above > limit:
            return nesting_depth(tree)
        if isinstance(node, ast.stmt):
            decorators = getattr(node, "decorator_list", None)
            first = decorators[0] if decorators else node
            start = offset(first.lineno, first.col_offset)
            if above + 2 * (offset(node.end_lineno, node.end_col_offset) - start) + 16 <= limit:
                continue
        elif isinstance(node, _LEAVES) and above + 2 <= limit:
            continue
        elif getattr(node, "end_lineno", None) is not None:
            start = offset(node.lineno, node.col_offset)
            end = offset(node.end_lineno, node.end_col_offset)
            if above + 2 * len(_TOKENS.findall(source, start, end)) + 16 <= limit:
                continue
        if isinstance(node, ast.BoolOp):  # its operands weigh as nesting_depth weighs them
            below = above + -(-_LINK * len(node.values) // _LEVEL)
        else:
            below = above + (2 if isinstance(node, ast.stmt) else 1)
        for name in node._fields:
            value = getattr(node, name, None)
            for child in value if isinstance(value, list) else (value,):
                if isinstance(child, ast.AST):
                    stack.append((child, below))
    return None


def is_utf8(source: bytes) -> bool:
    if source.isascii():
        return True
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
