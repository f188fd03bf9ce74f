"""Runtime mode: check static findings by running small torch probes in a sandbox.

`run_probes(diagnostics)` sets `d.probe = {"verdict", "message"}` on each probed
finding. Modes (what runs):

- `witness`: only the self-contained programs rules attach to their findings (never the
  user's code); a finding whose example fails as predicted is `reproduced`.
- `definitions` (the default of `--probe`): the witnesses, and for every linted file
  that mentions torch, its definitions (imports, classes, functions, constant
  assignments; not module-level calls, loops or `__main__` blocks) with its `nn.Module`
  classes built and run forward and backward on small inputs: `confirmed` (torch raised
  the predicted error in the user's code), `refuted` (that line ran without error) or
  `inconclusive: <why>`; errors no finding explains are GL901.
- `exec`: the same, but each file is imported whole (its module-level code runs).

The calling process never imports torch: everything runs in one warm worker process and
its contained forks (see `sandbox.py` and `isolation.py`).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import Diagnostic
from gradlint.findings import split_message
from gradlint.probe.planner import (
    CONFIRMED,
    INCONCLUSIVE,
    REFUTED,
    REPRODUCED,
    Project,
    RuntimeFailure,
    exec_verdicts,
    plan_exec,
    plan_witnesses,
    witness_verdict,
)
from gradlint.probe.sandbox import Sandbox, SandboxError

__all__ = [
    "CONFIRMED",
    "INCONCLUSIVE",
    "REFUTED",
    "REPRODUCED",
    "ProbeUnavailable",
    "run_probes",
]
MODES = ("witness", "definitions", "exec")
EXEC_WARNING = "gradlint: --probe=exec imports and runs the linted project code"


class ProbeUnavailable(RuntimeError):
    """torch cannot be imported (or the probe worker cannot start)."""


def run_probes(
    diagnostics: list[Diagnostic],
    *,
    mode: str = "definitions",
    timeout: float = 10.0,
    memory_limit: int = 2 << 30,
    sources: dict[str, str] | None = None,
    modules: dict[str, dict] | None = None,
) -> list[Diagnostic]:
    """The findings with their verdicts, plus GL901 findings of the code probes, sorted.
    `modules`: constructor arguments and inputs by class name (`probe-modules`)."""
    if mode not in MODES:
        raise ValueError(f"probe mode must be one of {MODES}, not {mode!r}")
    if importlib.util.find_spec("torch") is None:
        raise ProbeUnavailable("torch is not installed: install 'torch-gradlint[runtime]'")
    jobs = plan_witnesses(diagnostics)
    files = {} if mode == "witness" else _code_files(diagnostics, sources or {})
    if not jobs and not files:
        return diagnostics
    added: list[Diagnostic] = []
    try:
        with Sandbox(timeout=timeout, memory_limit=memory_limit) as sandbox:
            for job in jobs:
                result = witness_verdict(job.witness, sandbox.run(job.request))
                for d in job.findings:
                    d.probe = dict(result)
            if files:
                added = _code_probes(sandbox, diagnostics, Project(files, modules), mode)
                _note_missing_protections(sandbox.protections)
    except SandboxError as error:
        raise ProbeUnavailable(str(error)) from error
    return sorted([*diagnostics, *added], key=Diagnostic.sort_key)


def _code_files(diagnostics: list[Diagnostic], sources: dict[str, str]) -> dict[str, str]:
    """Every linted file that mentions torch (read from disk if not given), by path."""
    files = dict(sources)
    for d in diagnostics:
        if d.path not in files:
            try:
                files[d.path] = Path(d.path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
    return {path: text for path, text in files.items() if "torch" in text}


def _note_missing_protections(protections: dict) -> None:
    """Say on stderr which containment this machine could not give the probes."""
    missing = []
    if not protections.get("namespaces"):
        missing.append("no network, PID or mount namespace (user namespaces unavailable)")
    if not protections.get("landlock"):
        missing.append("no Landlock (writes outside the temp dir and reads are not blocked)")
    for text in missing:
        print(f"gradlint: probe sandbox: {text}", file=sys.stderr)


def _code_probes(
    sandbox: Sandbox, diagnostics: list[Diagnostic], project: Project, mode: str
) -> list[Diagnostic]:
    """Probe each file in its own fork; merge verdicts, return GL901s."""
    by_path: dict[str, list[Diagnostic]] = {path: [] for path in project.sources}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    added = []
    for path, source in project.sources.items():
        plan = plan_exec(path, source, mode, project)
        if plan is None:
            continue
        findings = by_path[path]
        verdicts, failures = exec_verdicts(findings, sandbox.run(plan), path, source)
        for i, found in verdicts.items():
            _merge(findings[i], found)
        added.extend(_runtime_error(path, failure) for failure in _unique(failures))
    return added


def _merge(d: Diagnostic, code: dict) -> None:
    """What the user's code showed wins; the rule's example only speaks when it could not."""
    witness = d.probe
    if code["verdict"] != INCONCLUSIVE or witness is None or witness["verdict"] != REPRODUCED:
        d.probe = code
    else:
        d.probe = {
            "verdict": REPRODUCED,
            "message": f"{witness['message']} (your code: {code['message']})",
        }


def _unique(failures: list[RuntimeFailure]) -> list[RuntimeFailure]:
    seen, kept = set(), []
    for failure in failures:
        key = (failure.lines[-1], failure.message)
        if key not in seen:
            seen.add(key)
            kept.append(failure)
    return kept


def _runtime_error(path: str, failure: RuntimeFailure) -> Diagnostic:
    """GL901 at the user's line that caused the failure (where torch raised, unless the
    probe traced the cause elsewhere), the related lines in its detail."""
    doc = load_catalogue()["GL901"]
    line = failure.at if failure.at is not None else failure.lines[-1]
    first = failure.message.strip().splitlines()[0] if failure.message.strip() else ""
    first = first.split(" Hint: ", 1)[0]  # torch's hint points at its own traceback
    where = "here" if failure.at is None else "in backward because of this in-place write"
    headline, rest = split_message(f"torch raised {failure.type} {where}: {first}")
    related = "; ".join(f"line {n} {part}" for n, part in failure.related)
    if related:
        rest = f"{rest} ({related})".strip()
    return Diagnostic(
        path=path,
        line=line,
        column=1,
        end_line=line,
        end_column=1,
        code="GL901",
        message=headline,
        detail=f"{rest} (the code probe ran {failure.context}; no finding explains it)".strip(),
        name=doc.name,
        severity=doc.severity,
        probe={"verdict": CONFIRMED, "message": first},
    )
