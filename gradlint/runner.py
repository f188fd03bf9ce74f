"""The per-file pipeline (read, lint, noqa, per-file-ignores, finalize) and the process pool.

A process that dies (libcst's native parser can crash on pathological input) does not
stop the run. With a pool, the files its worker may have been linting are re-run one per
process, the one that kills its process again gets GL001, every other file is linted
normally. Without one (`--jobs 1`, one file, stdin) the files are linted in order by one
forked child that sends each result back as it is done: when it dies, the file it was on
gets GL001 and a new child goes on with the rest (one fork per run, not per file).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from dataclasses import dataclass, field, replace

from gradlint.cache import ResultCache
from gradlint.cache import enabled as cache_enabled
from gradlint.config import CODE_PROBES, Config
from gradlint.diagnostic import Diagnostic
from gradlint.findings import finalize
from gradlint.guard import from_bom, internal_error
from gradlint.notebook import SUFFIX as NOTEBOOK
from gradlint.notebook import Notebook, NotebookError, read_notebook


@dataclass
class FileResult:
    """One file's findings, or the internal errors that stopped its pipeline."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    source: str | None = None  # the decoded text, kept only when there are findings


@dataclass
class RunResult:
    """Every file's findings, sorted, and the text of the files that have some."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # path -> text, files with findings


# -- one file ------------------------------------------------------------------------


def file_error(path: str, message: str, config: Config) -> list[Diagnostic]:
    """A GL001 at line 1 for a file that could not be read or parsed at all."""
    if not config.is_selected("GL001") or "GL001".startswith(config.ignored_in(path)):
        return []
    from gradlint.catalogue import load_catalogue

    doc = load_catalogue()["GL001"]
    return [Diagnostic(path, 1, 1, 1, 1, "GL001", message, doc.name, doc.severity)]


def _broken_cells(path: str, notebook: Notebook, config: Config) -> list[Diagnostic]:
    """A GL001 for each cell of the notebook that does not compile (the rest was linted)."""
    found = []
    for cell, (line, column, reason) in notebook.broken.items():
        for error in file_error(path, f"Cannot parse this cell (others linted): {reason}", config):
            found.append(
                replace(
                    error, line=line, column=column, end_line=line, end_column=column, cell=cell
                )
            )
    return found


def read_source(path: str) -> bytes:
    """The bytes of a regular file; OSError for anything else (opening a FIFO would block)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(0, "not a regular file")
    with open(path, "rb") as file:
        return file.read()


def decode(source: bytes) -> str:
    """The text of a source file in its declared encoding (UTF-8 by default)."""
    if b"coding" not in source[: _second_line_end(source)]:  # no PEP 263 cookie
        return source.decode("utf-8-sig", "replace")  # as tokenize reads it: BOM dropped
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding, "replace")
    except (SyntaxError, LookupError):
        return source.decode("utf-8", "replace")


def _second_line_end(source: bytes) -> int:
    """Where the second line ends: a coding cookie is only looked for before it."""
    first = source.find(b"\n")
    second = source.find(b"\n", first + 1) if first >= 0 else -1
    return len(source) if second < 0 else second


def lint_file(path: str, config: Config, source: bytes | None = None) -> FileResult:
    """Findings of one file after `# noqa` comments and `per-file-ignores`, from the
    result cache when it has them.

    The text is kept when there are findings, or always for the code probes (which run
    every file they are given)."""
    if source is None:
        try:
            source = read_source(path)
        except OSError as error:
            reason = error.strerror or str(error)
            return FileResult(path, file_error(path, f"Cannot read: {reason}", config))
    try:
        cache = result_cache(config)
        key = cache.key(path, source) if cache else ""
        diagnostics = cache.get(key) if cache else None
        errors: list[str] = []
        if diagnostics is None:
            from gradlint.engine import lint_source  # libcst and the checkers: not on a hit
            from gradlint.suppression import apply_noqa  # tokenize: not on a hit either

            script, notebook = from_bom(source), None
            if path.endswith(NOTEBOOK):  # its code cells, joined, are what the engine reads
                notebook = _notebook(path, source, config)
                if not isinstance(notebook, Notebook):
                    return FileResult(path, notebook)
                script = notebook.script.encode("utf-8", "surrogatepass")
            result = lint_source(path, script, config)
            diagnostics = apply_noqa(result.diagnostics, script)
            ignored = config.ignored_in(path)
            if ignored:
                diagnostics = [d for d in diagnostics if not d.code.startswith(ignored)]
            if notebook is not None:
                diagnostics = notebook.to_cells(diagnostics) + _broken_cells(path, notebook, config)
            diagnostics = finalize(diagnostics)
            errors = result.internal_errors
            if cache and not errors:
                cache.put(key, diagnostics)
        text = decode(from_bom(source)) if diagnostics or config.probe in CODE_PROBES else None
    except Exception as error:  # a bug in one file's pipeline: reported, the run goes on
        return FileResult(path, internal_errors=[internal_error(path, error)])
    return FileResult(path, diagnostics, errors, text)


