"""`gradlint server`: a Language Server over stdio (pygls, `pip install 'torch-gradlint[server]'`).

It lints with the CLI's own pipeline (`runner.lint_file`: the engine, `# noqa`,
`per-file-ignores`) and each document's `[tool.gradlint]` / `gradlint.toml`, and offers:
diagnostics pushed on open, change (debounced) and save, or pulled
(`textDocument/diagnostic`) by a client that says it pulls; Jupyter notebooks through
`notebookDocumentSync` (the code cells linted together, each cell's findings on its own
lines); a quick fix per finding that carries a `Fix` and an "add `# noqa: GLxxx`" action;
hover with the rule's documentation; and a `source.fixAll.gradlint` action applying every
safe fix (`autofix.fix_source`) as the few edits that change the text.

What keeps it responsive:

- The linting runs in worker processes, never on the server's loop: a huge document
  occupies one worker while the others lint the rest, and a lint still running when a
  newer version arrives (after CANCEL_AFTER seconds) is cancelled by killing its worker.
  The workers, and whatever they fork, die with the server (Linux: the parent-death
  signal).
- The server reads its own transport (`Frames`): a body that is not JSON is answered
  with a -32700 error; a framing error (a header line that is not one, a missing or
  non-numeric `Content-Length`, one longer than the message) loses the stream's framing
  for good, so it is answered with -32700 and the process exits (status 1): the editor
  restarts it instead of talking to a deaf server.
- No thread of the server reads `sys.stdin`: a process forked while another thread
  blocks in `sys.stdin.buffer.read` cannot close its copy of stdin (the buffer's lock
  stays held), which `multiprocessing` does first in every child. `engine.parse` forks
  such a child for every file CPython rejects, so each syntax error used to cost the
  child's full 20 s timeout.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import pickle
import re
import select
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, BinaryIO
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from gradlint import __version__
from gradlint.autofix import fix_source
from gradlint.catalogue import catalogue_dir, load_catalogue
from gradlint.config import Config, ConfigError, Resolver
from gradlint.diagnostic import Diagnostic, Edit, Severity
from gradlint.fixes import LINE_BREAK
from gradlint.guard import internal_error
from gradlint.notebook import file_lines, file_span
from gradlint.runner import lint_file
from gradlint.suppression import NOQA, statement_spans

DEBOUNCE_SECONDS = 0.25
CANCEL_AFTER = 1.0  # seconds a lint may run before a newer version of its document kills it
SPARE_AFTER = 0.5  # seconds a lint may run before a spare worker is started beside it
WORKERS = 3  # at most this many lint processes
STALL_SECONDS = 1.0  # a message body that stops arriving this long is checked for overrun
MAX_BODY = 1 << 30
SOURCE = "gradlint"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


# -- the transport: LSP's base protocol, read robustly -------------------------------------


class FramingError(Exception):
    """The input stream lost its framing: where the next message starts is unknown."""


_HEADER = re.compile(rb"([A-Za-z0-9-]+):[ \t]*([^\r\n]*?)[ \t]*\r?\n")
_HEADER_START = re.compile(rb"[A-Za-z0-9-]*(?::[^\r\n]*)?\r?")  # a header line's beginning


class Frames:
    """The bodies of LSP base-protocol messages read from a file descriptor (raw reads:
    no Python buffer whose lock a forked child could inherit held)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def _more(self, timeout: float | None = None) -> bool | None:
        """Read what is available: False at the end of the input, None when nothing
        came within `timeout` seconds."""
        if timeout is not None and not select.select([self.fd], [], [], timeout)[0]:
            return None
        chunk = os.read(self.fd, 1 << 16)
        self.buffer += chunk
        return bool(chunk)

    def next(self) -> bytes | None:
        """The next message's body; None at the end of the input between messages."""
        length = self._headers()
        if length is None:
            return None
        while len(self.buffer) < length:
            more = self._more(STALL_SECONDS)
            if more is False:
                raise FramingError(f"the input ended inside a body of Content-Length {length}")
            if more is None and _complete_json(self.buffer):
                raise FramingError(
                    f"Content-Length {length} is more than the message's {len(self.buffer)} bytes"
                )
        body = bytes(self.buffer[:length])
        del self.buffer[:length]
        return body

    def _headers(self) -> int | None:
        length = None
        seen = False
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > 4096 or not _HEADER_START.fullmatch(self.buffer):
                    raise FramingError(f"not a header line: {bytes(self.buffer[:80])!r}")
                if not self._more():
                    if seen or self.buffer.strip():
                        raise FramingError("the input ended inside a message's header")
                    return None
                continue
            line = bytes(self.buffer[: end + 1])
            del self.buffer[: end + 1]
            if line in (b"\r\n", b"\n"):
                if length is None:
                    raise FramingError("a message without a Content-Length header")
                return length
            header = _HEADER.fullmatch(line)
            if header is None:
                raise FramingError(f"not a header line: {line[:80]!r}")
            seen = True
            if header[1].lower() == b"content-length":
                value = header[2]
                if not value.isdigit() or int(value) > MAX_BODY:
                    raise FramingError(f"Content-Length {value[:40].decode('latin-1')!r}")
                length = int(value)


