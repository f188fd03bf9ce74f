"""Graph cuts (GL201 conversions, GL202 detach / no_grad, GL203 non-differentiable ops)
and the backward / step events of one graph (GL202 at the backward, GL305, GL103),
decided from the dataflow interpreter's facts: the cut a value carries (the only path
from the parameters to it went through a conversion, detach or non-differentiable op:
analysis/dataflow/cuts.py) at a backpropagated loss or a module's `forward` return, and
the backward calls with what their graph met."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.dataflow import Cut, Grad, Tensor, graphs, optimizers
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Witness, headline

_WITNESS = {
    "GL201": Witness(
        "import torch\n"
        "w = torch.nn.Parameter(torch.randn(3))\n"
        "loss = torch.tensor((w * 2).sum().item())\n"
        "loss.backward()\n",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    "GL202": Witness(
        "import torch\n"
        "w = torch.nn.Parameter(torch.randn(3))\n"
        "loss = (w * 2).detach().sum()\n"
        "loss.backward()\n",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    "GL203": Witness(
        "import torch\n"
        "w = torch.nn.Parameter(torch.randn(3))\n"
        "loss = (w * 2).argmax().float()\n"
        "loss.backward()\n",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
}

_WITNESS["GL305"] = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "loss = model(torch.randn(2, 3)).tanh().sum()\n"
    "loss.backward()\n"
    "loss.backward()\n",
    "Trying to backward through the graph a second time",
)

_WITNESS["GL103"] = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "loss = model(torch.randn(2, 3, requires_grad=True)).sum()\n"
    "loss.backward(retain_graph=True)\n"
    "opt.step()\n"
    "loss.backward()\n",
    "one of the variables needed for gradient computation has been modified by an",
)

_ADVICE = {
    "GL201": "Keep the computation in torch tensors (use the tensor itself, not a Python "
    "number or a new tensor built from it); convert only for logging.",
    "GL202": "Drop the `.detach()` / `.data` / `torch.no_grad()` on this path, or add a "
    "differentiable path (straight-through: `x + (y - x).detach()`).",
    "GL203": "Use a differentiable surrogate (softmax / sigmoid instead of argmax or a "
    "threshold) or a straight-through estimator `x + (hard - x).detach()`.",
}


def _covered(backward_calls) -> set[int]:
    """The storages (parameters, saved tensors) these backwards of uncut losses reach."""
    covered: set[int] = set()
    for call in backward_calls:
        if call.value is not None and call.value.cut is None:
            covered |= graphs.storages_reached(call.value.graph) or frozenset()
    return covered


def _trained_by_another(call, facts) -> bool:
    """Every parameter behind the detached term of `call`'s loss gets its gradient from
    another backward, of another loss (`advantage = q - v.detach()` in the actor's loss,
    the value network trained by its own `F.mse_loss(v, target).backward()`): the detach
    is the baseline's, by design. Parameters the same loss trains through another term
    do not count: the detached term (a penalty, a distillation loss) still adds nothing."""
    behind = graphs.params_reached(call.value.dropped.graph)
    others = [
        other
        for other in facts.backward_calls
        if other.node is not call.node
        and other.value is not None
        and other.value.graph is not call.value.graph
    ]
    return bool(behind) and behind <= _covered(others)


class FlowChecker(Checker):
    """GL201 / GL202 / GL203: the only path from the parameters to a backpropagated loss
    or a module's output is cut, decided from the cuts the dataflow records (cuts.py):
    the loss (or output) itself, or one additive term of the loss."""

    codes = ("GL201", "GL202", "GL203")

    def __init__(self, file) -> None:
        super().__init__(file)
        self.reported: set[cst.CSTNode] = set()
        self.in_no_grad: set[cst.CSTNode] = set()  # inside a no_grad block or function

    def visit_Call(self, node: cst.Call) -> None:
        if not self.scope.grad_enabled:
            self.in_no_grad.add(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self.visit_Call(node)

    def leave_Module(self, node: cst.Module) -> None:
        facts = self.file.dataflow
        for call in facts.backward_calls:
            value = call.value
            if value is None or (value.no_grad_made and self._switched_off(value.cut)):
                continue  # grad mode switched off elsewhere: GL202 at the backward only
            if value.cut is not None:
                self.report_cut(value.cut, "the loss passed to `backward()`")
            elif value.dropped is not None and not _trained_by_another(call, facts):
                self.report_cut(value.dropped, "a term of the loss passed to `backward()`")
        self._fed_to_modules(facts, _covered(facts.backward_calls))
        forwards = self._module_forwards()
        for returned in facts.returns:
            value = returned.value
            if returned.function not in forwards or not isinstance(value, Tensor) or not value.cut:
                continue
            if value.cut.integer and value.dtype != "float":
                continue  # a module returning indices or a mask by design
            self.report_cut(value.cut, "the module's output")

    def _switched_off(self, cut: Cut | None) -> bool:
        """Grad mode was off where `cut` was made, but not by a block around it."""
        return cut is None or cut.node not in self.in_no_grad

    def _fed_to_modules(self, facts, covered: set[int]) -> None:
        """A cut value fed to a layer that a backward trains, while no backward reaches
        the trained parameters before the cut (`second(first(x).argmax(1))`)."""
        trained = set(facts.zeroed)
        for built in facts.optimizers:
            trained |= optimizers.optimizer(built.params).storages or frozenset()
        for fed in facts.cuts_fed:
            before = graphs.params_reached(fed.cut.graph)
            if fed.params & covered and before & trained and not before & covered:
                self.report_cut(fed.cut, "the loss through the layer it feeds")

    def _module_forwards(self) -> set[cst.FunctionDef]:
        """`forward` of the file's nn.Modules, unless it runs without grad by design."""
        return {
            forward
            for info in self.file.index.by_node.values()
            if info.is_module and (forward := info.methods.get("forward")) is not None
            if all(self.scope.grad_effect(d.decorator) is not False for d in forward.decorators)
        }

    def report_cut(self, cut: Cut, sink: str) -> None:
        if cut.node is None or cut.node in self.reported:
            return
        self.reported.add(cut.node)
        verb = {"GL201": "converts", "GL202": "detaches", "GL203": "is not differentiable and cuts"}
        how = cut.how[0].upper() + cut.how[1:]  # `x.item()`, or "Computing it under ..."
        verbs = verb[cut.code]
        if how.startswith("The indices"):  # a plural subject
            verbs = verbs.replace(" is ", " are ").replace(" cuts", " cut")
        self.report(
            cut.node,
            cut.code,
            headline(
                "{how} {verb} the value out of autograd's graph", how=how, verb=verb[cut.code]
            ),
            witness=_WITNESS[cut.code],
            detail=(
                f"It is the only path from the parameters to {sink}, so the parameters get no "
                "gradient (backward raises 'element 0 of tensors does not require grad' or "
                f"leaves `.grad` None / zero). {_ADVICE[cut.code]}"
            ),
        )


