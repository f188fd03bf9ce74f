"""Gradient accumulation undone by its own clearing (GL506), decided from the dataflow
interpreter's training events (analysis/dataflow/events.py, TrainingEvent): a
`zero_grad()` that runs on every iteration of a loop, before that iteration's backward,
while the optimizer steps only on some iterations (under an `if` on the iteration
count) or only after the loop: each step applies the last iteration's gradients alone.
"""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.dataflow.events import Place, TrainingEvent
from gradlint.analysis.dataflow.values import Optimizer
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Witness, headline


def _every_iteration(inner: tuple[Place, ...]) -> bool:
    """Inside a loop pass, under no `if` and in no handler (inlined calls, an `if` proven
    taken and a `try` body run whenever the iteration does)."""
    return all(p.kind in ("call", "taken") or (p.kind == "try" and p.index == 0) for p in inner)


def _on_iteration_count(place: Place) -> bool:
    """A branch of an `if` whose test takes a remainder (`(i + 1) % k == 0`): the
    condition of deliberate accumulation, not a skipped bad batch."""
    test = getattr(place.node, "test", None)
    return test is not None and any(
        isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)
        for node in iter_nodes(test)
    )


def _optimizer_of(event: TrainingEvent) -> tuple[str | None, Optimizer | None]:
    """What `x.zero_grad()` / `x.step()` is called on: as written, and its value if proven
    an optimizer."""
    call = event.node
    written = dotted(call.func.value) if isinstance(call, cst.Call) else None
    value = event.receiver if isinstance(event.receiver, Optimizer) else None
    return written, value


def _same_optimizer(zero: TrainingEvent, step: TrainingEvent) -> bool:
    """The step is on the optimizer the `zero_grad()` clears: written alike, or the same
    proven optimizer."""
    zero_name, zero_value = _optimizer_of(zero)
    step_name, step_value = _optimizer_of(step)
    if zero_value is not None and step_value is not None:
        return zero_value == step_value
    return zero_name is not None and zero_name == step_name and step_value is not None


class AccumulationChecker(Checker):
    """GL506 over the training events of each analysed body."""

    codes = ("GL506",)

    def leave_Module(self, node: cst.Module) -> None:
        runs: dict[int, list[TrainingEvent]] = {}
        for event in self.file.dataflow.training:
            if event.kind in ("backward", "step", "zero_grad"):
                runs.setdefault(event.run, []).append(event)
        reported: set[cst.CSTNode] = set()
        for events in runs.values():
            for zero, loop, step, how in _wiped_accumulations(events, self.file.module):
                if zero.node not in reported:
                    reported.add(zero.node)
                    self._report(zero, loop, step, how)
            for backward, made in _losses_left_out(events):
                if backward.node not in reported:
                    reported.add(backward.node)
                    self._report_left_out(backward, made)

    def _report_left_out(self, backward: TrainingEvent, made: cst.CSTNode) -> None:
        line = self.file.line(made)
        self.report(
            backward.node,
            "GL506",
            headline(
                "{backward} runs only on the iterations the optimizer steps on; the loss of "
                "line {line} is dropped on the others",
                backward=f"`{self.file.code_for(backward.node)}`",
                line=str(line),
            ),
            witness=_LEFT_OUT_WITNESS,
            detail=(
                f"The loss is computed on every iteration (line {line}) but backpropagated "
                "only under the `if` on the iteration count: the iterations meant to "
                "accumulate gradients add nothing to `.grad`, and each step applies one "
                "micro-batch. Call `backward()` on every iteration and keep `step()` / "
                "`zero_grad()` under the `if`."
            ),
        )

    def _report(
        self, zero: TrainingEvent, loop: cst.CSTNode, step: TrainingEvent, how: str
    ) -> None:
        name, _ = _optimizer_of(step)
        line = self.file.line(step.node)
        loop_line = self.file.line(loop)
        if how == _SAME_ITERATIONS:
            self._report_same_iteration(zero, step, f"`{name}.step()`", line, loop_line)
            return
        self.report(
            zero.node,
            "GL506",
            headline(
                "{zero} clears every iteration's gradients, but {step} (line {line}) runs {how}",
                zero=f"`{self.file.code_for(zero.node)}`",
                step=f"`{name}.step()`",
                line=str(line),
                how=how,
            ),
            witness=_WITNESS,
            detail=(
                f"It runs on every iteration of the loop on line {loop_line}, before the "
                "iteration's backward: each step applies the gradients of the last iteration "
                "alone, the others are wiped unused. Clear "
                "the gradients right after the step (under the same condition)."
            ),
        )

    def _report_same_iteration(
        self, zero: TrainingEvent, step: TrainingEvent, written: str, line: int, loop_line: int
    ) -> None:
        self.report(
            zero.node,
            "GL506",
            headline(
                "{zero} wipes gradients on the iterations {step} (line {line}) steps on, "
                "before their backward",
                zero=f"`{self.file.code_for(zero.node)}`",
                step=written,
                line=str(line),
            ),
            witness=_SAME_ITERATION_WITNESS,
            detail=(
                f"Both run under the same condition in the loop on line {loop_line}, the "
                "clearing before the iteration's backward and the step after it: each step "
                "applies that iteration's gradients alone, those of the iterations since the "
                "last step are wiped unused. Clear the gradients right after the step."
            ),
        )


