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
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import SHORT_MESSAGE, Diagnostic
from gradlint.notebook import SUFFIX as NOTEBOOK
from gradlint.notebook import Notebook, NotebookError, read_notebook
from gradlint.probe.planner import (
    CONFIRMED,
    INCONCLUSIVE,
    REFUTED,
    REPRODUCED,
    NeverUsed,
    Project,
    RuntimeFailure,
    exec_verdicts,
    plan_exec,
    plan_witnesses,
    witness_verdict,
)
from gradlint.probe.sandbox import Sandbox, SandboxError
from gradlint.suppression import apply_noqa

__all__ = [
    "CONFIRMED",
    "INCONCLUSIVE",
    "REFUTED",
    "REPRODUCED",
    "PROBE_CODES",
    "ProbeUnavailable",
    "run_probes",
]
MODES = ("witness", "definitions", "exec")
PROBE_CODES = ("GL901", "GL903")  # the findings only the code probes report
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
        with (
            Sandbox(timeout=timeout, memory_limit=memory_limit) as sandbox,
            tempfile.TemporaryDirectory(prefix="gradlint-notebooks-") as scratch,
        ):
            for job in jobs:
                result = witness_verdict(job.witness, sandbox.run(job.request))
                for d in job.findings:
                    d.probe = dict(result)
            files, notebooks = _notebook_scripts(files, scratch)
            if files:
                project = Project(files, modules)
                added = _code_probes(sandbox, diagnostics, project, mode, notebooks)
                _note_missing_protections(sandbox.protections)
    except SandboxError as error:
        raise ProbeUnavailable(str(error)) from error
    return sorted([*diagnostics, *added], key=Diagnostic.sort_key)


class _NotebookScript:
    """A notebook's code cells as the static side reads them (one script), written to a
    file the probe can import, and the mapping of its lines back to the cells."""

    def __init__(self, path: str, notebook: Notebook, script_path: str) -> None:
        self.path, self.notebook, self.script_path = path, notebook, script_path
        self.script_lines = {where: n for n, where in enumerate(notebook.lines, 1)}

    def to_script(self, d: Diagnostic) -> Diagnostic:
        """A copy of a finding of the notebook, on the script's lines."""
        line = self.script_lines.get((d.cell, d.line), 0)
        end = self.script_lines.get((d.cell, d.end_line), line)
        return replace(d, path=self.script_path, line=line, end_line=end, cell=None)

    def to_cells(self, d: Diagnostic) -> Diagnostic:
        [found] = self.notebook.to_cells([replace(d, path=self.path)])
        return found

    def where(self, line: int) -> str:
        cell, in_cell = self.notebook.lines[line - 1]
        return f"cell {cell} line {in_cell}"


def _notebook_scripts(
    files: dict[str, str], scratch: str
) -> tuple[dict[str, str], dict[str, _NotebookScript]]:
    """The files to probe with each notebook replaced by its script (written under
    `scratch`), and the notebooks by script path; a notebook gradlint cannot read, or
    whose script does not mention torch, is dropped."""
    kept, notebooks = {}, {}
    for path, text in files.items():
        if not path.endswith(NOTEBOOK):
            kept[path] = text
            continue
        try:
            notebook = read_notebook(text)
        except NotebookError:
            continue
        if "torch" not in notebook.script:
            continue
        directory = os.path.join(scratch, str(len(notebooks)))
        os.mkdir(directory)
        stem = os.path.splitext(os.path.basename(path))[0]
        script_path = os.path.join(directory, f"{stem}.py")
        Path(script_path).write_text(notebook.script, encoding="utf-8")
        kept[script_path] = notebook.script
        notebooks[script_path] = _NotebookScript(path, notebook, script_path)
    return kept, notebooks


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
    sandbox: Sandbox,
    diagnostics: list[Diagnostic],
    project: Project,
    mode: str,
    notebooks: dict[str, _NotebookScript],
) -> list[Diagnostic]:
    """Probe each file in its own fork; merge verdicts, return GL901s and GL903s (but
    those a `# noqa` of the file silences, as for any finding). A
    notebook is probed as its script: its findings are read on the script's lines and
    the probe's findings are put back on the cells' lines."""
    by_path: dict[str, list[Diagnostic]] = {path: [] for path in project.sources}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    added = []
    for path, source in project.sources.items():
        plan = plan_exec(path, source, mode, project)
        if plan is None:
            continue
        notebook = notebooks.get(path)
        findings = by_path.get(notebook.path if notebook else path, [])
        checked = [notebook.to_script(d) for d in findings] if notebook else findings
        if notebook:  # it runs as if from the notebook's directory
            plan["root"] = os.path.dirname(os.path.abspath(notebook.path))
            plan["roots"] = [plan["root"], *plan["roots"]]
        where = notebook.where if notebook else _line
        verdicts, failures, unused = exec_verdicts(
            checked, sandbox.run(plan), path, source, project, where
        )
        for i, found in verdicts.items():
            _merge(findings[i], found)
        found = [_runtime_error(path, failure, where) for failure in _unique(failures)]
        found += [_never_used(path, layer) for layer in unused if not layer.branch]
        found = apply_noqa(found, source.encode("utf-8", "surrogatepass"))
        added.extend([notebook.to_cells(d) for d in found] if notebook else found)
    return added


