"""Parameters the backward reaches that the stepping optimizer does not hold (GL507),
decided from the dataflow interpreter's training events (the parameters each backward's
graph reaches, by storage; the parameters each optimizer updates) and its module
attribute assignments: an optimizer built over a model whose layers were replaced
afterwards, or over a network the loss no longer goes through."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from gradlint.analysis.dataflow.events import TrainingEvent
from gradlint.analysis.dataflow.optimizers import owned
from gradlint.analysis.dataflow.values import Obj, Optimizer
from gradlint.analysis.names import dotted
from gradlint.checks import Checker
from gradlint.diagnostic import Witness, headline


def _held(event: TrainingEvent) -> frozenset[int]:
    """The parameters the optimizer a step or zero_grad is called on updates (empty when
    not known)."""
    value = event.receiver
    return value.storages or frozenset() if isinstance(value, Optimizer) else frozenset()


class OptimizerReachChecker(Checker):
    """GL507 over the training events of each analysed body."""

    codes = ("GL507",)

    def leave_Module(self, node: cst.Module) -> None:
        runs: dict[int, list[TrainingEvent]] = {}
        for event in self.file.dataflow.training:
            runs.setdefault(event.run, []).append(event)
        reported: set[cst.CSTNode] = set()
        for events in runs.values():
            if any(e.kind == "step" for e in events):
                self._check_run(sorted(events, key=lambda e: e.time), reported)

    @cached_property
    def _module_parameters(self) -> frozenset[int]:
        """The storages of the parameters of every module the file builds."""
        return frozenset().union(*(owned(obj) for obj in self.file.dataflow.built))

    def _check_run(self, events: list[TrainingEvent], reported: set[cst.CSTNode]) -> None:
        every_optimizer = frozenset().union(
            *(_held(e) for e in events if e.kind in ("optimizer", "step"))
        )
        for step in events:
            held = _held(step) if step.kind == "step" else frozenset()
            if not held:
                continue
            reached = _reached_since_clearing(events, step, held)
            if not reached:
                continue
            if not reached & held:
                if (
                    step.node not in reported
                    and held <= self._module_parameters
                    and not _called_since_last_step(events, step, held)
                ):
                    reported.add(step.node)
                    self._report_elsewhere(step)
                continue
            missing = reached - every_optimizer
            replaced = self._replaced_layer(missing, held)
            built = next((e for e in events if e.kind == "optimizer" and _held(e) == held), None)
            if replaced is not None and built is not None and built.node not in reported:
                reported.add(built.node)
                self._report_replaced(built, replaced)

    def _replaced_layer(self, missing: frozenset[int], held: frozenset[int]):
        """`model.attr = new_layer` whose parameters the backward reaches and no optimizer
        holds, on a model the optimizer was built over and that no longer owns some of
        the parameters the optimizer holds (the replaced layer's)."""
        if not missing:
            return None
        for assigned in self.file.dataflow.module_attributes:
            new, parent = assigned.value, assigned.module
            if not isinstance(new, Obj) or not isinstance(parent, Obj) or assigned.grown:
                continue
            now = owned(parent)
            if owned(new) & missing and now & held and held - now:
                return assigned  # the optimizer holds parameters the model no longer has
        return None

    def _report_elsewhere(self, step: TrainingEvent) -> None:
        name = dotted(step.node.func.value) or "the optimizer"
        self.report(
            step.node,
            "GL507",
            headline(
                "{step} updates none of the parameters the backward before it reached",
                step=f"`{name}.step()`",
            ),
            witness=_WITNESS,
            detail=(
                f"`{name}` was built over other parameters (a network replaced or rebuilt after "
                "the optimizer took its parameters), so the model in use never trains. Build "
                "the optimizer after the model it trains."
            ),
        )

    def _report_replaced(self, built: TrainingEvent, assigned) -> None:
        line = self.file.position(assigned.node).start.line
        self.report(
            built.node,
            "GL507",
            headline(
                "This optimizer is built before {layer} is replaced by a new layer (line {line})",
                layer=f"`{assigned.written}.{assigned.attr}`",
                line=str(line),
            ),
            witness=_WITNESS,
            detail=(
                "It still holds the old layer's parameters, and the new layer, which the loss "
                "goes through, is in no optimizer and never trains. Build the optimizer after "
                "the model's layers are final."
            ),
        )


def _clears(event: TrainingEvent, held: frozenset[int]) -> bool:
    """A `zero_grad()` of this optimizer, or of a model holding some of its parameters,
    or this optimizer's step."""
    if event.kind == "step":
        return _held(event) == held
    if event.kind == "zero_grad":
        return _held(event) == held or bool(event.storages and event.storages & held)
    return False


def _called_since_last_step(
    events: list[TrainingEvent], step: TrainingEvent, held: frozenset[int]
) -> bool:
    """Whether a module holding some of the optimizer's parameters was called between
    its previous step and this one (the forward may come before the clearing)."""
    start = max(
        (e.time for e in events if e.kind == "step" and e.time < step.time and _held(e) == held),
        default=-1,
    )
    return any(
        e.kind == "forward"
        and start < e.time < step.time
        and (not isinstance(e.receiver, Obj) or owned(e.receiver) & held)
        for e in events
    )


def _reached_since_clearing(
    events: list[TrainingEvent], step: TrainingEvent, held: frozenset[int]
) -> frozenset[int]:
    """The parameters reached by the backwards between the optimizer's previous clearing
    and this step; empty when some backward's graph is not known (no recorded layer)."""
    start = max((e.time for e in events if e.time < step.time and _clears(e, held)), default=-1)
    found: set[int] = set()
    for event in events:
        if event.kind == "backward" and event.accumulates and start < event.time < step.time:
            reached = frozenset().union(*(node.params for node in event.nodes))
            if not reached:
                return frozenset()
            found |= reached
    return frozenset(found)


_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "model[1] = torch.nn.Linear(4, 2)\n"
    "before = model[1].weight.detach().clone()\n"
    "model(torch.randn(5, 3)).sum().backward()\n"
    "opt.step()\n"
    "if torch.equal(before, model[1].weight.detach()):\n"
    "    raise AssertionError('the new layer never trains')\n",
    "the new layer never trains",
)
