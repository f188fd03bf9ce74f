"""What each optimisation of gradlint/speedups.py buys on three real uses.

    python benchmarks/speedups_bench.py --project DIR [--rounds 3]

- pre-commit: `gradlint --force-exclude --no-cache` on 5 files of DIR (the largest five
  under 1,500 lines), a new process each time, start-up included;
- CI: `gradlint --no-cache -j 2 DIR`, a whole project (timm's 93k lines in the README's
  figures);
- editor: one file of DIR linted again in a warm process (`runner.lint_file` with the
  source, as the language server does), 5 times, the process's own CPU time.

Each use runs with every optimisation on, with each one off (GRADLINT_NO_SPEEDUPS=name)
and with all off, in alternation, the best of --rounds kept. CPU time (user + system,
children included), not wall time: the machine may be shared. Prints, per use, each
variant's time and the share of the all-on time the optimisation saves (its time off
minus all on, over its time off).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

NAMES = ("constructors", "c_slots")
VARIANTS = ("", *NAMES, "1")
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


def _environment(variant: str) -> dict:
    env = dict(os.environ)
    env.pop("GRADLINT_NO_SPEEDUPS", None)
    if variant:
        env["GRADLINT_NO_SPEEDUPS"] = variant
    return env


def _cpu_of(command: list[str], variant: str, cwd: str) -> float:
    before = _children_cpu()
    subprocess.run(command, env=_environment(variant), cwd=cwd, capture_output=True, check=False)
    return _children_cpu() - before


def _editor(path: Path, variant: str, cwd: str) -> float:
    command = [sys.executable, "-c", EDITOR.format(lints=EDITOR_LINTS), str(path)]
    done = subprocess.run(
        command, env=_environment(variant), cwd=cwd, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def _files(project: Path) -> tuple[list[Path], Path]:
    sized = []
    for path in project.rglob("*.py"):
        lines = path.read_bytes().count(b"\n")
        if lines < 1500 and b"torch" in path.read_bytes():
            sized.append((lines, path))
    sized.sort(reverse=True)
    five = [path for _, path in sized[:5]]
    return five, five[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--uses", default="pre-commit,ci,editor")
    args = parser.parse_args()
    project = args.project.resolve()
    five, one = _files(project)
    gradlint = [sys.executable, "-m", "gradlint", "--exit-zero"]
    uses = {
        "pre-commit": lambda v, cwd: _cpu_of(
            [*gradlint, "--force-exclude", "--no-cache", *map(str, five)], v, cwd
        ),
        "ci": lambda v, cwd: _cpu_of([*gradlint, "--no-cache", "-j", "2", str(project)], v, cwd),
        "editor": lambda v, cwd: _editor(one, v, cwd),
    }
    lines = sum(p.read_bytes().count(b"\n") for p in project.rglob("*.py"))
    print(f"project {project} ({lines} lines); pre-commit files: {[p.name for p in five]}")
    print(f"editor file: {one.name}; rounds {args.rounds}, CPU seconds, best kept")
    with tempfile.TemporaryDirectory() as cwd:
        for use in args.uses.split(","):
            best = {variant: float("inf") for variant in VARIANTS}
            for _ in range(args.rounds):
                for variant in VARIANTS:
                    best[variant] = min(best[variant], uses[use](variant, cwd))
            on = best[""]
            print(f"\n{use}: all on {on:.3f} s, all off {best['1']:.3f} s")
            for name in NAMES:
                off = best[name]
                print(f"  without {name:15} {off:.3f} s  saves {(off - on) / off:6.1%}")


if __name__ == "__main__":
    main()
