"""Module state that never registers: requires-grad tensors and sub-modules that
`model.parameters()` cannot see, decided from the dataflow's events. Each module class's
`__init__` analysed on its own (with the helpers it calls) says what it stores on `self`;
the events of every instance of the class say what else registers or keeps that state."""

from __future__ import annotations

import libcst as cst

from gradlint import fixes
from gradlint.analysis import knowledge
from gradlint.analysis.context import ClassInfo, ClassKind
from gradlint.analysis.dataflow.events import ModuleAttributeSet
from gradlint.analysis.dataflow.freezing import modules, plain_object
from gradlint.analysis.dataflow.interpreter import FileFacts
from gradlint.analysis.dataflow.optimizers import optimizer, owned
from gradlint.analysis.dataflow.values import (
    Grad,
    Mapping,
    Obj,
    Seq,
    Tensor,
    becomes_plain_leaf,
    options_of,
)
from gradlint.analysis.names import dotted
from gradlint.analysis.torch_ops import MODULE_CONTAINERS
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Witness, headline

# A class that enumerates its own state is not judged.
_SELF_ENUMERATING = frozenset({"parameters", "named_parameters", "children", "named_children"})


class ModuleStateChecker(Checker):
    """GL501 unregistered requires-grad tensors, GL502 plain containers of sub-modules."""

    codes = ("GL501", "GL502")

    def leave_Module(self, node: cst.Module) -> None:
        facts = self.file.dataflow
        classes = _judged_classes(self.file.index.by_node.values(), facts)
        if not classes:
            return
        instances: dict[int, list[ModuleAttributeSet]] = {}  # the events of each instance
        for event in facts.module_attributes:
            if event.module is not None and event.module.info in classes:
                instances.setdefault(id(event.module), []).append(event)
        wrapped = _wrapped(facts, classes) | _optimized(facts, instances.values())
        wrapped |= _handed_out(facts, instances.values())
        handed = _handed_on(facts, instances.values())
        reported: set[cst.CSTNode] = set()
        calls_under: dict[cst.CSTNode, list[cst.Call]] = {}  # _of_submodules' walks, by node
        for events in instances.values():
            info = events[0].module.info
            mine = [event for event in events if _constructing(event, info)]
            if not mine:
                continue
            registered = _registered(events[0].module)
            submodules = _module_attributes(mine)
            plain = frozenset(event.attr for event in mine if _known_non_module(event.value))
            taken = _taken_by_containers(mine)
            for attr in dict.fromkeys(event.attr for event in mine):
                if (info, attr) in wrapped:
                    continue
                history = [event for event in mine if event.attr == attr]
                site = _unregistered_site(history, facts)
                if site is not None and site not in reported:
                    reported.add(site)
                    self._report_unregistered(info, f"{history[-1].written}.{attr}", site)
                if attr in taken or (info, attr) in handed:
                    continue
                if _of_submodules(history, submodules, plain, calls_under):
                    continue
                container = _container_site(history, registered, self._may_hold_state)
                if container is not None and container.node not in reported:
                    reported.add(container.node)
                    self._report_container(info, container)

    def _may_hold_state(self, value, registered, depth: int = 4) -> bool:
        """`value` (a module or parameter a plain container keeps) holds something that
        registering it would carry: it is a parameter the instance does not register
        otherwise (an `nn.ParameterList` of every parameter drawn from the modules does), a
        torch layer with parameters, buffers or a train / eval switch (what torch 2.13
        shows of it), an `nn.Sequential` / `nn.ModuleList` / `nn.ModuleDict` holding such
        a value, or an instance of a module class of the file that inherits from a layer or
        an unresolved base, reads `self.training`, registers state, sets attributes outside
        `__init__`, or whose constructor stored such a value. A module of the file that
        stores only plain values, or values the file cannot show, is not proven to lose
        anything."""
        if isinstance(value, Tensor) and _is_registered(value, registered):
            return False
        if isinstance(value, Obj) and value.torch_layer:
            if value.kind in MODULE_CONTAINERS and value.kind != "torch.nn.ParameterList":
                # a container's state is its items'
                return not depth or self._stores_state(value, registered, depth)
            facts = knowledge.layer(value.kind)
            return facts is None or not facts.stateless or bool(value.attrs)
        if not isinstance(value, Obj) or value.info is None or not depth:
            return True
        classes = _class_chain(value.info, self.file.index, self.imports)
        if classes is None or any(_switches_or_registers(info) for info in classes):
            return True
        if not _assigned_in_init(classes) <= value.attrs.keys():  # its __init__ not run
            return True
        return self._stores_state(value, registered, depth)

    def _stores_state(self, module: Obj, registered, depth: int) -> bool:
        """An attribute of `module` holds a value that `_may_hold_state`, but for a
        parameter registered under its name elsewhere."""
        return any(
            self._may_hold_state(item, registered, depth - 1)
            for name, stored in module.attrs.items()
            for item in _stored_state(stored)
            if not _registered_by_name(module, name, item, registered)
        )

    # -- findings ------------------------------------------------------------------------

    def _report_unregistered(self, info: ClassInfo, written: str, node: cst.CSTNode) -> None:
        self.report(
            node,
            "GL501",
            headline(
                "{written} is a tensor with requires_grad=True, not an nn.Parameter",
                written=f"`{written}`",
            ),
            witness=_unregistered_witness(written.rpartition(".")[2]),
            detail=(
                f"`{info.name}.parameters()` never yields it, so the optimizer never updates "
                "it (nor does `.to(device)` / `state_dict()` see it). Wrap it: "
                f"`{written} = nn.Parameter(...)`."
            ),
        )

    def _report_container(self, info: ClassInfo, event: ModuleAttributeSet) -> None:
        value = event.value
        kept_in = (
            f"an instance of `{value.info.name}`, a plain class"
            if plain_object(value)
            else "a plain Python container"
        )
        self.report(
            event.node,
            "GL502",
            headline(
                "{attribute} keeps sub-modules / parameters in {kept_in}",
                attribute=f"`{event.written}.{event.attr}`",
                kept_in=kept_in,
            ),
            witness=CONTAINER_WITNESS,
            detail=(
                f"`{info.name}.parameters()` does not see them, so the optimizer never trains "
                "them and `.to(device)` / `state_dict()` skip them. Use `nn.ModuleList` / "
                "`nn.ModuleDict` (or `nn.ParameterList` / `nn.ParameterDict` for parameters)."
            ),
            fix=self._container_fix(event),
        )

    def _container_fix(self, event: ModuleAttributeSet) -> Fix | None:
        """`[nn.Linear(...) for ...]` -> `nn.ModuleList([...])` (and dicts -> ModuleDict)
        when every item is a torch layer: unsafe, the state_dict keys of the wrapped layers
        appear (`layers.0.weight`)."""
        source, value = event.source, event.value
        if event.grown or source is None:
            return None
        if isinstance(source, cst.List | cst.ListComp) and isinstance(value, Seq):
            kind, items = "ModuleList", list(value.items)
        elif isinstance(source, cst.Dict) and isinstance(value, Mapping):
            if len(value.items) != len(source.elements):  # a key that is not a string
                return None
            kind, items = "ModuleDict", [item for _, item in value.items]
        elif isinstance(source, cst.DictComp) and isinstance(value, Mapping):
            kind, items = "ModuleDict", [value.others]
        else:
            return None
        if not items or not all(isinstance(item, Obj) and item.torch_layer for item in items):
            return None
        wrapper = fixes.spelling(self.file, f"torch.nn.{kind}")
        if wrapper is None:
            return None
        wrapped = cst.Call(func=cst.parse_expression(wrapper), args=[cst.Arg(source)])
        return fixes.replace(
            self.file, source, wrapped, f"register the layers with nn.{kind}", unsafe=True
        )