NO_GRAD_LOSS_ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class BackwardWithoutGraphChecker(Checker):
    """GL202 at the backward itself: the tensor differentiated needs no grad because grad
    mode was off when it was computed (a `no_grad` block, a decorated helper, a global
    `torch.set_grad_enabled(False)` left on by a helper) or because every parameter it
    came from was frozen, decided from the dataflow's backward events."""

    codes = ("GL202",)
    _class_nodes: set[int] | None = None

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for call in self.file.dataflow.backward_calls:
            value = call.value
            if value is None or value.grad is not Grad.OFF or call.node in reported:
                continue  # (a loss cut by .item() / .detach() is GL201 / GL202 at the cut)
            if self._runs_only_with_grad(call.node):
                continue  # the same code serves a no_grad evaluation, where it is skipped
            if value.no_grad_made:
                why = "{loss} was computed with grad mode off"
                how = (
                    "It was computed under `torch.no_grad()`, in a helper decorated with it, "
                    "or after `torch.set_grad_enabled(False)`."
                )
                advice = "Compute the loss with grad enabled from the trainable parameters."
                witness = _NO_GRAD_WITNESS
            elif value.frozen_made:
                why = "{loss} comes only from frozen parameters"
                how = (
                    "Every parameter of the model it comes from was frozen "
                    "(`requires_grad = False` / `requires_grad_(False)`)."
                )
                advice = "Freeze only the part meant to stay fixed (e.g. the backbone)."
                witness = _FROZEN_WITNESS
            elif (
                value.cut is None and self._differentiated_itself(call) and not self._in_class(call)
            ):
                why = "{loss} is built only from tensors that do not require grad"
                how = (
                    "No parameter and no tensor created with `requires_grad=True` goes into "
                    "it (made by torch factories or from data, never by the model)."
                )
                advice = (
                    "Compute the loss from the model's output, or create the tensor to "
                    "differentiate with `requires_grad=True`."
                )
                witness = _UNTRACKED_WITNESS
            else:
                continue
            reported.add(call.node)
            self.report(
                call.node,
                "GL202",
                headline(why, loss=f"`{call.written}`"),
                witness=witness,
                detail=f'{how} Backward raises "{NO_GRAD_LOSS_ERROR}". {advice}',
            )

    def _in_class(self, call) -> bool:
        """The backward sits in a method: the loss may come from attributes that other
        methods fill (a trainer's list of losses replaced item by item), which a method
        analysed on its own reads as `__init__` left them."""
        if self._class_nodes is None:
            self._class_nodes = {
                id(n)
                for c in iter_nodes(self.file.module)
                if isinstance(c, cst.ClassDef)
                for n in iter_nodes(c)
            }
        return id(call.node) in self._class_nodes

    def _differentiated_itself(self, call) -> bool:
        """`loss.backward(...)` on the tensor itself, or `torch.autograd.backward(loss)`:
        not the argument of an object's `backward(x)` (`fabric.backward(loss)`, or a
        `y.backward(grad)` whose `y` is not known to be a tensor, where `x` may be the
        gradient handed in)."""
        func = call.node.func if isinstance(call.node, cst.Call) else None
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            return self.file.code_for(func.value) == call.written
        return self.file.imports.resolve(func) == "torch.autograd.backward"

    def _runs_only_with_grad(self, node: cst.CSTNode) -> bool:
        """The backward is in the body of `if loss.requires_grad:` (`and` other tests) of a
        tensor it differentiates: where grad mode was off the branch is not taken."""
        names = {n.value for n in iter_nodes(node) if isinstance(n, cst.Name)}
        for statement in iter_nodes(self.file.module):
            if not isinstance(statement, cst.If):
                continue
            tested = {
                conjunct.value.value
                for conjunct in _conjuncts(statement.test)
                if isinstance(conjunct, cst.Attribute)
                and conjunct.attr.value == "requires_grad"
                and isinstance(conjunct.value, cst.Name)
            }
            if tested & names and any(n is node for n in iter_nodes(statement.body)):
                return True
        return False


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


