"""The last step of every file's pipeline (CLI and flake8 plugin alike): one finding per
place, the catalogue's severity, and a short one-line message.

Short messages: a check may pass the headline and the explanation separately
(`report(node, code, "short what", detail="why; what torch does; the fix")`). A check
that passes one long text gets it cut by `split_message`:

- a message of at most `SHORT_MESSAGE` characters stays whole;
- a longer one is cut at its first `: ` or `; ` outside backticks, quotes and brackets
  (checks write "what: why; fix");
- a headline still too long is cut at its last `, ` before a word (outside backticks,
  quotes and brackets) that keeps it within the limit, else at a word boundary with `…`.

The text after the cut becomes `detail` (shown by `--format full`, JSON and SARIF).
"""

from __future__ import annotations

from dataclasses import replace

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import SHORT_MESSAGE, Diagnostic

_OPEN, _CLOSE = "([{", ")]}"


def _top_level_offsets(text: str, separators: tuple[str, ...]) -> list[tuple[int, str]]:
    """(offset, separator) of each separator outside `code`, quotes and brackets."""
    found = []
    depth = 0
    quote = None
    for i, char in enumerate(text):
        if quote is not None:
            if char == quote:
                quote = None
        elif char == "`" or (char in "\"'" and _opens_quote(text, i)):
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth = max(depth - 1, 0)
        elif depth == 0:
            found.extend((i, sep) for sep in separators if text.startswith(sep, i))
    return found


def _opens_quote(text: str, i: int) -> bool:
    """A quote that starts a quotation (not an apostrophe as in `caller's`)."""
    before = text[i - 1] if i else " "
    return not before.isalnum()


def split_message(text: str) -> tuple[str, str]:
    """(headline, rest) of a check's message, by the rules of this module's docstring."""
    text = " ".join(text.split())
    if len(text) <= SHORT_MESSAGE:
        return text, ""
    clauses = _top_level_offsets(text, (": ", "; "))
    if clauses:
        at, sep = clauses[0]
        head, rest = text[:at], text[at + len(sep) :]
        if len(head) <= SHORT_MESSAGE:
            return head, rest
    commas = [
        at
        for at, _ in _top_level_offsets(text, (", ",))
        if at <= SHORT_MESSAGE and text[at + 2 : at + 3].isalpha()  # not inside "1, 2, 3"
    ]
    if commas:
        at = commas[-1]
        return text[:at], text[at + 2 :]
    at = text.rfind(" ", 0, SHORT_MESSAGE)
    at = at if at > 0 else SHORT_MESSAGE - 1
    return text[:at].rstrip() + "…", text[at:].strip()


def finalize(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One finding per (path, cell, line, column, code), the first in sort order; each
    with its rule's catalogue severity and a short message (the rest in `detail`)."""
    catalogue = load_catalogue()
    seen: set[tuple] = set()
    out = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        key = (d.path, d.cell, d.line, d.column, d.code)
        if key in seen:
            continue
        seen.add(key)
        doc = catalogue.get(d.code)
        changes: dict = {}
        if doc is not None and d.severity != doc.severity:
            changes["severity"] = doc.severity
        if not d.detail and len(d.message) > SHORT_MESSAGE:
            changes["message"], changes["detail"] = split_message(d.message)
        out.append(replace(d, **changes) if changes else d)
    return out
