"""GL101-GL105: in-place edits that break autograd, decided from the dataflow's events.

The interpreter (gradlint/analysis/dataflow) records every in-place write with what is
proven of the edited tensor (a leaf requiring grad, one of several views, a forward()
argument of an entry module, a tensor an op saved for backward, a caller's tensor read
again after the call) and the grad mode at that point; each rule here is a decision over
one event.
"""

from __future__ import annotations

import re
from functools import cached_property

import libcst as cst

from gradlint import fixes
from gradlint.analysis.dataflow import DataWrite, Grad, InplaceEdit, Saver, Tensor
from gradlint.analysis.names import dotted
from gradlint.analysis.torch_ops import REQUIRES_GRAD_KEYWORD_METHODS, TENSOR_FACTORIES
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Severity, Witness, headline

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation"
VIEW_LEAF_ERROR = "a view of a leaf Variable that requires grad is being used in an in-place"
SAVED_ERROR = "one of the variables needed for gradient computation has been modified by an"
MULTI_VIEW_ERROR = "is a view and is being modified inplace"
FUNCTION_VIEW_ERROR = "This view was created inside a custom Function"
OUT_ERROR = "add(): functions with out=... arguments don't support automatic differentiation"
INPUT_MUTATED = "forward() overwrote its caller's tensor"
DATA_MUTATED = "the gradient was computed from the mutated .data"

_PRECEDENCE = {"GL101": 0, "GL105": 1, "GL103": 2, "GL104": 3}
# how a witness calls a multi-view op on a (4, 4) tensor; the others take 2 (two pieces)
_MULTI_VIEW_ARGUMENT = {"unbind": "0", "split_with_sizes": "(2, 2)"}


