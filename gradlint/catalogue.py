"""The rule catalogue: one Markdown file per rule in `rules/`, the single source of
each rule's name, severity, summary and documentation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from gradlint.diagnostic import Severity

_TITLE = re.compile(r"^# (GL\d{3}) ([a-z0-9-]+)\s*$")
_FIELD = re.compile(r"^- (severity|summary): (.+)$")
_FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class RuleDoc:
    """One rule's Markdown file, parsed: its header fields, sections and examples."""

    code: str
    name: str
    severity: Severity
    summary: str
    text: str
    sections: dict[str, str] = field(default_factory=dict)
    bad_examples: tuple[str, ...] = ()
    good_examples: tuple[str, ...] = ()

    @property
    def fix_safety(self) -> str:
        """`safe`, `unsafe` or `none`: the first word of the *Fix safety* section."""
        words = self.sections.get("Fix safety", "").split(maxsplit=1)
        return words[0].rstrip(":,.").lower() if words else ""

    @property
    def fix_hint(self) -> str:
        """First paragraph of the 'Use instead' section, for `--format full`."""
        body = self.sections.get("Use instead", "")
        return body.split("\n\n", 1)[0].strip()


def catalogue_dir() -> Path:
    """`rules/` in a source checkout, or its copy inside the installed wheel."""
    packaged = Path(__file__).with_name("_catalogue")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "rules"


def parse_rule_doc(text: str) -> RuleDoc:
    lines = text.splitlines()
    title = _TITLE.match(lines[0]) if lines else None
    if not title:
        raise ValueError(f"rule doc must start with '# GLxxx name', got {lines[:1]!r}")
    fields: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    examples: dict[str, list[str]] = {"Bad": [], "Good": []}
    current = None
    block: list[str] | None = None  # lines of the open code fence
    block_is_python = False
    for line in lines[1:]:
        fence = _FENCE.match(line)
        if block is not None:
            if fence:
                if current in examples and block_is_python:
                    examples[current].append("\n".join(block) + "\n")
                sections[current].extend([*block, line])
                block = None
            else:
                block.append(line)
        elif line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        elif current is None:
            if field_match := _FIELD.match(line):
                fields[field_match.group(1)] = field_match.group(2).strip()
        elif fence:
            block = []
            block_is_python = fence.group(1) in ("python", "py")
            sections[current].append(line)
        else:
            sections[current].append(line)
    missing = {"severity", "summary"} - fields.keys()
    if missing:
        raise ValueError(f"{title.group(1)}: missing fields {sorted(missing)}")
    return RuleDoc(
        code=title.group(1),
        name=title.group(2),
        severity=Severity(fields["severity"]),
        summary=fields["summary"],
        text=text,
        sections={k: "\n".join(v).strip() for k, v in sections.items()},
        bad_examples=tuple(examples["Bad"]),
        good_examples=tuple(examples["Good"]),
    )


@cache
def catalogue_codes() -> frozenset[str]:
    """The documented rule codes, without reading their docs."""
    return frozenset(path.stem for path in catalogue_dir().glob("GL*.md"))


@cache
def load_catalogue() -> dict[str, RuleDoc]:
    docs = {}
    for path in sorted(catalogue_dir().glob("GL*.md")):
        doc = parse_rule_doc(path.read_text(encoding="utf-8"))
        if doc.code != path.stem:
            raise ValueError(f"{path.name} documents {doc.code}")
        docs[doc.code] = doc
    return docs
