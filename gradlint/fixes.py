"""Building fixes in the checkers: a rule hands the node it flagged and the node that
should stand there; the edit is computed through libcst, so comments, spacing and
indentation outside the replaced part stay exactly as written.

    fix = fixes.replace(self.file, node, node.with_changes(...), "use reshape")
    self.report(node, "GL401", message, fix=fix)

Each edit is the smallest span that differs between the file before and after the
replacement, so a fix touches only what it must (`view` -> `reshape`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from gradlint.analysis.names import dotted
from gradlint.diagnostic import Applicability, Edit, Fix

if TYPE_CHECKING:
    from gradlint.filecontext import FileContext

# The line breaks libcst and Python's tokenizer know.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Layout:
    """Where each top-level statement of a module starts in its text.

    A replacement is generated for the top-level statement that holds the node: at that
    level libcst's code for a statement is exactly its text in the file, indentation and
    comments included, whatever its depth inside."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        header = "".join(module.code_for_node(line) for line in module.header)
        self.codes = [module.code_for_node(statement) for statement in module.body]
        self.offsets = []
        offset = len(header)
        for code in self.codes:
            self.offsets.append(offset)
            offset += len(code)

    @cached_property
    def text(self) -> str:
        return self.module.code

    @cached_property
    def line_starts(self) -> list[int]:
        return line_starts(self.text)

    def offset(self, line: int, column: int) -> int:
        """The text offset of a 1-based line and 0-based column."""
        return self.line_starts[line - 1] + column

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of a text offset."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def statement_at(self, offset: int) -> int:
        return max(bisect.bisect_right(self.offsets, offset) - 1, 0)


def line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in LINE_BREAK.finditer(text))]


def _layout(file: FileContext) -> Layout:
    layout = getattr(file, "_fix_layout", None)
    if layout is None or layout.module is not file.module:
        layout = Layout(file.module)
        file._fix_layout = layout
    return layout


def replacement_edit(
    file: FileContext, old: cst.CSTNode, new: cst.CSTNode | cst.RemovalSentinel
) -> Edit | None:
    """The edit that puts `new` where `old` is; None when there is no difference or
    `old` is not inside a statement of the file."""
    layout = _layout(file)
    if not layout.codes:
        return None
    start = file.position(old).start
    index = layout.statement_at(layout.offset(start.line, start.column))
    statement = file.module.body[index]
    changed = statement.deep_replace(old, new)
    if changed is statement or not isinstance(changed, cst.CSTNode):
        return None
    before = layout.codes[index]
    after = file.module.code_for_node(changed)
    if before == after:
        return None
    prefix = _common_prefix(before, after)
    suffix = _common_prefix(before[prefix:][::-1], after[prefix:][::-1])
    if "\n" in before[prefix : len(before) - suffix] + after[prefix : len(after) - suffix]:
        # A change across lines reads best as whole lines replaced.
        prefix = before.rfind("\n", 0, prefix) + 1
        while suffix and before[len(before) - suffix - 1] != "\n":
            suffix -= 1
    base = layout.offsets[index]
    return Edit(
        *layout.position(base + prefix),
        *layout.position(base + len(before) - suffix),
        after[prefix : len(after) - suffix],
    )


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def replace(
    file: FileContext,
    old: cst.CSTNode,
    new: cst.CSTNode,
    description: str,
    *,
    unsafe: bool = False,
    also: Iterable[Edit | None] = (),
) -> Fix | None:
    """A fix putting `new` in place of `old` (plus the `also` edits, e.g. an import)."""
    edit = replacement_edit(file, old, new)
    if edit is None:
        return None
    edits = (edit, *(e for e in also if e is not None))
    applicability = Applicability.UNSAFE if unsafe else Applicability.SAFE
    return Fix(tuple(sorted(edits, key=_edit_start)), applicability, description)


def _edit_start(edit: Edit) -> tuple[int, int]:
    return edit.line, edit.column