def cached_result(path: str, config: Config) -> FileResult | None:
    """The file's result when the cache has it (None otherwise, also when unreadable)."""
    cache = result_cache(config)
    if cache is None:
        return None
    try:
        source = read_source(path)
    except OSError:
        return None
    diagnostics = cache.get(cache.key(path, source))
    if diagnostics is None:
        return None
    text = decode(from_bom(source)) if diagnostics or config.probe in CODE_PROBES else None
    return FileResult(path, diagnostics, [], text)


_caches: dict[str, ResultCache] = {}


def result_cache(config: Config) -> ResultCache | None:
    """The result cache of `config` (one per distinct configuration), None when off."""
    if config.cache_dir is None or not cache_enabled():
        return None
    settings = repr(config)
    found = _caches.get(settings)
    if found is None:
        found = _caches[settings] = ResultCache(config.cache_dir, config)
    return found


def _notebook(path: str, source: bytes, config: Config) -> Notebook | list[Diagnostic]:
    """The notebook's script, or the GL001 of a file that is not a notebook."""
    try:
        return read_notebook(decode(source))
    except NotebookError as error:
        return file_error(path, f"Cannot read notebook: {error}", config)


# -- many files ------------------------------------------------------------------------


def default_jobs() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def run(
    paths: list[str],
    config: Config,
    jobs: int | None = None,
    stdin: tuple[str, bytes] | None = None,
) -> RunResult:
    """Lint `paths` (and `stdin`: its reported name and bytes), sorted findings out."""
    jobs = jobs or default_jobs()
    # Cache hits are read here: a warm run starts no worker and imports no parser.
    done = {path: hit for path in paths if (hit := cached_result(path, config)) is not None}
    pending = [path for path in paths if path not in done]
    stdin_result = None
    if jobs > 1 and len(pending) > 1:
        done.update(zip(pending, _in_pool(pending, config, jobs), strict=True))
    elif pending or stdin is not None:
        items = [(path, None) for path in dict.fromkeys(pending)]
        if stdin is not None:
            items.append(stdin)
        linted = lint_in_order(items, config)
        if stdin is not None:
            stdin_result = linted.pop()
        done.update(zip(dict.fromkeys(pending), linted, strict=True))
    results = [done[path] for path in paths]
    if stdin_result is not None:
        results.append(stdin_result)
    run_result = RunResult()
    for result in results:
        run_result.diagnostics.extend(result.diagnostics)
        run_result.internal_errors.extend(result.internal_errors)
        if result.source is not None:
            run_result.sources[result.path] = result.source
    run_result.diagnostics.sort(key=Diagnostic.sort_key)
    return run_result


_NOT_STARTED, _STARTED, _DONE = 0, 1, 2
_worker_state: dict = {}


def _init_worker(status, config: Config) -> None:
    _worker_state.update(status=status, config=config)
    _only_linting()


def _only_linting() -> None:
    """This process lints and does nothing else: libcst's nodes need not stay frozen in
    it (speedups.thaw)."""
    from gradlint import engine, speedups  # noqa: F401 - the engine installs the speedups

    speedups.thaw()


def _work(index: int, path: str) -> FileResult:
    status = _worker_state["status"]
    status[index] = _STARTED
    result = lint_file(path, _worker_state["config"])
    status[index] = _DONE
    return result


def _context():
    import multiprocessing

    # fork: workers inherit the imported engine and checkers instead of re-importing them.
    return multiprocessing.get_context("fork" if sys.platform == "linux" else None)


def _in_pool(paths: list[str], config: Config, jobs: int) -> list[FileResult]:
    from gradlint.checks import load_checkers
    from gradlint.engine import lint_source  # noqa: F401 - imported once, before forking

    load_checkers()
    done: dict[str, FileResult] = {}
    remaining = list(dict.fromkeys(paths))
    while remaining:
        finished = len(done)
        status = _run_batch(remaining, config, jobs, done)
        if status is None:
            break
        # The pool broke: whatever was running is suspect, re-run each suspect alone.
        suspects = [p for i, p in enumerate(remaining) if status[i] == _STARTED]
        if not suspects and len(done) == finished:  # died before any file: no progress
            suspects = remaining
        for path in suspects:
            if path not in done:
                done[path] = _isolated(path, config)
        remaining = [p for p in remaining if p not in done]
    return [done[path] for path in paths]


