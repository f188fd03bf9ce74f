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
from gradlint.analysis.dataflow.shapes import literal_str
from gradlint.analysis.dataflow.values import Obj, Optimizer, Tensor, options_of
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes, walk
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
        self._check_never_stepped(reported)
        self._check_no_parameters()
        if not self._optimizers_built:
            return  # most files build no optimizer: no walk of the whole tree for them
        for function, built in self._functions_building(node).items():
            self._check_dropped_group(function, built)

    def _functions_building(self, module: cst.Module) -> dict[cst.FunctionDef, cst.CSTNode]:
        """Each function of the file's own `module` (nested ones too, in source order) whose
        body holds an optimizer construction, with the construction of the last such
        event: one walk of the tree. (A project definition's function is not walked: what
        it would report is on a line of another file.)"""
        last_event = {id(e.node): index for index, e in enumerate(self._optimizers_built)}
        enclosing: list[cst.FunctionDef] = []
        entered: list[cst.FunctionDef] = []
        latest: dict[cst.FunctionDef, int] = {}

        def enter(node: cst.CSTNode) -> None:
            if type(node) is cst.FunctionDef:
                enclosing.append(node)
                entered.append(node)
            index = last_event.get(id(node))
            if index is not None:
                for function in enclosing:
                    latest[function] = max(latest.get(function, -1), index)

        def leave(node: cst.CSTNode) -> None:
            if type(node) is cst.FunctionDef:
                enclosing.pop()

        walk(module, enter, leave)
        return {f: self._optimizers_built[latest[f]].node for f in entered if f in latest}

    def _check_dropped_group(self, function: cst.FunctionDef, built: cst.CSTNode) -> None:
        """A param group dict (`params = {"lr": ..., ...}`) whose last binding in the body
        is only filled (`params["params"].append(p)`) and never handed on, in a body that
        builds an optimizer (`built`, its last): its parameters reach no optimizer
        (HVPNeT#5)."""
        body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
        for index, statement in enumerate(body):
            name = _param_group_bound(statement)
            later = body[index + 1 :]
            if name is None or any(_param_group_bound(s, name) == name for s in later):
                continue
            uses = filled = 0
            for node in (n for s in later for n in iter_nodes(s)):
                if isinstance(node, cst.Name) and node.value == name:
                    uses += 1
                filled += _fills(node, name)
            if filled and uses == filled:
                self._report_dropped(built, statement, name)
                return

    def _check_no_parameters(self) -> None:
        """An optimizer built over `m.parameters()` of a module of the file proven to hold
        no parameter (its layers bound to locals, a misspelt `__init__`, nothing but
        buffers), or over only the trainable ones of a module every parameter of which is
        frozen: torch raises "optimizer got an empty parameter list"."""
        reported: set[cst.CSTNode] = set()
        for built in self.file.dataflow.optimizers:
            owner = built.drawn_from.owner if built.drawn_from is not None else None
            if owner is None or built.node in reported:
                continue
            if built.trainable_only and owner.grad_off:
                reason = "every parameter of it is frozen and only those requiring grad are given"
            elif self._empty_modules.proven(owner):
                reason = "it registers no parameter (no layer or Parameter is set on `self`)"
            else:
                continue
            reported.add(built.node)
            self._report_no_parameters(built, owner, reason)

    @cached_property
    def _empty_modules(self) -> _EmptyModule:
        return _EmptyModule(self.file)

    def _report_no_parameters(self, built, owner: Obj, reason: str) -> None:
        short = built.kind.rpartition(".")[2]
        self.report(
            built.node,
            "GL507",
            headline(
                "{optimizer} gets no parameter: {owner} holds none it can update",
                optimizer=f"`{short}`",
                owner=f"`{owner.kind}`",
            ),
            witness=_EMPTY_WITNESS,
            detail=(
                f"`{owner.kind}.parameters()` is empty here: {reason}. Torch raises "
                'ValueError ("optimizer got an empty parameter list"). Assign the layers to '
                "attributes of `self` in `__init__` (`self.fc = nn.Linear(...)`), or give the "
                "optimizer the parameters that are meant to train."
            ),
        )

    @cached_property
    def _optimizers_built(self) -> list[TrainingEvent]:
        """Every optimizer construction the interpreter met, known parameters or not."""
        return [e for e in self.file.dataflow.training if e.kind == "optimizer"]

    def _report_dropped(self, call: cst.CSTNode, statement: cst.CSTNode, name: str) -> None:
        line = self.file.line(statement)
        self.report(
            call,
            "GL507",
            headline(
                "This optimizer is built without the param group `{name}` of line {line}",
                name=name,
                line=str(line),
            ),
            witness=_LEFT_OUT_WITNESS,
            detail=(
                f"`{name}` is filled with parameters after its last assignment but never "
                "added to the groups given to the optimizer (nor to `add_param_group`): "
                "those parameters keep their initial values. Append the group to the list "
                "of groups before building the optimizer."
            ),
        )

    def _check_never_stepped(self, reported: set[cst.CSTNode]) -> None:
        """An optimizer no step of the file updates, over parameters a backward of the file
        reaches, while another optimizer steps: the name it is bound to is only ever
        cleared, saved or loaded (never stepped, passed on or returned)."""
        training = self.file.dataflow.training
        steps = [e for e in training if e.kind == "step"]
        optimizers = [e for e in steps if isinstance(e.receiver, Optimizer)]
        if not optimizers or any(e.receiver is None or not _held(e) for e in optimizers):
            return  # no optimizer steps, or one whose parameters are not known
        if any(e.receiver is None for e in steps):
            return
        stepped = frozenset().union(*(_held(e) for e in optimizers))
        reached = frozenset().union(
            *(n.params for e in training if e.kind == "backward" for n in e.nodes)
        )
        # a construction some analysis saw stepped (a method analysed on its own makes
        # its own instance, whose parameters no step of another body shares)
        stepped_sites = {e.node for e in self._optimizers if _held(e) & stepped}
        for site in self._optimizers:
            held = _held(site)
            if site.node in reported or site.node in stepped_sites or not held & reached:
                continue
            name = self._bound_name(site.node)
            if name is not None and self._only_kept(name):
                reported.add(site.node)
                self._report_never_stepped(site, name)

    def _bound_name(self, call: cst.CSTNode) -> str | None:
        """`x` of `x = torch.optim.X(...)` (an attribute or a name)."""
        for node in iter_nodes(self.file.module):
            if isinstance(node, cst.Assign) and node.value is call and len(node.targets) == 1:
                return dotted(node.targets[0].target)
        return None

    def _only_kept(self, name: str) -> bool:
        """Every other mention of `name` in the file clears, saves or loads the optimizer."""
        assigned = mentions = 0
        kept = 0
        for node in iter_nodes(self.file.module):
            if isinstance(node, cst.Assign) and any(dotted(t.target) == name for t in node.targets):
                assigned += 1
            if isinstance(node, cst.Attribute | cst.Name) and dotted(node) == name:
                mentions += 1
            if (
                isinstance(node, cst.Attribute)
                and node.attr.value in _KEEPING
                and dotted(node.value) == name
            ):
                kept += 1
        return assigned == 1 and mentions == assigned + kept

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
        self._check_left_out(events, reported)

    def _check_left_out(self, events: list[TrainingEvent], reported: set[cst.CSTNode]) -> None:
        """Each step's optimizer, built anywhere in the file, that leaves out a part the
        loss goes through after the parts it trains (see `_left_out`)."""
        for step in events:
            held = _held(step) if step.kind == "step" else frozenset()
            site = next((e for e in self._optimizers if _held(e) == held), None) if held else None
            if site is None or site.node in reported:
                continue
            missing = _reached_since_clearing(events, step, held) - self._every_optimizer
            left_out = self._left_out(events, step, held, missing)
            if left_out is not None and left_out.node not in reported:
                reported.update((site.node, left_out.node))
                self._report_left_out(site, left_out)

    def _left_out(self, events, step, held, missing):
        """The module attribute whose layer parameters the backward reaches after those
        of the optimizer (downstream of what it trains), while no optimizer of the file
        holds them: every optimizer the file builds has its parameters known, and nothing
        is loaded from a checkpoint (a pretrained part kept as it is)."""
        if not missing or not missing <= self._module_parameters or self._loads_weights:
            return None
        sites = {e.node for e in self.file.dataflow.training if e.kind == "optimizer"}
        if not sites or sites != {e.node for e in self._optimizers}:
            return None  # some optimizer of the file holds parameters not known
        after = _downstream(events, step, held, missing)
        return self._attribute_owning(after) if after else None

    @cached_property
    def _optimizers(self) -> list[TrainingEvent]:
        """The optimizers the file builds whose parameters some analysed body knows (a
        method analysed on its own may not know the model it is given)."""
        return [e for e in self.file.dataflow.training if e.kind == "optimizer" and _held(e)]

    @cached_property
    def _every_optimizer(self) -> frozenset[int]:
        """The parameters some optimizer of the file holds."""
        return frozenset().union(*(_held(e) for e in self._optimizers))

    @cached_property
    def _loads_weights(self) -> bool:
        """The file loads weights into some module (load_state_dict, from_pretrained)."""
        return any(
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("load_state_dict", "from_pretrained")
            for node in iter_nodes(self.file.module)
        )

    def _attribute_owning(self, storages: set[int]):
        """The smallest module attribute assignment whose module owns some of them."""
        found = [
            (len(owned(a.value)), a)
            for a in self.file.dataflow.module_attributes
            if isinstance(a.value, Obj) and not a.grown and owned(a.value) & storages
        ]
        return min(found, key=lambda pair: pair[0])[1] if found else None

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

    def _report_never_stepped(self, site: TrainingEvent, name: str) -> None:
        self.report(
            site.node,
            "GL507",
            headline("`{name}` is never stepped: the parameters it holds never train", name=name),
            witness=_NEVER_STEPPED_WITNESS,
            detail=(
                "A backward of the file reaches its parameters and another optimizer steps, "
                "but nothing calls its `step()` (it is only built, cleared, saved or loaded): "
                "their `.grad` fills up and their values never change. Call "
                f"`{name}.step()` after the backward (and `{name}.zero_grad()` before it)."
            ),
        )

    def _report_left_out(self, built: TrainingEvent, assigned) -> None:
        line = self.file.line(assigned.node)
        self.report(
            built.node,
            "GL507",
            headline(
                "This optimizer leaves out {layer} (line {line}), which the loss goes through "
                "after the layers it trains",
                layer=f"`{assigned.written}.{assigned.attr}`",
                line=str(line),
            ),
            witness=_LEFT_OUT_WITNESS,
            detail=(
                "Its parameters require grad and the backward fills their `.grad`, but no "
                "optimizer holds them: they keep their initial values while the layers before "
                "them learn around them. Give the optimizer every trained part "
                "(`model.parameters()`, or a group for each), or freeze the part on purpose "
                "with `requires_grad_(False)`."
            ),
        )

    def _report_replaced(self, built: TrainingEvent, assigned) -> None:
        line = self.file.line(assigned.node)
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