def import_torch(file: FileContext) -> Edit | None:
    """`import torch` when the name `torch` is not the module torch yet (`import
    torch.nn as nn` alone does not bind it): before the first `import torch.…` of the
    file's opening imports, where isort puts it, else after them; None when bound."""
    if file.imports.resolve(cst.Name("torch")) == "torch":
        return None
    after = _opening_run(file.module)
    opening = file.module.body[: after + 1] if after is not None else []
    for statement in opening:
        small = statement.body[0]
        if isinstance(small, cst.Import) and (dotted(small.names[0].name) or "").startswith(
            "torch."
        ):
            line = file.position(statement).start.line
            return Edit(line, 1, line, 1, "import torch" + file.module.default_newline)
    if after is None:
        start = file.position(file.module.body[0]).start if file.module.body else None
        line = start.line if start is not None else len(_layout(file).line_starts)
    else:
        line = file.position(file.module.body[after]).end.line + 1
    return Edit(line, 1, line, 1, "import torch" + file.module.default_newline)


def _opening_run(module: cst.Module) -> int | None:
    """Index of the last statement of the module's opening docstring and imports."""
    last = None
    for index, statement in enumerate(module.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            break
        small = statement.body
        if all(isinstance(s, cst.Import | cst.ImportFrom) for s in small) or (
            index == 0 and _is_docstring(small)
        ):
            last = index
        else:
            break
    return last


def _is_docstring(small) -> bool:
    return (
        len(small) == 1
        and isinstance(small[0], cst.Expr)
        and isinstance(small[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def spelling(file: FileContext, qualified: str) -> str | None:
    """How this file can write the torch name `qualified` with its own imports
    (`nn.ModuleList` after `import torch.nn as nn`); None when no import reaches it."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        for local, bound in file.imports.bindings.items():
            if bound == prefix:
                return ".".join([local, *parts[cut:]])
    return None


def statement_line(file: FileContext, small: cst.CSTNode) -> cst.SimpleStatementLine | None:
    """The line statement holding the small statement `small`."""
    from gradlint.analysis.walk import iter_nodes

    layout = _layout(file)
    start = file.position(small).start
    top = file.module.body[layout.statement_at(layout.offset(start.line, start.column))]
    for node in iter_nodes(top):
        if isinstance(node, cst.SimpleStatementLine) and any(s is small for s in node.body):
            return node
    return None


def wrap_in_no_grad(file: FileContext, small: cst.CSTNode, description: str) -> Fix | None:
    """Put the line holding `small` (alone on it) under `with torch.no_grad():` (unsafe:
    the statement no longer records, which is the point but changes what autograd sees)."""
    line = statement_line(file, small)
    if line is None or len(line.body) != 1:
        return None
    import_edit = import_torch(file)
    wrapped = cst.With(
        items=[cst.WithItem(cst.parse_expression("torch.no_grad()"))],
        body=cst.IndentedBlock(body=[line.with_changes(leading_lines=())]),
        leading_lines=line.leading_lines,
    )
    return replace(file, line, wrapped, description, unsafe=True, also=[import_edit])


def statements_before(file: FileContext, statement: cst.BaseStatement) -> list[cst.CSTNode]:
    """The statements before `statement` in the block holding it, nearest last."""
    from gradlint.analysis.walk import iter_nodes

    layout = _layout(file)
    if any(s is statement for s in file.module.body):
        block = file.module.body
    else:
        start = file.position(statement).start
        top = file.module.body[layout.statement_at(layout.offset(start.line, start.column))]
        block = next(
            (
                node.body
                for node in iter_nodes(top)
                if isinstance(node, cst.IndentedBlock) and any(s is statement for s in node.body)
            ),
            (),
        )
    for index, candidate in enumerate(block):
        if candidate is statement:
            return list(block[:index])
    return []


def delete_line(file: FileContext, line: cst.SimpleStatementLine) -> Edit:
    """Remove a line statement (its own lines; the comments above it stay)."""
    span = file.position(line)
    return Edit(span.start.line, 1, span.end.line + 1, 1, "")
