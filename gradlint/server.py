"""`gradlint server`: a Language Server over stdio (pygls, `pip install 'torch-gradlint[server]'`).

It lints with the CLI's own pipeline (`runner.lint_file`: the engine, `# noqa`,
`per-file-ignores`) and each document's `[tool.gradlint]` / `gradlint.toml`, and offers:
diagnostics on open, change (debounced) and save; a quick fix per finding that carries a
`Fix` and an "add `# noqa: GLxxx`" action; hover with the rule's documentation; and a
`source.fixAll.gradlint` action applying every safe fix (`autofix.fix_source`).
"""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from gradlint import __version__
from gradlint.autofix import fix_source
from gradlint.catalogue import load_catalogue
from gradlint.config import Config, ConfigError, Resolver
from gradlint.diagnostic import Diagnostic, Edit, Severity
from gradlint.fixes import LINE_BREAK
from gradlint.runner import lint_file
from gradlint.suppression import NOQA, statement_spans

DEBOUNCE_SECONDS = 0.25
SOURCE = "gradlint"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"


class GradlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, __version__)
        self.configs = self._resolver()
        self.pending: dict[str, asyncio.TimerHandle] = {}

    @staticmethod
    def _resolver() -> Resolver:
        return Resolver({}, set(load_catalogue()))

    def reload_configs(self) -> None:
        self.configs = self._resolver()

    def config_for(self, path: str) -> Config:
        try:
            return self.configs.for_path(path)
        except ConfigError as error:
            self.window_show_message(
                types.ShowMessageParams(types.MessageType.Error, f"gradlint: {error}")
            )
            return Config()

    def lint(self, uri: str) -> tuple[str, list[Diagnostic]]:
        """The document's text and its findings, as `gradlint <path>` reports them."""
        document = self.workspace.get_text_document(uri)
        path = _path(uri)
        result = lint_file(path, self.config_for(path), document.source.encode("utf-8"))
        return document.source, result.diagnostics

    def publish(self, uri: str) -> None:
        self.pending.pop(uri, None)
        document = self.workspace.get_text_document(uri)
        text, findings = self.lint(uri)
        lines = _lines(text)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                version=document.version,
                diagnostics=[self.to_lsp(d, lines) for d in findings],
            )
        )

    def publish_later(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(DEBOUNCE_SECONDS, self.publish, uri)

    # -- positions: gradlint's 1-based code-point columns <-> the client's units ------------

    def position(self, lines: list[str], line: int, column: int) -> types.Position:
        if line > len(lines):
            return types.Position(line=len(lines), character=0)
        text = lines[line - 1]
        codec = self.workspace.position_codec
        return types.Position(line=line - 1, character=codec.client_num_units(text[: column - 1]))

    def range(self, lines: list[str], line, column, end_line, end_column) -> types.Range:
        return types.Range(
            start=self.position(lines, line, column),
            end=self.position(lines, end_line, end_column),
        )

    def from_client(self, lines: list[str], position: types.Position) -> tuple[int, int]:
        codec = self.workspace.position_codec
        if position.line >= len(lines):
            return position.line + 1, 1
        point = codec.position_from_client_units(lines, position)
        return point.line + 1, point.character + 1

    def to_lsp(self, d: Diagnostic, lines: list[str]) -> types.Diagnostic:
        message = f"{d.message}\n{d.detail}" if d.detail else d.message
        return types.Diagnostic(
            range=self.range(lines, d.line, d.column, d.end_line, d.end_column),
            message=message,
            severity=(
                types.DiagnosticSeverity.Error
                if d.severity is Severity.ERROR
                else types.DiagnosticSeverity.Warning
            ),
            code=d.code,
            source=SOURCE,
        )

    def text_edits(self, edits: tuple[Edit, ...] | list[Edit], lines) -> list[types.TextEdit]:
        return [
            types.TextEdit(
                range=self.range(lines, e.line, e.column, e.end_line, e.end_column),
                new_text=e.content,
            )
            for e in edits
        ]


def _path(uri: str) -> str:
    return to_fs_path(uri) or "untitled.py"


def _lines(text: str) -> list[str]:
    return LINE_BREAK.split(text)


def _covers(d: Diagnostic, start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether the finding's span meets [start, end] (1-based line/column pairs)."""
    return (d.line, d.column) <= end and start <= (d.end_line, max(d.end_column, d.column + 1))


server = GradlintServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: GradlintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GradlintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.publish_later(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: GradlintServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.reload_configs()  # a saved pyproject.toml / gradlint.toml may have changed
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GradlintServer, params: types.DidCloseTextDocumentParams) -> None:
    handle = ls.pending.pop(params.text_document.uri, None)
    if handle is not None:
        handle.cancel()
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
    )


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: GradlintServer, _: types.DidChangeWatchedFilesParams) -> None:
    ls.reload_configs()


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: GradlintServer, params: types.HoverParams) -> types.Hover | None:
    text, findings = ls.lint(params.text_document.uri)
    lines = _lines(text)
    point = ls.from_client(lines, params.position)
    docs = load_catalogue()
    shown = [d for d in findings if _covers(d, point, point) and d.code in docs]
    if not shown:
        return None
    codes = list(dict.fromkeys(d.code for d in shown))
    value = "\n\n---\n\n".join(docs[code].text for code in codes)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value),
        range=ls.range(
            lines, shown[0].line, shown[0].column, shown[0].end_line, shown[0].end_column
        ),
    )


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False
    ),
)
def code_action(ls: GradlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    text, findings = ls.lint(uri)
    lines = _lines(text)
    only = params.context.only
    actions: list[types.CodeAction] = []
    if not only or any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only):
        start = ls.from_client(lines, params.range.start)
        end = ls.from_client(lines, params.range.end)
        for d in findings:
            if _covers(d, start, end) and d.code != "GL001":
                actions += _quick_fixes(ls, uri, d, text, lines)
    if not only or any(FIX_ALL.startswith(k) for k in only):
        fixed = _fix_all(ls, uri, text, lines)
        if fixed is not None:
            actions.append(fixed)
    return actions


