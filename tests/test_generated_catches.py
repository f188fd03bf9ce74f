"""Catches the hand-picked tables missed, now that the tables are derived from torch 2.13
(tools/gen_torch_knowledge.py): one long-tail op per fact type, each program run in torch
to show the bug is real, and the legitimate look-alikes that must stay quiet."""

import textwrap
import warnings

import pytest
import torch
from conftest import codes

PRELUDE = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def _run(source: str) -> dict:
    scope: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(PRELUDE + textwrap.dedent(source), scope)
    return scope


def _gradients(module: torch.nn.Module, *inputs: torch.Tensor) -> list[torch.Tensor | None]:
    """The parameters' gradients after a backward from the module's output (raises when
    the output has no graph or its backward is not implemented)."""
    module(*inputs).float().sum().backward()
    return [p.grad for p in module.parameters()]


# -- integer / bool results (GL203): argsort, bucketize -----------------------------------

RANKER = """
class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(8, 1)

    def forward(self, x):
        scores = self.score(x).squeeze(-1)
        return scores.argsort(dim=0, descending=True).float()
"""

BUCKETS = """
model = nn.Linear(4, 1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
bins = torch.linspace(-1, 1, 5)
pred = torch.bucketize(model(x), bins).float()
loss = F.mse_loss(pred, y)
"""


def test_argsort_of_a_score_returned_by_forward():
    assert codes(PRELUDE + RANKER) == ["GL203"]
    with pytest.raises(RuntimeError, match="does not require grad"):
        _gradients(_run(RANKER)["Ranker"](), torch.randn(5, 8))


def test_bucketize_of_a_prediction_fed_to_the_loss():
    assert codes(PRELUDE + BUCKETS + "loss.backward()\n") == ["GL203"]
    with pytest.raises(RuntimeError, match="does not require grad"):
        _run(BUCKETS)["loss"].backward()


@pytest.mark.parametrize(
    "source",
    [
        # indexing with the order keeps a path from the scores
        RANKER.replace(".argsort(dim=0, descending=True).float()", "")
        + "        order = scores.argsort(dim=0)\n        return scores[order]\n",
        # a metric under no_grad
        BUCKETS.replace("pred = ", "with torch.no_grad():\n    hits = ").replace(
            "loss = F.mse_loss(pred, y)", "loss = F.mse_loss(model(x), y)"
        )
        + "loss.backward()\n",
    ],
)
def test_integer_results_off_the_gradient_path_stay_quiet(source):
    assert codes(PRELUDE + source) == []
    _run(source)


# -- zero gradient almost everywhere (GL203): fix ------------------------------------------

QUANTIZER = """
class Quantizer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.fix(self.proj(x) * 8) / 8
"""


def test_fix_of_a_projection_gives_zero_gradients():
    assert codes(PRELUDE + QUANTIZER) == ["GL203"]
    grads = _gradients(_run(QUANTIZER)["Quantizer"](4), torch.randn(3, 4))
    assert all(g is not None and not g.any() for g in grads)


def test_fix_in_a_straight_through_estimator_stays_quiet():
    source = QUANTIZER.replace(
        "return torch.fix(self.proj(x) * 8) / 8",
        "h = self.proj(x)\n        return h + (torch.fix(h * 8) / 8 - h).detach()",
    )
    assert codes(PRELUDE + source) == []
    grads = _gradients(_run(source)["Quantizer"](4), torch.randn(3, 4))
    assert all(g is not None and g.any() for g in grads)


# -- a backward torch has not implemented (GL203): floor_divide ---------------------------

BUCKETER = """
class Bucketer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 1)

    def forward(self, x):
        return self.fc(x).floor_divide(0.5)
"""


def test_floor_divide_returned_by_forward_has_no_backward():
    assert codes(PRELUDE + BUCKETER) == ["GL203"]
    with pytest.raises(RuntimeError, match="floor_divide is not implemented"):
        _gradients(_run(BUCKETER)["Bucketer"](4), torch.randn(3, 4))


def test_floor_divide_of_integer_labels_stays_quiet():
    source = BUCKETER.replace(
        "return self.fc(x).floor_divide(0.5)", "return self.fc(x) * x.long().floor_divide(2)"
    )
    assert codes(PRELUDE + source) == []
    _gradients(_run(source)["Bucketer"](4), torch.randn(3, 4))


# -- graph-keeping methods on data (GL202): roll ------------------------------------------

SHIFTED = """
model = nn.Linear(4, 4)
x, y = torch.randn(8, 4), torch.randn(8, 4)
pred = model(x).detach()
loss = ((pred - y.roll(1, 0)) ** 2).mean()
"""