_NO_GRAD_WITNESS = Witness(
    "import torch\nw = torch.nn.Parameter(torch.ones(3))\n"
    "with torch.no_grad():\n    loss = (w * 2).sum()\nloss.backward()\n",
    NO_GRAD_LOSS_ERROR,
)
_FROZEN_WITNESS = Witness(
    "import torch\nmodel = torch.nn.Linear(3, 1)\nmodel.requires_grad_(False)\n"
    "model(torch.randn(2, 3)).sum().backward()\n",
    NO_GRAD_LOSS_ERROR,
)
_UNTRACKED_WITNESS = Witness(
    "import torch\nlogits = torch.rand(4, 3)\n"
    "torch.nn.functional.cross_entropy(logits, torch.tensor([0, 1, 2, 0])).backward()\n",
    NO_GRAD_LOSS_ERROR,
)


class BackwardTwiceChecker(Checker):
    """GL305: a backward reaches a recorded op whose saved tensors an earlier backward
    (without `retain_graph=True`) freed, decided from the dataflow's backward events."""

    codes = ("GL305",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for call in self.file.dataflow.backward_calls:
            if not call.freed or call.node in reported:
                continue
            reported.add(call.node)
            first = min(call.freed, key=lambda freed: freed.node.time)
            if first.by is call.node:
                where = "on the previous iteration"
            else:
                where = f"on line {self.file.line(first.by)}"
            self.report(
                call.node,
                "GL305",
                headline(
                    "This backward goes through the graph of {op} a second time",
                    op=f"`{first.node.label}`",
                ),
                witness=_WITNESS["GL305"],
                detail=(
                    f"The backward {where} already freed it (no `retain_graph=True`), so torch "
                    "raises 'Trying to backward through the graph a second time'. Recompute "
                    "the forward, `.detach()` the value carried over (e.g. `fake.detach()`, "
                    "`hidden = hidden.detach()`), or sum the losses into one backward."
                ),
            )


class StepUnderLiveGraphChecker(Checker):
    """GL103 at `optimizer.step()`: the step updates in place parameters that a graph
    still alive saved (a retained graph, a hidden state carried over), and a later
    backward goes through that graph, decided from the dataflow's backward events."""

    codes = ("GL103",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for call in self.file.dataflow.backward_calls:
            for step, saved_by in call.stale:
                if step.node in reported:
                    continue
                reported.add(step.node)
                line = self.file.line(call.node)
                if step.no_grad:
                    what = "In-place edit of {step} under no_grad, which {op} saved for backward"
                    why = "Its version counter moves all the same under no_grad. "
                    fix = "Make the edit after that backward, or recompute the forward after it."
                else:
                    what = "{step} updates in place parameters that {op} saved for backward"
                    why = ""
                    fix = (
                        "Run every backward through the graph before the step, or recompute "
                        "the forward (or `.detach()` the state carried over) after it."
                    )
                self.report(
                    step.node,
                    "GL103",
                    headline(what, step=f"`{step.written}`", op=f"`{saved_by.label}`"),
                    witness=_WITNESS["GL103"],
                    detail=(
                        f"{why}The backward of `{call.written}` on line {line} still goes "
                        f'through that graph: torch raises "{_WITNESS["GL103"].expect} '
                        f'inplace operation". {fix}'
                    ),
                )
