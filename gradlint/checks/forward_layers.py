"""GL505: a layer with parameters (or an `nn.Parameter`) built while forward runs and
never stored on the module, decided from the dataflow's construction events."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.dataflow.values import Obj, Tensor
from gradlint.checks import Checker
from gradlint.diagnostic import Witness, headline


class LayerBuiltInForwardChecker(Checker):
    codes = ("GL505",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for built in self.file.dataflow.built_in_forward:
            value = built.value
            learns = (isinstance(value, Obj) and bool(value.parameters)) or (
                isinstance(value, Tensor) and value.described == "parameter"
            )
            if not learns or built.node in reported:
                continue
            if not self._discarded(built.node, built.function):
                continue
            reported.add(built.node)
            what = self.file.code_for(built.node.func)
            self.report(
                built.node,
                "GL505",
                headline("{layer} is built inside forward", layer=f"`{what}(...)`"),
                witness=WITNESS,
                detail=(
                    "Every call makes new, randomly initialised weights that "
                    "`model.parameters()` never holds, so the optimizer never trains them (and "
                    "`.to(device)` never moves them). Build it once in `__init__` and store it "
                    "on `self`."
                ),
            )

    def _discarded(self, call: cst.Call, function: cst.FunctionDef) -> bool:
        """Called at once (`nn.Linear(4, 2)(x)`), or bound to a local name that is only
        called or used as an operand: nothing keeps it past the call."""
        uses = _Uses(call)
        function.body.visit(uses)
        if uses.called_at_once:
            return True
        return uses.local is not None and uses.escapes == 0 and uses.used > 0


class _Uses(cst.CSTVisitor):
    def __init__(self, construction: cst.Call) -> None:
        self.construction = construction
        self.called_at_once = False
        self.local: str | None = None
        self.used = 0
        self.escapes = 0
        self._allowed: set[cst.Name] = set()
        self._targets: set[cst.Name] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if node.value is self.construction and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name):
                self.local = target.value
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._targets.add(target.target)

    def visit_Call(self, node: cst.Call) -> None:
        if node.func is self.construction:
            self.called_at_once = True
        if isinstance(node.func, cst.Name):
            self._allowed.add(node.func)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        for side in (node.left, node.right):
            if isinstance(side, cst.Name):
                self._allowed.add(side)

    def leave_Name(self, node: cst.Name) -> None:
        if self.local is None or node.value != self.local or node in self._targets:
            return
        if node in self._allowed:
            self.used += 1
        else:
            self.escapes += 1


WITNESS = Witness(
    "import torch\n"
    "class Net(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        return torch.nn.Linear(4, 2)(x)\n"
    "model = Net()\n"
    "model(torch.randn(3, 4))\n"
    "if not list(model.parameters()):\n"
    "    raise AssertionError('the layer built in forward is not a parameter')\n",
    "the layer built in forward is not a parameter",
)
