"""Optimizers as the interpreter sees them: which parameters (by storage) a
`torch.optim` optimizer updates in place when it steps."""

from __future__ import annotations

from gradlint.analysis.dataflow.freezing import modules
from gradlint.analysis.dataflow.values import (
    ANY_PARAMETER,
    Mapping,
    Obj,
    Optimizer,
    Parameters,
    Seq,
    Tensor,
)


def optimizer(params) -> Optimizer:
    """`torch.optim.X(params, ...)`: `params` is `m.parameters()`, a list of tensors or
    of parameter groups (`{"params": ...}`); anything else leaves them unknown."""
    return Optimizer(_storages(params))


def _storages(params) -> frozenset[int] | None:
    if isinstance(params, Parameters):
        return owned(params.owner) if params.owner is not None else None
    if isinstance(params, Tensor):
        return frozenset({params.storage})
    if isinstance(params, Mapping):
        return _storages(params.get("params"))
    if isinstance(params, Seq) and params.parameters is not None:
        return params.parameters
    if isinstance(params, Seq) and not params.any_length:
        found: set[int] = set()
        for item in params.items:
            storages = _storages(item)
            if storages is None:
                return None
            found |= storages
        return frozenset(found)
    return None


def drawn(params: Parameters, trainable_only: bool = False) -> frozenset[int] | None:
    """The storages `list(m.parameters())` holds (`trainable_only`: `filter(lambda p:
    p.requires_grad, m.parameters())`); None for `named_parameters()`, an unknown module or
    parameters the filter may partly drop."""
    if params.named or params.owner is None:
        return None
    return owned_trainable(params.owner) if trainable_only else owned(params.owner)


def owned(obj: Obj) -> frozenset[int]:
    """The storages of every parameter of `obj` and of its layers."""
    found = set()
    for module in modules(obj):
        names = module.parameters if module.torch_layer else _declared(module)
        found |= {module.parameter(name).storage for name in (*names, ANY_PARAMETER)}
    return frozenset(found)


def owned_trainable(obj: Obj) -> frozenset[int] | None:
    """The storages `filter(lambda p: p.requires_grad, obj.parameters())` keeps: those of
    the modules not proven frozen; None when a module's parameters may be partly frozen
    (which ones the filter drops is unknown)."""
    found: set[int] = set()
    for module in modules(obj):
        if module.grad_off:
            continue
        if module.frozen:
            return None
        names = module.parameters if module.torch_layer else _declared(module)
        found |= {module.parameter(name).storage for name in (*names, ANY_PARAMETER)}
    return frozenset(found)


def _declared(module: Obj) -> list[str]:
    return [
        name
        for name, value in module.attrs.items()
        if isinstance(value, Tensor) and value.described == "parameter"
    ]
