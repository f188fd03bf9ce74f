"""Runtime-probe benchmark: the one-time worker start (torch import), the wall time per
reproduced witness over the Bad examples of the rule catalogue, and with `--code` the
wall time of the code probe (`--probe`, definitions mode) per module file.

    python benchmarks/probe_bench.py [--code [PATH ...]]   # default: tests/corpus
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from gradlint.catalogue import load_catalogue
from gradlint.engine import lint_source
from gradlint.probe.planner import REPRODUCED, Project, plan_exec, plan_witnesses, witness_verdict
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


CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def bench_witnesses(sandbox: Sandbox) -> list[float]:
    """Seconds per reproduced finding; the slowest jobs are printed (the first one that
    builds an optimizer pays torch's lazy `torch._dynamo` import, once per run)."""
    findings = [d for name, src in _bad_examples() for d in lint_source(name, src).diagnostics]
    times, slowest = [], []
    for job in plan_witnesses(findings):
        began = time.perf_counter()
        result = witness_verdict(job.witness, sandbox.run(job.request))
        elapsed = time.perf_counter() - began
        slowest.append((elapsed, job.code, result["verdict"]))
        if result["verdict"] == REPRODUCED:
            times.extend([elapsed / len(job.findings)] * len(job.findings))
    for elapsed, code, verdict in sorted(slowest, reverse=True)[:3]:
        print(f"  slow: {code} {verdict} {elapsed * 1000:.0f} ms")
    return times


def bench_code(sandbox: Sandbox, paths: list[Path]) -> list[float]:
    """Seconds per module file (a file that defines a class and mentions torch)."""
    sources = {str(p): p.read_text(encoding="utf-8") for p in paths}
    sources = {p: text for p, text in sources.items() if "torch" in text and "class " in text}
    project, times, outcomes = Project(sources), [], {}
    for path, source in sources.items():
        plan = plan_exec(path, source, "definitions", project)
        if plan is not None:
            began = time.perf_counter()
            outcome = sandbox.run(plan)["outcome"]
            times.append(time.perf_counter() - began)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print(f"  outcomes: {outcomes}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", nargs="*", type=Path, help="also time code probes per file")
    args = parser.parse_args()
    with Sandbox() as sandbox:
        began = time.perf_counter()
        sandbox.start()
        print(
            f"worker start: {time.perf_counter() - began:.2f} s "
            f"(torch import {sandbox.import_seconds:.2f} s)"
        )
        print(_summary("witness probe per reproduced finding", bench_witnesses(sandbox)))
        if args.code is not None:
            roots = args.code or [CORPUS]
            paths = sorted(f for r in roots for f in (r.rglob("*.py") if r.is_dir() else [r]))
            print(_summary("code probe per module file", bench_code(sandbox, paths)))


if __name__ == "__main__":
    main()
