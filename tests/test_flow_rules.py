"""GL201 / GL202 / GL203: a cut is reported only when it is the sole path from the
parameters to a module's output or to a backpropagated loss."""

import warnings

import pytest
from conftest import codes, lint

from gradlint.analysis import knowledge
from gradlint.analysis import torch_ops as ops

MODULE = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x, target):
        y = self.fc(x)
{body}
"""


def forward_codes(body: str) -> list[str]:
    indented = "\n".join("        " + line for line in body.strip().splitlines())
    return codes(MODULE.format(body=indented))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return torch.tensor(y.tolist())", "GL201"),
        ("return y.sum().item() * x", "GL201"),
        ("return float(y.mean()) + x", "GL201"),
        ("return torch.from_numpy(y.detach().numpy())", "GL201"),
        ("return y.detach()", "GL202"),
        ("return y.data * 2", "GL202"),
        ("with torch.no_grad():\n    z = self.fc(x)\nreturn z + 1", "GL202"),
        ("return torch.argmax(y, dim=1).float()", "GL203"),
        ("return (y > 0).float()", "GL203"),
        ("return torch.sign(y)", "GL203"),
        ("return y.round()", "GL203"),
    ],
)
def test_cut_on_the_only_path_to_the_output(body, expected):
    assert forward_codes(body) == [expected]


@pytest.mark.parametrize(
    "body",
    [
        "return y + (torch.round(y) - y).detach()",  # straight-through estimator
        "return y * (y > 0).float()",  # a mask from a comparison, applied to y
        "return y[torch.arange(4), y.argmax(-1)]",  # argmax as an index
        "return torch.where(y > 0, y, torch.zeros_like(y))",
        "return y.detach() * self.scale",  # a parameter still reaches the output
        "return y, y.argmax(-1)",  # predictions next to the logits
        "print(y.item())\nlosses = [y.sum().item()]\nreturn y",  # logging only
        "return x.detach()",  # an input, not a parameter's graph
        "return F.cross_entropy(y, target.argmax(-1))",  # argmax of the target
        "z = self.fc(x.detach())\nreturn z",  # detached input into a layer
        "if self.training:\n    y = y.detach()\nreturn y",  # one path only: unknown
        "return self.helper(y.detach())",  # an unknown method may use parameters
    ],
)
def test_legitimate_look_alikes_are_quiet(body):
    assert forward_codes(body) == []


def test_forward_of_a_non_module_class_is_not_an_output():
    assert not codes(
        """
        import torch

        class Wrapper:
            def __init__(self, model):
                self.model = model

            def forward(self, x):
                return self.model(x).detach()
        """
    )


def test_loss_from_a_teacher_only_is_flagged_but_a_detached_target_is_not():
    source = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        student, teacher = nn.Linear(3, 2), nn.Linear(3, 2)
        teacher.eval()
        opt = torch.optim.SGD(student.parameters(), lr=0.1)

        def good(x):
            target = teacher(x).detach()
            F.mse_loss(student(x), target).backward()

        def bad(x):
            opt.zero_grad()
            loss = F.mse_loss(teacher(x).detach(), x[:, :2])
            loss.backward()

        good(torch.randn(4, 3))
        bad(torch.randn(4, 3))
        """
    found = lint(source)
    assert [(d.code, d.line) for d in found] == [("GL202", 16)]


def test_loss_through_an_unknown_function_is_unknown():
    assert not codes(
        """
        import torch
        from losses import compute_loss

        def train(model, x):
            out = model(x)
            model.train()
            loss = compute_loss(model, out.item())
            loss.backward()

        train(torch.nn.Linear(3, 1), torch.randn(2, 3))
        """
    )


def test_loss_accumulated_from_items_is_flagged_once():
    found = lint(
        """
        import torch

        def train(model, batches):
            model.train()
            total = 0.0
            for x in batches:
                total += model(x).sum().item()
            loss = torch.tensor(total, requires_grad=True)
            loss.backward()

        train(torch.nn.Linear(3, 1), [torch.randn(2, 3)])
        """
    )
    assert [(d.code, d.line) for d in found] == [("GL201", 8)]


