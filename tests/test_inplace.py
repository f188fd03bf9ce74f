"""GL101-GL105: the labelled corpus (linted and run in torch), the witnesses every
finding carries (run in torch), and targeted checks of the mechanisms and look-alikes."""

import re
import runpy
import warnings
from pathlib import Path

import pytest
from conftest import lint

from gradlint.catalogue import load_catalogue
from gradlint.engine import lint_source

CORPUS = sorted((Path(__file__).parent / "corpus" / "inplace").glob("*.py"))
EXPECT = re.compile(r"# expect: (GL\d{3})")
GL1 = ("GL101", "GL102", "GL103", "GL104", "GL105")


def _expected(source: str) -> set[tuple[int, str]]:
    return {
        (number, match.group(1))
        for number, line in enumerate(source.splitlines(), 1)
        if (match := EXPECT.search(line))
    }


def _findings(path: Path):
    result = lint_source(str(path), path.read_text())
    assert not result.internal_errors, result.internal_errors
    return [d for d in result.diagnostics if d.code in GL1]


def test_corpus_is_large_and_balanced():
    buggy = [p for p in CORPUS if p.name.startswith("bug_")]
    legal = [p for p in CORPUS if p.name.startswith("ok_")]
    assert len(buggy) >= 20 and len(legal) >= 20
    assert len(buggy) + len(legal) == len(CORPUS)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_file_is_linted_as_labelled(path):
    expected = _expected(path.read_text())
    assert bool(expected) == path.name.startswith("bug_")
    assert {(d.line, d.code) for d in _findings(path)} == expected


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_file_behaves_in_torch_as_labelled(path):
    pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if path.name.startswith("ok_"):
            runpy.run_path(str(path))
        else:
            with pytest.raises((RuntimeError, AssertionError)):
                runpy.run_path(str(path))


def _all_findings():
    for path in CORPUS:
        yield from _findings(path)
    for doc in load_catalogue().values():
        if doc.code in GL1:
            for source in doc.bad_examples:
                yield from (d for d in lint_source("doc.py", source).diagnostics if d.code in GL1)


def test_every_finding_carries_a_witness_that_reproduces_it_in_torch():
    torch = pytest.importorskip("torch")
    findings = list(_all_findings())
    assert {d.code for d in findings} == set(GL1)
    failures = []
    for finding in findings:
        witness = finding.witness
        try:
            exec(witness.program, {"torch": torch})
        except (RuntimeError, AssertionError) as error:
            if witness.expect not in str(error):  # as the probe matches it
                failures.append((finding.path, finding.line, str(error)[:100]))
        else:
            failures.append((finding.path, finding.line, "ran without error"))
    assert not failures


def _witness_forms():
    """One finding per in-place form and saving op, to run their witnesses in torch."""
    from gradlint.analysis import torch_ops as ops

    methods = "\n".join(f"    w.{m}{args}" for m, args in ops.INPLACE_TENSOR_METHODS.items())
    input_methods = "\n".join(
        f"        t.{m}{args}" for m, args in ops.INPLACE_TENSOR_METHODS.items()
    )
    saved = "\n".join(
        f"    y{i} = {op}(x{sample})\n    y{i}.mul_(2)"
        for i, (op, sample) in enumerate(ops.SAVES_OUTPUT_FUNCTIONS.items())
    )
    # each edited output is differentiated afterwards (returned), so backward reaches it
    outputs = ", ".join(f"y{i}" for i in range(len(ops.SAVES_OUTPUT_FUNCTIONS)))
    return f"""
import torch
x = torch.randn(4, 4)


def leaf_forms():
    w = torch.zeros(4, 4, requires_grad=True)
{methods}


class Forward(torch.nn.Module):
    def forward(self, t: torch.Tensor):
{input_methods}
        return t


inputs = torch.randn(4, 4)
Forward()(inputs)
print(inputs)  # the caller reads its tensor again: every edit reached it


def saved_forms(x):
    x = x * torch.ones(4, 4, requires_grad=True)
{saved}
    return x, ({outputs},)


saved_forms(x)[0].sum().backward()
"""