# -- facts of a class ----------------------------------------------------------------------


def _judged_classes(infos, facts: FileFacts) -> set[ClassInfo]:
    """nn.Module classes of the file, but not those enumerating their own state, nor those
    registering attributes by a name only known at run time (`add_module(f"l{i}", m)`,
    `setattr`): what they register is not known."""
    found = {
        info
        for info in infos
        if info.kind is ClassKind.MODULE and not _SELF_ENUMERATING & info.methods.keys()
    }
    for registration in facts.registrations:
        if registration.method == "register_parameter" and registration.name is not None:
            continue
        module = registration.module
        found.discard(registration.within)
        if module is not None:
            found.discard(module.info)
    return found


def _constructing(event: ModuleAttributeSet, info: ClassInfo) -> bool:
    """An event of the class's `__init__` analysed on its own (helpers it runs included)."""
    init = info.methods.get("__init__")
    return init is not None and event.body is not None and event.body.standalone is init


def _wrapped(facts: FileFacts, classes: set[ClassInfo]) -> set[tuple[ClassInfo, str]]:
    """(class, attribute) pairs that some code sets to a Parameter or a registering
    container (`self.w = nn.Parameter(self.w)`), or registers by name."""
    found = set()
    for event in facts.module_attributes:
        module = event.module
        if module is None or module.info not in classes or event.grown:
            continue
        value = event.value
        parameter = isinstance(value, Tensor) and value.described == "parameter"
        container = isinstance(value, Obj) and value.kind in MODULE_CONTAINERS
        if parameter or container:
            found.add((module.info, event.attr))
    for registration in facts.registrations:
        if registration.name is None or registration.method != "register_parameter":
            continue
        for owner in (registration.within, getattr(registration.module, "info", None)):
            if owner in classes:
                found.add((owner, registration.name))
    return found


