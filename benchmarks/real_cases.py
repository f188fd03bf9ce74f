"""The corpus of real bug reports in tests/corpus/real: its headers, and running it in torch.

Layout: tests/corpus/real/<family>/<case>.py is a buggy case, <case>__fixed.py its fixed
twin; tests/corpus/real/lookalike/<case>.py is correct code that resembles a bug.
Each file starts with a block of comment lines; the header keys are

    # source: <URL of the public report (or, for a look-alike, of the project)>
    # expect: <text in torch 2.13's error>  |  silent: <what goes wrong>  |  clean
    # buggy-line: N          (buggy cases: the statement a linter should flag)
    # also-line: M           (optional, repeatable: lines that name the same bug)
    # mechanism: <text>      (optional: what a linter must understand to see the bug)
    # note: <text>           (optional prose)

    python benchmarks/real_cases.py run FILE ...   # JSON: how each file ends in torch

`run` imports torch once, then forks one child per file (runpy, `__main__`), at most
`--jobs` at a time, each killed after `--timeout` seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "real"
FAMILIES = ("leaf", "saved", "backward", "reshape", "learning")
LOOKALIKE = "lookalike"
FIXED_SUFFIX = "__fixed"
KEYS = ("source", "expect", "buggy-line", "also-line", "mechanism", "note")
_KEY_LINE = re.compile(r"#\s*([A-Za-z][\w-]*)\s*:\s*(.*)$")

# A finding of one of these codes (or prefixes) on a case's line counts for its family.
FAMILY_CODES = {
    "leaf": ("GL101", "GL102", "GL105", "GL204", "GL206"),
    "saved": ("GL103", "GL104", "GL105"),
    # GL202 reports at the backward whose loss needs no grad ("element 0 of tensors does
    # not require grad"), the same call the backward family names
    "backward": ("GL301", "GL302", "GL305", "GL504", "GL204", "GL202"),
    "reshape": ("GL401", "GL402", "GL403", "GL404"),
    "learning": ("GL2", "GL303", "GL304", "GL5", "GL102"),
}


@dataclass
class Case:
    path: Path
    kind: str  # "bug", "fixed" or "lookalike"
    family: str  # a FAMILIES name, or LOOKALIKE
    source: str = ""
    expect: str = ""
    buggy_line: int | None = None
    also_lines: list[int] = field(default_factory=list)
    mechanism: str = ""
    errors: list[str] = field(default_factory=list)  # header problems

    @property
    def name(self) -> str:
        return f"{self.family}/{self.path.name}"

    @property
    def silent(self) -> bool:
        return self.expect.startswith("silent:")

    @property
    def lines(self) -> list[int]:
        """The lines a finding may name (buggy line first)."""
        return ([self.buggy_line] if self.buggy_line else []) + self.also_lines

    @property
    def twin(self) -> Path:
        return self.path.with_name(self.path.stem + FIXED_SUFFIX + ".py")


def parse_header(path: Path) -> dict[str, list[str]]:
    """The `# key: value` lines of the leading comment block, by key (unknown keys too)."""
    header: dict[str, list[str]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            continue
        if not line.startswith("#"):
            break
        match = _KEY_LINE.match(line)
        if match:
            header.setdefault(match.group(1), []).append(match.group(2).strip())
    return header


def load_case(path: Path) -> Case:
    family = path.parent.name
    if family == LOOKALIKE:
        kind = "lookalike"
    elif path.stem.endswith(FIXED_SUFFIX):
        kind = "fixed"
    else:
        kind = "bug"
    case = Case(path=path, kind=kind, family=family)
    if family not in FAMILIES and family != LOOKALIKE:
        case.errors.append(f"unknown family directory {family!r}")
    header = parse_header(path)
    for key in header:
        if key not in KEYS:
            case.errors.append(f"unknown header key {key!r}")
    for key in ("source", "expect", "buggy-line", "mechanism"):
        if len(header.get(key, [])) > 1:
            case.errors.append(f"header {key!r} given more than once")
    case.source = header.get("source", [""])[0]
    case.expect = header.get("expect", [""])[0]
    case.mechanism = header.get("mechanism", [""])[0]
    if not re.match(r"https?://\S+$", case.source):
        case.errors.append(f"`# source:` is not a URL: {case.source!r}")
    if not case.expect:
        case.errors.append("no `# expect:` line")
    elif kind == "bug" and (case.expect == "clean" or case.expect.rstrip() == "silent:"):
        case.errors.append(f"a buggy case expects an error or `silent: <effect>`: {case.expect!r}")
    elif kind != "bug" and case.expect != "clean":
        case.errors.append(f"a {kind} file must `# expect: clean`, not {case.expect!r}")
    lines = header.get("buggy-line", []) + header.get("also-line", [])
    if kind == "bug":
        if not header.get("buggy-line"):
            case.errors.append("no `# buggy-line:`")
        numbers = []
        for text in lines:
            if text.isdigit():
                numbers.append(int(text))
            else:
                case.errors.append(f"line number is not an integer: {text!r}")
        if header.get("buggy-line") and header["buggy-line"][0].isdigit():
            case.buggy_line = numbers[0]
            case.also_lines = numbers[1:]
    elif lines:
        case.errors.append(f"a {kind} file has no buggy line")
    return case


def load_cases(root: Path = ROOT) -> list[Case]:
    """Every case file under root, sorted by family then name."""
    return [load_case(path) for path in sorted(root.glob("*/*.py"))]


# -- running the files in torch ---------------------------------------------------------


def _child(path: str, workdir: str, write_fd: int) -> None:
    """In the forked child: run the file as __main__ and report how it ended."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    import runpy

    import torch

    torch.manual_seed(0)
    path = os.path.abspath(path)
    os.chdir(workdir)
    sys.argv = [path]
    sys.path[0] = str(Path(path).parent)
    started = time.perf_counter()
    try:
        runpy.run_path(path, run_name="__main__")
        result = {"status": "clean"}
    except SystemExit as exit_:
        status = "clean" if exit_.code in (None, 0) else "raised"
        result = {"status": status, "type": "SystemExit", "message": str(exit_.code)}
    except BaseException as error:  # noqa: BLE001 - any exception is the verdict
        result = {"status": "raised", "type": type(error).__name__, "message": str(error)}
    result["seconds"] = round(time.perf_counter() - started, 3)
    os.write(write_fd, json.dumps(result).encode())
    os._exit(0)


