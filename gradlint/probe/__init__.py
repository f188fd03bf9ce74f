"""Runtime mode: confirm static findings by running small torch probes in a sandbox.

`run_probes(diagnostics)` sets `d.probe = {"verdict", "message"}` on each probe-able
finding. Witness mode (the default) runs only the self-contained programs rules attach
to their findings; exec mode also imports the linted files and runs their modules, and
reports runtime errors no finding explains as GL901. The calling process never imports
torch: everything runs in one warm worker process (see `sandbox.py`).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import Diagnostic
from gradlint.probe.planner import (
    CONFIRMED,
    INCONCLUSIVE,
    REFUTED,
    RuntimeFailure,
    exec_verdicts,
    plan_exec,
    plan_witnesses,
    witness_verdict,
)
from gradlint.probe.sandbox import Sandbox, SandboxError

__all__ = ["CONFIRMED", "INCONCLUSIVE", "REFUTED", "ProbeUnavailable", "run_probes"]
MODES = ("witness", "exec")
EXEC_WARNING = "gradlint: --probe=exec imports and runs the linted project code"
# The code probe's verdict wins unless the witness's proves more (confirmed > refuted >
# inconclusive): it speaks about the user's own code.
_RANK = {CONFIRMED: 0, REFUTED: 1, INCONCLUSIVE: 2}


class ProbeUnavailable(RuntimeError):
    """torch cannot be imported (or the probe worker cannot start)."""


def run_probes(
    diagnostics: list[Diagnostic],
    *,
    mode: str = "witness",
    timeout: float = 10.0,
    memory_limit: int = 2 << 30,
    sources: dict[str, str] | None = None,
) -> list[Diagnostic]:
    """The findings with their verdicts, plus GL901 findings in exec mode, sorted."""
    if mode not in MODES:
        raise ValueError(f"probe mode must be one of {MODES}, not {mode!r}")
    if importlib.util.find_spec("torch") is None:
        raise ProbeUnavailable("torch is not installed: install gradlint[runtime]")
    jobs = plan_witnesses(diagnostics)
    if not jobs and mode == "witness":
        return diagnostics
    added: list[Diagnostic] = []
    try:
        with Sandbox(timeout=timeout, memory_limit=memory_limit) as sandbox:
            for job in jobs:
                result = witness_verdict(job.witness, sandbox.run(job.request))
                for d in job.findings:
                    d.probe = dict(result)
            if mode == "exec":
                added = _exec_probes(sandbox, diagnostics, sources or {})
    except SandboxError as error:
        raise ProbeUnavailable(str(error)) from error
    return sorted([*diagnostics, *added], key=Diagnostic.sort_key)


def _exec_probes(
    sandbox: Sandbox, diagnostics: list[Diagnostic], sources: dict[str, str]
) -> list[Diagnostic]:
    """Probe every linted file that defines classes; merge verdicts, return GL901s."""
    by_path: dict[str, list[Diagnostic]] = {path: [] for path in sources}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    added = []
    for path, findings in by_path.items():
        source = sources.get(path)
        if source is None:
            try:
                source = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        plan = plan_exec(str(Path(path).resolve()), source)
        if plan is None or "torch" not in source:
            continue
        outcome = sandbox.run(plan)
        verdicts, failures = exec_verdicts(findings, outcome, path, source)
        for i, found in verdicts.items():
            _merge(findings[i], found)
        added.extend(_runtime_error(path, failure) for failure in _unique(failures))
    return added


def _merge(d: Diagnostic, found: dict) -> None:
    if d.probe is None or _RANK[found["verdict"]] <= _RANK[d.probe["verdict"]]:
        d.probe = found


def _unique(failures: list[RuntimeFailure]) -> list[RuntimeFailure]:
    seen, kept = set(), []
    for failure in failures:
        key = (failure.lines[-1], failure.message)
        if key not in seen:
            seen.add(key)
            kept.append(failure)
    return kept


def _runtime_error(path: str, failure: RuntimeFailure) -> Diagnostic:
    doc = load_catalogue()["GL901"]
    line = failure.lines[-1]
    first = failure.message.strip().splitlines()[0] if failure.message.strip() else ""
    return Diagnostic(
        path=path,
        line=line,
        column=1,
        end_line=line,
        end_column=1,
        code="GL901",
        message=(
            f"torch raised {failure.type} here when the code probe ran {failure.context}: {first}"
        ),
        name=doc.name,
        severity=doc.severity,
        probe={"verdict": CONFIRMED, "message": first},
    )
