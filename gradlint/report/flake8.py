"""`path:line:col: CODE message`, one line per finding, as flake8 prints them
(`path:cell N:line:col: ...` inside a notebook, as ruff prints it)."""

from __future__ import annotations

from gradlint.diagnostic import Diagnostic


def probe_verdict(diagnostic: Diagnostic) -> str | None:
    """`confirmed: <torch message>` when a runtime probe judged the finding, else None."""
    probe = diagnostic.probe
    if not isinstance(probe, dict) or not probe.get("verdict"):
        return None
    message = str(probe.get("message") or "").strip()
    return f"{probe['verdict']}: {message}" if message else str(probe["verdict"])


def probe_suffix(diagnostic: Diagnostic) -> str:
    """` [confirmed: <torch message>]`, or nothing for an unprobed finding."""
    verdict = probe_verdict(diagnostic)
    return f" [{verdict}]" if verdict else ""


def format_line(diagnostic: Diagnostic) -> str:
    d = diagnostic
    return f"{d.location}: {d.code} {d.message}{probe_suffix(d)}"


def render(diagnostics: list[Diagnostic], sources: dict[str, str]) -> str:
    return "".join(format_line(d) + "\n" for d in diagnostics)
