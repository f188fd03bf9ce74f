"""GL204: `requires_grad` set where it cannot work, decided from the dataflow's events: on
an nn.Module (a plain Python attribute: nothing is frozen), and on integer or boolean
tensors (torch raises)."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from gradlint.analysis.dataflow import dtypes
from gradlint.analysis.dataflow.values import Const, Grad
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import visit
from gradlint.checks import Checker
from gradlint.diagnostic import Severity, Witness, headline

INTEGER_ERROR = "only Tensors of floating point and complex dtype can require gradients"
DATA_ERROR = "data set to a tensor that requires gradients must be floating point or complex"


class RequiresGradFlagChecker(Checker):
    codes = ("GL204",)

    def leave_Module(self, node: cst.Module) -> None:
        facts = self.file.dataflow
        reported: set[cst.CSTNode] = set()
        for change in facts.requires_grad_changes:
            integer = dtypes.cannot_require_grad(change.value.dtype)
            if change.flag and integer and change.node not in reported:
                reported.add(change.node)
                self._report_integer(change.node, change.written, change.value.dtype)
        for assigned in facts.data_assigned:
            target, value = assigned.target, assigned.value
            integer = dtypes.cannot_require_grad(value.dtype)
            if target.grad is Grad.LEAF and integer and assigned.node not in reported:
                reported.add(assigned.node)
                self._report_data(assigned.node, assigned.written, value.dtype)
        for event in facts.module_attributes:
            if event.attr != "requires_grad" or event.node in reported:
                continue
            if event.written == "self" or not isinstance(event.value, Const):
                continue  # the class's own setting; a flag only known at run time
            if self._reads_own_flag(event.module):
                continue
            reported.add(event.node)
            self._report_module(event.node, event.written, event.value.value)

    def _reads_own_flag(self, module) -> bool:
        """The module's class keeps a `requires_grad` setting of its own (reads it)."""
        info = module.info if module is not None else None
        return info is not None and info.name in self._classes_reading_flag

    @cached_property
    def _classes_reading_flag(self) -> frozenset[str]:
        names = set()
        for info in self.file.index.by_node.values():
            reads = _SelfFlagReads()
            visit(info.node, reads)
            if reads.found:
                names.add(info.name)
        return frozenset(names)

    def _report_integer(self, node: cst.CSTNode, written: str, dtype: str | None) -> None:
        kind = "a boolean" if dtype == "bool" else "an integer"
        self.report(
            node,
            "GL204",
            headline(
                "{written} is {kind} tensor, which cannot require grad",
                written=f"`{written}`",
                kind=kind,
            ),
            severity=Severity.ERROR,
            detail=(
                f'Torch raises RuntimeError ("{INTEGER_ERROR}"). Make a float tensor '
                "(`torch.tensor(1.0)`, `dtype=torch.float32`) or differentiate the float "
                "scores the indices came from."
            ),
            witness=Witness(
                "import torch\nt = torch.tensor([1, 2])\nt.requires_grad = True\n",
                INTEGER_ERROR,
            ),
        )

    def _report_data(self, node: cst.CSTNode, written: str, dtype: str | None) -> None:
        kind = "a boolean" if dtype == "bool" else "an integer"
        self.report(
            node,
            "GL204",
            headline(
                "{written} requires grad and its `.data` is set to {kind} tensor",
                written=f"`{written}`",
                kind=kind,
            ),
            severity=Severity.ERROR,
            detail=(
                f'Torch raises RuntimeError ("{DATA_ERROR} dtype"). Keep the float weight and '
                "store the integer codes elsewhere (a buffer), or `requires_grad_(False)` first."
            ),
            witness=Witness(
                "import torch\nw = torch.nn.Linear(2, 2).weight\nw.data = w.data.to(torch.int8)\n",
                DATA_ERROR,
            ),
        )

    def _report_module(self, node: cst.CSTNode, written: str, flag: object) -> None:
        method = f"{written}.requires_grad_({bool(flag)})"
        self.report(
            node,
            "GL204",
            headline(
                "{written} is an nn.Module, where `requires_grad = {flag}` freezes nothing",
                written=f"`{written}`",
                flag=str(flag),
            ),
            severity=Severity.WARNING,
            detail=(
                f"`requires_grad = {flag}` only sets a plain Python attribute; the module's "
                f"parameters keep their flags. Call `{method}`."
            ),
            witness=MODULE_WITNESS,
        )


class _SelfFlagReads(cst.CSTVisitor):
    """`self.requires_grad` read (not only assigned) in a class body."""

    def __init__(self) -> None:
        self.found = False
        self._targets: set[cst.Attribute] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Attribute):
            self._targets.add(node.target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node in self._targets or node.attr.value != "requires_grad":
            return
        self.found = self.found or dotted(node.value) == "self"


MODULE_WITNESS = Witness(
    "import torch\n"
    "layer = torch.nn.Linear(2, 2)\n"
    "layer.requires_grad = False\n"
    "if layer.weight.requires_grad:\n"
    "    raise AssertionError('the module attribute froze nothing')\n",
    "the module attribute froze nothing",
)