def _optimized(facts: FileFacts, instances) -> set[tuple[ClassInfo, str]]:
    """(class, attribute) pairs whose tensor, on some instance, an optimizer is built with
    (`torch.optim.Adam([model.prompt])`): it is trained, if not registered."""
    storages: set[int] = set()
    for built in facts.optimizers:
        storages |= optimizer(built.params).storages or set()
    return {
        (event.module.info, event.attr)
        for events in instances
        for event in events
        if isinstance(event.value, Tensor) and event.value.storage in storages
    }


def _handed_out(facts: FileFacts, instances) -> set[tuple[ClassInfo, str]]:
    """(class, attribute) pairs whose tensor a method of the class returns as it is, or in
    a list or tuple (`def arch_parameters(self): return self._arch_parameters`): the
    class hands it to other code, which may build an optimizer with it (DARTS keeps its
    architecture weights out of `parameters()` on purpose, for an optimizer of their
    own). A forward's result is what the module computes, not a hand-out."""
    returned: dict[ClassInfo, set[int]] = {}
    for event in facts.returns:
        name = event.function.name.value
        if name in ("forward", "__call__"):
            continue
        for tensor in _tensors_in(event.value):
            returned.setdefault(event.function, set()).add(tensor.storage)
    found = set()
    for events in instances:
        for event in events:
            info, value = event.module.info, event.value
            if not isinstance(value, Tensor):
                continue
            if any(value.storage in returned.get(m, ()) for m in info.methods.values()):
                found.add((info, event.attr))
    return found


