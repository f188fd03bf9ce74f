"""Lint real corpora cold with gradlint and, on the same files in the same run, parse
them with libcst alone (the floor of any libcst linter) and lint them with TorchFix when
it is installed; print CPU seconds, files/s, lines/s, peak memory and both ratios.

    python benchmarks/bench.py                       # torch's nn/modules (installed torch)
    python benchmarks/bench.py --set timm --set transformers --files 300
    python benchmarks/bench.py src/ --jobs 4         # any paths
    python benchmarks/bench.py --torchfix /path/to/venv/bin/torchfix
    python benchmarks/bench.py --baseline /tmp/old-checkout   # also an older gradlint
    python benchmarks/bench.py --profile             # cProfile of the engine, in-process
    python benchmarks/bench.py --set dino --index    # the project index's cost on a project

Sets: `nn-modules` and `torch` (the installed torch package) and the projects that
benchmarks/corpora.py caches (`timm`, `transformers`, `torchvision`, `lightning`, ...,
under ~/.cache/gradlint-corpora/src). Every tool runs as a subprocess, one process
(`--jobs 1`), cache off, timed by wall clock and by CPU time (user + system, workers
included: the figure to trust on a busy machine); peak memory is the largest resident
set of that subprocess or any of its workers (`wait4` rusage). A pool run (`--jobs`)
follows for the wall time.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib.util
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SMALL_FILE = Path(__file__).resolve().parent.parent / "examples" / "custom_layer.py"
CORPORA = Path("~/.cache/gradlint-corpora/src").expanduser()  # benchmarks/corpora.py's
# One process parsing each file with libcst, nothing else: what a libcst linter cannot
# go below.
PARSE_ONLY = (
    "import sys, libcst\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, 'rb') as file:\n"
    "        libcst.parse_module(file.read())\n"
)


@dataclass
class Timing:
    label: str
    files: int
    lines: int
    seconds: float
    cpu_seconds: float
    peak_rss_mb: float

    @property
    def files_per_second(self) -> float:
        return self.files / self.seconds

    @property
    def files_per_cpu_second(self) -> float:
        return self.files / self.cpu_seconds

    def __str__(self) -> str:
        return (
            f"{self.label:<20} {self.files:>5} files {self.seconds:>7.2f} s wall "
            f"{self.cpu_seconds:>7.2f} s cpu {self.files_per_second:>7.1f} files/s "
            f"{self.lines / self.seconds:>8,.0f} lines/s {self.peak_rss_mb:>5.0f} MB peak RSS"
        )


def torch_sources() -> Path:
    """The installed torch package's directory, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("bench: torch is not installed; pass the paths to lint")
    return Path(next(iter(spec.submodule_search_locations)))


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return [f for f in files if f.is_file()]


def count_lines(files: list[Path]) -> int:
    return sum(f.read_bytes().count(b"\n") for f in files)


def spread_sample(files: list[Path], size: int) -> list[Path]:
    """`size` files spread evenly over the sorted list (deterministic, all directories)."""
    if size >= len(files):
        return files
    step = len(files) / size
    return [files[int(i * step)] for i in range(size)]


# Every tool runs from compiled bytecode, as `pip install` leaves a package: where the
# environment says PYTHONDONTWRITEBYTECODE (CI machines do), gradlint would compile its
# sources on every start while libcst and TorchFix load theirs from site-packages. An
# untimed start (`compiled`) writes gradlint's `__pycache__` (git-ignored) first.
BYTECODE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
IMPORT_ALL = "import gradlint.cli, gradlint.engine, gradlint.checks, gradlint.runner"


@functools.cache
def compiled(cwd: Path | None = None) -> None:
    """Write the bytecode of the gradlint that runs from `cwd` (untimed)."""
    subprocess.run([sys.executable, "-c", IMPORT_ALL], env=BYTECODE_ENV, cwd=cwd, check=True)