def _first_passes(events: list[TrainingEvent]):
    """For each loop, the events of its first pass, each with the places inside it."""
    passes: dict[cst.CSTNode, list[tuple[TrainingEvent, tuple[Place, ...]]]] = {}
    for event in events:
        for number, place in enumerate(event.path):
            if place.kind == "loop" and place.index == 0:
                passes.setdefault(place.node, []).append((event, event.path[number + 1 :]))
    return passes


def _wiped_accumulations(events: list[TrainingEvent], module: cst.Module):
    """(zero_grad, loop, step, how) for each loop whose every iteration clears then backpropagates
    while that optimizer steps on some iterations only, or after the loop."""
    for loop, inside in _first_passes(events).items():
        backwards = [
            e
            for e, inner in inside
            if e.kind == "backward" and e.accumulates and _every_iteration(inner)
        ]
        if not backwards:
            continue
        zeros = [
            e
            for e, inner in inside
            if e.kind == "zero_grad" and _every_iteration(inner) and e.time < backwards[-1].time
        ]
        for zero in zeros:
            found = _step_of_some_iterations(zero, inside, backwards) or _step_after(
                zero, loop, events, inside
            )
            if found is not None:
                yield zero, loop, *found
                break
        else:
            found = _cleared_on_the_step_iteration(loop, inside, backwards)
            if found is not None and not _counted_apart(found[2], module, loop):
                yield found[0], loop, found[1], _SAME_ITERATIONS


_SAME_ITERATIONS = "on the same iterations, after their backward"


def _losses_left_out(events: list[TrainingEvent]):
    """(backward, assignment) for each loop whose every backward runs under one `if` on the
    iteration count (with a step of the same branch), backpropagating a name the loop's own
    body assigns on every iteration before that `if`, from something else than itself (not
    an accumulator such as `total = total + loss` or `total += loss`)."""
    for loop, inside in _first_passes(events).items():
        backwards = [(e, inner) for e, inner in inside if e.kind == "backward" and e.accumulates]
        if not backwards or any(_condition(inner) is None for _, inner in backwards):
            continue
        for backward, inner in backwards:
            branch = next(p for p in inner if p.kind == "if")
            stepped = any(
                e.kind == "step" and branch in step_inner and e.time > backward.time
                for e, step_inner in inside
            )
            made = _made_every_iteration(loop, branch.node, backward.node) if stepped else None
            if made is not None:
                yield backward, made
                break