def _tensors_in(value, depth: int = 2) -> list[Tensor]:
    """`value` if a tensor, or the tensors a list or tuple of them holds."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, Seq) and depth:
        return [t for item in value.items for t in _tensors_in(item, depth - 1)]
    return []


def _handed_on(facts: FileFacts, instances) -> set[tuple[ClassInfo, str]]:
    """(class, attribute) pairs whose container, on some instance, holds modules that a
    list or dict given to another call also holds (`nn.Sequential(*self.layers)`): that
    call may register them."""
    passed = set()
    for event in facts.containers_passed:
        passed |= {_identity(value) for value in _held(event.value)}
    found = set()
    for events in instances:
        for event in events:
            if any(_identity(value) in passed for value in _held(event.value)):
                found.add((event.module.info, event.attr))
    return found


def _module_attributes(events: list[ModuleAttributeSet]) -> frozenset[str]:
    """The attributes the constructor sets to a module on some path (`self.fc = nn.Linear`
    in each arm of an if / elif): assigning a module to an attribute registers it."""
    return frozenset(
        event.attr
        for event in events
        if not event.grown and isinstance(event.value, Obj) and event.value.is_module
    )


def _taken_by_containers(events: list[ModuleAttributeSet]) -> frozenset[str]:
    """The attributes whose whole content a registering container took after they were
    last filled (`self.blocks = []`, appended to in a loop, then `self.main =
    nn.ModuleList(self.blocks)`, `nn.Sequential(*self.blocks)`, or a concatenation of
    such lists: `nn.ParameterList(self._offset + self._scale)`): the container registers
    every item, whatever the dataflow kept of them, so the plain list is a second
    reference to registered state."""
    taken: set[str] = set()
    for event in events:
        taken.discard(event.attr)  # filled again after the container took it
        value = event.value
        if isinstance(value, Obj) and value.kind in MODULE_CONTAINERS and value.constructor:
            given = value.constructor.args
            if len(given) == 1 and given[0].keyword is None:
                for operand in _summed(given[0].value):
                    if isinstance(operand, cst.Attribute) and dotted(operand.value) == "self":
                        taken.add(operand.attr.value)
    return frozenset(taken)


def _summed(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a chain of `+` (`a + b + [c]`), or the expression itself."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return [*_summed(expr.left), *_summed(expr.right)]
    return [expr]


_ENUMERATIONS = frozenset({"parameters", "named_parameters", "modules", "children"})


def _of_submodules(
    history: list[ModuleAttributeSet],
    submodules: frozenset[str],
    plain: frozenset[str],
    calls_under: dict[cst.CSTNode, list[cst.Call]],
) -> bool:
    """Every value put into the container comes from enumerating sub-modules the class
    registers (`list(self.fc.parameters())`, also when `self.fc` is assigned in each arm
    of an if / else and the dataflow keeps no single module for it), or an item or slice
    of one (`list(self.convs[1:-1].parameters())`: indexing a registered ModuleList or
    Sequential yields its own registered layers), or an attribute the construction never
    set to a `plain` value, one known to be no module (`self.model`, built by a base class
    from a config the file cannot read: only a module has `named_parameters()`, and a
    module set on a module is registered). `calls_under`: the method calls below each
    source node met so far (instances of a class share them)."""
    sources = [event.node if event.source is None else event.source for event in history]
    calls = []
    for source in sources:
        if source not in calls_under:
            calls_under[source] = [
                node
                for node in iter_nodes(source)
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            ]
        calls += calls_under[source]
    enumerated = [call for call in calls if call.func.attr.value in _ENUMERATIONS]
    if not enumerated:
        return False
    for call in enumerated:
        owner = call.func.value
        while isinstance(owner, cst.Subscript):
            owner = owner.value
        if not (
            isinstance(owner, cst.Attribute)
            and dotted(owner.value) == "self"
            and (owner.attr.value in submodules or owner.attr.value not in plain)
        ):
            return False
    others = [call for call in calls if call not in enumerated and call.func.attr.value != "extend"]
    return not others


def _known_non_module(value) -> bool:
    """A value known, on every path, to be something other than a module."""
    options = list(options_of(value))
    return bool(options) and all(
        option is not None and not (isinstance(option, Obj) and option.is_module)
        for option in options
    )


def _registered(obj: Obj) -> set[tuple[str, int]]:
    """What registers under `obj`: its sub-modules (and theirs, and what registering
    containers hold) and parameters, as assigned and as read back."""
    found = {("storage", storage) for storage in owned(obj)}
    for module in modules(obj):
        if module is not obj:
            found.add(_identity(module))
        every = module.kind == "torch.nn.ParameterList"  # an item stands for each merged
        for value in module.attrs.values():
            for option in options_of(value):
                if isinstance(option, Tensor) and option.described == "parameter":
                    found.add(_identity(option))
                    found.update(("storage", s) for s in option.merged if every)
    return found


# -- one attribute of one construction ----------------------------------------------------


def _unregistered_site(history: list[ModuleAttributeSet], facts: FileFacts):
    """Where the attribute last set by the constructor became a tensor requiring grad that
    is no parameter: the assignment, or a later `t.requires_grad = True` on that tensor."""
    assigned = [event for event in history if not event.grown]
    if not assigned:
        return None
    last = assigned[-1]
    value = last.value
    if not isinstance(value, Tensor):
        return None
    if value.plain_leaf and value.grad is not Grad.OFF:
        return last.node
    if value.view:
        return None
    changes = [
        change
        for change in facts.requires_grad_changes
        if change.value.storage == value.storage and not change.value.view
    ]
    if changes and becomes_plain_leaf(changes[-1].value, changes[-1].flag):
        return changes[-1].node
    return None


def _container_site(
    history: list[ModuleAttributeSet], registered, may_hold_state
) -> ModuleAttributeSet | None:
    """The event that put unregistered modules or parameters into the attribute's plain
    container: its assignment, or, for a container assigned empty, where the first ones
    go in (`self.layers.append(...)`). None when none of the unregistered ones
    `may_hold_state` (registering them would add nothing to parameters(), buffers(),
    state_dict() nor to what train() / eval() switch)."""
    site, empty = None, False
    for event in history:
        held = _held(event.value)
        if event.grown:
            if site is None and empty and held:
                site = event
            continue
        site = event if held else None
        empty = _is_empty(event.value)
    if site is None:
        return None
    held: list = []  # what it holds since it was last assigned, whichever branch grew it
    for event in history:
        held = [*(held if event.grown else []), *_held(event.value)]
    lost = [value for value in held if not _is_registered(value, registered)]
    return site if any(may_hold_state(value, registered) for value in lost) else None


_MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
# calls that register state, or set attributes by a name known only at run time
_REGISTERING = frozenset(
    {"register_buffer", "register_parameter", "register_module", "add_module", "setattr"}
)


def _class_chain(info: ClassInfo, index, imports) -> list[ClassInfo] | None:
    """`info` and its bases of the file, when every base outside the file is nn.Module
    itself (not a torch layer, whose parameters the class inherits); else None."""
    chain = index.lineage(info)
    for current in chain:
        for base in current.base_names:
            local = index.by_name.get(base)
            outside = local is None or local is current
            if outside and imports.resolve_name(base) not in _MODULE_BASES:
                return None
    return chain


def _switches_or_registers(info: ClassInfo) -> bool:
    """A method of the class reads `self.training`, registers state, or sets an attribute
    of `self` outside `__init__`."""
    for name, method in info.methods.items():
        for node in iter_nodes(method):
            if isinstance(node, cst.Attribute) and dotted(node) == "self.training":
                return True
            if isinstance(node, cst.Call):
                called = dotted(node.func) or ""
                if called.rpartition(".")[2] in _REGISTERING and not _registers_nothing(node):
                    return True
            if name != "__init__" and _sets_self_attribute(node):
                return True
    return False


def _registered_by_name(module: Obj, name: str, item, registered) -> bool:
    """`item`, the parameter `module.name`, is registered as what `module.parameters()`
    yields under that name (an `nn.ParameterList(list(module.parameters()))` elsewhere)."""
    if not isinstance(item, Tensor) or item.described != "parameter":
        return False
    return ("storage", module.parameter(name).storage) in registered


def _registers_nothing(call: cst.Call) -> bool:
    """`self.register_parameter("bias", None)` (a registering call): the name is kept
    free, nothing is stored."""
    return (
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "register_parameter"
        and len(call.args) == 2
        and isinstance(call.args[1].value, cst.Name)
        and call.args[1].value.value == "None"
    )


def _assigned_in_init(classes: list[ClassInfo]) -> set[str]:
    """The attributes of `self` the classes' `__init__` methods assign."""
    return {
        target.attr.value
        for info in classes
        if "__init__" in info.methods
        for node in iter_nodes(info.methods["__init__"])
        for target in _self_targets(node)
    }


