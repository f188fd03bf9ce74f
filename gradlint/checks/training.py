"""Training loops: gradients never cleared (GL503), a step that cannot use the backward
meant for it (GL504), decided from the dataflow interpreter's training events
(analysis/dataflow/events.py, TrainingEvent): each backward, `step()`, `zero_grad()`,
gradient clearing and module call, in the order each analysed body (the module, each
function on its own, with the functions it calls run inline) meets them, under the
branches, loop passes and inlined calls they sit in. Loops run twice, so what one
iteration leaves to the next (a graph, accumulated gradients) is seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from gradlint import fixes
from gradlint.analysis.dataflow.events import Place, TrainingEvent
from gradlint.analysis.dataflow.graphs import GraphNode
from gradlint.analysis.dataflow.values import Optimizer, Value
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Edit, Fix, Witness, headline

# Receivers of unknown value whose name says they are an optimizer (`optimizer_G`, `opt`).
_OPTIMIZER_NAME = re.compile(r"(^|_)(opt|optim|optimizer|optimiser)s?(_|$|[a-z]$|\d)|optimi[sz]er")
_NOT_OPTIMIZER_NAME = re.compile(r"sched|scaler|lr_|warmup")

# What a statement between a `zero_grad()` and the loop may not touch for the call to move.
_GRADIENT_ATTRIBUTES = frozenset({"grad", "backward", "step", "zero_grad"})


def _named_like_optimizer(name: str) -> bool:
    last = name.rpartition(".")[2].lower()
    return bool(_OPTIMIZER_NAME.search(last)) and not _NOT_OPTIMIZER_NAME.search(last)


def _is_optimizer(value: Value | None, name: str | None) -> bool:
    """Proven an optimizer, or of unknown value and named like one."""
    if isinstance(value, Optimizer):
        return True
    return value is None and name is not None and _named_like_optimizer(name)


def _exclusive(a: tuple[Place, ...], b: tuple[Place, ...]) -> bool:
    """Two events on different branches of the same `if` / `try` never both run."""
    for x, y in zip(a, b, strict=False):
        if x != y:
            return x.kind == y.kind and x.kind in ("if", "try") and x.node is y.node
    return False


def _other_arm(event: TrainingEvent, guards: list[Place]) -> bool:
    """`event` sits on another arm of one of the `if`s in `guards`."""
    return any(
        place.kind == "if" and place.node is guard.node and place.index != guard.index
        for place in event.path
        for guard in guards
    )


def _inside(event: TrainingEvent, loop: cst.CSTNode, index: int = 0) -> tuple[Place, ...] | None:
    """Where `event` sits inside pass `index` of `loop` (None: not there)."""
    place = Place("loop", loop, index)
    if place not in event.path:
        return None
    return event.path[event.path.index(place) + 1 :]


def _call_in(inner: tuple[Place, ...]) -> cst.CSTNode | None:
    """The call of the loop's own body that runs the event inline, if any."""
    return next((place.node for place in inner if place.kind == "call"), None)


def _names(node: cst.CSTNode) -> set[str]:
    """The names and dotted attributes `node` reads (`i`, `self.step`)."""
    found = set()
    for child in iter_nodes(node):
        if isinstance(child, cst.Name):
            found.add(child.value)
        elif isinstance(child, cst.Attribute) and (name := dotted(child)) is not None:
            found.add(name)
    return found


def _counters(loop: cst.CSTNode) -> set[str]:
    """What counts the loop's passes: the target of `for i in range(...)`, the index of
    `for i, item in enumerate(...)`, names its body increments (`i += 1`), and names
    assigned from those (`step = epoch * n + i`)."""
    found = set()
    if isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call):
        iterated = dotted(loop.iter.func)
        if iterated == "range":
            found |= _names(loop.target)
        elif iterated == "enumerate" and isinstance(loop.target, cst.Tuple):
            found |= _names(loop.target.elements[0].value)
    assigned = []
    for child in iter_nodes(loop.body):
        if isinstance(child, cst.AugAssign):
            found |= _names(child.target)
        elif isinstance(child, cst.Assign):
            assigned.append(child)
    for _ in range(2):
        for child in assigned:
            if _names(child.value) & found:
                for target in child.targets:
                    found |= _names(target.target)
    return found


