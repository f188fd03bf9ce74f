"""The file the checkers see: one parsed file, the analysis they share (imports, module
index, scope, dataflow facts) and the findings they report on it. Below the
checks and fixes.py that take it, above the analysis it builds."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import PurePath
from types import SimpleNamespace

import libcst as cst
from libcst.metadata import CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from gradlint.analysis.context import ModuleIndex, Scope
from gradlint.analysis.dataflow import CallScan, FileFacts
from gradlint.analysis.names import ImportTable
from gradlint.analysis.reachability import unreachable_nodes
from gradlint.catalogue import load_catalogue
from gradlint.config import Config
from gradlint.diagnostic import Diagnostic, Fix, Severity, Witness


class FileContext:
    """One parsed file and the analysis shared by all checkers."""

    def __init__(
        self,
        path: str,
        module: cst.Module,
        config: Config,
        foreign: frozenset[cst.FunctionDef] = frozenset(),
        called_without_grad: Callable[[str | None, str], bool] | None = None,
        linked_lines: tuple[int, int] = (0, 0),
    ) -> None:
        self.path = path
        self.module = module
        self.config = config
        # functions of other project files put before the file's own statements (the
        # project index): analysed where the file calls them, not on their own
        self.foreign = foreign
        # whether every use of a function of the file in its project is a call without
        # grad (callers.py), by owner class and name; None: not asked (no project)
        self.called_without_grad = called_without_grad
        # (header, added): the `added` lines of those functions follow the module's
        # `header` lines in `module`; the engine numbers findings as in the file
        self.linked_lines = linked_lines
        self.imports = ImportTable.from_module(module, package_of(path))
        self.index = ModuleIndex(module, self.imports)
        self.scope = Scope(self.imports, self.index, config.no_grad_contexts)
        self.diagnostics: list[Diagnostic] = []
        self.call_scan = CallScan()

    @property
    def walkers(self) -> list[cst.CSTVisitor]:
        """Analysis whose hooks ride on the checkers' walk (before theirs), so that the
        file is walked once; the dataflow walks on its own if asked before the walk ends."""
        return [self.call_scan]

    @cached_property
    def dataflow(self) -> FileFacts:
        """The dataflow interpreter's facts and events, computed on a rule's first query."""
        return FileFacts(
            self.module,
            self.imports,
            self.index,
            self.scope,
            self.call_scan,
            foreign=self.foreign,
            called_without_grad=self.called_without_grad,
        )

    @cached_property
    def unreachable(self) -> frozenset[cst.CSTNode]:
        """Nodes of branches a class declares unreachable (reachability.py): not reported."""
        return unreachable_nodes(self.module, self.index, self.imports)

    @cached_property
    def _positions(self) -> dict[cst.CSTNode, CodeRange]:
        # Resolved only when a file has a finding: positions cost more than the parse.
        return positions(self.module)

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._positions[node]

    def line(self, node: cst.CSTNode) -> int:
        """The line `node` starts on, numbered as in the file (what a message names)."""
        line = self.position(node).start.line
        own = own_line(line, self.linked_lines)
        return line if own is None else own

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def report(
        self,
        node: cst.CSTNode,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        fix: Fix | None = None,
        witness: Witness | None = None,
        detail: str = "",
    ) -> None:
        if not self.config.is_selected(code) or node in self.unreachable:
            return
        doc = load_catalogue()[code]
        span = self.position(node)
        self.diagnostics.append(
            Diagnostic(
                path=self.path,
                line=span.start.line,
                column=span.start.column + 1,
                end_line=span.end.line,
                end_column=span.end.column + 1,
                code=code,
                message=message,
                name=doc.name,
                severity=severity or doc.severity,
                fix=fix,
                witness=witness,
                detail=detail,
            )
        )


def package_of(path: str) -> str:
    """Best-effort dotted package of a file, for relative imports (`a/b/c.py` -> `a.b`)."""
    parts = PurePath(path).with_suffix("").parts
    names = [p for p in parts[:-1] if p.isidentifier()]
    if "site-packages" in parts:
        names = list(parts[parts.index("site-packages") + 1 : -1])
    return ".".join(names)


class _PositionState(PositionProvidingCodegenState):
    """libcst's codegen state that records PositionProvider's ranges, a token without a
    line break counted without its regular expression (the same line and column)."""

    def _update_position(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            super()._update_position(value)
        else:
            self.column += len(value)


def positions(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """libcst's PositionProvider ranges of every node of `module`: its codegen with the
    state that records them, without `MetadataWrapper.resolve`, which also walks the whole
    tree once more (rebuilding each node) for a batch of no other provider: half the cost."""
    recorder = SimpleNamespace(_computed={})  # the provider the state records into
    state = _PositionState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=recorder,
    )
    module._codegen(state)
    return recorder._computed


def own_line(line: int, linked_lines: tuple[int, int]) -> int | None:
    """A line of the linted module numbered as in the file: the module is the file's first
    `header` lines, the `added` lines of the project definitions linked in, then the rest
    of the file (`linked_lines` = (header, added)). None on a linked definition's line."""
    header, added = linked_lines
    if header < line <= header + added:
        return None
    return line - added if line > header else line