def _sets_self_attribute(node: cst.CSTNode) -> bool:
    return bool(_self_targets(node))


def _self_targets(node: cst.CSTNode) -> list[cst.Attribute]:
    """The `self.<name>` targets `node` assigns."""
    if isinstance(node, cst.Assign):
        targets = [target.target for target in node.targets]
    elif isinstance(node, cst.AnnAssign | cst.AugAssign):
        targets = [node.target]
    else:
        return []
    return [
        target
        for target in targets
        if isinstance(target, cst.Attribute) and dotted(target.value) == "self"
    ]


def _stored_state(value) -> list:
    """The parameters and modules an attribute value holds: itself, or what a list, tuple
    or dict, or a plain object of the file, holds."""
    found = []
    for option in options_of(value):
        parameter = isinstance(option, Tensor) and option.described == "parameter"
        if parameter or isinstance(option, Obj) and option.is_module:
            found.append(option)
        else:
            found.extend(_held(option))
    return found


def _is_registered(value: Obj | Tensor, registered: set[tuple[str, int]]) -> bool:
    """Registered, or a join of parameters that all are (`tuple(self.fc1.parameters()) +
    tuple(self.fc2.parameters())`: one of them, not known which)."""
    if _identity(value) in registered:
        return True
    merged = value.merged if isinstance(value, Tensor) else ()
    return bool(merged) and all(("storage", storage) in registered for storage in merged)


