"""Command line: `gradlint [PATH ...]`, `gradlint rules`, `gradlint rule CODE`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gradlint import __version__
from gradlint.catalogue import load_catalogue
from gradlint.config import Config
from gradlint.engine import lint_source

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _iter_python_files(paths: list[str]):
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.py") if p.is_file())
        else:
            yield path


def _check(args: argparse.Namespace) -> int:
    config = Config(
        select=tuple(args.select.split(",")) if args.select else ("GL",),
        ignore=tuple(args.ignore.split(",")) if args.ignore else (),
    )
    found = False
    for path in _iter_python_files(args.paths or ["."]):
        try:
            source = path.read_bytes()
        except OSError as error:
            print(f"{path}:1:1: GL001 Cannot read: {error.strerror}")
            found = True
            continue
        result = lint_source(str(path), source, config)
        for message in result.internal_errors:
            print(message, file=sys.stderr)
        for d in result.diagnostics:
            print(f"{d.path}:{d.line}:{d.column}: {d.code} {d.message}")
            found = True
    return EXIT_FINDINGS if found else EXIT_CLEAN


def _rules(_: argparse.Namespace) -> int:
    for doc in load_catalogue().values():
        print(f"{doc.code}  {doc.name:32}  {doc.severity.value:7}  {doc.summary}")
    return EXIT_CLEAN


def _rule(args: argparse.Namespace) -> int:
    doc = load_catalogue().get(args.code.upper())
    if doc is None:
        print(f"gradlint: unknown rule {args.code!r}", file=sys.stderr)
        return EXIT_ERROR
    print(doc.text, end="")
    return EXIT_CLEAN


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gradlint", description=__doc__)
    parser.add_argument("--version", action="version", version=f"gradlint {__version__}")
    if command == "rule":
        parser.add_argument("command")
        parser.add_argument("code")
        parser.set_defaults(run=_rule)
    elif command == "rules":
        parser.add_argument("command")
        parser.set_defaults(run=_rules)
    else:
        parser.add_argument("paths", nargs="*", metavar="PATH")
        parser.add_argument("--select", help="comma-separated codes or prefixes")
        parser.add_argument("--ignore", help="comma-separated codes or prefixes")
        parser.set_defaults(run=_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv and argv[0] in ("rule", "rules") else "check"
    try:
        args = _parser(command).parse_args(argv)
    except SystemExit as exit_:
        return EXIT_ERROR if exit_.code else EXIT_CLEAN
    return args.run(args)
