"""Runtime-probe benchmark: the one-time worker start (torch import) and the wall time
per confirmed finding, over the Bad examples of the rule catalogue.

    python benchmarks/probe_bench.py [--exec]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gradlint.catalogue import load_catalogue
from gradlint.engine import lint_source
from gradlint.probe.planner import CONFIRMED, plan_exec, plan_witnesses, witness_verdict
from gradlint.probe.sandbox import Sandbox


def _bad_examples():
    for doc in load_catalogue().values():
        for i, source in enumerate(doc.bad_examples):
            yield f"{doc.code}_bad{i}.py", source


def _summary(label: str, seconds: list[float]) -> str:
    if not seconds:
        return f"{label}: none"
    return (
        f"{label}: n={len(seconds)} mean={statistics.mean(seconds) * 1000:.0f} ms "
        f"median={statistics.median(seconds) * 1000:.0f} ms max={max(seconds) * 1000:.0f} ms"
    )


def bench_witnesses(sandbox: Sandbox) -> list[float]:
    """Seconds per confirmed finding; the slowest jobs are printed (the first one that
    builds an optimizer pays torch's lazy `torch._dynamo` import, once per run)."""
    findings = [d for name, src in _bad_examples() for d in lint_source(name, src).diagnostics]
    times, slowest = [], []
    for job in plan_witnesses(findings):
        began = time.perf_counter()
        result = witness_verdict(job.witness, sandbox.run(job.request))
        elapsed = time.perf_counter() - began
        slowest.append((elapsed, job.code, result["verdict"]))
        if result["verdict"] == CONFIRMED:
            times.extend([elapsed / len(job.findings)] * len(job.findings))
    for elapsed, code, verdict in sorted(slowest, reverse=True)[:3]:
        print(f"  slow: {code} {verdict} {elapsed * 1000:.0f} ms")
    return times


def bench_exec(sandbox: Sandbox, directory: Path) -> list[float]:
    times = []
    for name, source in _bad_examples():
        path = directory / name
        path.write_text(source)
        plan = plan_exec(str(path), source)
        if plan is not None:  # None: the example does not parse (GL001)
            began = time.perf_counter()
            sandbox.run(plan)
            times.append(time.perf_counter() - began)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exec", action="store_true", help="also time code probes per file")
    args = parser.parse_args()
    with Sandbox() as sandbox:
        began = time.perf_counter()
        sandbox.start()
        print(
            f"worker start: {time.perf_counter() - began:.2f} s "
            f"(torch import {sandbox.import_seconds:.2f} s)"
        )
        print(_summary("witness probe per confirmed finding", bench_witnesses(sandbox)))
        if args.exec:
            with tempfile.TemporaryDirectory() as directory:
                print(_summary("code probe per file", bench_exec(sandbox, Path(directory))))


if __name__ == "__main__":
    main()