def _downstream(
    events: list[TrainingEvent], step: TrainingEvent, held: frozenset[int], missing
) -> set[int]:
    """The parameters of `missing` used by an op of the backwards since the optimizer's
    last clearing whose inputs come from an op using a parameter it holds (the layers
    after the trained ones, not a frozen or pretrained part before them)."""
    start = max((e.time for e in events if e.time < step.time and _clears(e, held)), default=-1)
    found: set[int] = set()
    for event in events:
        if event.kind != "backward" or not event.accumulates or not start < event.time < step.time:
            continue
        for node in event.nodes:
            if node.params & missing and _fed_by(node, held):
                found |= node.params & missing
    return found


def _fed_by(node, held: frozenset[int]) -> bool:
    """Some op before `node` in its graph uses one of these parameters."""
    pending, seen = list(node.parents), set()
    while pending:
        parent = pending.pop()
        if id(parent) in seen:
            continue
        seen.add(id(parent))
        if parent.params & held:
            return True
        pending.extend(parent.parents)
    return False


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
    and this step; empty when some backward's graph is not known (no recorded layer, or
    a loss in a function run on its own that may come from its arguments: drqv2's
    `update_critic(obs, ...)`, given the encoder's output)."""
    start = max((e.time for e in events if e.time < step.time and _clears(e, held)), default=-1)
    found: set[int] = set()
    for event in events:
        if event.kind == "backward" and event.accumulates and start < event.time < step.time:
            reached = frozenset().union(*(node.params for node in event.nodes))
            if not reached or event.given_unknowns:
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