def _made_every_iteration(loop, branch: cst.If, call: cst.CSTNode) -> cst.CSTNode | None:
    """The statement of the loop's own body, before `branch` (one of its statements), that
    last assigns the name `call` (`name.backward()`) backpropagates, when the branch does
    not assign it first and the value is not built from the name itself."""
    body = getattr(loop.body, "body", ())
    func = call.func if isinstance(call, cst.Call) else None
    if branch not in body or not isinstance(func, cst.Attribute):
        return None
    if not isinstance(func.value, cst.Name) or func.attr.value != "backward":
        return None
    name = func.value.value
    if _binds(branch, name):
        return None
    made = None
    for statement in body[: body.index(branch)]:
        if _binds(statement, name):
            made = statement if _assigned_afresh(statement, name) else None
    return made


def _binds(node: cst.CSTNode, name: str) -> bool:
    """`node` assigns `name` somewhere (`name = ...`, `name += ...`, a `for name in`)."""
    for child in iter_nodes(node):
        targets = []
        if isinstance(child, cst.Assign):
            targets = [t.target for t in child.targets]
        elif isinstance(child, cst.AugAssign | cst.AnnAssign | cst.For):
            targets = [child.target]
        for target in targets:
            if any(isinstance(n, cst.Name) and n.value == name for n in iter_nodes(target)):
                return True
    return False


