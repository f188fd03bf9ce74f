"""Command line: `gradlint [PATH ...]`, `gradlint rules`, `gradlint rule CODE`.

Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal error.
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import sys
from pathlib import Path

from gradlint import __version__
from gradlint.catalogue import catalogue_codes, load_catalogue
from gradlint.config import CODE_PROBES, Config, ConfigError, Resolver, parse_per_file_ignores
from gradlint.diagnostic import Diagnostic
from gradlint.report import DEFAULT_FORMAT, FORMATS, render, render_statistics
from gradlint.report.flake8 import format_line
from gradlint.terminal import Progress, colour_line, is_terminal, summary, use_colour

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
MACHINE_FORMATS = ("json", "sarif")  # --statistics goes to stderr so stdout stays parseable


def _comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):  # nan too
        raise argparse.ArgumentTypeError(f"must be a positive, finite number, got {text}")
    return value


# -- configuration ---------------------------------------------------------------------


def _overrides(args: argparse.Namespace) -> dict:
    """The command-line settings, under their `[tool.gradlint]` names (None: not given)."""
    return {
        "select": args.select,
        "ignore": args.ignore,
        "extend-select": args.extend_select,
        "exclude": args.exclude,
        "extend-exclude": args.extend_exclude,
        "no-grad-contexts": args.no_grad_contexts,
        "per-file-ignores": _per_file(args.per_file_ignores),
        "extend-per-file-ignores": _per_file(args.extend_per_file_ignores),
        "force-exclude": args.force_exclude,
        "probe": args.probe,
        "probe-timeout": args.probe_timeout,
        "cache-dir": _cache_dir(args),
        "no-cache": args.no_cache or None,
    }


def _per_file(text: str | None) -> dict | None:
    return parse_per_file_ignores(text) if text else None


def _cache_dir(args: argparse.Namespace) -> str | None:
    """`--cache-dir`, else $GRADLINT_CACHE_DIR (relative to the current directory)."""
    chosen = args.cache_dir or os.environ.get("GRADLINT_CACHE_DIR")
    return str(Path(chosen).absolute()) if chosen else None


def resolver(args: argparse.Namespace) -> Resolver:
    """Each path's Config: `--config FILE` for all, else its nearest configuration. A
    configuration file with bad values does not stop the run (Resolver's keep_going):
    the files under it are not linted, the others are, and the run reports it at the
    end. Bad flags raise ConfigError."""
    config_file = Path(args.config) if args.config else None
    return Resolver(_overrides(args), set(catalogue_codes()), config_file, keep_going=True)


def run_config(args: argparse.Namespace, configs: Resolver) -> Config:
    """The configuration of the first PATH (`--stdin-filename` for `-`): the run-wide
    settings (`probe`, `probe-timeout`) come from it."""
    first = args.paths[0] if args.paths else "."
    if first == "-":
        first = args.stdin_filename or "."
    return configs.for_path(first)


# -- the check command ------------------------------------------------------------------


def _lint(args: argparse.Namespace, configs: Resolver, found):
    """Lint the discovered files, each group of files sharing a Config in one run."""
    from gradlint.discovery import STDIN
    from gradlint.runner import RunResult, file_error, run

    groups: dict[int, tuple[Config, list[str]]] = {}
    for path in found.files:
        if path != STDIN:
            config = configs.for_path(path)
            groups.setdefault(id(config), (config, []))[1].append(path)
    result = RunResult()
    parts = [
        run(paths, config, args.jobs)
        for config, paths in groups.values()
        if configs.broken(config) is None  # a configuration file with bad values
    ]
    stdin = None
    if STDIN in found.files:
        stdin = (args.stdin_filename or STDIN, sys.stdin.buffer.read())
        config = configs.for_path(args.stdin_filename or ".")
        if configs.broken(config) is None:
            parts.append(run([], config, args.jobs, stdin))
    for part in parts:
        result.diagnostics.extend(part.diagnostics)
        result.internal_errors.extend(part.internal_errors)
        result.sources.update(part.sources)
    for path, reason in found.unreadable:
        config = configs.for_path(path)
        result.diagnostics.extend(file_error(path, f"Cannot read: {reason}", config))
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result, stdin


def _report_config_errors(configs: Resolver) -> bool:
    """Each bad configuration file's problems, one line each (its files were not
    linted); whether there were any."""
    for error in configs.errors.values():
        for line in error.lines():
            print(f"gradlint: error: {line}", file=sys.stderr)
        print(
            f"gradlint: error: {error.shown_file()}: the files it configures were not linted",
            file=sys.stderr,
        )
    return bool(configs.errors)


def _fix(args: argparse.Namespace, configs: Resolver, result, stdin) -> int | None:
    """Apply the fixes (`--fix`) or print them as a diff (`--diff`); updates `result` to
    the findings left. Returns the exit status for `--diff`, None otherwise."""
    from gradlint.autofix import ChangedOnDisk, enabled, fix_source, unified_diff, write_atomic
    from gradlint.runner import read_source

    unsafe = args.unsafe_fixes
    targets = {d.path for d in result.diagnostics if enabled(d.fix, unsafe)}
    if stdin is not None:
        targets.add(stdin[0])
    kept = [d for d in result.diagnostics if d.path not in targets]
    fixed, diffs, changed = [], [], 0
    for path in sorted(targets):
        is_stdin = stdin is not None and path == stdin[0]
        try:
            original = stdin[1] if is_stdin else read_source(path)
        except OSError as error:
            result.internal_errors.append(f"{path}: cannot read for fixing: {error}")
            kept.extend(d for d in result.diagnostics if d.path == path)
            continue
        outcome = fix_source(path, original, configs.for_path(path), unsafe)
        new = outcome.text.encode(_encoding(original)) if outcome.changed else original
        if not outcome.converged:
            print(f"gradlint: warning: {path}: fixes did not settle", file=sys.stderr)
        if is_stdin and not args.diff:
            sys.stdout.buffer.write(new)
            sys.stdout.flush()
        elif outcome.changed and args.diff:
            diffs.append(unified_diff(outcome))
        elif outcome.changed:
            try:
                write_atomic(path, original, new)
            except (ChangedOnDisk, OSError) as error:
                result.internal_errors.append(f"gradlint: error: {path}: {error}")
                kept.extend(d for d in result.diagnostics if d.path == path)
                continue
        changed += outcome.changed
        fixed.extend(outcome.fixed)
        kept.extend(outcome.diagnostics)
        if outcome.diagnostics:
            result.sources[path] = outcome.text
        result.internal_errors.extend(outcome.internal_errors)
    result.diagnostics = sorted(kept, key=Diagnostic.sort_key)
    verb = "would fix" if args.diff else "fixed"
    if fixed:
        print(f"gradlint: {verb} {len(fixed)} finding(s) in {changed} file(s)", file=sys.stderr)
    if args.show_fixes and fixed:
        quiet_stdout = args.diff or stdin is not None or args.format in MACHINE_FORMATS
        stream = sys.stderr if quiet_stdout and args.output is None else sys.stdout
        print(_fix_summary(fixed, verb), end="", file=stream)
    if not args.diff:
        return None
    sys.stdout.write("".join(diffs))
    if result.internal_errors:
        for message in result.internal_errors:
            print(message, file=sys.stderr)
        return EXIT_ERROR
    return EXIT_FINDINGS if changed else EXIT_CLEAN


def _encoding(source: bytes) -> str:
    from gradlint.guard import declared_encoding

    return declared_encoding(source) or "utf-8"


def _fix_summary(fixed: list[Diagnostic], verb: str) -> str:
    """ruff's `--show-fixes` list: per file, how many findings of each rule were fixed."""
    lines = [f"{verb.capitalize()} {len(fixed)} finding(s):"]
    by_path: dict[str, dict[tuple[str, str], int]] = {}
    for d in fixed:
        counts = by_path.setdefault(d.path, {})
        counts[d.code, d.name] = counts.get((d.code, d.name), 0) + 1
    for path, counts in sorted(by_path.items()):
        lines.append(f"- {path}:")
        lines += [f"    {n} × {code} ({name})" for (code, name), n in sorted(counts.items())]
    return "\n".join(lines) + "\n"