def _held(value, depth: int = 3) -> list:
    """The modules and parameters a list, tuple or dict holds (nested ones too), or a plain
    object of the file's classes (`self.head = Head(dim)`, Head keeping `self.fc =
    nn.Linear(...)` without being an nn.Module)."""
    if not isinstance(value, Seq | Mapping) and not plain_object(value) or not depth:
        return []
    if isinstance(value, Seq):
        items = list(value.items)
    elif isinstance(value, Obj):
        items = list(value.attrs.values())
    else:
        items = [item for _, item in value.items] + [value.others]
    found = []
    for item in items:
        module = isinstance(item, Obj) and item.is_module
        if module or (isinstance(item, Tensor) and item.described == "parameter"):
            found.append(item)
        else:
            found.extend(_held(item, depth - 1))
    return found


def _identity(value: Obj | Tensor) -> tuple[str, int]:
    if isinstance(value, Tensor):
        return ("storage", value.storage)
    return ("module", id(value))


def _is_empty(value) -> bool:
    if isinstance(value, Seq):
        return not value.items and not value.any_length
    return isinstance(value, Mapping) and not value.items and value.others is None


def _unregistered_witness(attr: str) -> Witness:
    expect = f"requires-grad tensor attribute `{attr}` is missing from parameters()"
    program = f"""import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.{attr} = torch.zeros(3, requires_grad=True)


model = Model()
if not any(p is model.{attr} for p in model.parameters()):
    raise AssertionError({expect!r})
"""
    return Witness(program, expect)


CONTAINER_WITNESS = Witness(
    """import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [torch.nn.Linear(4, 4) for _ in range(2)]


if not list(Model().parameters()):
    raise AssertionError("sub-modules in a plain list are missing from parameters()")
""",
    "sub-modules in a plain list are missing from parameters()",
)