def timed(
    command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (its workers included) and peak RSS in MB of a subprocess
    that exits 0 or 1 (2 is accepted with a note when files hit internal errors)."""
    env = {**BYTECODE_ENV, **(env or {})}
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    stderr = process.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code == 2 and "internal error" in stderr:
        print(f"  note: {command[2]} exit 2, {stderr.count('internal error')} internal errors")
    elif code not in (0, 1):
        sys.exit(f"bench: {' '.join(command[:4])} ... exited {code}\n{stderr[-3000:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def gradlint_command(files: list[Path], jobs: int) -> list[str]:
    return [sys.executable, "-m", "gradlint", "--jobs", str(jobs), *map(str, files)]


def run_gradlint(files: list[Path], lines: int, jobs: int, baseline: Path | None = None) -> Timing:
    """gradlint, cold (GRADLINT_NO_CACHE); `baseline`: the gradlint of that checkout (run
    from there: `python -m` puts the current directory first on the path)."""
    env = {"GRADLINT_NO_CACHE": "1"}
    compiled(baseline)
    label = f"gradlint --jobs {jobs}"
    if baseline is not None:
        label = f"{baseline.name} --jobs {jobs}"
    return Timing(label, len(files), lines, *timed(gradlint_command(files, jobs), env, baseline))


# gradlint with the project index off: each file linted on its own text, as before the
# index (issue 29 asks a whole project to cost at most 1.3x that).
WITHOUT_INDEX = (
    "import sys, gradlint.project\n"
    "gradlint.project.linked = lambda path, source: None\n"
    "from gradlint.cli import main\n"
    "raise SystemExit(main(sys.argv[1:]))\n"
)


def run_gradlint_without_index(files: list[Path], lines: int) -> Timing:
    compiled()
    command = [sys.executable, "-c", WITHOUT_INDEX, "--jobs", "1", *map(str, files)]
    timing = timed(command, {"GRADLINT_NO_CACHE": "1"})
    return Timing("gradlint, no index", len(files), lines, *timing)


def run_parse_only(files: list[Path], lines: int) -> Timing:
    command = [sys.executable, "-c", PARSE_ONLY, *map(str, files)]
    return Timing("libcst parse only", len(files), lines, *timed(command))


def run_torchfix(torchfix: str, files: list[Path], lines: int, jobs: int) -> Timing:
    command = [torchfix, "--jobs", str(jobs), *map(str, files)]
    return Timing(f"torchfix --jobs {jobs}", len(files), lines, *timed(command))


def small_file_wall_time(repeat: int) -> float:
    """Median wall time of `gradlint <one small file>` cold (no result cache), interpreter
    start-up included."""
    compiled()
    cold = {"GRADLINT_NO_CACHE": "1"}
    runs = [timed(gradlint_command([SMALL_FILE], 1), cold)[0] for _ in range(repeat)]
    return statistics.median(runs)


def profile_engine(files: list[Path], top: int) -> None:
    """cProfile of the engine over the files in this process (no pool, no CLI), on one
    deep-stack thread (cProfile sees only the thread it is enabled in), and the shares of
    the libcst parse and of the dataflow interpreter."""
    from gradlint.config import Config
    from gradlint.engine import lint_in_thread
    from gradlint.guard import deep_call

    sources = [(str(f), f.read_bytes()) for f in files]
    profiler = cProfile.Profile()

    def lint_all() -> None:
        profiler.enable()
        for path, source in sources:
            lint_in_thread(path, source, Config())
        profiler.disable()

    deep_call(lint_all)
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    for label, file_end, function in SHARES:
        seconds = max(
            (
                row[3]
                for key, row in stats.stats.items()
                if key[0].endswith(file_end) and key[2] == function
            ),
            default=0.0,
        )
        print(f"{label}: {seconds:.2f} s of {total:.2f} s profiled ({seconds / total:.0%})")
    stats.strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


# (label, file, function) whose cumulative time the profile reports as a share.
SHARES = (
    ("libcst parse", "libcst/_parser/entrypoints.py", "parse_module"),
    ("dataflow interpreter", "dataflow/interpreter/core.py", "__init__"),
    ("checkers' walk", "gradlint/engine.py", "run"),
)


def find_torchfix(given: str | None) -> str | None:
    if given:
        if not shutil.which(given):
            sys.exit(f"bench: --torchfix {given} is not an executable")
        return given
    return shutil.which("torchfix")


def corpus_set(name: str) -> Path:
    """The directory of a named set (see the module docstring)."""
    if name in ("torch", "nn-modules"):
        torch = torch_sources()
        return torch if name == "torch" else torch / "nn" / "modules"
    found = sorted(CORPORA.glob(f"{name}-*")) if CORPORA.is_dir() else []
    if not found:
        sys.exit(f"bench: no set {name!r} (run benchmarks/corpora.py --project {name} first)")
    return found[-1]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="default: --set nn-modules")
    parser.add_argument(
        "--set", action="append", default=[], dest="sets", help="a named corpus (repeatable)"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="pool size")
    parser.add_argument("--torchfix", help="the torchfix executable (default: on PATH)")
    parser.add_argument(
        "--baseline",
        type=Path,
        action="append",
        default=[],
        help="a gradlint checkout (its root) to time as well (repeatable)",
    )
    parser.add_argument(
        "--files", type=int, help="lint only this many files per corpus, spread over it"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs of the one-file timing")
    parser.add_argument(
        "--rounds", type=int, default=1, help="runs of each tool, taking turns (best kept)"
    )
    parser.add_argument(
        "--index",
        action="store_true",
        help="also time gradlint with the project index off (the index's cost)",
    )
    parser.add_argument("--profile", action="store_true", help="print a cProfile instead")
    parser.add_argument("--top", type=int, default=25, help="rows of the profile")
    return parser.parse_args(argv)


def bench_corpus(
    name: str,
    files: list[Path],
    jobs: int,
    torchfix: str | None,
    baselines: list[Path],
    rounds: int = 1,
    index: bool = False,
) -> None:
    """Each tool `rounds` times, the tools taking turns within a round (a shared machine's
    speed drifts over a minute: turns keep the ratios fair), the fastest run of each."""
    lines = count_lines(files)
    print(f"\n{name}: {len(files)} files, {lines:,} lines, best of {rounds}")
    runs: dict[str, list[Timing]] = {}
    for _ in range(rounds):
        runs.setdefault("floor", []).append(run_parse_only(files, lines))
        runs.setdefault("ours", []).append(run_gradlint(files, lines, 1))
        for baseline in baselines:
            runs.setdefault(str(baseline), []).append(run_gradlint(files, lines, 1, baseline))
        if torchfix is not None:
            runs.setdefault("torchfix", []).append(run_torchfix(torchfix, files, lines, 1))
        if index:
            runs.setdefault("alone", []).append(run_gradlint_without_index(files, lines))
    best = {key: min(timings, key=lambda t: t.cpu_seconds) for key, timings in runs.items()}
    floor, ours = best["floor"], best["ours"]
    print(floor)
    print(ours)
    print(f"  gradlint / libcst parse-only CPU: {ours.cpu_seconds / floor.cpu_seconds:.2f}x")
    if rounds > 1:  # each round's own ratio (its runs are seconds apart)
        pairs = zip(runs["floor"], runs["ours"], strict=True)
        paired = [lint.cpu_seconds / parse.cpu_seconds for parse, lint in pairs]
        listed = ", ".join(f"{r:.2f}x" for r in paired)
        print(f"  per round: {listed}; median {statistics.median(paired):.2f}x")
    for baseline in baselines:
        old = best[str(baseline)]
        print(old)
        print(
            f"  {baseline.name} / libcst parse-only CPU: {old.cpu_seconds / floor.cpu_seconds:.2f}x"
        )
    if torchfix is not None:
        theirs = best["torchfix"]
        print(theirs)
        print(f"  torchfix / gradlint CPU: {theirs.cpu_seconds / ours.cpu_seconds:.1f}x")
    if index:
        alone = best["alone"]
        print(alone)
        ratio = ours.cpu_seconds / alone.cpu_seconds
        print(f"  gradlint / gradlint without the index CPU: {ratio:.2f}x")
        if rounds > 1:
            pairs = zip(runs["alone"], runs["ours"], strict=True)
            paired = [whole.cpu_seconds / files.cpu_seconds for files, whole in pairs]
            listed = ", ".join(f"{r:.2f}x" for r in paired)
            print(f"  per round: {listed}; median {statistics.median(paired):.2f}x")
    if jobs > 1:
        print(run_gradlint(files, lines, jobs))


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    corpora = [(str(path), path.resolve()) for path in args.paths]
    corpora += [(name, corpus_set(name)) for name in args.sets]
    corpora = corpora or [("nn-modules", corpus_set("nn-modules"))]
    torchfix = find_torchfix(args.torchfix)
    if torchfix is None and not args.profile:
        print("torchfix: not installed (pass --torchfix PATH); no comparison")
    for name, root in corpora:
        files = python_files([root])
        if args.files:
            files = spread_sample(files, args.files)
        if not files:
            sys.exit(f"bench: no Python files under {root}")
        if args.profile:
            print(f"\n{name}: {len(files)} files")
            profile_engine(files, args.top)
        else:
            bench_corpus(name, files, args.jobs, torchfix, args.baseline, args.rounds, args.index)
    if not args.profile:
        wall = small_file_wall_time(args.repeat)
        print(f"\none small file, cold, start-up included: {wall:.3f} s (median of {args.repeat})")


if __name__ == "__main__":
    main()