def _quick_fixes(ls: GradlintServer, uri: str, d: Diagnostic, text: str, lines: list[str]):
    lsp_diagnostic = ls.to_lsp(d, lines)
    actions = []
    if d.fix is not None:
        unsafe = "" if d.fix.is_safe else " (unsafe)"
        description = d.fix.description or "apply the fix"
        actions.append(
            types.CodeAction(
                title=f"{d.code}: {description}{unsafe}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp_diagnostic],
                is_preferred=d.fix.is_safe,
                edit=types.WorkspaceEdit(changes={uri: ls.text_edits(d.fix.edits, lines)}),
            )
        )
    noqa = noqa_edit(text, lines, d)
    actions.append(
        types.CodeAction(
            title=f"{d.code}: add `# noqa: {d.code}`",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[lsp_diagnostic],
            edit=types.WorkspaceEdit(changes={uri: ls.text_edits([noqa], lines)}),
        )
    )
    return actions


def noqa_edit(text: str, lines: list[str], d: Diagnostic) -> Edit:
    """`# noqa: CODE` on the last line of the statement holding the finding, or the code
    added to the noqa comment already there."""
    _, last = statement_spans(text.encode("utf-8")).get(d.line, (d.line, d.line))
    line = lines[last - 1] if last <= len(lines) else ""
    found = list(NOQA.finditer(line))
    match = found[-1] if found else None
    if match is not None and match.group("codes"):
        end = match.end()
        return Edit(last, end + 1, last, end + 1, f", {d.code}")
    if match is not None:  # a blanket noqa already silences everything
        return Edit(last, match.end() + 1, last, match.end() + 1, "")
    stripped = len(line.rstrip(" \t"))
    return Edit(last, stripped + 1, last, len(line) + 1, f"  # noqa: {d.code}")


def _fix_all(ls: GradlintServer, uri: str, text: str, lines: list[str]):
    path = _path(uri)
    outcome = fix_source(path, text.encode("utf-8"), ls.config_for(path), unsafe=False)
    if not outcome.changed:
        return None
    whole = Edit(1, 1, len(lines), len(lines[-1]) + 1, outcome.text)
    return types.CodeAction(
        title=f"gradlint: fix all ({len(outcome.fixed)} safe fixes)",
        kind=FIX_ALL,
        edit=types.WorkspaceEdit(changes={uri: ls.text_edits([whole], lines)}),
    )


def main() -> int:
    from gradlint.engine import lint_source

    # Warm up before the first request: every checker, the catalogue and the lazily
    # imported analyses are loaded by linting a finding once.
    lint_source("warmup.py", "import torch\n\nx = torch.randn(3, 4).t().view(-1)\n")
    server.start_io()
    return 0
