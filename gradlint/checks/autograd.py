"""Custom autograd: `backward` methods autograd never calls, `autograd.Function` contracts."""

from __future__ import annotations

import re

import libcst as cst

from gradlint.checks import Checker

_BACKWARD_NAME = re.compile(r"(^backward$|_backward$|Backward$)")
_GRAD_PARAM = re.compile(r"grad")


def _looks_like_gradient_method(node: cst.FunctionDef) -> bool:
    """`def backward(self, grad_output)`: a method taking a gradient-like argument."""
    names = [p.name.value for p in node.params.params[1:]]
    return any(_GRAD_PARAM.search(name) for name in names) or node.name.value == "backward"


class ModuleBackwardChecker(Checker):
    """GL303: a `backward` method on an nn.Module, which autograd never calls."""

    codes = ("GL303",)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        owner = self.scope.function.owner  # the scope has entered `node` already
        if owner is None or not owner.is_module:
            return
        name = node.name.value
        if _BACKWARD_NAME.search(name) and _looks_like_gradient_method(node):
            self.report(
                node.name,
                "GL303",
                f"`{owner.name}.{name}` is never called by autograd: `loss.backward()` "
                "differentiates the operations of `forward` and ignores methods of an "
                "nn.Module; to define a custom gradient write a `torch.autograd.Function` "
                "with static `forward(ctx, ...)` / `backward(ctx, ...)` and call it via `.apply`",
            )