def _complete_json(data: bytearray) -> bool:
    """Whether `data` starts with a whole JSON value (then a body still waiting for
    more bytes was given too long a Content-Length)."""
    try:
        json.JSONDecoder().raw_decode(data.decode("utf-8", "replace").lstrip())
    except ValueError:
        return False
    return True


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class _Writer:
    """pygls' writer, over a file descriptor of our own."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data)
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


# -- the worker processes ------------------------------------------------------------------


class WorkerDied(Exception):
    """A worker process ended (killed, crashed) before answering."""


_SIZE = struct.Struct("!Q")


def _send(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    stream.write(_SIZE.pack(len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> Any:
    """The next pickled value; WorkerDied at the end of the stream."""
    head = stream.read(_SIZE.size)
    if len(head) < _SIZE.size:
        raise WorkerDied("the worker ended")
    size = _SIZE.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise WorkerDied("the worker ended mid-answer")
    return pickle.loads(data)


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Have the kernel kill this process when the thread that forked it ends (Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def worker_main(parent: int) -> None:
    """A lint worker: reads pickled (function, args) from its stdin, answers ("ok",
    result) or ("error", text) on its stdout, until its stdin ends."""
    _die_with_parent()
    if os.getppid() != parent:  # the server died before the line above
        os._exit(1)
    os.register_at_fork(after_in_child=_die_with_parent)  # engine.parse's children
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)  # a stray print must not corrupt the answers
    from gradlint.engine import lint_source

    # Every checker, the catalogue and the lazily imported analyses, loaded once.
    lint_source("warmup.py", "import torch\n\nx = torch.randn(3, 4).t().view(-1)\n")
    _send(answers, ("ok", "ready"))
    while True:
        try:
            function, args = _receive(requests)
        except WorkerDied:
            return
        try:
            answer = ("ok", function(*args))
        except Exception as error:
            answer = ("error", internal_error("", error))
        _send(answers, answer)


class Worker:
    """One worker process; `call` blocks (the pool runs it on a thread)."""

    def __init__(self) -> None:
        command = (
            "import sys; from gradlint.server import worker_main; worker_main(int(sys.argv[1]))"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", command, str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.ready = False
        self.starting = threading.Lock()

    def wait_ready(self) -> None:
        """Until the worker has loaded the engine (WorkerDied if it ended instead)."""
        with self.starting:
            if not self.ready:
                _receive(self.process.stdout)
                self.ready = True

    def call(self, function, args: tuple) -> Any:
        try:
            self.wait_ready()
            _send(self.process.stdin, (function, args))
            status, value = _receive(self.process.stdout)
        except (WorkerDied, OSError) as error:
            self.kill()
            self.process.wait()
            raise WorkerDied(str(error)) from error
        if status == "error":
            raise RuntimeError(value)
        return value

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()


class Workers:
    """A pool of at most WORKERS worker processes: two from the start (a huge document
    occupies one, the other is warm for the rest), more when a lint runs long."""

    def __init__(self, size: int = WORKERS) -> None:
        self.idle = [Worker(), Worker()]
        self.all = set(self.idle)
        self.slots = asyncio.Semaphore(size)
        self.size = size
        self.threads = ThreadPoolExecutor(2 * size, thread_name_prefix="gradlint-worker")

    def _spawn(self) -> Worker:
        worker = Worker()
        self.all.add(worker)
        return worker

    def _spare(self) -> None:
        """A warm worker waiting, unless the pool is full."""
        if not self.idle and len(self.all) < self.size:
            self.idle.append(self._spawn())

    async def run(self, function, *args) -> Any:
        """`function(*args)` in a worker; cancelling the call kills the worker."""
        async with self.slots:
            worker = self.idle.pop() if self.idle else self._spawn()
            loop = asyncio.get_running_loop()
            spare = loop.call_later(SPARE_AFTER, self._spare)
            try:
                result = await loop.run_in_executor(self.threads, worker.call, function, args)
            except (asyncio.CancelledError, WorkerDied):
                worker.kill()
                self.all.discard(worker)
                self._spare()
                raise
            except BaseException:
                self.idle.append(worker)
                raise
            finally:
                spare.cancel()
            self.idle.append(worker)
            return result

    async def warm(self) -> None:
        """Until the workers started have loaded the engine."""
        loop = asyncio.get_running_loop()
        for worker in list(self.idle):
            await loop.run_in_executor(self.threads, worker.wait_ready)

    def close(self) -> None:
        for worker in self.all:
            worker.kill()
        self.threads.shutdown(wait=False, cancel_futures=True)


# -- what the workers run ------------------------------------------------------------------


_SURROGATE = re.compile("[\ud800-\udfff]")


def as_saved(text: str) -> str:
    """A document's text as an editor saves it in UTF-8: a lone surrogate (JSON lets a
    client send one) becomes U+FFFD, one code point and one UTF-16 unit like it."""
    return _SURROGATE.sub("\ufffd", text)


def lint_job(path: str, config: Config, text: str) -> list[Diagnostic]:
    """The findings of a document's text, as `gradlint <path>` reports them."""
    return lint_file(path, config, as_saved(text).encode("utf-8")).diagnostics