def test_detached_prediction_against_a_rolled_target():
    """`y.roll(...)` is data: the detached prediction is the only path to the loss (the
    old table did not know `roll` keeps the graph of its receiver, so it gave up)."""
    assert codes(PRELUDE + SHIFTED + "loss.backward()\n") == ["GL202"]
    with pytest.raises(RuntimeError, match="does not require grad"):
        _run(SHIFTED)["loss"].backward()


def test_rolled_target_against_a_live_prediction_stays_quiet():
    source = SHIFTED.replace(".detach()", "")
    assert codes(PRELUDE + source + "loss.backward()\n") == []
    _run(source)["loss"].backward()


# -- methods that keep requires_grad (GL501): log of a requires-grad factory ---------------

CONTRASTIVE = """
class Contrastive(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.log_temp = torch.full((1,), 0.07, requires_grad=True).log()

    def forward(self, a, b):
        return self.proj(a) @ self.proj(b).t() / self.log_temp.exp()
"""


def test_log_of_a_requires_grad_tensor_stored_on_a_module():
    assert codes(PRELUDE + CONTRASTIVE) == ["GL501"]
    module = _run(CONTRASTIVE)["Contrastive"](4)
    assert module.log_temp.requires_grad
    assert all(p is not module.log_temp for p in module.parameters())


@pytest.mark.parametrize(
    "replacement",
    [
        "nn.Parameter(torch.full((1,), 0.07).log())",
        "torch.full((1,), 0.07).log()",  # a constant: no gradient asked for
    ],
)
def test_log_of_a_registered_or_constant_tensor_stays_quiet(replacement):
    source = CONTRASTIVE.replace("torch.full((1,), 0.07, requires_grad=True).log()", replacement)
    assert codes(PRELUDE + source) == []
    _run(source)["Contrastive"](4)


# -- reductions as torch binds them (GL404): std(dim, unbiased) ---------------------------


@pytest.mark.parametrize(
    "source",
    [
        "x = torch.randn(8, 16)\nz = x - x.std(1, True)\n",
        "def standardise(x):\n    return (x - x.mean(1, True)) / x.var(1, True)\n\n\n"
        "y = standardise(torch.randn(8, 16))\n",
    ],
)
def test_std_with_unbiased_positional_is_not_keepdim(source):
    """`x.std(1, True)` passes unbiased=True: the dim is dropped (the old table read the
    second argument as keepdim, as for `sum`)."""
    assert codes(PRELUDE + source) == ["GL404"]
    with pytest.raises(RuntimeError, match="must match the size"):
        _run(source)


@pytest.mark.parametrize(
    "source",
    [
        "x = torch.randn(8, 16)\nz = x - x.std(1, True, True)\n",
        "x = torch.randn(8, 16)\nz = x - x.std(1, keepdim=True)\n",
        "x = torch.randn(8, 16)\nz = x - x.mean(1, True)\n",
    ],
)
def test_std_with_keepdim_stays_quiet(source):
    assert codes(PRELUDE + source) == []
    _run(source)


# -- shape and layout kept (GL401): erfinv of a transposed tensor -------------------------

FLATTEN = """
def flatten_features(feats):
    b = feats.shape[0]
    h = feats.transpose(1, 2).erfinv()
    return h.view(b, -1)


y = flatten_features(torch.rand(2, 3, 4) * 0.5)
"""


def test_view_after_an_elementwise_op_of_a_transposed_tensor():
    """`erfinv` keeps its input's strides: the result is still transposed."""
    assert codes(PRELUDE + FLATTEN) == ["GL401"]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        _run(FLATTEN)


def test_view_after_contiguous_stays_quiet():
    source = FLATTEN.replace(".erfinv()", ".erfinv().contiguous()")
    assert codes(PRELUDE + source) == []
    _run(source)


# -- layers keeping the input's shape (GL404): Hardswish between mismatched sizes ---------

MLP = """
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)
        self.act = nn.Hardswish()

    def forward(self, x):
        return self.act(self.fc(x)) + x


y = Head()(torch.randn(4, 16))
"""


def test_residual_around_a_shape_keeping_activation():
    assert codes(PRELUDE + MLP) == ["GL404"]
    with pytest.raises(RuntimeError, match="must match the size"):
        _run(MLP)


def test_residual_of_matching_sizes_stays_quiet():
    source = MLP.replace("nn.Linear(16, 8)", "nn.Linear(16, 16)")
    assert codes(PRELUDE + source) == []
    _run(source)