@dataclass
class _Step:
    """An optimizer's `step()`: the event, the optimizer as written and its value."""

    event: TrainingEvent
    optimizer: str
    value: Value | None
    with_closure: bool  # `opt.step(closure)`: the closure runs backward itself

    @property
    def node(self) -> cst.CSTNode:
        return self.event.node

    @property
    def time(self) -> int:
        return self.event.time

    @property
    def storages(self) -> frozenset[int] | None:
        """The parameters it updates (None: unknown)."""
        return (self.value.storages or None) if isinstance(self.value, Optimizer) else None

    def same_optimizer(self, other: _Step) -> bool:
        return self.optimizer == other.optimizer or (
            self.storages is not None and self.value == other.value
        )


class TrainingLoopChecker(Checker):
    """GL503, GL504 over the training events of each analysed body."""

    codes = ("GL503", "GL504")

    def leave_Module(self, node: cst.Module) -> None:
        events = self.file.dataflow.training
        self.forwards = [e for e in events if e.kind == "forward"]
        self.reported: set[tuple[str, cst.CSTNode]] = set()
        runs: dict[int, list[TrainingEvent]] = {}
        for event in events:
            if event.kind != "forward":  # (only names the module of a stale graph)
                runs.setdefault(event.run, []).append(event)
        for run in runs.values():
            _Run(self, run).check()

    def step_of(self, event: TrainingEvent) -> _Step | None:
        """`event` (`x.step(...)`) as an optimizer's step: `x` an optimizer, or a scaler
        stepping the optimizer it is given (`scaler.step(optimizer)`)."""
        call = event.node
        receiver = dotted(call.func.value)
        given = dotted(call.args[0].value) if call.args else None
        if event.receiver is None and isinstance(event.argument, Optimizer) and given:
            return _Step(event, given, event.argument, False)
        if receiver is not None and "scaler" in receiver.lower() and call.args:
            return _Step(event, given, event.argument, False) if given else None
        if _is_optimizer(event.receiver, receiver):
            written = receiver or self.file.code_for(call.func.value)
            return _Step(event, written, event.receiver, bool(call.args))
        return None

    def once(self, node: cst.CSTNode, code: str) -> bool:
        """Whether `code` at `node` is not reported yet (each body analysed on its own and
        again inline in its callers meets the same calls)."""
        if (code, node) in self.reported:
            return False
        self.reported.add((code, node))
        return True

    def module_name(self, node: GraphNode) -> str:
        """The module whose call recorded `node`, as the outermost call wrote it."""
        calls = [f for f in self.forwards if f.time <= node.time <= f.end]
        if not calls:
            return node.label
        outermost = min(calls, key=lambda f: f.time)
        return self.file.code_for(outermost.node.func)


