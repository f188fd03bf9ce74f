"""gradlint's recall and false positives on the corpus of real bug reports.

    python benchmarks/recall.py            # table, misses, false positives
    python benchmarks/recall.py --probe    # also confirm the findings at run time, and
                                           # count the probe's own findings (GL9xx)
    python benchmarks/recall.py --json     # the same numbers as JSON

Lints every file of tests/corpus/real with the gradlint CLI (`--format json`). A buggy
case is found when a finding of one of its family's rules (real_cases.FAMILY_CODES)
names its buggy line or an also-line, give or take one line. A fixed twin or a
look-alike with any finding at all is a false-positive file. With `--probe`, a buggy
case counts for the probe's own findings only when one stands at its buggy line or an
also-line exactly; those the static rules missed are the bugs only the probe finds.
A measure, not a test: it exits 0 whatever the figures (2 if gradlint itself fails).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from real_cases import FAMILIES, FAMILY_CODES, LOOKALIKE, ROOT, Case, load_cases


def lint(paths: list[Path], probe: bool, jobs: int) -> list[dict]:
    """gradlint's findings on these files, from its JSON report."""
    command = [sys.executable, "-m", "gradlint", "--format", "json", "--jobs", str(jobs)]
    if probe:
        command.append("--probe")
    done = subprocess.run([*command, *map(str, paths)], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"gradlint failed (exit {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)


def _matches(code: str, family: str) -> bool:
    return any(code.startswith(prefix) for prefix in FAMILY_CODES[family])


def is_found(case: Case, findings: list[dict]) -> bool:
    return any(
        _matches(f["code"], case.family) and any(abs(f["line"] - n) <= 1 for n in case.lines)
        for f in findings
    )


def _percent(found: int, total: int) -> str:
    return f"{100 * found / total:.1f} %" if total else "- %"


def measure(cases: list[Case], findings: list[dict]) -> dict:
    by_file: dict[Path, list[dict]] = defaultdict(list)
    for finding in findings:
        by_file[Path(finding["path"]).resolve()].append(finding)
    rows = {name: {"found": 0, "bugs": 0, "fp": 0, "clean": 0} for name in FAMILIES}
    rows[LOOKALIKE] = {"found": 0, "bugs": 0, "fp": 0, "clean": 0}
    misses, false_positives, hits = [], [], []
    for case in cases:
        found = by_file.get(case.path.resolve(), [])
        row = rows[case.family]
        summary = [f"{f['code']}@{f['line']}" for f in found]
        if case.kind == "bug":
            row["bugs"] += 1
            if is_found(case, found):
                row["found"] += 1
                hits.append({"case": case.name, "findings": found, "case_object": case})
            else:
                misses.append(
                    {
                        "case": case.name,
                        "path": str(case.path),
                        "lines": case.lines,
                        "mechanism": case.mechanism or case.expect,
                        "findings": summary,
                    }
                )
        else:
            row["clean"] += 1
            if found:
                row["fp"] += 1
                false_positives.append({"case": case.name, "findings": summary})
    keys = ("found", "bugs", "fp", "clean")
    total = {key: sum(row[key] for row in rows.values()) for key in keys}
    return {
        "families": rows,
        "total": total,
        "misses": misses,
        "false_positives": false_positives,
        "hits": hits,
    }


def _module_spans(path: Path) -> list[tuple[int, int]]:
    """Lines of the classes the code probe runs: nn.Module and autograd.Function
    subclasses (by a base spelled `...Module` / `...Function`, or a class of the file
    that is one)."""
    classes = [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ClassDef)]
    probed: set[str] = set()
    for _ in classes:  # bases defined later in the file: one pass per class at most
        for node in classes:
            bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
            if bases & ({"Module", "Function"} | probed):
                probed.add(node.name)
    return [(n.lineno, n.end_lineno or n.lineno) for n in classes if n.name in probed]


def _hit_in_module(hit: dict) -> bool:
    case = hit["case_object"]
    spans = _module_spans(case.path)
    return any(start <= line <= end for line in case.lines for start, end in spans)


PROBE_CODES = ("GL9",)  # findings only the code probe reports (GL901, GL903)


