"""Misused autograd switches: misspelled `requires_grad`, flags set on non-leaves,
reentrant checkpointing."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from gradlint import fixes
from gradlint.analysis.dataflow import Grad
from gradlint.analysis.dataflow.values import Tensor
from gradlint.analysis.names import dotted
from gradlint.analysis.torch_ops import (
    CHECKPOINT_FUNCTIONS,
    REQUIRES_GRAD_KEYWORD_FUNCTIONS,
    REQUIRES_GRAD_KEYWORD_METHODS,
)
from gradlint.analysis.walk import iter_nodes, visit
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Severity, Witness, headline

REQUIRES_GRAD = "requires_grad"
_GRADIENT_SPELLINGS = frozenset(
    {"requiresgradient", "requiresgradients", "requiregradient", "requiregradients"}
)


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def is_requires_grad_typo(name: str) -> bool:
    """`require_grad`, `requires_grads`, `requiresGrad`, `requires_gradient`, ..."""
    lowered = name.lower()
    if name == REQUIRES_GRAD or name.startswith("_") or "gr" not in lowered:
        return False
    squashed = lowered.replace("_", "")
    return _edit_distance(lowered, REQUIRES_GRAD) <= 2 or squashed in _GRADIENT_SPELLINGS


def _literal_bool(expr: cst.BaseExpression) -> bool | None:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == name), None)


def _spreads_kwargs(call: cst.Call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def _spelling_fix(file, name: cst.Name) -> Fix | None:
    """The misspelled name -> `requires_grad` (safe: the misspelling does nothing or raises)."""
    fixed = name.with_changes(value=REQUIRES_GRAD)
    return fixes.replace(file, name, fixed, f"spell it {REQUIRES_GRAD}")


class RequiresGradKeywordChecker(Checker):
    """GL204: a misspelled `requires_grad` keyword or attribute."""

    codes = ("GL204",)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._takes_requires_grad(node):
            return
        for arg in node.args:
            if arg.keyword is not None and is_requires_grad_typo(arg.keyword.value):
                self.report(
                    arg.keyword,
                    "GL204",
                    headline(
                        "{keyword} is not a keyword of {function}",
                        keyword=f"`{arg.keyword.value}=`",
                        function=f"`{self.file.code_for(node.func)}`",
                    ),
                    severity=Severity.ERROR,
                    detail=(
                        "Torch raises TypeError (unexpected keyword argument). Write "
                        "`requires_grad=`."
                    ),
                    witness=_keyword_witness(arg.keyword.value),
                    fix=None
                    if _keyword(node, REQUIRES_GRAD)
                    else _spelling_fix(self.file, arg.keyword),
                )

    def _takes_requires_grad(self, call: cst.Call) -> bool:
        if self.resolve(call.func) in REQUIRES_GRAD_KEYWORD_FUNCTIONS:
            return True
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value in REQUIRES_GRAD_KEYWORD_METHODS

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if not isinstance(attribute, cst.Attribute):
                continue
            name = attribute.attr.value
            if dotted(attribute.value) == "self":
                continue  # a setting of the project's own class, not a tensor flag
            if not is_requires_grad_typo(name) or name in self._attributes_read:
                continue
            # asked only now: the dataflow asked for mid-walk runs a call scan of its own
            if self._flag_already_holds(attribute.value, node.value):
                continue  # `p.requiresGrad = True` on a parameter: the meant flag holds
            self.report(
                attribute.attr,
                "GL204",
                headline(
                    "{attribute} sets a new Python attribute, not autograd's flag",
                    attribute=f"`{self.file.code_for(attribute)}`",
                ),
                severity=Severity.WARNING,
                detail=(
                    "`requires_grad` keeps its old value and no error is raised. Write "
                    "`.requires_grad`."
                ),
                witness=_attribute_witness(name),
                fix=_spelling_fix(self.file, attribute.attr),
            )

    def _flag_already_holds(self, owner: cst.BaseExpression, value) -> bool:
        """The literal flag is what the tensor already has (`True` on a parameter that
        requires grad, `False` on a fresh factory tensor): whatever the spelling, the flag
        it meant to set holds, so the line changes nothing."""
        flag = _literal_bool(value)
        if flag is None:
            return False
        tensor = self.file.dataflow.value_of(owner)
        if isinstance(tensor, Tensor) and tensor.grad.requires_grad is flag:
            return True
        written = self.file.code_for(owner)
        return flag and any(
            f"{event.written}.{event.attr}" == written
            and isinstance(event.value, Tensor)
            and event.value.described == "parameter"
            and event.value.grad is Grad.LEAF
            for event in self.file.dataflow.module_attributes
        )

    @cached_property
    def _attributes_read(self) -> frozenset[str]:
        """Attribute names the file reads: a misspelling read back is the project's own name."""
        collector = _AttributeReads()
        visit(self.file.module, collector)
        return frozenset(collector.read)


