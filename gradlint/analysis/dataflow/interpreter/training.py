"""Training: `backward()`, optimizer `step()` / `zero_grad()`, grad mode of `with` blocks."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.context import (
    literal_bool,
)
from gradlint.analysis.dataflow import (
    graphs,
    optimizers,
)
from gradlint.analysis.dataflow.events import (
    BackwardCall,
)
from gradlint.analysis.dataflow.interpreter.common import _NO_EFFECT, _argument
from gradlint.analysis.dataflow.interpreter.state import Frame, State
from gradlint.analysis.dataflow.values import (
    Grad,
    Obj,
    Optimizer,
    Seq,
    Tensor,
)


class Training:
    """The interpreter's training: mixed into `Interpreter`, over its shared state."""

    def _grad_effect(self, expr: cst.BaseExpression):
        """False/True for a no-grad/enable-grad context, None for a mode only known at run
        time (`set_grad_enabled(train)`), _NO_EFFECT for anything else."""
        call = expr if isinstance(expr, cst.Call) else None
        target = call.func if call is not None else expr
        qualified = self.imports.resolve(target)
        runtime_flag = call is not None and call.args and literal_bool(call.args[0].value) is None
        if qualified in ("torch.set_grad_enabled", "torch._C._set_grad_enabled") and runtime_flag:
            return None
        effect = self.scope.grad_effect(expr)
        return _NO_EFFECT if effect is None else effect

    def _backward(self, call: cst.Call, loss, loss_node, retains, state: State, frame: Frame):
        """A backward through `loss` (a tensor or a list of them): what it meets of the
        graphs' state, and the nodes it frees."""
        tensors = [loss] if isinstance(loss, Tensor) else []
        if isinstance(loss, Seq) and not loss.any_length:
            tensors = [v for v in loss.items if isinstance(v, Tensor)]
        roots = [t.graph for t in tensors if t.grad is Grad.ON]
        live = tuple(n for n in graphs.reachable(roots) if id(n) not in state.graphs.freed)
        accumulates = self.imports.resolve(call.func) != "torch.autograd.grad"
        unknowns = _takes_arguments(frame.body.standalone)
        self._trace(
            "backward", call, frame, accumulates=accumulates, nodes=live, given_unknowns=unknowns
        )
        freed, stale, state.graphs = state.graphs.traverse(call, roots, retains)
        if not tensors:
            return
        written = self._text(loss_node)
        value = loss if isinstance(loss, Tensor) else None
        event = BackwardCall(call, written, value, retains, freed, stale)
        self.facts.backward_calls.append(event)
        if retains is False:  # what the graph saved is freed: later edits no longer matter
            state.saved.clear()

    def _step(self, call: cst.Call, receiver, args, state: State) -> None:
        """`optimizer.step()` or `scaler.step(optimizer)`: the parameters it updates are
        edited in place."""
        stepped = _stepped(receiver, args)
        if stepped is None or not stepped.storages:
            return
        written = self._text(call)
        step = graphs.Step(call, written, stepped.storages, graphs.tick())
        state.graphs = state.graphs.step(step)

    def _idle_step(self, receiver, args, state: State) -> bool:
        """Every parameter the stepped optimizer holds has no `.grad`: `zero_grad()` set
        them to None and no backward since reached them (REINFORCE-with-baseline's value
        optimizer built over the policy), so torch's step skips them all."""
        stepped = _stepped(receiver, args)
        return (
            stepped is not None
            and bool(stepped.storages)
            and not (stepped.storages - state.graphs.cleared)
        )

    def _zero_grad(self, call: cst.Call, receiver, state: State) -> None:
        """`optimizer.zero_grad()` / `model.zero_grad()` sets the gradients to None (not
        with `set_to_none=False`): a step before the next backward edits nothing."""
        if literal_bool(_argument(call, "set_to_none", 0)) is False:
            return
        if isinstance(receiver, Optimizer) and receiver.storages:
            state.graphs = state.graphs.zero_grad(receiver.storages)
            self.facts.zeroed |= receiver.storages
        elif isinstance(receiver, Obj):
            state.graphs = state.graphs.zero_grad(optimizers.owned(receiver))
            self.facts.zeroed |= optimizers.owned(receiver)


def _stepped(receiver, args) -> Optimizer | None:
    """The optimizer `optimizer.step()` or `scaler.step(optimizer)` steps."""
    if isinstance(receiver, Optimizer):
        return receiver
    positional = args[0]
    return positional[0] if positional and isinstance(positional[0], Optimizer) else None


def _takes_arguments(function: cst.FunctionDef | None) -> bool:
    """A function run on its own that takes arguments besides `self` / `cls`."""
    if function is None:
        return False
    params = function.params
    named = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    starred = isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None
    return starred or any(name not in ("self", "cls") for name in named[:1]) or len(named) > 1
