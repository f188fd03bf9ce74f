"""The shape engine's share of lint time on a real corpus (default: the installed torch).

    python benchmarks/shapes_share.py                 # every file of the torch package
    python benchmarks/shapes_share.py src/ --sample 300

Lints every file with all rules in this process and measures, with CPU time, the time
the interpreter spends in its shape part (`ShapeFlow.refine`, once per evaluated
expression) against the total. Also reports how many expressions were refined.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

from gradlint.analysis.dataflow.shapes import ShapeFlow
from gradlint.engine import lint_source


class _Meter:
    """CPU time inside `ShapeFlow.refine` (outermost calls only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.analyses = 0
        self._depth = 0

    def wrap(self, refine):
        def timed(analysis, *args, **kwargs):
            self.analyses += 1
            self._depth += 1
            start = time.process_time()
            try:
                return refine(analysis, *args, **kwargs)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.seconds += time.process_time() - start

        return timed


def _torch_root() -> Path:
    spec = importlib.util.find_spec("torch")
    return Path(spec.origin).parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--sample", type=int, default=0, help="lint only every n-th file")
    args = parser.parse_args()
    roots = args.paths or [_torch_root()]
    files = sorted(p for root in roots for p in root.rglob("*.py"))
    if args.sample:
        files = files[:: max(1, len(files) // args.sample)]
    meter = _Meter()
    ShapeFlow.refine = meter.wrap(ShapeFlow.refine)
    start = time.process_time()
    findings = 0
    for path in files:
        findings += len(lint_source(str(path), path.read_bytes()).diagnostics)
    total = time.process_time() - start
    share = meter.seconds / total if total else 0.0
    print(f"files: {len(files)}  findings: {findings}  expressions refined: {meter.analyses}")
    print(f"lint CPU time: {total:.1f}s  shape engine: {meter.seconds:.1f}s ({share:.1%})")


if __name__ == "__main__":
    main()