ALLOW_EXEC = "GRADLINT_ALLOW_EXEC"


def probe_mode(args: argparse.Namespace, config: Config) -> tuple[str | None, bool]:
    """(mode, asked on the command line). A configuration file (the linted project's own,
    maybe) never makes a run execute project code: its `probe = true`, "definitions" or
    "exec" runs witness probes only (a note says so), unless the user's environment opts
    in with GRADLINT_ALLOW_EXEC=1."""
    if args.probe is not None:
        return (None if args.probe == "off" else args.probe), True
    if config.probe in CODE_PROBES and os.environ.get(ALLOW_EXEC) != "1":
        print(
            f'gradlint: note: probe = "{config.probe}" in a configuration file runs witness '
            f"probes only (it would run the linted code); pass --probe on the command line "
            f"or set {ALLOW_EXEC}=1 to run it",
            file=sys.stderr,
        )
        return "witness", False
    return config.probe, False


def _probe(diagnostics, mode: str, config: Config, sources: dict[str, str]):
    """Findings with their runtime verdicts; raises ProbeUnavailable without torch.
    The code probes run a notebook's cells as the static side reads them (one script)."""
    from gradlint.probe import EXEC_WARNING, PROBE_CODES, run_probes

    if mode == "exec":
        print(EXEC_WARNING, file=sys.stderr)
    found = run_probes(
        diagnostics,
        mode=mode,
        timeout=config.probe_timeout,
        sources=sources,
        modules=config.probe_modules,
    )
    # The findings the probe adds obey `select`, `ignore` and `per-file-ignores` too.
    return [
        d
        for d in found
        if d.code not in PROBE_CODES
        or (config.is_selected(d.code) and not d.code.startswith(config.ignored_in(d.path)))
    ]


