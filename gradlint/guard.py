"""What keeps one pathological file from crashing, hanging or flooding a run.

- `deep_call`: libcst's native parser and the Python walks over its tree recurse once per
  nesting level; they run in a thread with a large stack and a raised recursion limit,
  so a deep but valid file (a thousand `elif`s, ten thousand `and` operands) is linted
  instead of overflowing the C stack (a segfault) or raising RecursionError.
- `in_child`: a call made in a forked process, for input CPython rejected (so with no
  depth bound: depth.py): a native crash or a hang there becomes an answer, not a dead run.
- `from_bom`: UTF-16/32 files are decoded by their byte order mark.
- `internal_error`: one bounded line per failure; the traceback only with GRADLINT_DEBUG.
"""

from __future__ import annotations

import codecs
import os
import queue
import sys
import threading
from collections.abc import Callable

TYPE_CHECKING = False  # not `typing`'s: a run that only reads the result cache skips its import
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

STACK_SIZE = 512 * 1024 * 1024  # reserved address space; only the pages used are committed
RECURSION_LIMIT = 200_000
MESSAGE_LIMIT = 200  # characters of an exception's text in an internal-error line
DEBUG_ENV = "GRADLINT_DEBUG"

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def from_bom(source: bytes) -> bytes:
    """UTF-8 bytes for a UTF-16/32 file that starts with its byte order mark; other files
    unchanged (their encoding is UTF-8 or what their coding cookie says). Undecodable
    UTF-16/32 is left alone, and the parser then reports it."""
    for bom, encoding in _BOMS:
        if source.startswith(bom):
            try:
                return source.decode(encoding).encode("utf-8", "surrogatepass")
            except UnicodeError:
                return source
    return source


def declared_encoding(source: bytes) -> str | None:
    """The encoding Python reads a file's bytes with (UTF-8, or its coding cookie), when
    the bytes decode with it; None when they do not."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None
    return encoding


_deep_lock = threading.Lock()


class _DeepThread:
    """The thread with a large stack that runs deep_call's functions, one at a time, for
    the life of the process that started it: a thread started per call cost each file a
    fresh stack, Python frame chunks and malloc arena, faulted in page by page (a fifth
    of the system time of a run); the pages the deepest file touched stay committed.
    Threads do not survive a fork: a forked child starts its own."""

    def __init__(self) -> None:
        self.process = os.getpid()
        self.requests: queue.SimpleQueue = queue.SimpleQueue()
        self.answers: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="gradlint-deep", daemon=True)

    def _serve(self) -> None:
        while True:
            self.answers.put(_outcome(self.requests.get()))

    def run(self, function: Callable[[], T]) -> tuple[bool, T | BaseException]:
        self.requests.put(function)
        try:
            return self.answers.get()
        except BaseException:  # interrupted while waiting: its answer is nobody's
            _deep_thread.clear()
            raise


_deep_thread: list[_DeepThread] = []  # this process's, once started


def _started_deep_thread() -> _DeepThread | None:
    """This process's deep thread, started on first use; None when no thread with that
    stack can be started (a low `ulimit -v`)."""
    if _deep_thread and _deep_thread[0].process == os.getpid():
        return _deep_thread[0]
    try:
        old_size = threading.stack_size(STACK_SIZE)
    except (ValueError, RuntimeError):  # a platform without settable stacks
        old_size = None
    try:
        deep = _DeepThread()
        deep.thread.start()
    except RuntimeError:  # no room for the stack
        return None
    finally:
        if old_size is not None:
            threading.stack_size(old_size)
    _deep_thread[:] = [deep]
    return deep


def _outcome(function: Callable[[], T]) -> tuple[bool, T | BaseException]:
    try:
        return True, function()
    except BaseException as error:  # re-raised in the calling thread
        return False, error


def deep_call(function: Callable[[], T]) -> T:
    """`function()` on a thread with a large stack and a high recursion limit; its result,
    or its exception re-raised here."""
    with _deep_lock:  # stack size and recursion limit are process-wide settings
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        try:
            deep = _started_deep_thread()
            ok, value = _outcome(function) if deep is None else deep.run(function)
        finally:
            sys.setrecursionlimit(old_limit)
    if not ok:
        raise value
    return value


def in_child(function: Callable[[], T], timeout: float) -> tuple[str, T | None]:
    """`function()` in a forked process: ("ok", its picklable result), ("crashed", None)
    when the process died, or ("timeout", None). Where fork is unavailable it runs here."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return "ok", function()
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)

    def child() -> None:
        try:
            sender.send(("ok", function()))
        except BaseException as error:  # an answer, not a crash
            sender.send(("error", internal_error("", error)))

    process = context.Process(target=child, daemon=True)
    process.start()
    sender.close()
    try:
        if not receiver.poll(timeout):
            return ("crashed", None) if not process.is_alive() else ("timeout", None)
        status, value = receiver.recv()
    except (EOFError, OSError):
        return "crashed", None
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    if status == "error":
        raise RuntimeError(value)
    return status, value


def internal_error(path: str, error: BaseException) -> str:
    """One line naming the file and the exception (its text cut to MESSAGE_LIMIT: a libcst
    node's repr can run to megabytes); the whole traceback when GRADLINT_DEBUG is set."""
    text = " ".join(str(error).split())
    if len(text) > MESSAGE_LIMIT:
        text = text[:MESSAGE_LIMIT] + "..."
    where = f"{path}: " if path else ""
    line = f"{where}internal error: {type(error).__name__}" + (f": {text}" if text else "")
    if os.environ.get(DEBUG_ENV):
        import traceback  # loads linecache, tokenize, ...: not in a run that only reads the cache

        trace = "".join(traceback.format_exception(error))
        line += "\n" + (trace if len(trace) < 100_000 else trace[:100_000] + "...\n")
    return line
