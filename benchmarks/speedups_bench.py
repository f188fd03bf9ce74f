"""What gradlint/speedups.py (libcst node constructors) buys on three real uses.

    python benchmarks/speedups_bench.py --project DIR [--rounds 3]

- pre-commit: `gradlint --force-exclude --no-cache` on 5 files of DIR (the largest five
  under 1,500 lines that name torch), a new process each time, start-up included;
- CI: `gradlint --no-cache -j 2 DIR`, a whole project (timm's 93k lines in
  docs/performance.md);
- editor: one of those files linted again in a warm process (`runner.lint_file` with the
  source, as the language server does), 5 times, the process's own CPU time.

Each use runs with the speedups on and off (GRADLINT_NO_SPEEDUPS=1), in alternation, the
best of --rounds kept. CPU time (user + system, children included), not wall time: the
machine may be shared. Prints each use's times and the share the speedups save (time off
minus time on, over time off).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

EDITOR_LINTS = 5
EDITOR = """
import sys, time
from gradlint.config import Config
from gradlint.runner import lint_file
path = sys.argv[1]
source = open(path, 'rb').read()
lint_file(path, Config(), source)  # the first lint of the session is not a re-lint
start = time.process_time()
for _ in range({lints}):
    lint_file(path, Config(), source)
print(time.process_time() - start)
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _environment(on: bool) -> dict:
    env = dict(os.environ)
    env.pop("GRADLINT_NO_SPEEDUPS", None)
    if not on:
        env["GRADLINT_NO_SPEEDUPS"] = "1"
    return env


def _cpu_of(command: list[str], on: bool, cwd: str) -> float:
    before = _children_cpu()
    subprocess.run(command, env=_environment(on), cwd=cwd, capture_output=True, check=False)
    return _children_cpu() - before


def _editor(path: Path, on: bool, cwd: str) -> float:
    command = [sys.executable, "-c", EDITOR.format(lints=EDITOR_LINTS), str(path)]
    done = subprocess.run(
        command, env=_environment(on), cwd=cwd, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def _files(project: Path) -> list[Path]:
    sized = []
    for path in project.rglob("*.py"):
        text = path.read_bytes()
        if text.count(b"\n") < 1500 and b"torch" in text:
            sized.append((text.count(b"\n"), path))
    sized.sort(reverse=True)
    return [path for _, path in sized[:5]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--uses", default="pre-commit,ci,editor")
    args = parser.parse_args()
    project = args.project.resolve()
    five = _files(project)
    gradlint = [sys.executable, "-m", "gradlint", "--exit-zero"]
    uses = {
        "pre-commit": lambda on, cwd: _cpu_of(
            [*gradlint, "--force-exclude", "--no-cache", *map(str, five)], on, cwd
        ),
        "ci": lambda on, cwd: _cpu_of([*gradlint, "--no-cache", "-j", "2", str(project)], on, cwd),
        "editor": lambda on, cwd: _editor(five[0], on, cwd),
    }
    lines = sum(p.read_bytes().count(b"\n") for p in project.rglob("*.py"))
    print(f"project {project} ({lines} lines); pre-commit files: {[p.name for p in five]}")
    print(f"editor file: {five[0].name}; rounds {args.rounds}, CPU seconds, best kept")
    with tempfile.TemporaryDirectory() as cwd:
        for use in args.uses.split(","):
            best = {True: float("inf"), False: float("inf")}
            for _ in range(args.rounds):
                for on in (True, False):
                    best[on] = min(best[on], uses[use](on, cwd))
            saved = (best[False] - best[True]) / best[False]
            print(f"{use}: on {best[True]:.3f} s, off {best[False]:.3f} s, saves {saved:.1%}")


if __name__ == "__main__":
    main()