def _add_noqa(diagnostics: list[Diagnostic], stdin_name: str | None) -> int:
    """`--add-noqa`: a `# noqa: CODES` comment on each finding's line (in a notebook, in
    its cell's source), files rewritten. Stdin and files that do not parse (GL001) are
    left alone."""
    from gradlint.autofix import add_noqa_to_notebook
    from gradlint.suppression import add_noqa

    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        if d.code != "GL001" and d.path != stdin_name:
            by_path.setdefault(d.path, []).append(d)
    added = 0
    for path, found in by_path.items():
        try:
            source = Path(path).read_bytes()
            rewrite = add_noqa_to_notebook if path.endswith(".ipynb") else add_noqa
            new, count = rewrite(source, found)
            if count:
                Path(path).write_bytes(new)
        except OSError as error:
            print(f"gradlint: error: cannot rewrite {path}: {error.strerror}", file=sys.stderr)
            return EXIT_ERROR
        added += count
    print(f"Added {added} noqa directive{'' if added == 1 else 's'}.", file=sys.stderr)
    return EXIT_CLEAN


OUTPUT_ERRORS = "gradlint-output"


def _unencodable(error: UnicodeError) -> tuple[str | bytes, int]:
    """The codec error handler of gradlint's output: a file name's undecodable bytes (lone
    surrogates, as os reads them) written back as themselves, any other character the
    stream cannot encode (`PYTHONIOENCODING=ascii`, a non-ASCII name) as a backslash
    escape, as `errors="backslashreplace"` writes it; never a failed report."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    if all("\udc80" <= character <= "\udcff" for character in text):
        return bytes(ord(character) - 0xDC00 for character in text), error.end
    return codecs.backslashreplace_errors(error)


codecs.register_error(OUTPUT_ERRORS, _unencodable)


def _tolerant_stdout() -> None:
    """Standard output writes what its encoding cannot encode (see _unencodable)."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors=OUTPUT_ERRORS)


