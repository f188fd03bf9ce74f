"""`path:line:col: CODE message`, one line per finding, as flake8 prints them
(`path:cell N:line:col: ...` inside a notebook, as ruff prints it)."""

from __future__ import annotations

from gradlint.diagnostic import Diagnostic

# How each probe verdict reads: only a run of the user's own code "confirms".
VERDICT_LABELS = {
    "confirmed": "confirmed in your code",
    "reproduced": "reproduced by the rule's example",
}


def probe_verdict(diagnostic: Diagnostic) -> str | None:
    """`confirmed in your code: <torch message>` when a runtime probe judged the finding,
    else None."""
    probe = diagnostic.probe
    if not isinstance(probe, dict) or not probe.get("verdict"):
        return None
    label = VERDICT_LABELS.get(probe["verdict"], str(probe["verdict"]))
    message = str(probe.get("message") or "").strip()
    return f"{label}: {message}" if message else label


def probe_suffix(diagnostic: Diagnostic) -> str:
    """` [confirmed in your code: <torch message>]`, or nothing for an unprobed finding."""
    verdict = probe_verdict(diagnostic)
    return f" [{verdict}]" if verdict else ""


def format_line(diagnostic: Diagnostic) -> str:
    d = diagnostic
    return f"{d.location}: {d.code} {d.message}{probe_suffix(d)}"


def render(diagnostics: list[Diagnostic], sources: dict[str, str]) -> str:
    return "".join(format_line(d) + "\n" for d in diagnostics)