def _assigned_afresh(statement: cst.CSTNode, name: str) -> bool:
    """`statement` is `name = <expression not reading name>` (a line of its own)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return False
    target = small.targets[0].target
    if not (isinstance(target, cst.Name) and target.value == name):
        return False
    return not any(isinstance(n, cst.Name) and n.value == name for n in iter_nodes(small.value))


def _condition(inner: tuple[Place, ...]) -> cst.CSTNode | None:
    """The test of the one `if` on the iteration count an event sits under (its body; the
    other places run whenever the iteration does), else None."""
    branches = [p for p in inner if p.kind == "if"]
    if len(branches) != 1 or branches[0].index != 0 or not _on_iteration_count(branches[0]):
        return None
    rest = [p for p in inner if p.kind != "if"]
    return branches[0].node.test if _every_iteration(tuple(rest)) else None


def _pass_of(event: TrainingEvent, loop: cst.CSTNode) -> tuple:
    """The places up to the loop's pass an event sits in (the passes of the loops around
    it tell apart the runs of one pass of the loop)."""
    places = []
    for place in event.path:
        places.append((place.kind, id(place.node), place.index))
        if place.node is loop:
            break
    return tuple(places)


def _cleared_on_the_step_iteration(loop, inside, backwards):
    """(zero_grad, step, test): both under an `if` of the same test on the iteration count, the
    clearing before the iteration's backward and the step after it, in one pass of the
    loop: on each update iteration the gradients accumulated since the last step are
    wiped first."""
    for zero, inner in inside:
        test = _condition(inner) if zero.kind == "zero_grad" else None
        same_pass = _pass_of(zero, loop)
        later = [b for b in backwards if b.time > zero.time and _pass_of(b, loop) == same_pass]
        if test is None or not later:
            continue
        for step, step_inner in inside:
            if step.kind != "step" or step.time < later[0].time or not _same_optimizer(zero, step):
                continue
            if _pass_of(step, loop) != same_pass:
                continue
            step_test = _condition(step_inner)
            if step_test is not None and step_test.deep_equals(test):
                return zero, step, test
    return None


def _counted_apart(test: cst.CSTNode, module: cst.Module, loop: cst.CSTNode) -> bool:
    """A name the test reads is a counter (`global_step += 1` anywhere, or assigned in
    the loop): between the clearing and the step it may move, making the same test true
    on different iterations. Constants set once (`accumulation_steps = 4`) do not."""
    read = {dotted(node) for node in iter_nodes(test) if isinstance(node, cst.Name | cst.Attribute)}
    for node in iter_nodes(module):
        if isinstance(node, cst.AugAssign) and dotted(node.target) in read:
            return True
    return any(
        isinstance(node, cst.Assign) and any(dotted(t.target) in read for t in node.targets)
        for node in iter_nodes(loop)
    )


def _step_of_some_iterations(zero, inside, backwards):
    """The optimizer's steps in the loop all run under an `if` on the iteration count, and
    none has a backward of its own in its branch."""
    steps = [(e, inner) for e, inner in inside if e.kind == "step" and _same_optimizer(zero, e)]
    if not steps or any(_every_iteration(inner) for _, inner in steps):
        return None
    for step, inner in steps:
        branches = [p for p in inner if p.kind == "if"]
        if _own_backward(zero, step, branches, inside):
            continue
        if step.time > backwards[0].time and any(_on_iteration_count(p) for p in branches):
            return step, "only on some iterations"
    return None


def _own_backward(zero, step, branches, inside) -> bool:
    """A backward between the clearing and the step, in the step's own branch: the step
    applies that backward's gradients, made on the iterations it runs (a GAN's generator
    trained every n-th iteration: `if i % n_critic == 0: g_loss.backward(); opt_G.step()`).
    What the every-iteration backwards leave in its parameters meanwhile (the
    discriminator's loss through fake images not detached) is meant to be cleared."""
    return any(
        event.kind == "backward"
        and zero.time < event.time < step.time
        and all(branch in inner for branch in branches)
        for event, inner in inside
    )


def _step_after(zero, loop, events, inside):
    """No step of the optimizer in the loop, and its first step after the loop comes with
    no backward or clearing in between."""
    if any(e.kind == "step" and _same_optimizer(zero, e) for e, _ in inside):
        return None
    end = max(e.time for e, _ in inside)
    for event in sorted(events, key=lambda e: e.time):
        if event.time <= end or any(p.node is loop for p in event.path):
            continue
        if event.kind == "step" and _same_optimizer(zero, event):
            return event, "once, after the loop"
        if event.kind in ("backward", "zero_grad"):
            return None
    return None


_LEFT_OUT_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "batches = [torch.randn(2, 3) for _ in range(2)]\n"
    "for i, x in enumerate(batches):\n"
    "    loss = model(x).sum()\n"
    "    if (i + 1) % 2 == 0:\n"
    "        loss.backward()\n"
    "applied = model.weight.grad.clone()\n"
    "model.zero_grad()\n"
    "for x in batches:\n"
    "    model(x).sum().backward()\n"
    "if not torch.allclose(applied, model.weight.grad):\n"
    "    raise AssertionError('the step sees the last micro-batch only')\n",
    "the step sees the last micro-batch only",
)

_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.0)\n"
    "batches = [torch.randn(2, 3) for _ in range(2)]\n"
    "for x in batches:\n"
    "    opt.zero_grad()\n"
    "    model(x).sum().backward()\n"
    "applied = model.weight.grad.clone()\n"
    "model.zero_grad()\n"
    "for x in batches:\n"
    "    model(x).sum().backward()\n"
    "if not torch.allclose(applied, model.weight.grad):\n"
    "    raise AssertionError('the step sees the last micro-batch only')\n",
    "the step sees the last micro-batch only",
)


_SAME_ITERATION_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.0)\n"
    "batches = [torch.randn(2, 3) for _ in range(4)]\n"
    "for i, x in enumerate(batches, start=1):\n"
    "    if i % 2 == 0:\n"
    "        opt.zero_grad()\n"
    "    model(x).sum().backward()\n"
    "    if i % 2 == 0:\n"
    "        applied = model.weight.grad.clone()\n"
    "        opt.step()\n"
    "model.zero_grad()\n"
    "for x in batches[2:]:\n"
    "    model(x).sum().backward()\n"
    "if not torch.allclose(applied, model.weight.grad):\n"
    "    raise AssertionError('the step sees the last batch only')\n",
    "the step sees the last batch only",
)