def probe_cases(cases: list[Case], findings: list[dict], missed: set[str]) -> dict:
    """The probe's own findings (GL9xx) by case: buggy cases where one stands at the
    buggy line or an also-line exactly (those the static rules missed apart), buggy
    cases where they stand elsewhere only, and fixed twins or look-alikes with one."""
    by_file: dict[Path, list[dict]] = defaultdict(list)
    for finding in findings:
        if finding["code"].startswith(PROBE_CODES):
            by_file[Path(finding["path"]).resolve()].append(finding)
    at_line, elsewhere, false_positives = [], [], []
    for case in cases:
        found = by_file.get(case.path.resolve(), [])
        summary = [f"{f['code']}@{f['line']}" for f in found]
        if not found:
            continue
        if case.kind != "bug":
            false_positives.append({"case": case.name, "findings": summary})
        elif any(f["line"] in case.lines for f in found):
            at_line.append({"case": case.name, "findings": summary, "only": case.name in missed})
        else:
            elsewhere.append({"case": case.name, "lines": case.lines, "findings": summary})
    return {
        "at_line": at_line,
        "only_probe": sum(hit["only"] for hit in at_line),
        "elsewhere": elsewhere,
        "false_positives": false_positives,
    }


def probe_summary(findings: list[dict], hits: list[dict]) -> dict:
    verdicts = [(f.get("probe") or {}).get("verdict", "unprobed") for f in findings]
    counts = {v: verdicts.count(v) for v in sorted(set(verdicts))}
    confirmed = [
        any((f.get("probe") or {}).get("verdict") == "confirmed" for f in hit["findings"])
        for hit in hits
    ]
    in_modules = [ok for ok, hit in zip(confirmed, hits, strict=True) if _hit_in_module(hit)]
    return {
        "findings": len(findings),
        "verdicts": counts,
        "confirmed_hits": sum(confirmed),
        "module_hits": len(in_modules),
        "confirmed_module_hits": sum(in_modules),
    }


def final_line(total: dict) -> str:
    return (
        f"recall {total['found']}/{total['bugs']} ({_percent(total['found'], total['bugs'])}), "
        f"false-positive files {total['fp']}/{total['clean']}"
    )


def render(report: dict, probe: dict | None) -> str:
    out = [f"{'family':<10} {'recall':<24} false-positive files"]
    for name, row in [*report["families"].items(), ("overall", report["total"])]:
        recall = (
            f"{row['found']}/{row['bugs']} ({_percent(row['found'], row['bugs'])})"
            if row["bugs"]
            else "-"
        )
        fp = f"{row['fp']}/{row['clean']}"
        out.append(f"{name:<10} recall {recall:<17} false-positive files {fp}")
    if report["misses"]:
        out.append(f"\nmisses ({len(report['misses'])}):")
        for miss in report["misses"]:
            lines = ",".join(map(str, miss["lines"]))
            found = f"  [found: {' '.join(miss['findings'])}]" if miss["findings"] else ""
            out.append(f"  {miss['case']}:{lines}  {miss['mechanism']}{found}")
    if report["false_positives"]:
        out.append(f"\nfalse-positive files ({len(report['false_positives'])}):")
        for fp in report["false_positives"]:
            out.append(f"  {fp['case']}  {' '.join(fp['findings'])}")
    if probe is not None:
        verdicts = ", ".join(f"{n} {v}" for v, n in probe["verdicts"].items()) or "none"
        out.append(
            f"\nprobe: {probe['findings']} findings ({verdicts}); "
            f"found cases with a confirmed finding {probe['confirmed_hits']}/"
            f"{report['total']['found']}, of those whose bug is in an nn.Module or "
            f"autograd.Function class {probe['confirmed_module_hits']}/{probe['module_hits']}"
            f" ({_percent(probe['confirmed_module_hits'], probe['module_hits'])})"
        )
        own = probe["own"]
        out.append(
            f"probe's own findings (GL9xx) at the buggy line: {len(own['at_line'])} cases, "
            f"{own['only_probe']} of them missed by the static rules; elsewhere only: "
            f"{len(own['elsewhere'])} cases; on fixed twins and look-alikes: "
            f"{len(own['false_positives'])} files"
        )
        for kind in ("at_line", "elsewhere", "false_positives"):
            for entry in own[kind]:
                lines = ",".join(map(str, entry.get("lines", [])))
                out.append(
                    f"  {kind}: {entry['case']}{':' + lines if lines else ''}  "
                    f"{' '.join(entry['findings'])}"
                )
    out.append("")
    out.append(final_line(report["total"]))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="corpus directory")
    parser.add_argument("--probe", action="store_true", help="run gradlint with --probe")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    cases = load_cases(args.root)
    findings = lint([case.path for case in cases], args.probe, args.jobs)
    report = measure(cases, findings)
    probe = probe_summary(findings, report["hits"]) if args.probe else None
    if probe is not None:
        missed = {miss["case"] for miss in report["misses"]}
        probe["own"] = probe_cases(cases, findings, missed)
    if args.json:
        report = {key: value for key, value in report.items() if key != "hits"}
        summary = final_line(report["total"])
        print(json.dumps({**report, "probe": probe, "summary": summary}, indent=1))
    else:
        print(render(report, probe))
    return 0


if __name__ == "__main__":
    sys.exit(main())