class _Run:
    """The training events of one analysed body, in the order they happen."""

    def __init__(self, checker: TrainingLoopChecker, events: list[TrainingEvent]) -> None:
        self.checker = checker
        self.events = events
        self.steps = {
            id(e): step for e in events if e.kind == "step" and (step := checker.step_of(e))
        }
        # each loop pass: the events in it, with where they sit inside it
        self.passes: dict[Place, list[tuple[TrainingEvent, tuple[Place, ...]]]] = {}
        for event in events:
            for number, place in enumerate(event.path):
                if place.kind == "loop":
                    self.passes.setdefault(place, []).append((event, event.path[number + 1 :]))
        self.loops = list({place.node: None for place in self.passes})

    def check(self) -> None:
        for loop in self.loops:
            self.check_missing_zero_grad(loop)
        flagged: set[cst.CSTNode] = set()
        for event in self.events:
            if event.kind == "backward":
                self.stale_graph(event, flagged)
        for loop in self.loops:
            self.wiped_before_step(loop, flagged)
        self.zeroed_before_step(flagged)

    def direct(self, loop: cst.CSTNode, kind: str) -> list[TrainingEvent]:
        """Events of the loop's first pass that run on every iteration (no `if` around
        them; a `try` body, an `if` proven taken and the functions called inline do not
        count)."""
        return [
            event
            for event, inner in self.passes.get(Place("loop", loop), ())
            if event.kind == kind
            and all(
                p.kind in ("call", "taken") or (p.kind == "try" and p.index == 0) for p in inner
            )
        ]

    def in_loop(self, loop: cst.CSTNode) -> list[TrainingEvent]:
        """The events of either pass of `loop`."""
        return [
            event
            for index in (0, 1)
            for event, _ in self.passes.get(Place("loop", loop, index), ())
        ]

    def direct_steps(self, loop: cst.CSTNode) -> list[_Step]:
        return [self.steps[id(e)] for e in self.direct(loop, "step") if id(e) in self.steps]

    def backwards(self, loop: cst.CSTNode) -> list[TrainingEvent]:
        """Backward calls that fill `.grad` (not `autograd.grad`) on every iteration."""
        return [e for e in self.direct(loop, "backward") if e.accumulates]

    # -- GL503 ------------------------------------------------------------------

    def check_missing_zero_grad(self, loop: cst.CSTNode) -> None:
        backwards = self.backwards(loop)
        steps = [
            s
            for s in self.direct_steps(loop)
            if not s.with_closure and not self.restarts_each_iteration(loop, s)
        ]
        uncleared = [(s, backwards) for s in steps if not self.clears_gradients(loop, s)]
        uncleared += [
            (s, self.guarded_backwards(loop, guards))
            for s, guards in self.guarded_steps(loop)
            if not s.with_closure and not self.restarts_each_iteration(loop, s)
            if not self.clears_gradients(loop, s, guards)
        ]
        uncleared = [(s, fed) for s, fed in uncleared if fed]
        if not uncleared:
            return
        step, backwards = uncleared[0]
        feeding = [b for b in backwards if b.time < step.time] or backwards
        backward = feeding[-1]
        at = _call_in(_inside(backward, loop)) or backward.node
        if not self.checker.once(at, "GL503"):
            return
        # the optimizer's name is the loop's own only when the step is written there
        own = _call_in(_inside(step.event, loop)) is None
        clear = f"`{step.optimizer}.zero_grad()`" if own else "`zero_grad()` on that optimizer"
        self.checker.report(
            at,
            "GL503",
            headline(
                "Nothing in this loop clears the gradients {optimizer} uses before `backward()`",
                optimizer=f"`{step.optimizer}`",
            ),
            witness=_ZERO_GRAD_WITNESS,
            detail=(
                "`backward()` adds into `.grad` on every iteration, so each "
                f"`{step.optimizer}.step()` applies the sum of all previous gradients. Call "
                f"{clear} at the start of each iteration (for deliberate accumulation, step "
                "and zero_grad under the same condition)."
            ),
            fix=self._zero_grad_fix(loop, step.optimizer) if own else None,
        )

    def guarded_steps(self, loop: cst.CSTNode) -> list[tuple[_Step, list[Place]]]:
        """Steps of the loop's first pass under `if`s of the loop's own body (either arm)
        whose tests read nothing the loop binds or counts (`if torch.isfinite(grad_norm):`,
        `if args.amp: ... else: ...`): a guard meant to pass or a setting, not a schedule
        (`if (i + 1) % accumulate == 0:`); with those ifs."""
        counted: set[str] | None = None  # computed for the first guarded step only
        found = []
        for event, inner in self.passes.get(Place("loop", loop), ()):
            if event.kind != "step" or id(event) not in self.steps:
                continue
            guards = [place for place in inner if place.kind == "if"]
            called = [n for n, place in enumerate(inner) if place.kind == "call"]
            own = inner[: called[0]] if called else inner
            if not guards or any(place not in own for place in guards):
                continue
            counted = _counters(loop) if counted is None else counted
            if any(_names(place.node.test) & counted for place in guards):
                continue
            kinds = all(place.kind in ("if", "call", "taken", "try") for place in inner)
            if kinds and all(place.index == 0 for place in inner if place.kind == "try"):
                found.append((self.steps[id(event)], guards))
        return found

    def guarded_backwards(self, loop: cst.CSTNode, guards: list[Place]) -> list[TrainingEvent]:
        """Backward calls filling `.grad` in the loop's first pass that run whenever a step
        under `guards` does: under no `if`, or under those same ifs only."""
        return [
            event
            for event, inner in self.passes.get(Place("loop", loop), ())
            if event.kind == "backward"
            and event.accumulates
            and all(
                place in guards
                if place.kind == "if"
                else place.kind in ("call", "taken") or (place.kind == "try" and place.index == 0)
                for place in inner
            )
        ]

    def restarts_each_iteration(self, loop: cst.CSTNode, step: _Step) -> bool:
        """The optimizer is built anew in the loop, over tensors not proven to be the same
        on the next iteration (a latent made there, whose `.grad` starts empty)."""
        built = any(e.kind == "optimizer" and e.receiver is step.value for e in self.in_loop(loop))
        if not built:
            return False
        again = [
            self.steps.get(id(e))
            for e, _ in self.passes.get(Place("loop", loop, 1), ())
            if e.node is step.node
        ]
        kept = bool(step.storages) and bool(again)
        return not kept or not all(
            s is not None and s.storages is not None and s.storages & step.storages for s in again
        )

    def clears_gradients(
        self, loop: cst.CSTNode, step: _Step, guards: list[Place] | None = None
    ) -> bool:
        """Whether something in `loop` (either pass, any branch) may clear the gradients
        `step` applies; not a clear on another arm of one of the step's `guards` (ifs whose
        tests read nothing the loop binds: the arm a run takes is the same every pass)."""
        for event in self.in_loop(loop):
            if guards and _other_arm(event, guards):
                continue
            if event.kind == "clear":
                return True
            if event.kind == "zero_grad" and self.zero_grad_may_clear(event, step):
                return True
        return False

    def zero_grad_may_clear(self, zero: TrainingEvent, step: _Step) -> bool:
        """False only for an optimizer or a model proven to hold other parameters."""
        if dotted(zero.node.func.value) == step.optimizer:
            return True
        if step.storages is None or zero.storages is None:
            return True
        return bool(zero.storages & step.storages)

    def _zero_grad_fix(self, loop: cst.CSTNode, optimizer: str) -> Fix | None:
        """`<optimizer>.zero_grad()` moved to (or put as) the loop's first statement:
        unsafe, a loop meant to accumulate gradients over iterations stops doing so."""
        body = getattr(loop, "body", None)
        if not isinstance(loop, cst.For | cst.While) or not isinstance(body, cst.IndentedBlock):
            return None
        try:
            call = cst.parse_statement(f"{optimizer}.zero_grad()\n")
        except cst.ParserSyntaxError:
            return None
        file = self.checker.file
        first, *rest = body.body
        fixed = body.with_changes(body=[call, first, *rest])
        return fixes.replace(
            file,
            body,
            fixed,
            f"call {optimizer}.zero_grad() in each iteration",
            unsafe=True,
            also=[self._earlier_zero_grad(loop, file.code_for(call).strip())],
        )

    def _earlier_zero_grad(self, loop: cst.CSTNode, written: str) -> Edit | None:
        """Deleting the same `zero_grad()` call just before the loop, when nothing between
        it and the loop touches gradients: the call moves into the loop."""
        file = self.checker.file
        for statement in reversed(fixes.statements_before(file, loop)):
            if (
                isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
                and file.code_for(statement.body[0]).strip() == written
            ):
                return fixes.delete_line(file, statement)
            if any(
                isinstance(node, cst.Attribute) and node.attr.value in _GRADIENT_ATTRIBUTES
                for node in iter_nodes(statement)
            ):
                return None
        return None

    # -- GL504 ------------------------------------------------------------------

    def stale_graph(self, backward: TrainingEvent, flagged: set[cst.CSTNode]) -> None:
        """A graph recorded through the parameters a step then updates, and the backward
        through that graph after the step."""
        for node in sorted(backward.nodes, key=lambda n: n.time):
            used = node.params | node.saved
            for step in self.steps.values():
                if (
                    step.storages
                    and not step.event.idle
                    and node.time < step.time < backward.time
                    and step.storages & used
                    and step.node not in flagged
                    and not _exclusive(step.event.path, backward.path)
                ):
                    flagged.add(step.node)
                    self.report_stale(step, backward, self.checker.module_name(node))
                    return

    def report_stale(self, step: _Step, backward: TrainingEvent, module: str) -> None:
        if not self.checker.once(step.node, "GL504"):
            return
        line = self.checker.file.line(backward.node)
        self.checker.report(
            step.node,
            "GL504",
            headline(
                "{step} updates {module} in place between its forward and the backward on "
                "line {line}",
                step=f"`{step.optimizer}.step()`",
                module=f"`{module}`",
                line=str(line),
            ),
            witness=_STALE_WITNESS,
            detail=(
                f"That backward goes through the graph the forward through `{module}` "
                "recorded, now stale: torch raises 'one of the variables needed for gradient "
                "computation has been modified by an inplace operation' when the graph saved "
                "those parameters, and otherwise this step never sees that backward's "
                "gradients. Call `backward()` before `step()`, or recompute the forward after "
                "the step."
            ),
        )

    def wiped_before_step(self, loop: cst.CSTNode, flagged: set[cst.CSTNode]) -> None:
        """zero_grad, step, backward in one iteration: every gradient is cleared unused.
        Not when a backward, under an `if` or not, runs between the clearing and the step
        (`if update_actor: loss.backward()`): the step applies it whenever it runs, and
        without it the step has no gradient and edits nothing."""
        backwards = self.backwards(loop)
        if not backwards:
            return
        any_backward = [
            event.time
            for event, _ in self.passes.get(Place("loop", loop), ())
            if event.kind == "backward" and event.accumulates
        ]
        last_backward = backwards[-1].time
        for step in self.direct_steps(loop):
            if step.with_closure or step.node in flagged or step.time > backwards[0].time:
                continue
            later_steps = [
                s
                for s in self.steps.values()
                if s.same_optimizer(step)
                and s.time > last_backward
                and _inside(s.event, loop) is not None
            ]
            zeros = [
                z
                for z in self.direct(loop, "zero_grad")
                if z.time < step.time and self.clears_for(z, step)
                if not any(z.time < time < step.time for time in any_backward)
            ]
            if zeros and not later_steps:
                flagged.add(step.node)
                self.report_wiped(step, backwards[0])

    def clears_for(self, zero: TrainingEvent, step: _Step) -> bool:
        """`zero_grad()` on this optimizer, or on a model (not another optimizer) that
        holds the parameters it steps when that is known."""
        receiver = dotted(zero.node.func.value)
        if receiver == step.optimizer:
            return True
        known = step.storages is not None and zero.storages is not None
        if _is_optimizer(zero.receiver, receiver):
            return known and bool(zero.storages & step.storages)
        return not known or bool(zero.storages & step.storages)

    def report_wiped(self, step: _Step, backward: TrainingEvent) -> None:
        if not self.checker.once(step.node, "GL504"):
            return
        line = self.checker.file.line(backward.node)
        name = step.optimizer
        self.checker.report(
            step.node,
            "GL504",
            headline(
                "{step} runs before the backward on line {line} in every iteration",
                step=f"`{name}.step()`",
                line=str(line),
            ),
            witness=_WIPED_WITNESS,
            detail=(
                f"`zero_grad()` clears that backward's gradients before the next "
                f"`{name}.step()`, so the optimizer never applies a gradient and the "
                f"parameters never change. Call `loss.backward()` before `{name}.step()`."
            ),
        )

    def zeroed_before_step(self, flagged: set[cst.CSTNode]) -> None:
        """backward, then `zero_grad()` on the line right before `step()`: the step
        applies the cleared gradients."""
        ordered = [
            e for e in self.events if e.kind in ("backward", "zero_grad") or id(e) in self.steps
        ]
        for zero, after in zip(ordered, ordered[1:], strict=False):
            step = self.steps.get(id(after))
            if zero.kind != "zero_grad" or step is None or step.with_closure:
                continue
            if not self.clears_step(zero, step):
                continue  # clearing other parameters (another optimizer or model)
            if step.node in flagged or zero.line is None or after.line is None:
                continue
            before = fixes.statements_before(self.checker.file, after.line)
            if not before or before[-1] is not zero.line:
                continue
            backward = next(
                (
                    e
                    for e in reversed(self.events)
                    if e.kind == "backward"
                    and e.accumulates
                    and e.time < zero.time
                    and not _exclusive(e.path, zero.path)
                ),
                None,
            )
            if backward is not None:
                flagged.add(step.node)
                self.report_zeroed(zero, step, backward)

    def clears_step(self, zero: TrainingEvent, step: _Step) -> bool:
        """`zero_grad()` on the stepped optimizer, or on a model it updates."""
        if dotted(zero.node.func.value) == step.optimizer:
            return True
        return (
            step.storages is not None
            and zero.storages is not None
            and bool(zero.storages & step.storages)
        )

    def report_zeroed(self, zero: TrainingEvent, step: _Step, backward: TrainingEvent) -> None:
        if not self.checker.once(zero.node, "GL504"):
            return
        file = self.checker.file
        line = file.line(backward.node)
        self.checker.report(
            zero.node,
            "GL504",
            headline(
                "{zero} clears the gradients of the backward on line {line} right before {step}",
                zero=f"`{file.code_for(zero.node)}`",
                line=str(line),
                step=f"`{step.optimizer}.step()`",
            ),
            witness=_ZEROED_WITNESS,
            detail=(
                "The step finds no gradient to apply and nothing trains. Call `zero_grad()` "
                "after `step()` (or at the start of the next iteration)."
            ),
        )


