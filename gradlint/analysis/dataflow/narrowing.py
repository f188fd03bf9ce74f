"""`isinstance` narrowing of the modules a loop meets: `for m in model.modules(): if
isinstance(m, nn.Conv2d): ...` runs the branch on each Conv2d layer of `model`, so there
`m.weight` is that layer's Parameter (requiring grad unless something froze it)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis.dataflow.freezing import modules
from gradlint.analysis.dataflow.values import Obj
from gradlint.analysis.names import dotted


def isinstance_tests(test: cst.BaseExpression) -> list[tuple[str, list[cst.BaseExpression]]]:
    """The `isinstance(name, classes)` conjuncts of an if-test: (name, class expressions)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return isinstance_tests(test.left) + isinstance_tests(test.right)
    if not (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(test.args) == 2
        and not any(arg.star or arg.keyword for arg in test.args)
    ):
        return []
    name = dotted(test.args[0].value)
    classes = test.args[1].value
    listed = classes.elements if isinstance(classes, cst.Tuple) else None
    expressions = [e.value for e in listed] if listed is not None else [classes]
    return [(name, expressions)] if name is not None else []


def layer_kinds(
    expressions: list[cst.BaseExpression], resolve: Callable[[cst.BaseExpression], str | None]
) -> list[str] | None:
    """The torch layer classes named (canonical names), or None if one is something else."""
    kinds = []
    for expression in expressions:
        qualified = resolve(expression)
        facts = knowledge.layer(qualified) if qualified is not None else None
        if facts is None:
            return None
        kinds.append(facts.name)
    return kinds


def narrowed(owner: Obj | None, kinds: list[str], freezes: bool) -> Obj:
    """The module a branch under `isinstance(m, kinds)` sees, `m` met in `owner.modules()`
    (`owner` None: a model the file does not show). The one layer of those kinds when the
    model has exactly one; otherwise a layer standing for each of them: the parameters
    all of them have, whose grad is unknown when any may be frozen."""
    found = modules(owner) if owner is not None else ()
    members = [m for m in found if m.torch_layer and m.kind in kinds]
    if len(members) == 1:
        return members[0]
    parameters = [set(knowledge.layer(kind).parameters) for kind in kinds]
    parameters += [set(m.parameters) for m in members]
    common = set.intersection(*parameters)
    order = knowledge.layer(kinds[0]).parameters
    frozen = freezes or any(m.frozen for m in members)
    grad_off = bool(members) and all(m.grad_off for m in members)
    return Obj(
        kinds[0] if len(kinds) == 1 else "torch.nn.Module",
        torch_layer=True,
        parameters=tuple(name for name in order if name in common),
        frozen=frozen or (owner is not None and owner.frozen),
        grad_off=grad_off,
    )