def test_witnesses_of_every_table_form_reproduce_in_torch():
    torch = pytest.importorskip("torch")
    from gradlint.analysis import torch_ops as ops

    findings = lint(_witness_forms())
    assert {d.code for d in findings} == {"GL101", "GL103", "GL104"}
    assert len(findings) == 2 * len(ops.INPLACE_TENSOR_METHODS) + len(ops.SAVES_OUTPUT_FUNCTIONS)
    for finding in findings:
        witness = finding.witness
        with pytest.raises((RuntimeError, AssertionError), match=re.escape(witness.expect[:40])):
            exec(witness.program, {"torch": torch})


# -- mechanisms and look-alikes ---------------------------------------------------------

HEADER = """
import torch
import torch.nn as nn
import torch.nn.functional as F
"""


def _codes(body: str) -> list[tuple[int, str]]:
    return [(d.line - HEADER.count("\n"), d.code) for d in lint(HEADER + body) if d.code in GL1]


def test_parameter_reached_through_a_local_alias_and_a_view():
    assert _codes(
        """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(4, 4)

    def forward(self, x):
        table = self.emb.weight
        table.view(-1)[0] = 1.0
        return x
"""
    ) == [(9, "GL101")]


def test_layer_parameters_switched_off_are_not_parameters():
    assert (
        _codes(
            """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4, bias=False)
        self.norm = nn.LayerNorm(4, elementwise_affine=False)

    def forward(self, x):
        self.fc.bias.add_(1)
        self.norm.weight.add_(1)
        return x
"""
        )
        == []
    )


def test_frozen_parameters_are_not_leaves_requiring_grad():
    assert (
        _codes(
            """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4), requires_grad=False)
        self.shift = nn.Parameter(torch.ones(4))
        self.shift.requires_grad = False

    def forward(self, x):
        self.scale.mul_(2)
        self.shift.add_(1)
        return x
"""
        )
        == []
    )


def test_functions_called_only_under_no_grad_are_quiet():
    assert (
        _codes(
            """
def shrink(model):
    for p in model.parameters():
        p.mul_(0.5)


model = nn.Linear(2, 2)
with torch.no_grad():
    shrink(model)
"""
        )
        == []
    )


def test_saved_only_when_the_other_operand_requires_grad():
    assert _codes(
        """
def f(x):
    a = torch.randn(4)
    b = torch.randn(4)
    c = a * b
    a.add_(1)
    w = torch.randn(4, requires_grad=True)
    d = b * w
    b.add_(1)
    return (c + d).sum().backward()
"""
    ) == [(9, "GL103")]


def test_rebinding_ends_the_saved_state():
    assert (
        _codes(
            """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = torch.sigmoid(self.fc(x))
        h = h * 2
        h += 1
        return h
"""
        )
        == []
    )


def test_edit_of_a_view_of_a_saved_tensor():
    assert _codes(
        """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = torch.exp(self.fc(x))
        h.t()[0].zero_()
        return h
"""
    ) == [(9, "GL103")]


def test_one_finding_per_statement_and_the_most_specific_code():
    found = _codes(
        """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    def forward(self, x: torch.Tensor):
        self.w[self.w > 0] = 0
        x[x > 0] = 0
        x.add_(1)
        return x


x = torch.randn(4)
M()(x)
print(x)
"""
    )
    assert found == [(8, "GL101"), (9, "GL105"), (10, "GL104")]


def test_forward_arguments_not_proven_tensors_are_quiet():
    assert (
        _codes(
            """
class M(nn.Module):
    def forward(self, x, cache, step):
        cache[0] = x
        step += 1
        return x
"""
        )
        == []
    )


def test_data_writes_after_backward_are_quiet():
    assert (
        _codes(
            """
model = nn.Linear(4, 1)
loss = model(torch.randn(2, 4)).sum()
loss.backward()
for p in model.parameters():
    p.data.add_(p.grad, alpha=-0.1)
"""
        )
        == []
    )


def test_messages_name_the_tensor_and_the_fix():
    (finding,) = lint(
        HEADER
        + """
w = torch.zeros(3, requires_grad=True)
w.add_(1)
"""
    )
    assert "`w`" in finding.message and "torch.no_grad()" in finding.detail


