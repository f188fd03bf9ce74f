"""Cold and warm runs of the result cache on one corpus, in the same run.

    python benchmarks/cache_bench.py                  # the installed torch's nn/modules
    python benchmarks/cache_bench.py src/ --jobs 2

Each run is a `gradlint` subprocess against a fresh cache directory: cold (empty cache,
every file parsed and linted), warm (same files, same settings: every result read back),
then warm after touching one file's content (one file re-linted). CPU time (user +
system of the process and its workers) is the figure to trust on a shared machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def torch_modules() -> Path:
    spec = importlib.util.find_spec("torch")  # found without importing torch
    if spec is None or not spec.submodule_search_locations:
        sys.exit("cache_bench: torch is not installed; pass the paths to lint")
    return Path(next(iter(spec.submodule_search_locations))) / "nn" / "modules"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (process and children) and stdout of `command`."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    out = process.stdout.read().decode() if process.stdout else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"cache_bench: {' '.join(command)} failed: {process.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="cold (each into a new cache) and warm runs, best kept",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        for index, path in enumerate(args.paths or [torch_modules()]):
            shutil.copytree(path, corpus / str(index)) if path.is_dir() else None
            if path.is_file():
                (corpus / str(index)).mkdir(parents=True)
                shutil.copy(path, corpus / str(index))
        files = sorted(corpus.rglob("*.py"))
        lines = sum(f.read_bytes().count(b"\n") for f in files)
        # from bytecode, as `pip install` leaves a package (bench.py's BYTECODE_ENV)
        unset = ("GRADLINT_NO_CACHE", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in unset}
        imports = "import gradlint.cli, gradlint.engine, gradlint.checks, gradlint.runner"
        subprocess.run([sys.executable, "-c", imports], env=env, check=True)
        print(f"{len(files)} files, {lines:,} lines, --jobs {args.jobs}, best of {args.rounds}")
        colds, warms = [], []
        for round_ in range(args.rounds):  # cold and warm take turns (the machine drifts)
            cache = Path(scratch) / f"cache{round_}"
            command = [sys.executable, "-m", "gradlint", "--cache-dir", str(cache)]
            command += ["--jobs", str(args.jobs), str(corpus)]
            colds.append(timed(command, env))
            warms.append(timed(command, env))
            if warms[-1][2] != colds[-1][2]:
                sys.exit("cache_bench: the warm run's report differs from the cold run's")
        cold = min(colds, key=lambda run: run[1])
        warm = min(warms, key=lambda run: run[1])
        files[0].write_bytes(files[0].read_bytes() + b"\n# edited\n")
        edited = timed(command, env)
        for label, (wall, cpu, _) in (("cold", cold), ("warm", warm), ("one file edited", edited)):
            print(f"{label:<16} {wall:7.2f} s wall {cpu:7.2f} s cpu")
        print(f"warm vs cold: {cold[0] / warm[0]:.1f}x wall, {cold[1] / warm[1]:.1f}x cpu")
        size = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
        print(f"cache: {size:,} bytes for {len(files)} files")


if __name__ == "__main__":
    main()