def run_files(paths: list[str], jobs: int = 2, timeout: float = 60.0) -> dict[str, dict]:
    """How each file ends in torch: {"status": clean|raised|timeout|crashed, ...}.

    Imports torch here once; every file runs in a forked child of this process, so call
    it from a process of its own (a fresh interpreter that has run no torch op yet).
    """
    import torch
    import torch._dynamo  # noqa: F401 - optimizers import it on their first step (seconds)

    torch.set_num_threads(1)
    results: dict[str, dict] = {}
    pending = list(paths)
    running: dict[int, tuple[str, int, float, bytearray]] = {}  # read fd -> state
    selector = selectors.DefaultSelector()
    with tempfile.TemporaryDirectory(prefix="gradlint-real-") as scratch:
        while pending or running:
            while pending and len(running) < jobs:
                path = pending.pop(0)
                workdir = tempfile.mkdtemp(dir=scratch)
                read_fd, write_fd = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child never returns into this loop
                    try:
                        os.close(read_fd)
                        _child(path, workdir, write_fd)
                    finally:
                        os._exit(1)
                os.close(write_fd)
                running[read_fd] = (path, pid, time.monotonic(), bytearray())
                selector.register(read_fd, selectors.EVENT_READ)
            for key, _ in selector.select(timeout=0.2):
                fd = key.fd
                chunk = os.read(fd, 65536)
                if chunk:
                    running[fd][3].extend(chunk)
                    continue
                path, pid, _, data = running.pop(fd)
                selector.unregister(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                try:
                    results[path] = json.loads(data.decode())
                except ValueError:
                    results[path] = {"status": "crashed", "message": f"wait status {status}"}
            now = time.monotonic()
            for fd, (path, pid, started, _) in list(running.items()):
                if now - started > timeout:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    selector.unregister(fd)
                    os.close(fd)
                    del running[fd]
                    results[path] = {"status": "timeout", "message": f"over {timeout} s"}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run files in torch, print JSON {path: result}")
    run.add_argument("files", nargs="*", help="default: every case of the corpus")
    run.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    run.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    files = args.files or [str(case.path) for case in load_cases()]
    print(json.dumps(run_files(files, args.jobs, args.timeout), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