def test_seed_001_examples_and_their_fixes():
    bad = """
class MyModule(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(size))

    def forward(self, x):
        self.weight += x
        return self.weight


class Threshold(nn.Module):
    def forward(self, x):
        x[x < 0] = 0
        return x


scores = torch.randn(4)
Threshold()(scores)
print(scores)
"""
    fixed = """
class MyModule(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(size))

    def forward(self, x):
        return self.weight + x


class Threshold(nn.Module):
    def forward(self, x):
        return F.relu(x)


scores = torch.randn(4)
Threshold()(scores)
print(scores)
"""
    assert _codes(bad) == [(8, "GL101"), (14, "GL105")]
    assert _codes(fixed) == []


def test_grad_mode_idioms_are_quiet():
    assert (
        _codes(
            """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    @torch.no_grad()
    def renorm(self):
        self.w.div_(self.w.norm())

    @torch.inference_mode()
    def shrink(self):
        self.w.mul_(0.5)

    def clip(self):
        with torch.set_grad_enabled(False):
            self.w.clamp_(-1, 1)


class Sign(torch.optim.Optimizer):
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                p.add_(p.grad.sign(), alpha=-group["lr"])
"""
        )
        == []
    )


def test_copy_into_itself_changes_nothing():
    assert (
        _codes(
            """
class Resize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, sizes):
        tensor.copy_(tensor)
        return tensor.view(*sizes)
"""
        )
        == []
    )


def test_data_projection_before_forward_uses_the_parameter_is_quiet():
    assert (
        _codes(
            """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3, 3))

    def forward(self, x):
        self.weight.data.clamp_(min=0)
        return F.linear(x, self.weight)
"""
        )
        == []
    )


def test_an_edit_saved_by_the_previous_iteration_of_a_helpers_loop_is_found_at_its_call():
    # the helper alone cannot tell that `w` requires grad: its caller's leaf says so, and
    # `h * w` saves `h` only then; the next pass of the loop edits `h`
    found = lint(
        """
        import torch

        def accumulate(w, xs):
            h = torch.zeros(3)
            out = 0
            for x in xs:
                h.add_(x)
                out = out + (h * w).sum()
            return out

        w = torch.randn(3, requires_grad=True)
        loss = accumulate(w, [torch.randn(3) for _ in range(4)])
        loss.backward()
        """
    )
    assert [(f.code, f.line) for f in found] == [("GL103", 8)]


def test_an_edit_saved_by_the_previous_iteration_inside_a_called_loop_is_found():
    # the same inside a module's forward called from a training loop's body: the forward's
    # loop is reached during the outer loop's passes and still sees its own next pass
    found = lint(
        """
        import torch
        import torch.nn as nn

        class Cell(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(3, 3)

            def forward(self, xs):
                state = torch.zeros(1, 3)
                total = 0
                for x in xs:
                    state.mul_(0.5)
                    total = total + torch.sigmoid(self.proj(state) + x).sum()
                return total

        def train(model, batches):
            for xs in batches:
                for _ in range(2):
                    model(xs).backward()

        train(Cell(), [[torch.randn(1, 3)] * 3])
        """
    )
    assert [(f.code, f.line) for f in found] == [("GL103", 14)]


def test_data_write_to_a_module_the_helper_built_itself_is_quiet_at_its_call():
    """A helper called between the forward pass and backward() that writes through
    `.data` into a module it built (a deep copy, a builder's result moved to a device)
    cannot have changed what the forward pass used; writing into the module it was
    handed, or into one a call handed that module returned, still can."""
    template = """
        import copy
        import torch
        import torch.nn as nn

        def unwrap(model):
            return getattr(model, "module", model)

        def helper(model):
            {made}
            for p in made.parameters():
                p.data.mul_(0.5)

        model = nn.Linear(4, 1)
        loss = model(torch.randn(2, 4)).sum()
        helper(model)
        loss.backward()
    """
    for quiet in ("made = copy.deepcopy(model)", "made = nn.Linear(4, 1).to('cpu')"):
        assert "GL102" not in {d.code for d in lint(template.format(made=quiet))}, quiet
    for flagged in ("made = unwrap(model)", "made = model.to('cpu')", "made = model"):
        assert "GL102" in {d.code for d in lint(template.format(made=flagged))}, flagged
