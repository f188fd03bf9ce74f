"""GL508: a training loop that switches a trained module to eval mode and never back (an
evaluation helper's `model.eval()` run every few steps), so the later steps train with
dropout off and batch norm on its running statistics."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.dataflow import optimizers
from gradlint.analysis.dataflow.events import TrainingEvent
from gradlint.analysis.dataflow.freezing import modules
from gradlint.analysis.dataflow.values import Obj, Optimizer
from gradlint.checks import Checker
from gradlint.diagnostic import Witness, headline

_WITNESS = Witness(
    "import torch\n"
    "import torch.nn as nn\n"
    "model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))\n"
    "model.train()\n"
    "modes = []\n"
    "for step in range(2):\n"
    "    modes.append(model.training)\n"
    "    model(torch.randn(2, 4)).sum().backward()\n"
    "    model.eval()  # an evaluation helper, with no model.train() after it\n"
    "assert modes == [True, True], 'the second step trained in eval mode'\n",
    "the second step trained in eval mode",
)

# Layers whose forward depends on the mode (torch.nn's dropout and batch-norm families).
_MODE_LAYERS = frozenset(
    {
        "torch.nn.Dropout",
        "torch.nn.Dropout1d",
        "torch.nn.Dropout2d",
        "torch.nn.Dropout3d",
        "torch.nn.AlphaDropout",
        "torch.nn.FeatureAlphaDropout",
        "torch.nn.BatchNorm1d",
        "torch.nn.BatchNorm2d",
        "torch.nn.BatchNorm3d",
        "torch.nn.SyncBatchNorm",
    }
)


def _subtree(obj: Obj) -> set[int]:
    return {id(module) for module in modules(obj)}


def _mode_layers(obj: Obj) -> bool:
    """`obj` or one of its sub-modules is a layer whose forward depends on the mode."""
    return any(module.torch_layer and module.kind in _MODE_LAYERS for module in modules(obj))


def _loops(event: TrainingEvent) -> list[cst.CSTNode]:
    return [place.node for place in event.path if place.kind == "loop"]


def _in_loop(event: TrainingEvent, loop: cst.CSTNode) -> bool:
    return any(place.kind == "loop" and place.node is loop for place in event.path)


def _call_in_loop(event: TrainingEvent, loop: cst.CSTNode) -> cst.CSTNode:
    """The call of the loop's own body that ran `event` inline, or the event itself."""
    for index, place in enumerate(event.path):
        if place.kind == "loop" and place.node is loop:
            inner = event.path[index + 1 :]
            return next((p.node for p in inner if p.kind == "call"), event.node)
    return event.node


def _holds(step: TrainingEvent, owned: frozenset[int]) -> bool:
    """The optimizer `step` steps is known to hold one of the `owned` parameters."""
    for value in (step.receiver, step.argument):
        if isinstance(value, Optimizer) and value.storages and value.storages & owned:
            return True
    return False


class TrainingModeChecker(Checker):
    """GL508 a module set to eval mode inside a training loop that trains it afterwards."""

    codes = ("GL508",)

    def leave_Module(self, node: cst.Module) -> None:
        runs: dict[int, list[TrainingEvent]] = {}
        for event in self.file.dataflow.training:
            runs.setdefault(event.run, []).append(event)
        reported: set[cst.CSTNode] = set()
        for events in runs.values():
            for switch in events:
                if switch.kind == "mode" and switch.mode is False:
                    self._check(switch, events, reported)

    def _check(self, switch: TrainingEvent, events: list[TrainingEvent], reported) -> None:
        module = switch.receiver
        if not isinstance(module, Obj) or not _mode_layers(module):
            return
        switched = _subtree(module)
        for loop in reversed(_loops(switch)):  # the innermost loop that trains after it
            trained = self._trained_after(switch, switched, module, loop, events)
            if trained is None:
                continue
            at = switch.node if self._own(switch.node) else _call_in_loop(switch, loop)
            if at in reported:
                return
            reported.add(at)
            name = self.file.code_for(trained.node.func)
            self.report(
                at,
                "GL508",
                headline(
                    "{module} is set to eval mode inside the training loop and trained "
                    "afterwards: `train()` is never called back",
                    module=f"`{self.file.code_for(switch.node.func.value)}`",
                ),
                witness=_WITNESS,
                detail=(
                    f"After this, `{name}(...)` runs in the same loop with dropout off "
                    "and batch norm normalising by its running statistics, then its loss is "
                    "backpropagated and the optimizer steps: every later step trains the "
                    "evaluation-mode network. Call `model.train()` after evaluating (or at "
                    "the start of each training step); if the module is meant to stay frozen, "
                    "`eval()` does not freeze it: keep its parameters out of the optimizer."
                ),
            )
            return

    def _trained_after(
        self,
        switch: TrainingEvent,
        switched: set[int],
        module: Obj,
        loop: cst.CSTNode,
        events: list[TrainingEvent],
    ) -> TrainingEvent | None:
        """A forward of the switched module (or of one holding it) in `loop` after the
        switch, followed in the loop by a backward and a step of an optimizer holding its
        parameters, with no train mode set on the module from the switch to that step."""
        owned = optimizers.owned(module)
        later = [e for e in events if e.time > switch.time and _in_loop(e, loop)]
        restored = min(
            (
                e.time
                for e in events
                if e.kind == "mode"
                and e.mode is not False
                and e.time > switch.time
                and isinstance(e.receiver, Obj)
                and switched & _subtree(e.receiver)
            ),
            default=None,
        )
        forwards = [
            e
            for e in later
            if e.kind == "forward"
            and isinstance(e.receiver, Obj)
            and switched & _subtree(e.receiver)
        ]
        if not forwards:
            return None
        first = min(forwards, key=lambda e: e.end)
        backward = min(
            (
                e.time
                for e in later
                if e.kind == "backward" and e.accumulates and e.time > first.end
            ),
            default=None,
        )
        if backward is None:
            return None
        stepped = any(
            e.kind == "step"
            and e.time > backward
            and (restored is None or e.time < restored)
            and _holds(e, owned)
            for e in later
        )
        return first if stepped else None

    def _own(self, node: cst.CSTNode) -> bool:
        """`node` is written in the file itself, not in a function another project file
        linked before its statements."""
        header, added = self.file.linked_lines
        line = self.file.position(node).start.line
        return not header < line <= header + added