_LEFT_OUT_WITNESS = Witness(
    "import torch\n"
    "encoder, decoder = torch.nn.Linear(3, 4), torch.nn.Linear(4, 3)\n"
    "opt = torch.optim.SGD(encoder.parameters(), lr=0.1)\n"
    "before = decoder.weight.detach().clone()\n"
    "decoder(encoder(torch.randn(5, 3))).pow(2).mean().backward()\n"
    "opt.step()\n"
    "if decoder.weight.grad is not None and torch.equal(before, decoder.weight.detach()):\n"
    "    raise AssertionError('the layer after the trained ones never trains')\n",
    "the layer after the trained ones never trains",
)


_EMPTY_WITNESS = Witness(
    "import torch\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        fc = torch.nn.Linear(3, 2)\n"
    "torch.optim.SGD(Net().parameters(), lr=0.1)\n",
    "optimizer got an empty parameter list",
)


# names through which a class may register a module or parameter the interpreter does not
# follow (or follows only in part): a class using any of them is never proven empty
_DYNAMIC_REGISTRATION = frozenset(
    {
        "setattr",
        "__setattr__",
        "add_module",
        "register_module",
        "register_parameter",
        "_modules",
        "_parameters",
        "__dict__",
        "vars",
        "exec",
        "eval",
        "apply",
    }
)