def _run_batch(paths: list[str], config: Config, jobs: int, done: dict[str, FileResult]):
    """Lint `paths` in a pool into `done`; the status array when the pool broke, else None."""
    from concurrent.futures import ProcessPoolExecutor  # not imported by a warm run
    from concurrent.futures.process import BrokenProcessPool

    context = _context()
    status = context.RawArray("b", len(paths))
    broken = False
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(paths)),
        mp_context=context,
        initializer=_init_worker,
        initargs=(status, config),
    ) as pool:
        # the largest files first: the last ones to finish are small, no worker idles long
        order = sorted(range(len(paths)), key=lambda index: -_size(paths[index]))
        futures = {index: pool.submit(_work, index, paths[index]) for index in order}
        for index, future in futures.items():
            path = paths[index]
            try:
                done[path] = future.result()
            except BrokenProcessPool:
                broken = True
            except Exception as error:  # one file's failure is reported, the run goes on
                done[path] = FileResult(path, internal_errors=[internal_error(path, error)])
    return status if broken else None


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


CRASHED = "Cannot parse: the parser crashed on this file"


def lint_in_order(items: list[tuple[str, bytes | None]], config: Config) -> list[FileResult]:
    """`lint_file(path, config, source)` of each item, in order, in a contained worker."""
    worker = ContainedWorker()
    try:
        return [worker.lint(path, config, source) for path, source in items]
    finally:
        worker.stop()


class ContainedWorker:
    """A forked child that lints the files it is sent, one at a time, and answers each
    with its FileResult: a native crash kills the child, not the run. The file it died on
    gets GL001; the next file gets a new child. One fork per run (or per flake8 process),
    not per file. Where fork is unavailable (not Linux) files are linted in this process.
    The child runs the code as it was when forked: `stop()` it to pick up changes."""

    def __init__(self) -> None:
        self._pid = 0
        self._owner = 0  # the process that forked the child (a forked parent must not share it)
        self._send = self._receive = None

    def lint(self, path: str, config: Config, source: bytes | None = None) -> FileResult:
        if sys.platform != "linux":
            return lint_file(path, config, source)
        import pickle  # not before a file is linted: a warm run reads the result cache only

        if not self._pid or self._owner != os.getpid():
            self._start()
        try:
            pickle.dump((path, config, source), self._send)
            self._send.flush()
            return pickle.load(self._receive)
        except (EOFError, OSError, pickle.UnpicklingError):  # the child died on this file
            self.stop()
            return FileResult(path, file_error(path, CRASHED, config))

    def _start(self) -> None:
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns, never runs the parent's exit handlers
            os.close(from_parent)
            os.close(to_parent)
            _serve(to_child, from_child)
        os.close(to_child)
        os.close(from_child)
        self._pid, self._owner = pid, os.getpid()
        self._send = os.fdopen(from_parent, "wb")
        self._receive = os.fdopen(to_parent, "rb")

    def stop(self) -> None:
        """End the child (it exits when its input closes) and reap it."""
        if not self._pid or self._owner != os.getpid():
            self._pid = 0
            return
        for pipe in (self._send, self._receive):
            with contextlib.suppress(OSError):  # unsent bytes to a dead child
                pipe.close()
        os.waitpid(self._pid, 0)
        self._pid = 0


def _serve(requests: int, answers: int) -> None:
    import pickle

    status = 0
    try:
        _only_linting()
        with os.fdopen(requests, "rb") as inbox, os.fdopen(answers, "wb") as outbox:
            while True:
                try:
                    path, config, source = pickle.load(inbox)
                except EOFError:
                    break
                pickle.dump(lint_file(path, config, source), outbox)
                outbox.flush()
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _isolated(path: str, config: Config) -> FileResult:
    """Lint one file in a process of its own; GL001 when that process dies."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = _context()
    status = context.RawArray("b", 1)
    with ProcessPoolExecutor(
        max_workers=1, mp_context=context, initializer=_init_worker, initargs=(status, config)
    ) as pool:
        try:
            return pool.submit(_work, 0, path).result()
        except BrokenProcessPool:
            return FileResult(path, file_error(path, CRASHED, config))
