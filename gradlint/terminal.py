"""What a run adds when a person watches it: colour, a progress line, a summary.

Colour follows the no-color.org / force-color.org conventions: `NO_COLOR` (non-empty)
turns it off, else `FORCE_COLOR` (non-empty) turns it on, else a terminal gets it.
"""

from __future__ import annotations

import os
import threading
import time

from gradlint.diagnostic import Diagnostic, Severity

TYPE_CHECKING = False  # not `typing`'s: a run that only reads the result cache skips its import
if TYPE_CHECKING:
    from typing import TextIO

_RESET = "\033[0m"
_BOLD, _RED, _YELLOW = "\033[1m", "\033[31m", "\033[33m"
PROGRESS_AFTER = 2.0  # seconds of silence before the progress line appears


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal(stream)


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def colour_line(d: Diagnostic, line: str) -> str:
    """A flake8-format line with the location bold and the code red (error) or yellow."""
    location = f"{d.location}:"
    if not line.startswith(location):
        return line
    code = _RED if d.severity == Severity.ERROR else _YELLOW
    rest = line[len(location) :].removeprefix(f" {d.code}")
    return f"{_BOLD}{location}{_RESET} {code}{_BOLD}{d.code}{_RESET}{rest}"


def summary(count: int) -> str:
    """ruff's closing line."""
    if not count:
        return "All checks passed!"
    return f"Found {count} error{'' if count == 1 else 's'}."


class Progress:
    """`gradlint: linting N files… 3s` on a terminal's stderr, from PROGRESS_AFTER seconds
    into the run until `stop()`, which erases it."""

    def __init__(self, stream: TextIO, files: int) -> None:
        self._stream = stream
        self._files = files
        self._done = threading.Event()
        self._shown = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._start = time.monotonic()
        if is_terminal(stream):
            self._thread.start()

    def _run(self) -> None:
        if self._done.wait(PROGRESS_AFTER):
            return
        while not self._done.is_set():
            elapsed = int(time.monotonic() - self._start)
            noun = "file" if self._files == 1 else "files"
            self._stream.write(f"\rgradlint: linting {self._files} {noun}… {elapsed}s")
            self._stream.flush()
            self._shown = True
            self._done.wait(1.0)

    def stop(self) -> None:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
        if self._shown:
            self._stream.write("\r\033[K")
            self._stream.flush()