class _EmptyModule:
    """Whether an instance of a module class of the file is proven to hold no parameter:
    built by a call the interpreter followed; its class and every local base written in
    the file, under `torch.nn.Module` alone, with no decorator, metaclass or dynamic
    registration; every `self.<name> = ...` of a method that can run (`__init__`, a dunder,
    a method named anywhere outside its own body) seen by the interpreter on the
    instance, and every attribute a value torch does not register as a parameter (a
    plain value, a list or dict, a tensor that is no Parameter) or a module of the file
    proven empty in turn (a torch layer never is: its facts tell only its own parameters,
    not those of the layers it builds)."""

    def __init__(self, file) -> None:
        self.file = file
        self.index = file.index
        self.imports = file.imports

    def proven(self, obj: Obj, seen: frozenset[int] = frozenset()) -> bool:
        if id(obj) in seen:
            return True
        seen = seen | {id(obj)}
        if obj.torch_layer:
            return False  # its facts tell its own parameters, not those of its sub-layers
        info = obj.info
        if info is None or obj.constructor is None or not info.is_module:
            return False
        chain = self._local_chain(info)
        if chain is None or not self._assigned_seen(chain, obj):
            return False
        return all(self._not_registered(value, seen) for value in obj.attrs.values())

    def _local_chain(self, info, depth: int = 0):
        """The class and its local bases, when every base is one of them or exactly
        `torch.nn.Module` and nothing registers dynamically; None otherwise."""
        node = info.node
        if depth > 20 or self.index.by_name.get(info.name) is not info:
            return None
        if node.decorators or node.keywords or _registers_dynamically(node):
            return None
        chain = [info]
        for base in info.base_names:
            local = self.index.by_name.get(base)
            if local is not None and local is not info:
                rest = self._local_chain(local, depth + 1)
                if rest is None:
                    return None
                chain += rest
            elif self.imports.resolve_name(base) != "torch.nn.Module":
                return None
        return chain

    def _assigned_seen(self, chain, obj: Obj) -> bool:
        """Every attribute a method that can run sets on `self` is on the instance."""
        for info in chain:
            for name, method in info.methods.items():
                if not self._can_run(name, method):
                    continue
                if any(attr not in obj.attrs for attr in _self_attributes(method)):
                    return False
        return True

    def _can_run(self, name: str, method: cst.FunctionDef) -> bool:
        """A dunder, or a method whose name the file mentions outside its own body."""
        if name.startswith("__"):
            return True
        mentions = self._mentions.get(name, ())
        inside = {id(n) for n in iter_nodes(method)} if mentions else set()
        return any(id(node) not in inside for node in mentions)

    @cached_property
    def _mentions(self) -> dict[str, list[cst.CSTNode]]:
        """Each name of the file, as a name or an attribute, with the nodes naming it."""
        found: dict[str, list[cst.CSTNode]] = {}
        for node in iter_nodes(self.file.module):
            if isinstance(node, cst.Attribute):
                found.setdefault(node.attr.value, []).append(node.attr)
            elif isinstance(node, cst.Name):
                found.setdefault(node.value, []).append(node)
        return found

    def _not_registered(self, value, seen: frozenset[int]) -> bool:
        for option in options_of(value):
            if option is None:
                return False  # not known: may be a module
            if isinstance(option, Tensor) and option.described == "parameter":
                return False
            if isinstance(option, Obj) and option.is_module and not self.proven(option, seen):
                return False
            plain = isinstance(option, Obj) and not option.is_module and option.info is None
            if plain and option.kind.startswith("torch."):
                return False  # a torch object of a kind not told apart
        return True