_ZERO_GRAD_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.0)\n"
    "x = torch.randn(2, 3)\n"
    "grads = []\n"
    "for _ in range(2):\n"
    "    model(x).sum().backward()\n"
    "    opt.step()\n"
    "    grads.append(model.weight.grad.clone())\n"
    "if torch.allclose(grads[1], 2 * grads[0]):\n"
    "    raise AssertionError('gradients accumulate across steps')\n",
    "gradients accumulate across steps",
)
_ZEROED_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "before = model.weight.detach().clone()\n"
    "model(torch.randn(2, 3)).sum().backward()\n"
    "opt.zero_grad()\n"
    "opt.step()\n"
    "if torch.equal(before, model.weight.detach()):\n"
    "    raise AssertionError('parameters never change')\n",
    "parameters never change",
)
_STALE_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "model(torch.randn(2, 3)).sum().backward()\n"
    "loss = model(torch.randn(2, 3)).sum()\n"
    "opt.step()\n"
    "loss.backward()\n",
    "one of the variables needed for gradient computation has been modified by an inplace",
)
_WIPED_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "before = model.weight.detach().clone()\n"
    "for _ in range(3):\n"
    "    opt.zero_grad()\n"
    "    loss = model(torch.randn(2, 3)).sum()\n"
    "    opt.step()\n"
    "    loss.backward()\n"
    "if torch.equal(before, model.weight.detach()):\n"
    "    raise AssertionError('parameters never change')\n",
    "parameters never change",
)