def noqa_job(text: str, findings: list[Diagnostic]) -> list[Edit]:
    """The "add `# noqa`" edit of each finding."""
    spans = statement_spans(as_saved(text).encode("utf-8"))
    lines = _lines(text)
    return [noqa_edit(spans, lines, d) for d in findings]


def fix_all_job(path: str, config: Config, text: str) -> tuple[int, list[Edit]]:
    """How many safe fixes apply, and the edits that turn `text` into the fixed text."""
    text = as_saved(text)
    outcome = fix_source(path, text.encode("utf-8"), config, unsafe=False)
    if not outcome.changed:
        return 0, []
    return len(outcome.fixed), changed_spans(text, outcome.text)


def changed_spans(old: str, new: str) -> list[Edit]:
    """The edits turning `old` into `new`: each differing run of lines, less the text
    its two sides start and end with."""
    old_lines = LINE_BREAK.split(old)
    new_lines = LINE_BREAK.split(new)
    old_breaks = LINE_BREAK.findall(old) + [""]
    new_breaks = LINE_BREAK.findall(new) + [""]
    old_full = [a + b for a, b in zip(old_lines, old_breaks, strict=True)]
    new_full = [a + b for a, b in zip(new_lines, new_breaks, strict=True)]
    edits = []
    matcher = difflib.SequenceMatcher(None, old_full, new_full, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before, after = "".join(old_full[i1:i2]), "".join(new_full[j1:j2])
        head = len(os.path.commonprefix([before, after]))
        tail = len(os.path.commonprefix([before[head:][::-1], after[head:][::-1]]))
        start = _point(old_full, i1, head)
        end = _point(old_full, i1, len(before) - tail)
        edits.append(Edit(*start, *end, after[head : len(after) - tail]))
    return edits


def _point(lines: list[str], first: int, offset: int) -> tuple[int, int]:
    """The 1-based line and column `offset` characters into the text from line `first`."""
    line = first
    while line < len(lines) and offset >= len(lines[line]) and line + 1 < len(lines):
        offset -= len(lines[line])
        line += 1
    return line + 1, offset + 1


def noqa_edit(spans: dict[int, tuple[int, int]], lines: list[str], d: Diagnostic) -> Edit:
    """`# noqa: CODE` on the last line of the statement holding the finding, or the code
    added to the noqa comment already there."""
    _, last = spans.get(d.line, (d.line, d.line))
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


# -- the server ----------------------------------------------------------------------------


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, less the empty `executeCommandProvider` it always advertises."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        commands = result.capabilities.execute_command_provider
        if commands is not None and not commands.commands:  # pygls always offers the list
            result.capabilities.execute_command_provider = None
        return result


@dataclass
class _Lint:
    """One lint of a document (or a notebook) in a worker, shared by whoever needs it."""

    text: str
    generation: int
    started: float
    task: asyncio.Task


class GradlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            SOURCE,
            __version__,
            protocol_cls=_Protocol,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        notebook="jupyter-notebook",
                        cells=[types.NotebookCellLanguage(language="python")],
                    )
                ]
            ),
        )
        self.configs = self._resolver()
        self.generation = 0  # counts configuration reloads
        self.lints: dict[str, _Lint] = {}
        self.publishing: dict[str, asyncio.Task] = {}
        self.fix_all: dict[str, tuple[str, int, tuple[int, list[Edit]]]] = {}
        self.workers: Workers | None = None
        self.exit_status: asyncio.Future | None = None

    @staticmethod
    def _resolver() -> Resolver:
        return Resolver({}, set(load_catalogue()))

    def reload_configs(self) -> None:
        self.configs = self._resolver()
        self.generation += 1

    def config_for(self, path: str) -> Config:
        try:
            return self.configs.for_path(path)
        except ConfigError as error:
            self.window_show_message(
                types.ShowMessageParams(types.MessageType.Error, f"gradlint: {error}")
            )
            return Config()

    @property
    def pulls(self) -> bool:
        """Whether the client pulls diagnostics (then none are pushed)."""
        text = self.client_capabilities.text_document
        return text is not None and text.diagnostic is not None

    # -- transport -----------------------------------------------------------------------

    def receive(self, body: bytes) -> None:
        """Handle one message's body (on the loop)."""
        try:
            data = json.loads(body)
        except ValueError as error:  # also bytes that are not UTF-8
            self.reply_error(None, PARSE_ERROR, f"Parse error: {error}")
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            ident = data.get("id") if isinstance(data, dict) else None
            self.reply_error(ident, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object")
            return
        try:
            message = self.protocol.structure_message(data)
        except Exception as error:  # pygls' JsonRpcInvalidParams, ...
            if "method" in data and "id" in data:
                code = getattr(error, "code", INVALID_REQUEST)
                self.reply_error(data["id"], code, f"{type(error).__name__}: {error}")
            return
        self.protocol.handle_message(message)

    def reply_error(self, ident, code: int, message: str) -> None:
        error = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
        self.protocol.writer.write(_frame(error))

    def framing_lost(self, reason: str) -> None:
        self.reply_error(None, PARSE_ERROR, f"Parse error: {reason}; the server exits")
        self.window_log_message(
            types.LogMessageParams(types.MessageType.Error, f"gradlint: {reason}; exiting")
        )
        self.finish(1)

    def finish(self, status: int) -> None:
        if self.exit_status is not None and not self.exit_status.done():
            self.exit_status.set_result(status)

    # -- linting ---------------------------------------------------------------------------

    def _lint(self, uri: str, text: str) -> asyncio.Task:
        """The lint of a document's (or a notebook's) text in a worker: one per text and
        configuration. An older one still running is cancelled once it has run for
        CANCEL_AFTER seconds (a short one finishes: killing its worker costs more)."""
        lint = self.lints.get(uri)
        if (
            lint is not None
            and lint.text == text
            and lint.generation == self.generation
            and not (lint.task.done() and (lint.task.cancelled() or lint.task.exception()))
        ):
            return lint.task
        loop = asyncio.get_running_loop()
        if lint is not None and not lint.task.done():
            loop.call_at(lint.started + CANCEL_AFTER, _cancel, lint.task)
        path = _path(uri)
        job = self.workers.run(lint_job, path, self.config_for(path), text)
        self.lints[uri] = _Lint(text, self.generation, loop.time(), asyncio.ensure_future(job))
        return self.lints[uri].task

    async def findings(self, uri: str, text_now: Callable[[], str]) -> tuple[str, list]:
        """The text `text_now()` gives and its findings; when a newer text cancels the
        lint awaited, the newer text's."""
        while True:
            text = text_now()
            task = self._lint(uri, text)
            try:
                return text, await asyncio.shield(task)
            except asyncio.CancelledError:
                if not task.cancelled():  # the caller itself was cancelled
                    raise

    async def document_findings(self, uri: str) -> tuple[str, list[Diagnostic]]:
        """A document's text and its findings on its own lines (a notebook cell's: those
        of its notebook in the cell, as findings of the cell's text)."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is None:
            document = self.workspace.get_text_document(uri)
            text, found = await self.findings(uri, lambda: document.source)
            return text, on_file_lines(text, found)
        _, found = await self.findings(notebook.uri, lambda: self.notebook_json(notebook))
        number = next(
            i for i, c in enumerate(notebook.cells, 1) if unquote(c.document) == unquote(uri)
        )
        text = self.workspace.get_text_document(uri).source
        return text, [replace(d, cell=None) for d in found if d.cell == number]

    def open_document(self, uri: str) -> TextDocument | None:
        """The document the client opened at `uri` (None when it is not open)."""
        return self.workspace.text_documents.get(unquote(uri))

    def notebook_json(self, notebook: types.NotebookDocument) -> str:
        """The notebook's cells as an .ipynb file's JSON (what `runner.lint_file` reads)."""
        cells = []
        for cell in notebook.cells:
            document = self.open_document(cell.document)
            code = (
                cell.kind == types.NotebookCellKind.Code
                and document is not None
                and document.language_id in (None, "python")
            )
            source = as_saved(document.source) if document is not None else ""
            cells.append({"cell_type": "code" if code else "markdown", "source": source})
        return json.dumps({"cells": cells, "metadata": {"language_info": {"name": "python"}}})

    def schedule(self, uri: str, delay: float) -> None:
        """Publish the diagnostics of a document or a notebook after `delay` seconds,
        unless a newer change comes first."""
        old = self.publishing.pop(uri, None)
        if old is not None:
            old.cancel()
        if not self.pulls:
            self.publishing[uri] = asyncio.ensure_future(self._publish(uri, delay))

    async def _publish(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        try:
            if notebook is not None:
                await self._publish_notebook(notebook)
            elif (document := self.open_document(uri)) is not None:
                text, found = await self.findings(uri, lambda: document.source)
                if self.open_document(uri) is document and document.source == text:
                    self.push(uri, document.version, text, on_file_lines(text, found))
        except (WorkerDied, RuntimeError) as error:
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Error, f"gradlint: {uri}: {error}")
            )
        finally:
            if self.publishing.get(uri) is asyncio.current_task():
                del self.publishing[uri]

    async def _publish_notebook(self, notebook: types.NotebookDocument) -> None:
        source, found = await self.findings(notebook.uri, lambda: self.notebook_json(notebook))
        if self.workspace.get_notebook_document(notebook_uri=notebook.uri) is not notebook:
            return
        if self.notebook_json(notebook) != source:
            return
        for number, cell in enumerate(notebook.cells, 1):
            document = self.open_document(cell.document)
            if document is not None:
                mine = [d for d in found if d.cell == number]
                self.push(cell.document, document.version, document.source, mine)

    def push(self, uri: str, version, text: str, found: list[Diagnostic]) -> None:
        lines = _lines(text)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=version, diagnostics=[self.to_lsp(d, lines) for d in found]
            )
        )

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
            code_description=types.CodeDescription(href=_rule_page(d.code)),
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


@cache
def _rule_page(code: str) -> str:
    """The URI of the rule's page in rules/ (its copy in an installed wheel)."""
    return (catalogue_dir() / f"{code}.md").resolve().as_uri()


def _cancel(task: asyncio.Task) -> None:
    if not task.done():
        task.cancel()


def on_file_lines(text: str, found: list[Diagnostic]) -> list[Diagnostic]:
    """Findings in the cells of an .ipynb file opened as text (its JSON) put on the
    file's lines that hold the cell's code, whole lines (columns count within the JSON
    string), the message naming the cell, line and column; other findings unchanged."""
    if not any(d.cell is not None for d in found):
        return found
    cells, lines = file_lines(text), _lines(text)
    placed = []
    for d in found:
        if d.cell is None:
            placed.append(d)
            continue
        first, last = file_span(cells, d.cell, d.line, d.end_line) or (1, 1)
        code = lines[first - 1]
        message = f"{d.message} (cell {d.cell}:{d.line}:{d.column})"
        placed.append(
            replace(
                d,
                message=message,
                line=first,
                column=len(code) - len(code.lstrip()) + 1,
                end_line=last,
                end_column=len(lines[last - 1]) + 1,
            )
        )
    return placed


def _path(uri: str) -> str:
    return to_fs_path(uri) or "untitled.py"


def _lines(text: str) -> list[str]:
    return LINE_BREAK.split(text)


def _covers(d: Diagnostic, start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether the finding's span meets [start, end] (1-based line/column pairs)."""
    return (d.line, d.column) <= end and start <= (d.end_line, max(d.end_column, d.column + 1))


server = GradlintServer()


@server.feature(types.INITIALIZE)
async def initialize(ls: GradlintServer, _: types.InitializeParams) -> None:
    await ls.workers.warm()  # the engine is loaded before `initialize` is answered


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: GradlintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GradlintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, DEBOUNCE_SECONDS)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: GradlintServer, params: types.DidSaveTextDocumentParams) -> None:
    _reload(ls)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GradlintServer, params: types.DidCloseTextDocumentParams) -> None:
    _forget(ls, params.text_document.uri, [params.text_document.uri])


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: GradlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: GradlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
    structure = params.change.cells.structure if params.change.cells else None
    if structure is not None and structure.did_close:  # removed cells: their findings go
        for closed in structure.did_close:
            _clear(ls, closed.uri)
    ls.schedule(params.notebook_document.uri, DEBOUNCE_SECONDS)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_did_save(ls: GradlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
    _reload(ls)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: GradlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
    cells = [cell.uri for cell in params.cell_text_documents]
    _forget(ls, params.notebook_document.uri, cells)


def _reload(ls: GradlintServer) -> None:
    """A saved pyproject.toml / gradlint.toml may have changed: lint everything again."""
    ls.reload_configs()
    if ls.pulls:
        refresh = ls.client_capabilities.workspace
        if refresh and refresh.diagnostics and refresh.diagnostics.refresh_support:
            ls.workspace_diagnostic_refresh(None)
        return
    for notebook in ls.workspace.notebook_documents.values():
        ls.schedule(notebook.uri, 0)
    for key, document in ls.workspace.text_documents.items():
        if ls.workspace.get_notebook_document(cell_uri=key) is None:
            ls.schedule(document.uri, 0)


def _forget(ls: GradlintServer, uri: str, documents: list[str]) -> None:
    task = ls.publishing.pop(uri, None)
    if task is not None:
        task.cancel()
    lint = ls.lints.pop(uri, None)
    if lint is not None and not lint.task.done():
        lint.task.cancel()
    ls.fix_all.pop(uri, None)
    for document in documents:
        _clear(ls, document)


def _clear(ls: GradlintServer, uri: str) -> None:
    if not ls.pulls:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: GradlintServer, _: types.DidChangeWatchedFilesParams) -> None:
    _reload(ls)


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(
        identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False
    ),
)
async def pull_diagnostics(
    ls: GradlintServer, params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport:
    text, found = await ls.document_findings(params.text_document.uri)
    lines = _lines(text)
    return types.RelatedFullDocumentDiagnosticReport(items=[ls.to_lsp(d, lines) for d in found])


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: GradlintServer, params: types.HoverParams) -> types.Hover | None:
    text, findings = await ls.document_findings(params.text_document.uri)
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
async def code_action(ls: GradlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    text, findings = await ls.document_findings(uri)
    lines = _lines(text)
    only = params.context.only
    actions: list[types.CodeAction] = []
    if not only or any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only):
        start = ls.from_client(lines, params.range.start)
        end = ls.from_client(lines, params.range.end)
        chosen = [
            d for d in findings if _covers(d, start, end) and d.code != "GL001" and d.cell is None
        ]  # a finding in an .ipynb file's cell: no edit of the JSON text is offered
        noqa = await ls.workers.run(noqa_job, text, chosen) if chosen else []
        for d, edit in zip(chosen, noqa, strict=True):
            actions += _quick_fixes(ls, uri, d, edit, lines)
    if not only or any(FIX_ALL.startswith(k) for k in only):
        fixed = await _fix_all(ls, uri, text, findings, lines)
        if fixed is not None:
            actions.append(fixed)
    return actions