def _registers_dynamically(node: cst.ClassDef) -> bool:
    for child in iter_nodes(node):
        if isinstance(child, cst.Name) and child.value in _DYNAMIC_REGISTRATION:
            return True
        if isinstance(child, cst.Attribute) and child.attr.value in _DYNAMIC_REGISTRATION:
            return True
    return False


def _self_attributes(method: cst.FunctionDef) -> set[str]:
    """The attributes `method` assigns on its first parameter (`self.x = ...`, `self.x:
    T = ...`, `self.x += ...`, in tuples of targets too)."""
    params = method.params.params
    if not params:
        return set()
    me = params[0].name.value
    targets: list[cst.BaseExpression] = []
    for node in iter_nodes(method):
        if isinstance(node, cst.Assign):
            targets += [t.target for t in node.targets]
        elif isinstance(node, cst.AnnAssign | cst.AugAssign):
            targets.append(node.target)
    found = set()
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Tuple | cst.List):
            targets += [element.value for element in target.elements]
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == me
        ):
            found.add(target.attr.value)
    return found


_GROUP_KEYS = frozenset({"params", "lr", "weight_decay", "momentum", "betas", "eps"})


def _param_group_bound(statement: cst.CSTNode, name: str | None = None) -> str | None:
    """`name = {"lr": ..., ...}`: the name a statement binds to a param group dict literal
    (or, given `name`, that name bound to anything)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return None
    if name is not None:
        return target.value
    keys = {
        literal_str(element.key)
        for element in getattr(assign.value, "elements", ())
        if isinstance(assign.value, cst.Dict) and isinstance(element, cst.DictElement)
    }
    return target.value if keys and keys <= _GROUP_KEYS | {None} and keys & _GROUP_KEYS else None


def _fills(node: cst.CSTNode, name: str) -> int:
    """1 for `name["params"] = [...]` or `name["params"].append(p)` / `.extend(ps)`."""
    if isinstance(node, cst.Assign):
        return sum(
            1
            for t in node.targets
            if isinstance(t.target, cst.Subscript)
            and isinstance(t.target.value, cst.Name)
            and t.target.value.value == name
        )
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("append", "extend")
        and isinstance(node.func.value, cst.Subscript)
        and isinstance(node.func.value.value, cst.Name)
    ):
        return int(node.func.value.value.value == name)
    return 0


# attributes of an optimizer that keep it as it is: clearing, saving, loading
_KEEPING = frozenset({"zero_grad", "state_dict", "load_state_dict", "param_groups"})

_NEVER_STEPPED_WITNESS = Witness(
    "import torch\n"
    "detector, corrector = torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)\n"
    "detector_optimizer = torch.optim.SGD(detector.parameters(), lr=0.1)\n"
    "optimizer = torch.optim.SGD(corrector.parameters(), lr=0.1)\n"
    "before = detector.weight.detach().clone()\n"
    "corrector(detector(torch.randn(5, 3))).sum().backward()\n"
    "optimizer.step()\n"
    "if torch.equal(before, detector.weight.detach()):\n"
    "    raise AssertionError('the optimizer never stepped leaves its parameters as they were')\n",
    "the optimizer never stepped leaves its parameters as they were",
)