def _write(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        # surrogateescape: a file name that is not valid UTF-8 is written back as its bytes
        Path(output).write_text(text, encoding="utf-8", errors="surrogateescape")


def _check(args: argparse.Namespace) -> int:
    """The check command; a configuration file with bad values makes it exit 2 after
    linting every file under a valid one."""
    try:
        configs = resolver(args)
    except ConfigError as error:
        for line in error.lines():
            print(f"gradlint: error: {line}", file=sys.stderr)
        return EXIT_ERROR
    status = _check_with(args, configs)
    return EXIT_ERROR if _report_config_errors(configs) else status


def _check_with(args: argparse.Namespace, configs: Resolver) -> int:
    from gradlint.discovery import discover

    config = run_config(args, configs)
    found = discover(args.paths, configs)
    if found.missing:
        for path in found.missing:
            print(f"gradlint: error: {path}: no such file or directory", file=sys.stderr)
        return EXIT_ERROR
    progress = Progress(sys.stderr, len(found.files))
    try:
        result, stdin = _lint(args, configs, found)
    finally:
        progress.stop()
    if args.add_noqa:
        return _add_noqa(result.diagnostics, stdin[0] if stdin else None)
    if args.fix or args.diff:
        status = _fix(args, configs, result, stdin)
        if status is not None:
            return status
    diagnostics = result.diagnostics
    mode, asked = probe_mode(args, config)
    if mode:
        from gradlint.probe import ProbeUnavailable

        try:
            diagnostics = _probe(diagnostics, mode, config, result.sources)
        except ProbeUnavailable as error:
            if asked:
                print(f"gradlint: error: {error}", file=sys.stderr)
                return EXIT_ERROR
            print(
                f"gradlint: warning: probe setting of the configuration skipped ({error}); "
                "static findings only",
                file=sys.stderr,
            )
        if args.hide_refuted:
            diagnostics = [d for d in diagnostics if (d.probe or {}).get("verdict") != "refuted"]
    fmt = "full" if args.show_source and args.format == DEFAULT_FORMAT else args.format
    on_terminal = args.output is None and fmt == DEFAULT_FORMAT
    if on_terminal and use_colour(sys.stdout):
        report = "".join(colour_line(d, format_line(d)) + "\n" for d in diagnostics)
    else:
        report = render(diagnostics, fmt, result.sources, unsafe_fixes=args.unsafe_fixes)
    if args.fix and stdin is not None and args.output is None:
        sys.stderr.write(report)  # stdout carries the fixed source
        report = ""
    try:
        _write(report, args.output)
    except OSError as error:
        print(f"gradlint: error: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return EXIT_ERROR
    if args.statistics:
        to_stderr = args.output is None and (fmt in MACHINE_FORMATS or bool(args.fix and stdin))
        stream = sys.stderr if to_stderr else sys.stdout
        print(render_statistics(diagnostics), end="", file=stream)
    for message in result.internal_errors:
        print(message, file=sys.stderr)
    if on_terminal and is_terminal(sys.stdout):
        print(summary(len(diagnostics)), file=sys.stderr)
    if result.internal_errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if diagnostics and not args.exit_zero else EXIT_CLEAN


# -- catalogue commands -------------------------------------------------------------------


def _rules(_: argparse.Namespace) -> int:
    for doc in load_catalogue().values():
        print(f"{doc.code}  {doc.name:32}  {doc.severity.value:7}  {doc.summary}")
    return EXIT_CLEAN


def _rule(args: argparse.Namespace) -> int:
    """One rule's documentation; a prefix (`GL1`) prints every rule it covers."""
    prefix = args.code.upper()
    docs = [doc for code, doc in load_catalogue().items() if code.startswith(prefix)]
    if not docs:
        print(
            f"gradlint: error: unknown rule {args.code!r} (see `gradlint rules`)", file=sys.stderr
        )
        return EXIT_ERROR
    print("\n".join(doc.text for doc in docs), end="")
    return EXIT_CLEAN


def _server(_: argparse.Namespace) -> int:
    try:
        from gradlint.server import main as serve
    except ImportError as error:
        print(
            f"gradlint: error: `gradlint server` needs pygls ({error.name} is missing): "
            "pip install 'torch-gradlint[server]'",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return serve()


# -- argument parsing -----------------------------------------------------------------------


def _add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: .); - is stdin"
    )
    rules = parser.add_argument_group("rule selection (comma-separated codes or prefixes)")
    rules.add_argument("--select", type=_comma_list, help="rules to run (default: GL)")
    rules.add_argument("--ignore", type=_comma_list, help="rules to skip")
    rules.add_argument("--extend-select", type=_comma_list, help="rules added to select")
    rules.add_argument(
        "--per-file-ignores",
        metavar="GLOB:CODES ...",
        help='rules skipped in matching files, e.g. "tests/*:GL101,GL102 scripts/*:GL5"',
    )
    rules.add_argument(
        "--extend-per-file-ignores",
        metavar="GLOB:CODES ...",
        help="added to per-file-ignores",
    )
    files = parser.add_argument_group("files")
    files.add_argument(
        "--exclude", type=_comma_list, metavar="GLOBS", help="replaces the default excludes"
    )
    files.add_argument(
        "--extend-exclude", type=_comma_list, metavar="GLOBS", help="added to the excludes"
    )
    files.add_argument(
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        help="apply exclude to paths named on the command line too (for pre-commit)",
    )
    files.add_argument(
        "--config", metavar="FILE", help="settings file for every path (default: the nearest)"
    )
    files.add_argument("--cache-dir", metavar="DIR", help="result cache (default: .gradlint_cache)")
    files.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    files.add_argument("--stdin-filename", metavar="PATH", help="path reported for -")
    files.add_argument(
        "--jobs", "-j", type=_positive_int, metavar="N", help="worker processes (default: CPUs)"
    )
    analysis = parser.add_argument_group("analysis")
    analysis.add_argument(
        "--no-grad-contexts",
        type=_comma_list,
        metavar="NAMES",
        help="your own decorators / context managers that act like torch.no_grad",
    )
    analysis.add_argument(
        "--probe",
        nargs="?",
        const="definitions",
        choices=("witness", "definitions", "exec", "off"),
        help="check findings at run time with torch: runs the definitions of your modules "
        "(=witness: only the rules' examples; =exec: whole modules, module-level code too)",
    )
    analysis.add_argument(
        "--no-probe", dest="probe", action="store_const", const="off", help="same as --probe=off"
    )
    analysis.add_argument(
        "--probe-timeout", type=_positive_float, metavar="SECONDS", help="per probe (default 10)"
    )
    analysis.add_argument(
        "--hide-refuted", action="store_true", help="drop findings a probe refuted"
    )
    fixing = parser.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true", help="apply the safe fixes")
    fixing.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply (and mark as fixable) the fixes that may change behaviour",
    )
    fixing.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff and write nothing (exit 1 if any)",
    )
    fixing.add_argument("--show-fixes", action="store_true", help="list what was fixed")
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=FORMATS, default=DEFAULT_FORMAT, help="default: flake8")
    output.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
    output.add_argument("--show-source", action="store_true", help="same as --format full")
    output.add_argument("--statistics", action="store_true", help="count findings per code")
    output.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    output.add_argument(
        "--add-noqa",
        action="store_true",
        help="add `# noqa: CODES` to every line with a finding (baseline a legacy codebase)",
    )


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout at the width shutil would find, without importing shutil
    (zlib, bz2, lzma: a tenth of a warm run), which argparse does for each argument added."""

    def __init__(self, prog: str, **kwargs) -> None:
        kwargs.setdefault("width", _terminal_columns() - 2)
        super().__init__(prog, **kwargs)


def _terminal_columns() -> int:
    """shutil.get_terminal_size's columns: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradlint",
        formatter_class=_HelpFormatter,
        description="Static linter for PyTorch gradient pitfalls.",
        epilog="Also: `gradlint rules` lists the rules, `gradlint rule CODE` documents one, "
        "`gradlint server` is a language server over stdio. "
        "Exit status: 0 clean, 1 findings, 2 error.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"gradlint {__version__}")
    if command == "rule":
        parser.add_argument("command")
        parser.add_argument("code")
        parser.set_defaults(run=_rule)
    elif command == "rules":
        parser.add_argument("command")
        parser.set_defaults(run=_rules)
    elif command == "server":
        parser.add_argument("command")
        parser.set_defaults(run=_server)
    else:
        _add_check_arguments(parser)
        parser.set_defaults(run=_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # A bare `--probe` must not take the next path as its value.
    argv = ["--probe=definitions" if arg == "--probe" else arg for arg in argv]
    command = argv[0] if argv and argv[0] in ("rule", "rules", "server") else "check"
    try:
        args = _parser(command).parse_args(argv)
    except SystemExit as exit_:
        return EXIT_ERROR if exit_.code else EXIT_CLEAN
    _tolerant_stdout()
    try:
        return args.run(args)
    except Exception as error:  # exit 1 means findings: a crash must not look like them
        from gradlint.guard import internal_error

        print(f"gradlint: {internal_error('', error)}", file=sys.stderr)
        return EXIT_ERROR