class InplaceChecker(Checker):
    """GL101-GL105 over the file's in-place edit events."""

    codes = ("GL101", "GL102", "GL103", "GL104", "GL105")

    def leave_Module(self, node: cst.Module) -> None:
        facts = self.file.dataflow
        chosen: dict[cst.CSTNode, tuple] = {}
        for edit in facts.edits:
            finding = self._classify(edit)
            if finding is None:
                continue
            finding = (*finding, edit.statement)
            known = chosen.get(edit.node)
            if known is None or _PRECEDENCE[finding[0]] < _PRECEDENCE[known[0]]:
                chosen[edit.node] = finding
        for edit_node, (code, (message, detail), severity, witness, statement) in chosen.items():
            fix = _fix(self.file, code, statement)
            self.report(
                edit_node, code, message, severity=severity, witness=witness, fix=fix, detail=detail
            )
        reported: set[cst.CSTNode] = set()
        for write in facts.data_writes:
            if write.node not in reported:
                reported.add(write.node)
                self._report_data(write)

    def _classify(self, edit: InplaceEdit):
        if edit.grad is not True:
            return None
        value = edit.value
        written = edit.written or f"`{self.file.code_for(edit.target)}`"
        if value.grad is Grad.LEAF or value.leaf_view:
            if self._item_of_a_container_attribute(edit):
                return None
            return self._leaf_finding(edit, written)
        if not (value.is_tensor or edit.proves_tensor) or edit.out_arg:
            return None
        if value.multi_view and value.grad is Grad.ON:
            return self._multi_view_finding(edit, written)
        if value.function_view and value.grad is Grad.ON:
            return self._function_view_finding(edit, written)
        saver = edit.saver if edit.body.differentiated and not edit.unused else None
        caller_input = self._unseen_callers_input(edit)
        read_again = edit.caller_reads and not edit.guarded and _unexpected(edit)
        if saver is None and (caller_input or read_again) and self._needs_no_grad(edit):
            return None
        if edit.mask and (saver is not None or caller_input or read_again):
            return self._mask_finding(edit, written, saver)
        if saver is not None:
            return self._saved_finding(edit, written, saver)
        if caller_input or read_again:
            return self._input_finding(edit, written)
        return None

    def _item_of_a_container_attribute(self, edit: InplaceEdit) -> bool:
        """`self.masks[key] = ...` where the class also assigns `self.masks` a dict or a
        list (`self.masks = {}` in one method, a Parameter in another): the item store may
        go into the container, which no Parameter is."""
        target = edit.target
        if not (
            edit.form.startswith("t[")
            and isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            return False
        return target.attr.value in self._container_attributes.get(edit.body.node, ())

    @cached_property
    def _container_attributes(self) -> dict[cst.FunctionDef, frozenset[str]]:
        """For each method of the file's classes, the `self` attributes some method of its
        class assigns a dict or list display (or `dict()`, `list()`, `OrderedDict()`...)."""
        found: dict[cst.FunctionDef, frozenset[str]] = {}
        for info in self.file.index.by_node.values():
            names = frozenset(
                statement.targets[0].target.attr.value
                for method in info.methods.values()
                for statement in iter_nodes(method)
                if isinstance(statement, cst.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Attribute)
                and dotted(statement.targets[0].target.value) == "self"
                and _is_container_display(statement.value)
            )
            for method in info.methods.values():
                found[method] = names
        return found

    def _needs_no_grad(self, edit: InplaceEdit) -> bool:
        """The edited tensor needs no grad, so no backward can break: a forward argument
        named for labels, targets, lengths or token ids, or for running statistics, or an
        edit in the arm of `if x.requires_grad: <out of place> else: <in place>` (`if not
        x.requires_grad:`)."""
        name = edit.value.forward_input
        if name is not None and _LABEL_NAME.search(name) and not _VALUE_NAME.search(name):
            return True
        if name is not None and _RUNNING_STATISTIC.search(name):
            return True
        edited = self.file.code_for(edit.target)
        if self._constant_stand_in(edit, edited):
            return True
        if any(node is edit.node for arm in self._inference_arms for node in iter_nodes(arm)):
            return True
        return any(
            tested == edited and any(node is edit.node for node in iter_nodes(arm))
            for tested, arm in self._no_grad_arms
        )

    def _constant_stand_in(self, edit: InplaceEdit, edited: str) -> bool:
        """The edited argument stands in for a tensor that needs no grad: the function
        (or its forward) fills it in itself when None, with one that requires none
        (`if weight is None: weight = target.new_ones(target.size())`: mmdet's loss
        weights), so what a caller passes there is a weight or mask, not a value autograd
        differentiates."""
        functions = {edit.body.node, edit.value.input_of} - {None}
        return any(
            isinstance(node, cst.If)
            and _tests_is_none(node.test, edited)
            and any(self._needs_no_grad_value(value) for value in _assigned(node, edited))
            for function in functions
            for node in iter_nodes(function)
        )

    def _needs_no_grad_value(self, expr: cst.BaseExpression) -> bool:
        """A tensor that requires no grad: so proven by the interpreter, or (an arm it did
        not run) a fresh factory call without `requires_grad=True` (`torch.ones(...)`,
        `target.new_ones(...)`)."""
        value = self.file.dataflow.value_of(expr)
        if isinstance(value, Tensor):
            return value.grad is Grad.OFF
        if not isinstance(expr, cst.Call) or any(
            arg.keyword is not None and arg.keyword.value == "requires_grad" for arg in expr.args
        ):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value.startswith("new_"):
            return func.attr.value in REQUIRES_GRAD_KEYWORD_METHODS
        return self.resolve(func) in TENSOR_FACTORIES

    @cached_property
    def _no_grad_arms(self) -> list[tuple[str, cst.CSTNode]]:
        """(tensor, arm) for each `if` whose arm runs only when the tensor does not require
        grad: the `else` of `if x.requires_grad:`, the body of `if not x.requires_grad:`."""
        arms = []
        for node in iter_nodes(self.file.module):
            if not isinstance(node, cst.If):
                continue
            test, arm = node.test, node.orelse
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                test, arm = test.expression, node.body
            tests_flag = isinstance(test, cst.Attribute) and test.attr.value == "requires_grad"
            if tests_flag and arm is not None:
                arms.append((self.file.code_for(test.value), arm))
        return arms

    @cached_property
    def _inference_arms(self) -> list[cst.CSTNode]:
        """Arms of an `if` that run only at inference, by the test's own words: `if
        in_inference_mode:`, `if self.inference and ...:`, `if
        torch.is_inference_mode_enabled():` (the body), `if not is_inference:` (the
        `else`). No backward follows what runs there."""
        arms = []
        for node in iter_nodes(self.file.module):
            if not isinstance(node, cst.If):
                continue
            test, arm = node.test, node.body
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                test, arm = test.expression, node.orelse
            # the body of `if a and b:` runs only when each of them holds
            tests = _conjuncts(test) if arm is node.body else [test]
            if arm is not None and any(map(_names_inference, tests)):
                arms.append(arm)
        return arms

    def _unseen_callers_input(self, edit: InplaceEdit) -> bool:
        """An argument of a forward() no call site in the file reaches, which the edit
        reaches in the caller's tensor: an optional argument (`inputs_embeds=None`) that
        stands in for what the forward otherwise computes itself, supplied by users to hand
        in their own tensors (embeddings to attribute or perturb: leaves that require grad).
        What a caller passes for any other argument is unknown, and edits of a fresh tensor
        the caller never reads again (augmentations, mask generators, losses handed a new
        similarity matrix) harm nothing, so those stay quiet. Forwards the file calls are
        judged at their call sites instead; a forward code in other files may call (its
        class extends the project's) by those callers, unless a call site of this file
        hands its argument on, unchanged, to the callee that edits it."""
        value = edit.value
        if not value.forward_input or edit.guarded:
            return False
        if edit.body.role == "function_forward":
            return True
        facts = self.file.dataflow
        if value.input_of in facts.called:
            return False
        if value.input_of in facts.called_elsewhere and edit.body.node is value.input_of:
            return False
        return _optional_argument(value.input_of, value.forward_input)

    def _leaf_finding(self, edit: InplaceEdit, written: str):
        value = edit.value
        view = value.view or edit.form.startswith("t[0]")
        expect = OUT_ERROR if edit.out_arg else (VIEW_LEAF_ERROR if view else LEAF_ERROR)
        message = headline(
            "In-place edit of {what} {written}, a leaf that requires grad, while autograd is "
            "recording",
            what=value.described or "leaf tensor",
            written=written,
        )
        detail = (
            f'Torch raises "{expect}". Do the update under `with torch.no_grad():` (an '
            "optimizer step, an initialisation) or compute a new tensor out of place "
            "(`w = w + x`)."
        )
        target = "v" if view else "t"
        setup = "t = torch.nn.Parameter(torch.randn(4, 4))"
        if view:
            setup += "\nv = t.view(4, 4)"
        line = _retarget(edit.form, target)
        program = f"import torch\nx = torch.randn(4, 4)\n{setup}\n{line}\n"
        return "GL101", (message, detail), None, Witness(program, expect)

    def _function_view_finding(self, edit: InplaceEdit, written: str):
        function = edit.value.function_view
        message = headline(
            "In-place edit of {written}, an input {function} returned as-is (or a view of it)",
            written=written,
            function=f"`{function}`",
        )
        detail = (
            f'Torch raises "... {FUNCTION_VIEW_ERROR} (or because an input was returned '
            'as-is)". Return `x.clone()` from the forward, or edit a copy.'
        )
        line = _retarget(edit.form, "a")
        program = (
            "import torch\n\n\nclass AsIs(torch.autograd.Function):\n"
            "    @staticmethod\n    def forward(ctx, x):\n        return x\n\n"
            "    @staticmethod\n    def backward(ctx, grad):\n        return grad\n\n\n"
            "w = torch.randn(4, 4, requires_grad=True)\n"
            f"a = AsIs.apply(w * 1)\n{line}\n"
        )
        return "GL103", (message, detail), None, Witness(program, FUNCTION_VIEW_ERROR)

    def _multi_view_finding(self, edit: InplaceEdit, written: str):
        op = edit.value.multi_view
        message = headline(
            "In-place edit of {written}, one of the views `{op}()` returned", written=written, op=op
        )
        detail = (
            f'Torch raises "... {MULTI_VIEW_ERROR}. This view is the output of a function '
            'that returns multiple views". Write the result to a new tensor (`a = a + 1`) or '
            "`.clone()` the piece first."
        )
        line = _retarget(edit.form, "a")
        program = (
            "import torch\nx = torch.randn(4, 4)\nw = torch.randn(4, 4, requires_grad=True)\n"
            f"a, *b = (w * 1).{op}({_MULTI_VIEW_ARGUMENT.get(op, '2')})\n{line}\n"
        )
        return "GL103", (message, detail), None, Witness(program, MULTI_VIEW_ERROR)

    def _saved_finding(self, edit: InplaceEdit, written: str, saver: Saver):
        message = headline(
            "In-place edit of {written}, which {op} saved for backward",
            written=written,
            op=f"`{saver.op}`",
        )
        detail = (
            f'`backward()` will raise "{SAVED_ERROR} inplace operation". Write the result to '
            "a new tensor instead (`y = y + 1`, `torch.where(...)`, `F.relu(y)` without "
            "`inplace=True`) or `.clone()` it first."
        )
        witness = Witness(_saved_program(saver, edit.form), SAVED_ERROR)
        return "GL103", (message, detail), None, witness

    def _mask_finding(self, edit: InplaceEdit, written: str, saver: Saver | None):
        fix = (
            "Build a new tensor instead: `torch.where(mask, value, x)`, "
            "`x.masked_fill(mask, value)`, `x.clamp(min=0)` or `F.relu(x)`."
        )
        if saver is not None:
            message = headline(
                "Masked assignment into {written}, which {op} saved for backward",
                written=written,
                op=f"`{saver.op}`",
            )
            detail = f'`backward()` will raise "{SAVED_ERROR} inplace operation". {fix}'
            witness = Witness(_saved_program(saver, edit.form), SAVED_ERROR)
            return "GL105", (message, detail), Severity.ERROR, witness
        message = headline(
            "Masked assignment into {whose} {written} overwrites the caller's tensor",
            whose=_whose(edit),
            written=written,
        )
        detail = (
            f"{_read_after(edit)}Backward raises if that tensor is a leaf requiring grad or "
            f"was saved by an earlier op. {fix}"
        )
        witness = Witness(_input_program(edit.form), INPUT_MUTATED)
        return "GL105", (message, detail), None, witness

    def _input_finding(self, edit: InplaceEdit, written: str):
        value = edit.value
        if edit.body.role == "function_forward" and value.forward_input:
            if value.forward_input in edit.body.dirty:
                return None
            message = headline(
                "`autograd.Function.forward` edits its input {written} in place without {dirty}",
                written=written,
                dirty=f"`ctx.mark_dirty({value.forward_input})`",
            )
            detail = (
                "Autograd does not know the input changed and its gradient is wrong. Call "
                "`ctx.mark_dirty(...)` and return it, or `.clone()` the input first."
            )
            return (
                "GL104",
                (message, detail),
                Severity.ERROR,
                Witness(_input_program(edit.form), INPUT_MUTATED),
            )
        message = headline(
            "In-place edit of {whose} {written} mutates the caller's tensor",
            whose=_whose(edit),
            written=written,
        )
        detail = (
            f"{_read_after(edit)}Backward raises if that tensor requires grad or was saved "
            "by an earlier op. Compute a new tensor (`x = x + 1`) or `x = x.clone()` first."
        )
        witness = Witness(_input_program(edit.form), INPUT_MUTATED)
        return "GL104", (message, detail), None, witness

    def _report_data(self, write: DataWrite) -> None:
        message = headline(
            "Write through {data} {where}", data=f"`{write.name}.data`", where=write.where
        )
        detail = (
            "Autograd does not see it, so the gradient is computed from the changed values "
            "and is silently wrong. Update parameters under `with torch.no_grad():` after "
            "`backward()` / `optimizer.step()`."
        )
        program = (
            "import torch\nw = torch.nn.Parameter(torch.ones(3))\nloss = (w * w).sum()\n"
            "w.data.mul_(2)\nloss.backward()\n"
            "if not torch.equal(w.grad, 2 * torch.ones(3)):\n"
            f"    raise AssertionError({DATA_MUTATED!r})\n"
        )
        witness = Witness(program, DATA_MUTATED)
        self.report(write.node, "GL102", message, witness=witness, detail=detail)


# Forward arguments that hold labels, targets, lengths, token ids or indices: integer or
# constant tensors that need no grad (`target`, `labels`, `ys_pad_lens`, `ilens`,
# `input_ids`, `text_prev`, a question-answering head's `start_positions` /
# `end_positions`, the sampled `idx` an NCE Function fills in), unless another part of the
# name says values (`text_embeds`, `label_logits`).
_LABEL_NAME = re.compile(
    r"(?:^|_)(?:targets?|labels?|[io]?lens|lengths?|ids|tokens?|text|(?:start|end)_positions?"
    r"|idx|indices)(?:$|_)"
)
# Arguments named for a normalisation's running statistics (`running_mean`, `running_var`):
# buffers that require no grad, updated in place in forward by design (torch's own
# batch_norm does it), as custom batch-norm Functions do without `ctx.mark_dirty`.
_RUNNING_STATISTIC = re.compile(r"(?:^|_)running(?:_|$)|^num_batches_tracked$")
_VALUE_NAME = re.compile(
    r"(?:^|_)(?:embeds?|embeddings?|emb|features?|feats|hidden|states?|logits|scores|probs)(?:$|_)"
)


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _names_inference(test: cst.BaseExpression) -> bool:
    """A test that is a name, attribute or call whose spelling says inference
    (`in_inference_mode`, `InferenceMode.is_active()`, `torch.is_inference_mode_enabled()`)."""
    if isinstance(test, cst.Call):
        test = test.func
    spelled = dotted(test) if isinstance(test, cst.Name | cst.Attribute) else None
    return spelled is not None and "inference" in spelled.lower()


_CONTAINER_CALLS = frozenset({"dict", "list", "OrderedDict", "defaultdict"})


def _is_container_display(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Dict | cst.DictComp | cst.List | cst.ListComp):
        return True
    if isinstance(value, cst.Call):
        name = dotted(value.func)
        return name is not None and name.rsplit(".", 1)[-1] in _CONTAINER_CALLS
    return False


def _tests_is_none(test: cst.BaseExpression, name: str) -> bool:
    """`name is None`."""
    return (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and dotted(test.left) == name
        and dotted(test.comparisons[0].comparator) == "None"
    )


def _assigned(branch: cst.If, name: str) -> list[cst.BaseExpression]:
    """The values the body of `branch` assigns to `name`."""
    return [
        statement.value
        for statement in iter_nodes(branch.body)
        if isinstance(statement, cst.Assign)
        and len(statement.targets) == 1
        and dotted(statement.targets[0].target) == name
    ]


def _optional_argument(forward: cst.FunctionDef | None, name: str) -> bool:
    """`name` is a parameter of `forward` that defaults to None."""
    if forward is None:
        return False
    params = forward.params
    return any(
        param.name.value == name
        and isinstance(param.default, cst.Name)
        and param.default.value == "None"
        for param in [*params.params, *params.kwonly_params]
    )


def _unexpected(edit: InplaceEdit) -> bool:
    """An edit the caller did not ask for: a forward() (or a helper on the differentiable
    path) changing a tensor whose values the caller relies on. Inside a module's forward,
    a helper filling in a tensor the forward made (a position embedding added in place,
    called for that effect or returning the tensor) does what the forward asked; one
    called for a result of its own that also edits it does not. A buffer allocated to be
    filled (`out = torch.zeros(...)` handed over to the callee) or a bookkeeping helper
    resetting an accumulator is edited on purpose. Outside a forward the same holds: a
    helper called for its effect on a tensor its caller reads again (a kernel-fusion helper
    adding into the caller's product) does what the caller asked."""
    value = edit.value
    if value.buffer:
        return False
    if value.forward_input:
        return True
    if edit.body.forward is not None:  # the edit runs inside a module's forward
        return edit.read_by_module_caller
    return value.grad in (Grad.ON, Grad.LEAF) and edit.read_by_module_caller


def _whose(edit: InplaceEdit) -> str:
    if edit.value.forward_input:
        return "forward() argument"
    return "the caller's tensor"


def _read_after(edit: InplaceEdit) -> str:
    if not edit.caller_reads:
        return ""
    names = ", ".join(f"`{n}`" for n in edit.caller_reads)
    return f"The caller reads it again as {names} after the call and sees the edit. "


def _retarget(form: str, name: str) -> str:
    return re.sub(r"\bt\b", name, form)


def _saved_program(saver: Saver, form: str) -> str:
    """The saving op, the same edit of what it saved, then backward."""
    return (
        f"import torch\ntorch.manual_seed(0)\nx = torch.randn(4, 4)\n{saver.setup}\n{form}\n"
        "out.sum().backward()\n"
    )


def _input_program(form: str) -> str:
    """A forward() making the same edit of its argument writes into the caller's tensor
    (its version counter moves)."""
    return (
        "import torch\ntorch.manual_seed(0)\nx = torch.randn(4, 4)\n\n\n"
        f"def forward(t):\n    {form}\n    return t\n\n\n"
        "batch = torch.randn(4, 4)\nforward(batch)\n"
        f"if batch._version:\n    raise AssertionError({INPUT_MUTATED!r})\n"
    )


# -- fixes ---------------------------------------------------------------------------


def _fix(file, code: str, statement: cst.CSTNode | None) -> Fix | None:
    """GL101: a manual update (`w -= lr * w.grad`) goes under `torch.no_grad()`; GL105:
    `x[mask] = 0` becomes `x = x.masked_fill(mask, 0)`. Both unsafe: the first stops
    recording, the second rebinds `x` instead of writing into the tensor others hold."""
    if code == "GL101" and statement is not None and _reads_grad(statement):
        return fixes.wrap_in_no_grad(file, statement, "do the update under torch.no_grad()")
    if code == "GL105" and isinstance(statement, cst.Assign):
        return _masked_fill_fix(file, statement)
    return None


def _reads_grad(statement: cst.CSTNode) -> bool:
    return any(
        isinstance(node, cst.Attribute) and node.attr.value == "grad"
        for node in iter_nodes(statement)
    )


def _masked_fill_fix(file, statement: cst.Assign) -> Fix | None:
    (target,) = statement.targets if len(statement.targets) == 1 else (None,)
    if target is None or not isinstance(target.target, cst.Subscript):
        return None
    subscript = target.target
    number = statement.value
    if isinstance(number, cst.UnaryOperation) and isinstance(number.operator, cst.Minus):
        number = number.expression
    if not (
        isinstance(subscript.value, cst.Name)
        and isinstance(number, cst.Integer | cst.Float)
        and len(subscript.slice) == 1
        and isinstance(subscript.slice[0].slice, cst.Index)
    ):
        return None
    mask = subscript.slice[0].slice.value
    if not _same_shape_mask(mask, subscript.value.value):
        return None  # a row mask would broadcast differently in masked_fill
    call = cst.Call(
        func=cst.Attribute(subscript.value, cst.Name("masked_fill")),
        args=[
            cst.Arg(mask, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(statement.value),
        ],
    )
    fixed = statement.with_changes(
        targets=[target.with_changes(target=subscript.value)], value=call
    )
    return fixes.replace(file, statement, fixed, "build a new tensor with masked_fill", unsafe=True)


def _same_shape_mask(mask: cst.BaseExpression, name: str) -> bool:
    """`x < 0`, `~(x > 1)`, `(x < a) | (x > b)`: a mask computed elementwise from `x`."""
    if isinstance(mask, cst.Comparison):
        left = mask.left
        return isinstance(left, cst.Name) and left.value == name and len(mask.comparisons) == 1
    if isinstance(mask, cst.UnaryOperation) and isinstance(mask.operator, cst.BitInvert):
        return _same_shape_mask(mask.expression, name)
    if isinstance(mask, cst.BinaryOperation) and isinstance(mask.operator, cst.BitAnd | cst.BitOr):
        return _same_shape_mask(mask.left, name) and _same_shape_mask(mask.right, name)
    return False