def test_message_says_what_and_what_instead():
    (finding,) = lint(
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

            def forward(self, x):
                return self.fc(x).detach()
        """
    )
    assert "`.detach()`" in finding.message and "output" in finding.detail
    assert "straight-through" in finding.detail
    assert finding.witness is not None


# -- the torch knowledge the rules read, proven entry by entry in torch ---------------


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _graph_tensor(torch):
    """`t`: a (2, 3) tensor computed from a parameter, so it carries a graph."""
    return torch.nn.Parameter(torch.randn(2, 3)) * 1


def _results(value):
    return list(value) if isinstance(value, tuple | list) else [value]


def test_graph_cut_methods_leave_the_graph(torch):
    t = _graph_tensor(torch)
    for name in ops.GRAPH_CUT_METHODS:
        receiver = {"numpy": t.detach(), "item": t.sum()}.get(name, t)
        result = getattr(receiver, name)()
        assert not isinstance(result, torch.Tensor) or result.grad_fn is None, name


def test_graph_cut_functions_build_tensors_without_history(torch):
    t = _graph_tensor(torch)
    for name, sample in ops.GRAPH_CUT_FUNCTIONS.items():
        assert eval(sample.split("(")[0], {"torch": torch}) is not None, name
        result = eval(sample, {"torch": torch, "t": t})
        assert result.grad_fn is None and not result.requires_grad, name


def _spellings(name, torch):
    """The Tensor method and `torch.` / `torch.nn.functional.` functions named `name`."""
    places = (torch.Tensor, torch, torch.nn.functional)
    return [getattr(place, name) for place in places if hasattr(place, name)]


def test_no_gradient_ops_give_integer_results_without_history(torch):
    assert {"argmax", "argmin", "eq", "gt", "isclose", "signbit", "long", "bool"} <= (
        ops.NO_GRADIENT_OPS
    )
    assert {"isnan", "nonzero", "searchsorted", "bucketize", "multinomial"} <= ops.NO_GRADIENT_OPS
    assert not ops.NO_GRADIENT_OPS & {"float", "detach", "sort", "max", "round"}
    t = _graph_tensor(torch)
    for name in ("isnan", "argsort", "count_nonzero", "all", "logical_not", "nonzero"):
        result = getattr(t, name)()
        assert not result.requires_grad and not result.is_floating_point(), name
    assert not torch.isin(t, t[0]).requires_grad


def test_zero_gradient_ops_give_zero_gradients(torch):
    assert {"round", "floor", "ceil", "sign", "trunc", "fix"} <= ops.ZERO_GRADIENT_OPS
    # zero for a real input only: of a complex one, angle and sgn have a gradient
    assert not ops.ZERO_GRADIENT_OPS & {"angle", "sgn", "relu", "abs", "cdist", "index_fill"}
    samples = {"fill": (2.0,)}
    for name in ops.ZERO_GRADIENT_OPS:
        for op in _spellings(name, torch):
            w = torch.nn.Parameter(torch.randn(5) * 3)
            op(w * 1.5, *samples.get(name, ())).sum().backward()
            assert torch.count_nonzero(w.grad) == 0, name


def test_backward_raising_ops_raise_in_backward(torch):
    assert {"floor_divide", "heaviside", "unique"} <= ops.BACKWARD_RAISING_OPS
    t = _graph_tensor(torch)
    for result in (t.floor_divide(2), t.heaviside(t), torch.unique(t)):
        assert result.requires_grad
        with pytest.raises(RuntimeError, match="not implemented"):
            result.sum().backward()


def test_graph_keeping_methods_keep_the_graph(torch):
    assert {"to", "view", "sum", "softmax", "split", "masked_fill", "bmm"} <= (
        ops.GRAPH_KEEPING_METHODS
    )
    assert not ops.GRAPH_KEEPING_METHODS & (ops.NON_DIFFERENTIABLE_OPS | {"detach", "item"})
    checked = 0
    for name in sorted(ops.GRAPH_KEEPING_METHODS):
        facts = knowledge.method(name)
        if facts is None or facts.call is None:
            continue  # GradScaler methods, `cuda`, or no call on a (4, 4) tensor known
        t = torch.nn.Parameter(torch.randn(4, 4)) * 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's deprecation notes (`t.lu()`)
            results = _results(eval(f"t.{name}({facts.call[2:]})", {"t": t, "torch": torch}))
        for result in results if name in ("split", "chunk", "unbind") else results[:1]:
            assert result.grad_fn is not None, name  # the values; indices have no history
        checked += 1
    assert checked > 150


def test_metadata_and_factories_carry_no_graph(torch):
    t = _graph_tensor(torch)
    for name in ops.TENSOR_METADATA - {"grad_fn", "grad"}:
        value = getattr(t, name)
        value = value() if callable(value) else value
        assert not isinstance(value, torch.Tensor) or not value.requires_grad, name
    for name in ops.FRESH_TENSOR_FACTORIES:
        factory = getattr(torch, name)
        if name.endswith("_like"):
            result = factory(t) if name != "full_like" else factory(t, 1.0)
        elif name in ("full", "randint", "linspace"):
            samples = {"full": ((2,), 1), "randint": (0, 3, (2,)), "linspace": (0, 1, 2)}
            result = factory(*samples[name])
        else:
            result = factory(2)
        assert not result.requires_grad, name


def test_items_collected_in_a_list_then_backpropagated():
    found = lint(
        """
        import torch

        def train(model, batches):
            model.train()
            losses, metrics = [], []
            for x in batches:
                out = model(x)
                losses.append(out.pow(2).mean().item())
                metrics.append(out.argmax(-1))
            loss = torch.tensor(losses, requires_grad=True).mean()
            loss.backward()
            kept = []
            for x in batches:
                kept.append(model(x).sum())
            torch.stack(kept).mean().backward()

        train(torch.nn.Linear(3, 1), [torch.randn(2, 3)])
        """
    )
    assert [(d.code, d.line) for d in found] == [("GL201", 9)]


# -- GL202 at the backward: frozen models, grad mode switched off by a helper ------------


def test_eval_mode_and_a_freeze_under_an_unknown_condition_are_quiet():
    assert not codes(
        """
        import sys
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        model.eval()
        if len(sys.argv) > 1:
            model.requires_grad_(False)
        loss = model(torch.randn(2, 4)).sum()
        loss.backward()
        """
    )


def test_grad_mode_set_from_a_runtime_flag_by_a_helper_is_quiet():
    assert not codes(
        """
        import torch
        import torch.nn as nn

        def set_mode(model, training):
            model.train(training)
            torch.set_grad_enabled(training)

        model = nn.Linear(4, 1)
        set_mode(model, model.training)
        model(torch.randn(2, 4)).sum().backward()
        """
    )


def test_grad_mode_switched_off_and_on_again_by_a_helper_is_quiet():
    assert not codes(
        """
        import torch
        import torch.nn as nn

        def evaluate(model):
            torch.set_grad_enabled(False)
            score = model(torch.randn(2, 4)).mean().item()
            torch.set_grad_enabled(True)
            return score

        model = nn.Linear(4, 1)
        evaluate(model)
        model(torch.randn(2, 4)).sum().backward()
        """
    )


_EPOCHS = """
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def check_accuracy():
    torch.set_grad_enabled(False)
    return model(torch.randn(2, 4)).mean().item()


def train_epoch():
    {enable}
    optimizer.zero_grad()
    loss = model(torch.randn(2, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    check_accuracy()


for epoch in range(2):
    train_epoch()
"""


def test_grad_mode_left_off_by_a_helper_of_the_epoch_function():
    """tbd-nets#8: the accuracy helper run at the end of each epoch turns grad mode off
    for good; the next epoch's backward raises 'element 0 of tensors does not require
    grad'. The helper's switch outlives the call that made it, and that call's caller."""
    found = lint(_EPOCHS.format(enable="pass"))
    assert [(d.code, d.line) for d in found] == [("GL202", 18)]
    assert not codes(_EPOCHS.format(enable="torch.set_grad_enabled(True)"))


def test_a_frozen_model_fed_an_input_that_requires_grad_is_quiet():
    assert not codes(
        """
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        model.requires_grad_(False)
        image = torch.randn(2, 4, requires_grad=True)
        model(image).sum().backward()
        """
    )


# -- GL103 at optimizer.step(): a live graph saved the parameters it updates ------------


def test_backward_then_step_each_iteration_and_recomputed_gan_outputs_are_quiet():
    assert not codes(
        """
        import torch
        import torch.nn as nn

        G, D = nn.Linear(2, 4), nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        g_opt = torch.optim.Adam(G.parameters())
        d_opt = torch.optim.Adam(D.parameters())
        for _ in range(2):
            fake = G(torch.randn(3, 2))
            d_loss = D(fake.detach()).mean() - D(torch.randn(3, 4)).mean()
            d_opt.zero_grad()
            d_loss.backward()
            d_opt.step()
            g_loss = -D(fake).mean()
            g_opt.zero_grad()
            g_loss.backward()
            g_opt.step()
        """
    )


def test_step_between_retained_backwards_through_a_helper_is_gl103():
    found = lint(
        """
        import torch
        import torch.nn as nn

        def both_losses(d, g, real):
            fake = g(torch.randn(3, 2))
            score = torch.sigmoid(d(fake))
            return (score - d(real)).mean(), -score.log().mean()

        g, d = nn.Linear(2, 4), nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        d_opt = torch.optim.SGD(d.parameters(), lr=0.1)
        d_loss, g_loss = both_losses(d, g, torch.randn(3, 4))
        d_loss.backward(retain_graph=True)
        d_opt.step()
        g_loss.backward()
        """
    )
    assert ("GL103", 14) in [(f.code, f.line) for f in found]


def test_first_order_gradients_carry_no_graph_into_the_next_loss():
    # autograd.grad without create_graph frees the inner graph and returns plain tensors
    assert not codes(
        """
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        params = list(model.parameters())
        inner = model(torch.randn(3, 4)).pow(2).mean()
        grads = torch.autograd.grad(inner, params)
        fast = [p - 0.1 * g for p, g in zip(params, grads)]
        outer = torch.nn.functional.linear(torch.randn(3, 4), fast[0], fast[1]).pow(2).mean()
        outer.backward()
        """
    )


@pytest.mark.parametrize(
    "loss",
    [
        # polyloss-pytorch#4: the README's logits stand for a network's output but are made
        # by torch.rand, and the loss module's cross_entropy gets them by name
        "F.cross_entropy(logits, labels)",
        "F.cross_entropy(input=logits, target=labels)",
        "(logits.softmax(-1) - 1).pow(2).mean()",
    ],
)
def test_backward_of_a_loss_no_tensor_of_which_requires_grad(loss):
    source = f"""
import torch
import torch.nn.functional as F

logits = torch.rand([10, 5])
labels = torch.randint(0, 5, [10])
out = {loss}
out.backward()
"""
    (finding,) = lint(source)
    assert finding.code == "GL202" and finding.line == 8
    assert "do not require grad" in finding.message


@pytest.mark.parametrize(
    "make",
    [
        "torch.rand([10, 5], requires_grad=True)",
        "torch.rand([10, 5]).requires_grad_()",
        "nn.Linear(5, 5)(torch.rand([10, 5]))",
        "nn.Parameter(torch.rand([10, 5]))",
        "load_logits()",  # not known
    ],
)
def test_backward_of_a_loss_from_a_tensor_requiring_grad_is_quiet(make):
    source = f"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import load_logits

logits = {make}
labels = torch.randint(0, 5, [10])
out = F.cross_entropy(input=logits, target=labels)
out.backward()
"""
    assert "GL202" not in codes(source)


def test_backward_of_an_untracked_loss_under_a_requires_grad_test_is_quiet():
    source = """
import torch

x = torch.rand(3)
loss = (x * 2).sum()
if loss.requires_grad:
    loss.backward()
"""
    assert codes(source) == []


def test_a_weight_given_by_name_carries_its_grad_to_the_result():
    """`F.linear(x, weight=w)`: the result requires grad through `w` (the keyword tensor
    is not dropped), so the backward reaches it."""
    source = """
import torch
import torch.nn.functional as F

w = torch.nn.Parameter(torch.randn(3, 4))
x = torch.rand(2, 4)
out = F.linear(x, weight=w).sum()
out.backward()
"""
    assert codes(source) == []


def test_the_gradient_handed_to_an_unknown_outputs_backward_is_not_the_loss():
    """opacus's tests: `y` comes from a wrapper the file does not know; `y.backward(g)`
    takes `g` as the gradient, which needs no grad."""
    source = """
import torch
from opacus import GradSampleModule

m = GradSampleModule(torch.nn.Linear(3, 1))
y = m(torch.randn(2, 3))
backprops = torch.randn(*y.shape)
y.backward(backprops)
"""
    assert codes(source) == []


def test_an_untracked_looking_loss_in_a_method_is_quiet():
    """avalanche's LaMAML: `__init__` fills a list with `torch.empty(0)`, another method
    replaces the items with real losses; the method summing them, analysed on its own,
    sees only the placeholders."""
    source = """
import torch


class Strategy:
    def __init__(self, model):
        self.model = model
        self.meta_losses = [torch.empty(0) for _ in range(2)]

    def inner(self, x):
        for i in range(2):
            self.meta_losses[i] = self.model(x).sum()

    def outer(self):
        meta_loss = sum(self.meta_losses) / len(self.meta_losses)
        meta_loss.backward()
"""
    assert "GL202" not in codes(source)
