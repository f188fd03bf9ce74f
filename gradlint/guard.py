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


def deep_call(function: Callable[[], T]) -> T:
    """`function()` on a thread with a large stack and a high recursion limit; its result,
    or its exception re-raised here."""
    outcome: list = []

    def target() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as error:  # re-raised in the calling thread
            outcome.append((False, error))

    with _deep_lock:  # stack size and recursion limit are process-wide settings
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        try:
            old_size = threading.stack_size(STACK_SIZE)
        except (ValueError, RuntimeError):  # a platform without settable stacks
            old_size = None
        try:
            thread = threading.Thread(target=target, name="gradlint-deep", daemon=True)
            thread.start()
        except RuntimeError:  # no room for the stack (a low `ulimit -v`): run it here
            thread = None
        finally:
            if old_size is not None:
                threading.stack_size(old_size)
        try:
            if thread is None:
                target()
            else:
                thread.join()
        finally:
            sys.setrecursionlimit(old_limit)
    ok, value = outcome[0]
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