def _line(line: int) -> str:
    return f"line {line}"


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
    """One failure per line it is reported at and message (a Function's wrong backward
    fails its gradcheck and the module's backward alike)."""
    seen, kept = set(), []
    for failure in failures:
        key = (failure.lines[-1] if failure.at is None else failure.at, failure.message)
        if key not in seen:
            seen.add(key)
            kept.append(failure)
    return kept


def _never_used(path: str, unused: NeverUsed) -> Diagnostic:
    """GL903 at the line that stores a layer or parameter forward never used."""
    doc = load_catalogue()["GL903"]
    names = ", ".join(f"`{name}`" for name in unused.parameters)
    what = "layer" if unused.layer != "Parameter" else "parameter"
    return Diagnostic(
        path=path,
        line=unused.line,
        column=1,
        end_line=unused.line,
        end_column=1,
        code="GL903",
        message=f"`{unused.cls}.{unused.attribute}` is never used: its parameters get no gradient",
        detail=(
            f"The code probe ran {unused.context} forward and backward: `{unused.cls}` never "
            f"used the {what} `self.{unused.attribute}` ({unused.layer}), so {names} got no "
            "gradient and nothing in the linted files reads it; an optimizer never changes "
            "it, and DistributedDataParallel stops with 'Expected to have finished reduction "
            "in the prior iteration'. Use it in `forward`, delete it, or freeze it "
            "(`requires_grad_(False)`)."
        ),
        name=doc.name,
        severity=doc.severity,
        probe={
            "verdict": CONFIRMED,
            "message": f"after `loss.backward()` {names} have no gradient",
        },
    )


def _runtime_error(
    path: str, failure: RuntimeFailure, where: Callable[[int], str] = _line
) -> Diagnostic:
    """GL901 at the user's line that caused the failure (where torch raised, unless the
    probe traced the cause elsewhere), the related lines in its detail."""
    doc = load_catalogue()["GL901"]
    line = failure.at if failure.at is not None else failure.lines[-1]
    first = failure.message.strip().splitlines()[0] if failure.message.strip() else ""
    first = first.split(" Hint: ", 1)[0]  # torch's hint points at its own traceback
    said = f"Torch raised {failure.type} {failure.how}"
    headline = f"{said}: {first}" if len(said) + 2 + len(first) <= SHORT_MESSAGE else said
    parts = [f"Its message: {first}."] if headline == said else []
    related = "; ".join(f"{where(n)} {part}" for n, part in failure.related)
    if related:
        parts.append(f"Lines involved ({related}).")
    parts.append(f"The code probe ran {failure.context}; no finding explains it.")
    return Diagnostic(
        path=path,
        line=line,
        column=1,
        end_line=line,
        end_column=1,
        code="GL901",
        message=headline,
        detail=" ".join(parts),
        name=doc.name,
        severity=doc.severity,
        probe={"verdict": CONFIRMED, "message": first},
    )
