"""Lint a real corpus with gradlint (one process, then a pool) and, on the same files,
with TorchFix when it is installed; print files/s, lines/s, peak memory and the ratio.

    python benchmarks/bench.py                       # the installed torch package's sources
    python benchmarks/bench.py src/ --jobs 4         # any paths
    python benchmarks/bench.py --torchfix /path/to/venv/bin/torchfix --sample 200
    python benchmarks/bench.py --files 300           # a spread sample, for a busy machine
    python benchmarks/bench.py --profile             # cProfile of the engine, in-process

Every tool runs as a subprocess, timed by wall clock and by CPU time (user + system, its
workers included: the figure to trust on a busy machine); peak memory is the largest
resident set of that subprocess or any of its workers (`wait4` rusage).
"""

from __future__ import annotations

import argparse
import cProfile
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


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (its workers included) and peak RSS in MB of a subprocess
    that exits 0 or 1 (2 is accepted with a note when files hit internal errors)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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


def run_gradlint(files: list[Path], lines: int, jobs: int) -> Timing:
    return Timing(
        f"gradlint --jobs {jobs}", len(files), lines, *timed(gradlint_command(files, jobs))
    )


def run_torchfix(torchfix: str, files: list[Path], lines: int, jobs: int) -> Timing:
    command = [torchfix, "--jobs", str(jobs), *map(str, files)]
    return Timing(f"torchfix --jobs {jobs}", len(files), lines, *timed(command))


def small_file_wall_time(repeat: int) -> float:
    """Median wall time of `gradlint <one small file>`, interpreter start-up included."""
    runs = [timed(gradlint_command([SMALL_FILE], 1))[0] for _ in range(repeat)]
    return statistics.median(runs)


def profile_engine(files: list[Path], top: int) -> None:
    """cProfile of `lint_source` over the files in this process (no pool, no CLI)."""
    from gradlint.engine import lint_source

    sources = [(str(f), f.read_bytes()) for f in files]
    profiler = cProfile.Profile()
    profiler.enable()
    for path, source in sources:
        lint_source(path, source)
    profiler.disable()
    stats = pstats.Stats(profiler).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def find_torchfix(given: str | None) -> str | None:
    if given:
        if not shutil.which(given):
            sys.exit(f"bench: --torchfix {given} is not an executable")
        return given
    return shutil.which("torchfix")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="default: the torch package")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="pool size")
    parser.add_argument("--torchfix", help="the torchfix executable (default: on PATH)")
    parser.add_argument(
        "--files", type=int, help="lint only this many files, spread over the corpus"
    )
    parser.add_argument(
        "--sample", type=int, default=100, help="files compared with torchfix (default 100)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs of the one-file timing")
    parser.add_argument("--profile", action="store_true", help="print a cProfile instead")
    parser.add_argument("--top", type=int, default=25, help="rows of the profile")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    roots = args.paths or [torch_sources()]
    files = python_files(roots)
    if args.files:
        files = spread_sample(files, args.files)
    if not files:
        sys.exit("bench: no Python files")
    if args.profile:
        profile_engine(files, args.top)
        return
    lines = count_lines(files)
    print(f"corpus: {len(files)} files, {lines:,} lines under {', '.join(map(str, roots))}")
    for jobs in dict.fromkeys((1, args.jobs)):
        print(run_gradlint(files, lines, jobs))

    torchfix = find_torchfix(args.torchfix)
    if torchfix is None:
        print("torchfix: not installed (pass --torchfix PATH); no comparison")
    else:
        sample = spread_sample(files, args.sample)
        sample_lines = count_lines(sample)
        print(f"same {len(sample)} files ({sample_lines:,} lines), one process each:")
        ours = run_gradlint(sample, sample_lines, 1)
        theirs = run_torchfix(torchfix, sample, sample_lines, 1)
        print(ours)
        print(theirs)
        wall = ours.files_per_second / theirs.files_per_second
        cpu = ours.files_per_cpu_second / theirs.files_per_cpu_second
        print(f"gradlint / torchfix files/s: {wall:.1f}x by wall clock, {cpu:.1f}x by CPU time")
    wall = small_file_wall_time(args.repeat)
    print(f"one small file, start-up included: {wall:.3f} s (median of {args.repeat})")


if __name__ == "__main__":
    main()
