"""Settings of a run: which rules, which files, which project-specific names."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Config:
    select: tuple[str, ...] = ("GL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    no_grad_contexts: tuple[str, ...] = ()

    def is_selected(self, code: str) -> bool:
        """ruff's rule: the longest matching prefix between select and ignore wins."""
        chosen = max(
            (len(p) for p in (*self.select, *self.extend_select) if code.startswith(p)), default=-1
        )
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return chosen > ignored