class _AttributeReads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.read: set[str] = set()
        self._stored: set[cst.Attribute] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Attribute):
            self._stored.add(node.target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node not in self._stored:
            self.read.add(node.attr.value)


def _keyword_witness(keyword: str) -> Witness:
    program = f"import torch\n\ntorch.zeros(3, {keyword}=True)\n"
    return Witness(program, f"zeros() got an unexpected keyword argument '{keyword}'")


def _attribute_witness(name: str) -> Witness:
    expect = f"setting `.{name}` left requires_grad False"
    program = (
        "import torch\n\n"
        "t = torch.zeros(3)\n"
        f"t.{name} = True\n"
        "if not t.requires_grad:\n"
        f"    raise AssertionError({expect!r})\n"
    )
    return Witness(program, expect)


class NonLeafRequiresGradChecker(Checker):
    """GL204: changing `requires_grad` of a tensor a recorded op produced (a non-leaf),
    decided from the dataflow's requires_grad events."""

    codes = ("GL204",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for change in self.file.dataflow.requires_grad_changes:
            if change.value.grad is not Grad.ON or change.node in reported:
                continue
            if not change.assigned and change.flag is not False:
                continue  # `requires_grad_(True)` on a non-leaf is a no-op
            reported.add(change.node)
            message, detail = _nonleaf_message(change.written, change.assigned)
            self.report(
                change.node,
                "GL204",
                message,
                severity=Severity.ERROR,
                witness=NONLEAF_WITNESS,
                detail=detail,
            )


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of `a and b and c` (the test itself when it is no `and`)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _mentions_version(test: cst.BaseExpression) -> bool:
    """`is_torch_version(">=", "1.11.0")`, `torch.__version__ >= ...`, `_TORCH_GE_1_11`."""
    return any(
        isinstance(node, cst.Name) and "version" in node.value.lower() for node in iter_nodes(test)
    )


def _nonleaf_message(name: str, assigned: bool) -> tuple[str, str]:
    """(headline, detail) of a `requires_grad` change on a non-leaf."""
    raises = (
        "Torch raises RuntimeError (you can only change requires_grad flags of leaf variables)."
    )
    if assigned:
        return headline(
            "{name} is the result of a recorded op (a non-leaf), so setting `requires_grad` raises",
            name=f"`{name}`",
        ), (
            f"{raises} It already requires grad: drop the line, or use "
            f"`{name}.detach().requires_grad_()` to start a new leaf."
        )
    return headline(
        "{name} is the result of a recorded op (a non-leaf): `requires_grad_(False)` raises",
        name=f"`{name}`",
    ), f"{raises} Use `{name}.detach()`."


NONLEAF_WITNESS = Witness(
    "import torch\n\nx = torch.randn(3, requires_grad=True)\ny = x * 2\ny.requires_grad = True\n",
    "you can only change requires_grad flags of leaf variables",
)


class CheckpointReentrantChecker(Checker):
    """GL205: checkpointing without `use_reentrant=False`."""

    codes = ("GL205",)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._ifs: list[cst.If | cst.IfExp] = []  # the enclosing `if` statements / expressions
        self._gates: dict[cst.If, bool] = {}  # whether each is a version gate, once asked
        self._reentrant: list[tuple[cst.Call, str]] = []  # `use_reentrant=True` calls

    def visit_If(self, node: cst.If) -> None:
        self._ifs.append(node)

    def leave_If(self, node: cst.If) -> None:
        self._ifs.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._ifs.append(node)

    def leave_IfExp(self, node: cst.IfExp) -> None:
        self._ifs.pop()

    def _checkpoints_a_pure_function(self, call: cst.Call) -> bool:
        """The checkpointed function is a staticmethod of the enclosing class that only
        calls torch functions (`self._exp_kernel` = `torch.exp(-d / r).sum()`): no
        parameter is inside to lose its gradient, so both variants agree."""
        function = call.args[0].value if call.args and not call.args[0].keyword else None
        if not (
            isinstance(function, cst.Attribute)
            and dotted(function.value) == "self"
            and self.scope.classes
        ):
            return False
        method = self.scope.classes[-1].methods.get(function.attr.value)
        static = method is not None and any(
            dotted(decorator.decorator) == "staticmethod" for decorator in method.decorators
        )
        if not static:
            return False
        parameters = {param.name.value for param in method.params.params}
        for node in iter_nodes(method.body):
            if isinstance(node, cst.Name) and node.value == "self":
                return False
            if not isinstance(node, cst.Call):
                continue
            qualified = self.resolve(node.func) or ""
            on_result = isinstance(node.func, cst.Attribute) and not isinstance(
                node.func.value, cst.Name
            )
            if not (qualified.startswith("torch.") or on_result):
                return False
            if isinstance(node.func, cst.Name) and node.func.value in parameters:
                return False
        return True

    def _input_requires_grad(self, call: cst.Call) -> bool:
        """The call runs only in the arm of an `if` (statement or expression) whose test
        requires `x.requires_grad` of one of the checkpointed inputs: with an input that
        requires grad the reentrant variant's output keeps its graph. The test may be in
        every caller of the method that checkpoints (see `_every_call_guarded`)."""
        inputs = {self.file.code_for(arg.value) for arg in call.args[1:] if not arg.keyword}
        for enclosing in self._ifs:
            if self._guards(enclosing, call, inputs):
                return True
        return self._every_call_guarded(call, inputs)

    def _guards(self, branch: cst.If | cst.IfExp, node: cst.CSTNode, inputs: set[str]) -> bool:
        """`node` is in the body of `branch`, whose test requires that one of `inputs`
        requires grad: `x.requires_grad`, or a call of a method of the class that returns
        True only where one of its tensors does (`self.any_requires_grad(x)`)."""
        if not any(found is node for found in iter_nodes(branch.body)):
            return False  # in the other arm
        for conjunct in _conjuncts(branch.test):
            if (
                isinstance(conjunct, cst.Attribute)
                and conjunct.attr.value == "requires_grad"
                and self.file.code_for(conjunct.value) in inputs
            ):
                return True
            if (
                isinstance(conjunct, cst.Call)
                and len(conjunct.args) == 1
                and self.file.code_for(conjunct.args[0].value) in inputs
                and self._any_requires_grad_method(conjunct.func)
            ):
                return True
            if self._any_input_requires_grad(conjunct, inputs):
                return True
        return False

    def _any_input_requires_grad(self, test: cst.BaseExpression, inputs: set[str]) -> bool:
        """`any(t.requires_grad for t in xs)` over checkpointed inputs: `xs` is one of them
        (`*prev_features`), or a tuple / list of nothing else (gpleiss's efficient DenseNet)."""
        if not (
            isinstance(test, cst.Call)
            and isinstance(test.func, cst.Name)
            and test.func.value == "any"
            and self.resolve(test.func) is None  # the builtin, not an imported `any`
            and len(test.args) == 1
            and isinstance(test.args[0].value, cst.GeneratorExp | cst.ListComp)
        ):
            return False
        each = test.args[0].value
        loop = each.for_in
        if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
            return False
        element = each.elt
        if not (
            isinstance(element, cst.Attribute)
            and element.attr.value == "requires_grad"
            and isinstance(element.value, cst.Name)
            and element.value.value == loop.target.value
        ):
            return False
        if isinstance(loop.iter, cst.Tuple | cst.List):
            items = [self.file.code_for(item.value) for item in loop.iter.elements]
            return bool(items) and all(item in inputs for item in items)
        return self.file.code_for(loop.iter) in inputs

    def _any_requires_grad_method(self, func: cst.BaseExpression) -> bool:
        """`self.NAME` is a method of the class whose every `return True` sits in the arm
        of `if t.requires_grad:` (torchvision / mmpretrain DenseNet's any_requires_grad)."""
        owner = self.scope.method_class
        if owner is None or not (isinstance(func, cst.Attribute) and dotted(func.value) == "self"):
            return False
        method = owner.methods.get(func.attr.value)
        if method is None:
            return False
        returns_true = [
            node
            for node in iter_nodes(method.body)
            if isinstance(node, cst.Return) and _literal_bool(node.value) is True
        ]
        guarded = {
            id(found)
            for node in iter_nodes(method.body)
            if isinstance(node, cst.If)
            and isinstance(node.test, cst.Attribute)
            and node.test.attr.value == "requires_grad"
            for found in iter_nodes(node.body)
        }
        return bool(returns_true) and all(id(node) in guarded for node in returns_true)

    def _every_call_guarded(self, call: cst.Call, inputs: set[str]) -> bool:
        """The checkpoint runs in a method of the class whose checkpointed inputs are its
        parameters, and every call of that method in the class passes them in the arm of
        an `if` requiring that one of them requires grad (`if self.memory_efficient and
        self.any_requires_grad(x): self.call_checkpoint_bottleneck(x)`)."""
        owner, frame = self.scope.method_class, self.scope.function
        if owner is None or frame is None or not isinstance(frame.node, cst.FunctionDef):
            return False
        method = frame.node
        names = [param.name.value for param in method.params.params[1:]]
        positions = [names.index(name) for name in inputs if name in names]
        if not positions:
            return False
        calls = [
            (branch_owner, node)
            for branch_owner in owner.methods.values()
            for node in iter_nodes(branch_owner)
            if isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and dotted(node.func.value) == "self"
            and node.func.attr.value == method.name.value
        ]
        if not calls:
            return False
        for caller, node in calls:
            passed = {
                self.file.code_for(node.args[position].value)
                for position in positions
                if position < len(node.args) and not node.args[position].keyword
            }
            branches = [n for n in iter_nodes(caller) if isinstance(n, cst.If | cst.IfExp)]
            if not any(self._guards(branch, node, passed) for branch in branches):
                return False
        return True

    def _version_gate(self, node: cst.If) -> bool:
        """A torch-version check passing `use_reentrant` in one of its branches."""
        gate = self._gates.get(node)
        if gate is None:
            gate = _mentions_version(node.test) and self._passes_use_reentrant(node)
            self._gates[node] = gate
        return gate

    def _passes_use_reentrant(self, node: cst.If) -> bool:
        return any(
            isinstance(call, cst.Call)
            and self.resolve(call.func) in CHECKPOINT_FUNCTIONS
            and _keyword(call, "use_reentrant") is not None
            for call in iter_nodes(node)
        )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.resolve(node.func)
        if qualified not in CHECKPOINT_FUNCTIONS or _spreads_kwargs(node):
            return
        gates = (enclosing for enclosing in self._ifs if isinstance(enclosing, cst.If))
        if any(self._version_gate(enclosing) for enclosing in gates):
            return  # the legacy branch of a torch-version check: old torch has no flag
        flag = _keyword(node, "use_reentrant")
        if flag is not None and _literal_bool(flag.value) is True:
            self._reentrant.append((node, qualified))  # decided from the dataflow's facts
        if flag is not None and not (
            isinstance(flag.value, cst.Name) and flag.value.value == "None"
        ):
            return
        if self._input_requires_grad(node) or self._checkpoints_a_pure_function(node):
            return
        short = qualified.rsplit(".", 1)[-1]
        self.report(
            node,
            "GL205",
            headline(
                "{call} without `use_reentrant=False` runs the reentrant variant",
                call=f"`{short}(...)`",
            ),
            fix=self._fix(node, flag),
            detail=(
                "Torch warns the argument will be required. When no input requires grad, as "
                "with frozen embeddings under LoRA / PEFT, its output does not require grad "
                "and the parameters inside never get gradients. Pass `use_reentrant=False`."
            ),
            witness=CHECKPOINT_WITNESS,
        )

    def leave_Module(self, node: cst.Module) -> None:
        for call, qualified in self._reentrant:
            self._reentrant_without_grad(call, qualified)

    def _reentrant_without_grad(self, node: cst.Call, qualified: str) -> None:
        """`use_reentrant=True` at a call the dataflow shows with no input requiring grad."""
        calls = [c for c in self.file.dataflow.checkpoints if c.node is node]
        if not any(c.inputs_need_no_grad for c in calls):
            return
        short = qualified.rsplit(".", 1)[-1]
        self.report(
            node,
            "GL205",
            headline(
                "{call} is given inputs that require no grad",
                call=f"`{short}(..., use_reentrant=True)`",
            ),
            fix=self._fix(node, _keyword(node, "use_reentrant")),
            detail=(
                "The reentrant variant then returns an output that does not require grad, so "
                "the parameters inside the checkpointed block never get gradients. Pass "
                "`use_reentrant=False`."
            ),
            witness=CHECKPOINT_WITNESS,
        )

    def _fix(self, node: cst.Call, flag: cst.Arg | None) -> Fix | None:
        value = cst.Name("False")
        if flag is not None:
            fixed = node.deep_replace(flag.value, value)
        else:
            fixed = node.with_changes(
                args=[
                    *node.args,
                    cst.Arg(
                        value=value,
                        keyword=cst.Name("use_reentrant"),
                        equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""),
                        ),
                    ),
                ]
            )
        return fixes.replace(self.file, node, fixed, "pass use_reentrant=False", unsafe=True)


CHECKPOINT_WITNESS = Witness(
    "import warnings\n\n"
    "import torch\n"
    "from torch.utils.checkpoint import checkpoint\n\n"
    "warnings.simplefilter('ignore')\n"
    "layer = torch.nn.Linear(4, 4)\n"
    "frozen = torch.randn(2, 4)  # e.g. the output of a frozen embedding\n"
    "out = checkpoint(layer, frozen)\n"
    "if not out.requires_grad:\n"
    "    raise AssertionError('checkpoint output does not require grad')\n",
    "checkpoint output does not require grad",
)