def _quick_fixes(ls: GradlintServer, uri: str, d: Diagnostic, noqa: Edit, lines: list[str]):
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
    actions.append(
        types.CodeAction(
            title=f"{d.code}: add `# noqa: {d.code}`",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[lsp_diagnostic],
            edit=types.WorkspaceEdit(changes={uri: ls.text_edits([noqa], lines)}),
        )
    )
    return actions


async def _fix_all(ls: GradlintServer, uri: str, text: str, findings, lines: list[str]):
    if not any(d.fix is not None and d.fix.is_safe for d in findings):
        return None
    cached = ls.fix_all.get(uri)
    if cached is not None and cached[:2] == (text, ls.generation):
        count, edits = cached[2]
    else:
        path = _path(uri)
        count, edits = await ls.workers.run(fix_all_job, path, ls.config_for(path), text)
        ls.fix_all[uri] = (text, ls.generation, (count, edits))
    if not edits:
        return None
    return types.CodeAction(
        title=f"gradlint: fix all ({count} safe fixes)",
        kind=FIX_ALL,
        edit=types.WorkspaceEdit(changes={uri: ls.text_edits(edits, lines)}),
    )


def main() -> int:
    """Serve on stdin/stdout until `exit`, the end of the input or a framing error."""
    stdin = os.dup(0)
    stdout = os.fdopen(os.dup(1), "wb")
    # Neither stream is left where a forked child (or a stray print) could touch it.
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    server.protocol.set_writer(_Writer(stdout))
    try:
        return asyncio.run(_serve(stdin))
    except SystemExit as stop:  # pygls' `exit` handler
        return stop.code if isinstance(stop.code, int) else 1
    finally:
        if server.workers is not None:
            server.workers.close()


async def _serve(stdin: int) -> int:
    loop = asyncio.get_running_loop()
    server.exit_status = loop.create_future()
    server.workers = Workers()

    def read() -> None:
        frames = Frames(stdin)
        try:
            while (body := frames.next()) is not None:
                loop.call_soon_threadsafe(server.receive, body)
        except OSError:  # the input is gone: as at its end
            pass
        except Exception as error:  # FramingError, or a bug: the stream is lost either way
            reason = str(error) if isinstance(error, FramingError) else internal_error("", error)
            loop.call_soon_threadsafe(server.framing_lost, reason)
            return
        loop.call_soon_threadsafe(server.finish, 0 if server.protocol._shutdown else 1)

    threading.Thread(target=read, name="gradlint-stdin", daemon=True).start()
    return await server.exit_status
