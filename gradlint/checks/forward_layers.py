"""GL505: a layer with parameters (or an `nn.Parameter`) built while forward runs and
never stored on the module, decided from the dataflow's construction events."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from gradlint.analysis.dataflow.freezing import modules
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
            if not learns:
                learns = isinstance(value, Obj) and any(
                    m.parameters and not self._built_at_construction(m)
                    for m in modules(value)
                    if m.torch_layer
                )
            if not learns or built.node in reported:
                continue
            if self._stored_every_call(built.node, built.function):
                reported.add(built.node)
                self._report_rebuilt(built.node)
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

    def _built_at_construction(self, layer: Obj) -> bool:
        """A layer some class's `__init__` built (the module registered it): wrapping it in
        a container built in forward (`nn.Sequential(self.linear_1, *self.middle)`, as
        pytorch-yolo-v3's test net does) makes no new weights."""
        if layer.constructor is None:
            return False
        line = self.file.position(layer.constructor).start.line
        return any(start <= line <= end for start, end in self._constructors)

    @cached_property
    def _constructors(self) -> list[tuple[int, int]]:
        """The line spans of the file's `__init__` methods."""
        spans = []
        for info in self.file.index.by_node.values():
            method = info.methods.get("__init__")
            if method is not None:
                where = self.file.position(method)
                spans.append((where.start.line, where.end.line))
        return spans

    def _stored_every_call(self, call: cst.Call, function: cst.FunctionDef) -> bool:
        """`self.out = nn.Sequential(...)` as a statement of `forward`'s own body, outside
        any `if` / loop / `try` / `with`: every call replaces the layer with a new one
        (MONAI#8578). A layer built lazily under a test stays quiet."""
        if function.name.value != "forward" or not isinstance(function.body, cst.IndentedBlock):
            return False
        for statement in function.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                value = small.value if isinstance(small, cst.Assign | cst.AnnAssign) else None
                if value is not call:
                    continue
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                )
                return len(targets) == 1 and _on_self(targets[0], function)
        return False

    def _report_rebuilt(self, call: cst.Call) -> None:
        what = self.file.code_for(call.func)
        self.report(
            call,
            "GL505",
            headline("{layer} is built anew on every forward", layer=f"`{what}(...)`"),
            witness=REBUILT_WITNESS,
            detail=(
                "`forward` stores a new, randomly initialised layer on `self` at every call: an "
                "optimizer built before holds none of its weights, one built after holds only "
                "the copy the next call replaces, so they never train. Build it once in "
                "`__init__` (or lazily under `if self.out is None:`)."
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


def _on_self(target: cst.BaseExpression, function: cst.FunctionDef) -> bool:
    """`self.name` with `self` the method's first parameter."""
    params = function.params.params
    return (
        bool(params)
        and isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == params[0].name.value
    )


REBUILT_WITNESS = Witness(
    "import torch\n"
    "class Net(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        self.out = torch.nn.Linear(4, 2)\n"
    "        return self.out(x)\n"
    "model = Net()\n"
    "model(torch.randn(3, 4))\n"
    "first = model.out.weight\n"
    "model(torch.randn(3, 4))\n"
    "if model.out.weight is not first:\n"
    "    raise AssertionError('forward replaced its layer with new random weights')\n",
    "forward replaced its layer with new random weights",
)

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
